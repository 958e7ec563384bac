//! `C = α op(A) op(B) + β C`, one or a strided batch, column-major.

use super::handle::on_handle;
use super::raw::scalar::{GemmArgs, GemmScalar};
use super::raw::{self, check};
use super::{dim, matrix_len, Op};
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_pool::Access;
use hip_sys::rocblas::{rocblas_handle, rocblas_math_mode, RocblasApi};

/// How f32 products are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Math {
    /// Full f32 (IEEE single precision throughout).
    #[default]
    Default,
    /// TF32 tensor math: A and B rounded to 10-bit mantissas, sums in f32
    /// (cuBLAS's `CUBLAS_COMPUTE_32F_FAST_TF32`, rocBLAS's XF32 on gfx94x).
    /// For f32 GEMMs only; a library or device without it is
    /// [`LibError::Unsupported`], never a silent full-precision run.
    Tf32,
}

/// The shape of a GEMM: `op(A)` is m × k, `op(B)` k × n, C m × n, each
/// stored column-major with its leading dimension (at least its stored
/// rows, and at least 1).
///
/// ```
/// use hip_libs::blas::{Gemm, Op};
/// // C (4 × 3) = Aᵀ B with A stored 5 × 4 and B 5 × 3.
/// let shape = Gemm::new(4, 3, 5).op_a(Op::Transpose);
/// assert_eq!((shape.lda(), shape.ldb(), shape.ldc()), (5, 5, 4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gemm {
    /// Rows of op(A) and of C.
    pub m: usize,
    /// Columns of op(B) and of C.
    pub n: usize,
    /// Columns of op(A), rows of op(B).
    pub k: usize,
    op_a: Op,
    op_b: Op,
    lda: Option<usize>,
    ldb: Option<usize>,
    ldc: Option<usize>,
    math: Math,
}

impl Gemm {
    /// An m × n × k GEMM with no transposes and tight leading dimensions.
    pub fn new(m: usize, n: usize, k: usize) -> Gemm {
        Gemm { m, n, k, op_a: Op::None, op_b: Op::None, lda: None, ldb: None, ldc: None, math: Math::Default }
    }

    /// Use `op(A)`.
    pub fn op_a(mut self, op: Op) -> Gemm {
        self.op_a = op;
        self
    }

    /// Use `op(B)`.
    pub fn op_b(mut self, op: Op) -> Gemm {
        self.op_b = op;
        self
    }

    /// Set the leading dimensions (elements between columns) of A, B and C.
    pub fn leading_dims(mut self, lda: usize, ldb: usize, ldc: usize) -> Gemm {
        (self.lda, self.ldb, self.ldc) = (Some(lda), Some(ldb), Some(ldc));
        self
    }

    /// Compute with `math` (TF32 for f32 GEMMs).
    pub fn math(mut self, math: Math) -> Gemm {
        self.math = math;
        self
    }

    /// The stored rows and columns of A.
    pub fn a_dims(&self) -> (usize, usize) {
        if self.op_a == Op::None {
            (self.m, self.k)
        } else {
            (self.k, self.m)
        }
    }

    /// The stored rows and columns of B.
    pub fn b_dims(&self) -> (usize, usize) {
        if self.op_b == Op::None {
            (self.k, self.n)
        } else {
            (self.n, self.k)
        }
    }

    /// A's leading dimension: as set, or its stored rows (at least 1).
    pub fn lda(&self) -> usize {
        self.lda.unwrap_or(self.a_dims().0.max(1))
    }

    /// B's leading dimension: as set, or its stored rows (at least 1).
    pub fn ldb(&self) -> usize {
        self.ldb.unwrap_or(self.b_dims().0.max(1))
    }

    /// C's leading dimension: as set, or m (at least 1).
    pub fn ldc(&self) -> usize {
        self.ldc.unwrap_or(self.m.max(1))
    }

    /// The elements A, B and C must hold.
    pub fn lens(&self) -> [usize; 3] {
        let ((ar, ac), (br, bc)) = (self.a_dims(), self.b_dims());
        [matrix_len(ar, ac, self.lda()), matrix_len(br, bc, self.ldb()), matrix_len(self.m, self.n, self.ldc())]
    }

    /// Check the leading dimensions, the 32-bit limits and the operands'
    /// lengths (`lens` given per batch, `extent` the elements each must hold).
    fn validate(&self, op: &'static str, extent: [usize; 3], have: [usize; 3]) -> Result<()> {
        let ((ar, _), (br, _)) = (self.a_dims(), self.b_dims());
        for (name, ld, rows) in [("lda", self.lda(), ar), ("ldb", self.ldb(), br), ("ldc", self.ldc(), self.m)] {
            if ld < rows.max(1) {
                return Err(LibError::invalid(
                    op,
                    format!("{name} = {ld} is less than the {rows} stored rows (and at least 1) it must span"),
                ));
            }
        }
        for (name, value) in
            [("m", self.m), ("n", self.n), ("k", self.k), ("lda", self.lda()), ("ldb", self.ldb()), ("ldc", self.ldc())]
        {
            dim(op, name, value)?;
        }
        for ((name, need), got) in ["A", "B", "C"].into_iter().zip(extent).zip(have) {
            if got < need {
                return Err(LibError::invalid(
                    op,
                    format!("{name} holds {got} elements; this {}×{}×{} GEMM needs {need}", self.m, self.n, self.k),
                ));
            }
        }
        Ok(())
    }
}

/// A strided batch: `count` GEMMs, the i-th on A, B and C offset by `i`
/// times their strides (elements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batch {
    /// GEMMs in the batch.
    pub count: usize,
    /// Elements between consecutive A matrices (0 reuses one A).
    pub stride_a: usize,
    /// Elements between consecutive B matrices (0 reuses one B).
    pub stride_b: usize,
    /// Elements between consecutive C matrices (at least one C's extent:
    /// outputs may not overlap).
    pub stride_c: usize,
}

impl Batch {
    /// `count` matrices of `shape` packed one after another.
    pub fn packed(count: usize, shape: &Gemm) -> Batch {
        let [a, b, c] = shape.lens();
        Batch { count, stride_a: a, stride_b: b, stride_c: c }
    }
}

/// `C = α op(A) op(B) + β C` on C's stream (`rocblas_?gemm`, or
/// `rocblas_gemm_ex` for the half types).
///
/// Operands are column-major; `shape` gives the sizes, transposes,
/// leading dimensions and math. A, B and C must be on one device and hold
/// at least the elements their shape spans; every size must fit rocBLAS's
/// 32-bit `rocblas_int`. A and B may belong to other streams: they are
/// ordered on the GPU and kept from reuse until the product is done.
///
/// The guide of the `amdgpu` crate has an example.
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for a leading dimension
/// below its rows, a size over `i32::MAX`, a short operand or TF32 on a
/// non-f32 type; [`LibError::Hip`] with a device mismatch when A or B is not
/// on C's device. Then [`LibError::Unsupported`] when rocBLAS has no TF32,
/// [`LibError::Status`] with rocBLAS's status, [`LibError::Unavailable`]
/// without rocBLAS, or `Pool`/`Hip` from the workspace or operand ordering.
///
/// # Examples
/// ```
/// use hip_libs::blas::{self, Gemm, Op};
/// # fn project(a: &impl hip_libs::DeviceData<f32>, b: &impl hip_libs::DeviceData<f32>,
/// #            c: &mut impl hip_libs::DeviceDataMut<f32>) -> hip_libs::Result<()> {
/// // C (128 × 64) = Aᵀ B, A stored 256 × 128 and B 256 × 64, column-major.
/// let shape = Gemm::new(128, 64, 256).op_a(Op::Transpose);
/// blas::gemm(&shape, 1.0, a, b, 0.0, c)?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocblas_sgemm")]
#[doc(alias = "rocblas_dgemm")]
#[doc(alias = "rocblas_cgemm")]
#[doc(alias = "rocblas_zgemm")]
#[doc(alias = "rocblas_gemm_ex")]
pub fn gemm<T: GemmScalar>(
    shape: &Gemm,
    alpha: T::Scalar,
    a: &impl DeviceData<T>,
    b: &impl DeviceData<T>,
    beta: T::Scalar,
    c: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    let lens = shape.lens();
    shape.validate("gemm", lens, [a.len(), b.len(), c.len()])?;
    run::<T>("gemm", shape, None, alpha, a, b, beta, c)
}

/// `batch.count` GEMMs of one shape on strided operands, on C's stream
/// (`rocblas_?gemm_strided_batched`, or `rocblas_gemm_strided_batched_ex`
/// for the half types). Checked as [`gemm`], with each operand holding its
/// last matrix and C's matrices not overlapping.
///
/// # Errors
/// As [`gemm`]; [`LibError::InvalidInput`] also when `stride_c` is below
/// one C's extent (for more than one GEMM), the count exceeds `i32::MAX`
/// or a stride exceeds `i64::MAX`.
#[doc(alias = "rocblas_sgemm_strided_batched")]
#[doc(alias = "rocblas_dgemm_strided_batched")]
#[doc(alias = "rocblas_cgemm_strided_batched")]
#[doc(alias = "rocblas_zgemm_strided_batched")]
#[doc(alias = "rocblas_gemm_strided_batched_ex")]
pub fn gemm_strided_batched<T: GemmScalar>(
    shape: &Gemm,
    batch: &Batch,
    alpha: T::Scalar,
    a: &impl DeviceData<T>,
    b: &impl DeviceData<T>,
    beta: T::Scalar,
    c: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "gemm_strided_batched";
    let lens = shape.lens();
    if batch.count > 1 && batch.stride_c < lens[2] {
        return Err(LibError::invalid(
            OP,
            format!(
                "stride_c = {} is less than one C's {} elements: the outputs would overlap",
                batch.stride_c, lens[2]
            ),
        ));
    }
    dim(OP, "batch count", batch.count)?;
    let strides = [batch.stride_a, batch.stride_b, batch.stride_c];
    for (name, stride) in ["stride_a", "stride_b", "stride_c"].into_iter().zip(strides) {
        if i64::try_from(stride).is_err() {
            return Err(LibError::invalid(OP, format!("{name} = {stride} does not fit rocBLAS's 64-bit stride")));
        }
    }
    let extent = |i: usize| {
        if lens[i] == 0 || batch.count == 0 {
            0
        } else {
            strides[i].saturating_mul(batch.count - 1).saturating_add(lens[i])
        }
    };
    shape.validate(OP, [extent(0), extent(1), extent(2)], [a.len(), b.len(), c.len()])?;
    run::<T>(OP, shape, Some(batch), alpha, a, b, beta, c)
}

#[allow(clippy::too_many_arguments)]
fn run<T: GemmScalar>(
    op: &'static str,
    shape: &Gemm,
    batch: Option<&Batch>,
    alpha: T::Scalar,
    a: &impl DeviceData<T>,
    b: &impl DeviceData<T>,
    beta: T::Scalar,
    c: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    let device = c.device();
    same_device(op, device, &[("A", a.device()), ("B", b.device())])?;
    let tf32 = shape.math == Math::Tf32;
    if tf32 && !T::TF32_APPLIES {
        return Err(LibError::invalid(op, format!("TF32 math applies to f32 GEMMs; this one is {}", T::NAME)));
    }
    let count = batch.map_or(1, |b| b.count);
    if shape.m == 0 || shape.n == 0 || count == 0 {
        return Ok(());
    }
    let stream = c.stream().clone();
    let (a_ptr, b_ptr, c_ptr) = (a.device_ptr(), b.device_ptr(), c.device_ptr_mut());
    // The sizes were checked to fit `i32` and the strides `i64`.
    let args = |handle| GemmArgs {
        handle,
        op_a: shape.op_a.raw(),
        op_b: shape.op_b.raw(),
        m: shape.m as i32,
        n: shape.n as i32,
        k: shape.k as i32,
        a: a_ptr,
        lda: shape.lda() as i32,
        b: b_ptr,
        ldb: shape.ldb() as i32,
        c: c_ptr,
        ldc: shape.ldc() as i32,
        strides: batch.map_or([0; 3], |b| [b.stride_a as i64, b.stride_b as i64, b.stride_c as i64]),
        batch: count as i32,
    };
    let operands = [(a.buffer(), Access::Read), (b.buffer(), Access::Read), (c.buffer(), Access::Write)];
    on_handle(&stream, &operands, |api, handle| {
        if tf32 {
            set_tf32(api, handle, op)?;
        }
        // SAFETY: a live handle bound to C's stream; the operands are
        // device memory of the checked extents on its device; α and β are
        // host scalars of the type (host pointer mode).
        let status = unsafe { T::gemm(api, &args(handle), &alpha, &beta) };
        let reset = if tf32 {
            // SAFETY: a live handle; back to the mode the cache assumes.
            unsafe { raw::set_math_mode(api, handle, rocblas_math_mode::rocblas_default_math) }
        } else {
            Ok(())
        };
        check(status, op).and(reset)
    })
}

/// Put the handle in XF32 math, or say that this library or device has none.
fn set_tf32(api: &RocblasApi, handle: rocblas_handle, op: &'static str) -> Result<()> {
    let xf32 = rocblas_math_mode::rocblas_xf32_xdl_math_op;
    // SAFETY: a live handle.
    unsafe { raw::set_math_mode(api, handle, xf32) }?;
    // SAFETY: a live handle.
    if unsafe { raw::math_mode(api, handle) }? != xf32 {
        return Err(LibError::Unsupported {
            library: "rocBLAS",
            operation: op,
            problem: "this device or rocBLAS has no TF32 (XF32) math: rocBLAS has it from 3.1 (ROCm 5.7) on gfx94x; \
                      use Math::Default"
                .to_owned(),
        });
    }
    Ok(())
}
