//! The element types of the BLAS wrappers and the rocBLAS function of each.
//!
//! Complex numbers are `[re, im]` pairs, as in [`crate::fft`]; their layout
//! is rocBLAS's `rocblas_float_complex` / `rocblas_double_complex`.

use super::dispatch::RocblasTyped;
use half::{bf16, f16};
use hip_sys::rocblas::{
    rocblas_datatype, rocblas_gemm_algo, rocblas_handle, rocblas_operation, rocblas_status, RocblasApi,
};
use std::ffi::c_void;

mod sealed {
    pub trait Sealed {}
}

/// One GEMM's arguments as rocBLAS takes them (column-major, checked);
/// not nameable outside the crate.
#[doc(hidden)]
pub struct GemmArgs {
    pub handle: rocblas_handle,
    pub op_a: rocblas_operation,
    pub op_b: rocblas_operation,
    pub m: i32,
    pub n: i32,
    pub k: i32,
    pub a: *const c_void,
    pub lda: i32,
    pub b: *const c_void,
    pub ldb: i32,
    pub c: *mut c_void,
    pub ldc: i32,
    /// Elements between batches of A, B and C; with the batch count.
    pub strides: [i64; 3],
    pub batch: i32,
}

/// An element type GEMM takes: `f32`, `f64`, `[f32; 2]`, `[f64; 2]`,
/// [`half::f16`](struct@half::f16) and [`half::bf16`] (these two computed in f32, with f32 scalars,
/// through `rocblas_gemm_ex`).
pub trait GemmScalar: Copy + Send + Sync + 'static + sealed::Sealed {
    /// The type of α and β.
    type Scalar: Copy + Send + Sync + 'static;
    /// The type's name in messages.
    const NAME: &'static str;
    /// Whether TF32 (XF32) math applies: f32 only.
    const TF32_APPLIES: bool = false;

    /// Run one GEMM (strided batched when `args.batch` is not 1 or any
    /// stride is set).
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract for this type.
    #[doc(hidden)]
    unsafe fn gemm(api: &RocblasApi, args: &GemmArgs, alpha: &Self::Scalar, beta: &Self::Scalar) -> rocblas_status;
}

/// An element type of GEMV and the level 1 functions: `f32`, `f64`,
/// `[f32; 2]`, `[f64; 2]`.
pub trait BlasScalar: GemmScalar<Scalar = Self> + Default {
    /// The real type of norms (`f32` for `[f32; 2]`).
    type Real: Copy + Send + Sync + 'static + Default;

    /// `rocblas_?gemv`.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemv(
        api: &RocblasApi,
        handle: rocblas_handle,
        op: rocblas_operation,
        m: i32,
        n: i32,
        alpha: &Self,
        a: *const c_void,
        lda: i32,
        x: *const c_void,
        beta: &Self,
        y: *mut c_void,
    ) -> rocblas_status;

    /// `rocblas_?axpy` with unit increments.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    unsafe fn axpy(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        alpha: &Self,
        x: *const c_void,
        y: *mut c_void,
    ) -> rocblas_status;

    /// `rocblas_?scal` with a unit increment.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    unsafe fn scal(api: &RocblasApi, handle: rocblas_handle, n: i32, alpha: &Self, x: *mut c_void) -> rocblas_status;

    /// `rocblas_?dot` (`dotu` for complex; `dotc` with `conjugate`), the
    /// result to host memory.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    unsafe fn dot(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        x: *const c_void,
        y: *const c_void,
        conjugate: bool,
        result: &mut Self,
    ) -> rocblas_status;

    /// `rocblas_?nrm2`, the result to host memory.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    unsafe fn nrm2(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        x: *const c_void,
        result: &mut Self::Real,
    ) -> rocblas_status;
}

impl<T: RocblasTyped> sealed::Sealed for T {}

impl<T: RocblasTyped> GemmScalar for T {
    type Scalar = T;
    const NAME: &'static str = <T as RocblasTyped>::NAME;
    // TF32 (XF32) is a mode of single-precision real GEMMs only.
    const TF32_APPLIES: bool = <T as RocblasTyped>::PREFIX == 's';

    unsafe fn gemm(api: &RocblasApi, g: &GemmArgs, alpha: &T, beta: &T) -> rocblas_status {
        let (alpha, beta) = (alpha as *const T, beta as *const T);
        let (a, b, c) = (g.a.cast(), g.b.cast(), g.c.cast());
        if g.batch == 1 && g.strides == [0; 3] {
            // SAFETY: the caller's guarantee.
            unsafe { T::gemm(api, g.handle, g.op_a, g.op_b, g.m, g.n, g.k, alpha, a, g.lda, b, g.ldb, beta, c, g.ldc) }
        } else {
            let [sa, sb, sc] = g.strides;
            // SAFETY: the caller's guarantee.
            unsafe {
                T::gemm_strided_batched(
                    api, g.handle, g.op_a, g.op_b, g.m, g.n, g.k, alpha, a, g.lda, sa, b, g.ldb, sb, beta, c, g.ldc,
                    sc, g.batch,
                )
            }
        }
    }
}

impl<T: RocblasTyped + Default> BlasScalar for T
where
    <T as RocblasTyped>::Real: Default,
{
    type Real = <T as RocblasTyped>::Real;

    unsafe fn gemv(
        api: &RocblasApi,
        handle: rocblas_handle,
        op: rocblas_operation,
        m: i32,
        n: i32,
        alpha: &T,
        a: *const c_void,
        lda: i32,
        x: *const c_void,
        beta: &T,
        y: *mut c_void,
    ) -> rocblas_status {
        let (alpha, beta, a, x, y) = (alpha as *const T, beta as *const T, a.cast(), x.cast(), y.cast());
        // SAFETY: the caller's guarantee.
        unsafe { T::gemv(api, handle, op, m, n, alpha, a, lda, x, 1, beta, y, 1) }
    }

    unsafe fn axpy(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        alpha: &T,
        x: *const c_void,
        y: *mut c_void,
    ) -> rocblas_status {
        // SAFETY: the caller's guarantee.
        unsafe { T::axpy(api, handle, n, alpha, x.cast(), 1, y.cast(), 1) }
    }

    unsafe fn scal(api: &RocblasApi, handle: rocblas_handle, n: i32, alpha: &T, x: *mut c_void) -> rocblas_status {
        // SAFETY: the caller's guarantee.
        unsafe { T::scal(api, handle, n, alpha, x.cast(), 1) }
    }

    unsafe fn dot(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        x: *const c_void,
        y: *const c_void,
        conjugate: bool,
        result: &mut T,
    ) -> rocblas_status {
        let (x, y, result) = (x.cast(), y.cast(), result as *mut T);
        // SAFETY: the caller's guarantee; `result` is host memory of the
        // type. Real types have one dot (`dotu` and `dotc` are both `?dot`).
        unsafe {
            if conjugate {
                T::dotc(api, handle, n, x, 1, y, 1, result)
            } else {
                T::dotu(api, handle, n, x, 1, y, 1, result)
            }
        }
    }

    unsafe fn nrm2(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        x: *const c_void,
        result: &mut Self::Real,
    ) -> rocblas_status {
        // SAFETY: the caller's guarantee; `result` is host memory.
        unsafe { T::nrm2(api, handle, n, x.cast(), 1, result) }
    }
}

impl sealed::Sealed for f16 {}
impl sealed::Sealed for bf16 {}

impl GemmScalar for f16 {
    type Scalar = f32;
    const NAME: &'static str = "f16";

    unsafe fn gemm(api: &RocblasApi, g: &GemmArgs, alpha: &f32, beta: &f32) -> rocblas_status {
        // SAFETY: the caller's guarantee.
        unsafe { gemm_ex(api, g, rocblas_datatype::rocblas_datatype_f16_r, alpha, beta) }
    }
}

impl GemmScalar for bf16 {
    type Scalar = f32;
    const NAME: &'static str = "bf16";

    unsafe fn gemm(api: &RocblasApi, g: &GemmArgs, alpha: &f32, beta: &f32) -> rocblas_status {
        // SAFETY: the caller's guarantee.
        unsafe { gemm_ex(api, g, rocblas_datatype::rocblas_datatype_bf16_r, alpha, beta) }
    }
}

/// A half type's GEMM through `rocblas_gemm_ex` (`_strided_batched_ex`
/// for a batch) with f32 compute and scalars, D = C, computed in place.
///
/// # Safety
/// The arguments satisfy rocBLAS's contract for elements of type `t`.
unsafe fn gemm_ex(api: &RocblasApi, g: &GemmArgs, t: rocblas_datatype, alpha: &f32, beta: &f32) -> rocblas_status {
    let f32t = rocblas_datatype::rocblas_datatype_f32_r;
    let standard = rocblas_gemm_algo::rocblas_gemm_algo_standard;
    let (alpha, beta) = ((alpha as *const f32).cast(), (beta as *const f32).cast());
    let (h, m, n, k, a, b, c) = (g.handle, g.m, g.n, g.k, g.a, g.b, g.c);
    if g.batch == 1 && g.strides == [0; 3] {
        // SAFETY: the caller's guarantee.
        unsafe {
            (api.rocblas_gemm_ex)(
                h, g.op_a, g.op_b, m, n, k, alpha, a, t, g.lda, b, t, g.ldb, beta, c, t, g.ldc, c, t, g.ldc, f32t,
                standard, 0, 0,
            )
        }
    } else {
        let [sa, sb, sc] = g.strides;
        // SAFETY: the caller's guarantee.
        unsafe {
            (api.rocblas_gemm_strided_batched_ex)(
                h, g.op_a, g.op_b, m, n, k, alpha, a, t, g.lda, sa, b, t, g.ldb, sb, beta, c, t, g.ldc, sc, c, t,
                g.ldc, sc, g.batch, f32t, standard, 0, 0,
            )
        }
    }
}
