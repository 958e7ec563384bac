//! Strided batches: one call factors or solves `count` problems of one
//! shape, problem `i`'s matrices `i` strides after the first's
//! (`rocsolver_*_strided_batched`).
//!
//! The checks are the single calls', once for the shape, then for the
//! batch: every operand holds its last problem, written operands' problems
//! do not overlap (rocSOLVER checks no stride: the GPU would compute
//! overlapping problems in parallel into the same memory), and the count
//! and strides fit rocSOLVER's `rocblas_int` and `rocblas_stride`. A
//! factorization's [`Info`] holds one value per problem; [`Pivots`] made
//! by [`Pivots::batched`] hold one problem's pivots after another.

use super::capture::refuse_cusolver_capture;
use super::cholesky::Triangle;
use super::eigen::{sizing_fits, Vectors};
use super::info::{Factorization, Info, Pivots};
use super::raw::{check, SolverScalar};
use super::shape::Shape;
use crate::blas::{on_handle_sized, Op};
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_core::Stream;
use hip_pool::{Access, Buffer};

/// A strided batch of `count` problems of one shape: problem `i`'s A
/// begins `i × stride_a` elements after the first's, its B (for the
/// solves) `i × stride_b` after the first B's.
///
/// A factorization writes A, so its problems must not overlap:
/// `stride_a` is at least one A's extent (for more than one problem). A
/// solve only reads A, so `stride_a` may be 0 (one factorization for
/// every right-hand side), and writes B.
///
/// ```
/// use hip_libs::solver::{Batch, Shape};
/// let a = Shape::square(8);
/// let batch = Batch::packed(100, &a);
/// assert_eq!((batch.count, batch.stride_a), (100, 64));
/// let b = Shape::new(8, 2);
/// assert_eq!(batch.with_b(&b).stride_b, 16);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batch {
    /// Problems in the batch.
    pub count: usize,
    /// Elements between consecutive A matrices.
    pub stride_a: usize,
    /// Elements between consecutive B matrices (solves only).
    pub stride_b: usize,
}

impl Batch {
    /// `count` matrices of shape `a` packed one after another (`stride_a`
    /// one A's extent; `stride_b` 0 until [`with_b`](Batch::with_b)).
    pub fn packed(count: usize, a: &Shape) -> Batch {
        Batch { count, stride_a: a.len(), stride_b: 0 }
    }

    /// The same batch with its B matrices of shape `b` packed.
    pub fn with_b(self, b: &Shape) -> Batch {
        Batch { stride_b: b.len(), ..self }
    }

    /// The count as a `rocblas_int`.
    pub(super) fn count(&self, op: &'static str) -> Result<i32> {
        i32::try_from(self.count)
            .map_err(|_| LibError::invalid(op, format!("a batch of {} exceeds rocSOLVER's 32-bit count", self.count)))
    }

    /// Check that `have` elements hold the operand `name` of shape `one`
    /// elements per problem, `stride` apart, for every problem, and that a
    /// `written` operand's problems do not overlap; the stride as a
    /// `rocblas_stride`.
    pub(super) fn operand(
        &self,
        op: &'static str,
        name: &str,
        one: usize,
        stride: usize,
        have: usize,
        written: bool,
    ) -> Result<i64> {
        let stride_name = match name {
            "A" => "stride_a",
            "B" => "stride_b",
            _ => "its stride",
        };
        if written && self.count > 1 && one > 0 && stride < one {
            return Err(LibError::invalid(
                op,
                format!(
                    "{stride_name} = {stride} is less than one {name}'s {one} elements: the problems would overlap, \
                     and the GPU computes them in parallel"
                ),
            ));
        }
        let extent = if one == 0 || self.count == 0 {
            Some(0)
        } else {
            stride.checked_mul(self.count - 1).and_then(|last| last.checked_add(one))
        };
        let Some(extent) = extent else {
            return Err(LibError::invalid(op, format!("{} problems {stride} elements apart overflow", self.count)));
        };
        if have < extent {
            return Err(LibError::invalid(
                op,
                format!(
                    "{name} holds {have} elements; {} problems of {one} elements, {stride} apart, span {extent}",
                    self.count
                ),
            ));
        }
        i64::try_from(stride)
            .map_err(|_| LibError::invalid(op, format!("{stride_name} = {stride} exceeds rocSOLVER's 64-bit stride")))
    }
}

/// rocSOLVER's scratch of `per_problem` reals (`R`) for each of `problems`
/// problems, from the pool of `stream`'s device.
///
/// # Errors
/// [`LibError::InvalidInput`] when it would not fit in an address space;
/// `Pool` when the pool cannot serve it.
pub(super) fn scratch<R>(op: &'static str, per_problem: usize, problems: usize, stream: &Stream) -> Result<Buffer> {
    let bytes =
        per_problem.checked_mul(problems).and_then(|e| e.checked_mul(std::mem::size_of::<R>())).ok_or_else(|| {
            LibError::invalid(
                op,
                format!("{problems} problems' scratch of {per_problem} reals do not fit in an address space"),
            )
        })?;
    Ok(hip_pool::alloc_on(stream.device(), bytes, stream)?)
}

/// Check `pivots` for a batched LU of `count` problems of `k` pivots
/// each; their stride as a `rocblas_stride`.
pub(super) fn pivots_hold(op: &'static str, pivots: &Pivots, count: usize, k: usize) -> Result<i64> {
    if pivots.count() < count || pivots.len_per_problem() < k {
        return Err(LibError::invalid(
            op,
            format!(
                "the pivots hold {} problems of {}; this batch needs {count} of min(m, n) = {k}",
                pivots.count(),
                pivots.len_per_problem(),
            ),
        ));
    }
    i64::try_from(pivots.len_per_problem()).map_err(|_| LibError::invalid(op, "the pivots' stride exceeds 64 bits"))
}

/// Factor each of a strided batch of `m × n` matrices as `P A = L U` in
/// place, on A's stream (`rocsolver_?getrf_strided_batched`), as
/// [`getrf`](super::getrf) does one.
///
/// Returns the batch's [`Info`], one value per problem, still on the
/// device; `pivots` (from [`Pivots::batched`], at least `batch.count`
/// problems of `min(m, n)`) receive each problem's row swaps.
///
/// ```
/// # fn main() -> hip_libs::Result<()> {
/// use hip_libs::solver::{self, Batch, Pivots, Shape};
/// # use hip_libs::{DeviceData, DeviceDataMut};
/// # fn lu<A: DeviceDataMut<f64>>(a: &mut A, stream: &hip_core::Stream) -> hip_libs::Result<()> {
/// let shape = Shape::square(4);
/// let batch = Batch::packed(1000, &shape);
/// let mut pivots = Pivots::batched(4, 1000, stream)?;
/// solver::getrf_strided_batched(&shape, &batch, a, &mut pivots)?.check()?;
/// # Ok(()) }
/// # Ok(()) }
/// ```
///
/// # Errors
/// As [`getrf`](super::getrf); [`LibError::InvalidInput`] also for an A
/// shorter than the batch spans, a `stride_a` below one A's extent (for
/// more than one problem), pivots for fewer problems or of fewer than
/// `min(m, n)` each, or a count over `i32::MAX`.
#[doc(alias = "rocsolver_sgetrf_strided_batched")]
#[doc(alias = "rocsolver_dgetrf_strided_batched")]
#[doc(alias = "rocsolver_cgetrf_strided_batched")]
#[doc(alias = "rocsolver_zgetrf_strided_batched")]
pub fn getrf_strided_batched<T: SolverScalar>(
    shape: &Shape,
    batch: &Batch,
    a: &mut impl DeviceDataMut<T>,
    pivots: &mut Pivots,
) -> Result<Info> {
    const OP: &str = "getrf_strided_batched";
    let [m, n, lda] = shape.dims(OP, "A")?;
    let count = batch.count(OP)?;
    let stride_a = batch.operand(OP, "A", shape.len(), batch.stride_a, a.len(), true)?;
    let k = shape.rows.min(shape.cols);
    let stride_p = pivots_hold(OP, pivots, batch.count, k)?;
    let device = a.device();
    same_device(OP, device, &[("the pivots", pivots.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    let info = Info::batch(OP, Factorization::Lu, batch.count, &stream)?;
    let (a_ptr, ipiv, info_ptr) = (a.device_ptr_mut().cast::<T>(), pivots.as_mut_ptr(), info.as_mut_ptr());
    let operands = [(a.buffer(), Access::Write), (pivots.buffer(), Access::Write), (info.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A, the pivots and
        // info are device memory of the checked extents on its device.
        unsafe { T::getrf_strided_batched(api, handle, m, n, a_ptr, lda, stride_a, ipiv, stride_p, info_ptr, count) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    pivots.written_by(shape.rows, batch.count);
    Ok(info)
}

/// Solve `op(A_i) X_i = B_i` in place of each B of a strided batch, on B's
/// stream (`rocsolver_?getrs_strided_batched`), with the LU factors and
/// pivots of [`getrf_strided_batched`], as [`getrs`](super::getrs) does
/// one: problem `i` uses the pivots of problem `i`. A `batch.stride_a` of
/// 0 solves every B with the first problem's factors and pivots (one
/// factorization, many right-hand sides).
///
/// # Errors
/// As [`getrs`](super::getrs); [`LibError::InvalidInput`] also for an A or
/// B shorter than the batch spans, a `stride_b` below one B's extent (for
/// more than one problem), pivots that no batched `getrf` wrote for as
/// many problems, or a count over `i32::MAX`.
#[doc(alias = "rocsolver_sgetrs_strided_batched")]
#[doc(alias = "rocsolver_dgetrs_strided_batched")]
#[doc(alias = "rocsolver_cgetrs_strided_batched")]
#[doc(alias = "rocsolver_zgetrs_strided_batched")]
pub fn getrs_strided_batched<T: SolverScalar>(
    op: Op,
    a_shape: &Shape,
    a: &impl DeviceData<T>,
    pivots: &Pivots,
    b_shape: &Shape,
    batch: &Batch,
    b: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "getrs_strided_batched";
    let [n, lda, nrhs, ldb] = a_shape.solve_dims(OP, b_shape)?;
    let count = batch.count(OP)?;
    let stride_a = batch.operand(OP, "A", a_shape.len(), batch.stride_a, a.len(), false)?;
    let stride_b = batch.operand(OP, "B", b_shape.len(), batch.stride_b, b.len(), true)?;
    // One factorization for every B (stride 0) reads the first problem's pivots.
    let shared = batch.stride_a == 0;
    let problems = if shared { batch.count.min(1) } else { batch.count };
    pivots.check_solve(OP, a_shape.rows, problems)?;
    let stride_p = if shared { 0 } else { pivots.len_per_problem() };
    let stride_p = i64::try_from(stride_p).map_err(|_| LibError::invalid(OP, "the pivots' stride exceeds 64 bits"))?;
    let device = b.device();
    same_device(OP, device, &[("A", a.device()), ("the pivots", pivots.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = b.stream().clone();
    // rocSOLVER's getrs only reads A, though its signature is not const.
    let (a_ptr, ipiv, b_ptr) =
        (a.device_ptr() as *mut T, pivots.device_ptr().cast::<i32>(), b.device_ptr_mut().cast::<T>());
    let trans = op.raw();
    let operands = [(a.buffer(), Access::Read), (pivots.buffer(), Access::Read), (b.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to B's stream; A, the pivots (each
        // in 1..=n, written by getrf) and B are device memory of the
        // checked extents on its device.
        unsafe {
            T::getrs_strided_batched(
                api, handle, trans, n, nrhs, a_ptr, lda, stride_a, ipiv, stride_p, b_ptr, ldb, stride_b, count,
            )
        }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))
}

/// Factor each Hermitian positive definite matrix of a strided batch in
/// its `triangle`, in place, on A's stream
/// (`rocsolver_?potrf_strided_batched`), as [`potrf`](super::potrf) does
/// one. Returns the batch's [`Info`], one value per problem.
///
/// # Errors
/// As [`potrf`](super::potrf); [`LibError::InvalidInput`] also for an A
/// shorter than the batch spans, a `stride_a` below one A's extent (for
/// more than one problem), or a count over `i32::MAX`.
#[doc(alias = "rocsolver_spotrf_strided_batched")]
#[doc(alias = "rocsolver_dpotrf_strided_batched")]
#[doc(alias = "rocsolver_cpotrf_strided_batched")]
#[doc(alias = "rocsolver_zpotrf_strided_batched")]
pub fn potrf_strided_batched<T: SolverScalar>(
    triangle: Triangle,
    shape: &Shape,
    batch: &Batch,
    a: &mut impl DeviceDataMut<T>,
) -> Result<Info> {
    const OP: &str = "potrf_strided_batched";
    shape.square_check(OP, "A")?;
    let [n, _, lda] = shape.dims(OP, "A")?;
    let count = batch.count(OP)?;
    let stride_a = batch.operand(OP, "A", shape.len(), batch.stride_a, a.len(), true)?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    let info = Info::batch(OP, Factorization::Cholesky, batch.count, &stream)?;
    let (a_ptr, info_ptr, uplo) = (a.device_ptr_mut().cast::<T>(), info.as_mut_ptr(), triangle.raw());
    let operands = [(a.buffer(), Access::Write), (info.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A and info are device
        // memory of the checked extents on its device.
        unsafe { T::potrf_strided_batched(api, handle, uplo, n, a_ptr, lda, stride_a, info_ptr, count) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}

/// Solve `A_i X_i = B_i` in place of each B of a strided batch, on B's
/// stream (`rocsolver_?potrs_strided_batched`), with the Cholesky factors
/// of [`potrf_strided_batched`] in their `triangle`, as
/// [`potrs`](super::potrs) does one. `batch.stride_a` may be 0.
///
/// # Errors
/// As [`potrs`](super::potrs); [`LibError::InvalidInput`] also for an A or
/// B shorter than the batch spans, a `stride_b` below one B's extent (for
/// more than one problem), or a count over `i32::MAX`.
#[doc(alias = "rocsolver_spotrs_strided_batched")]
#[doc(alias = "rocsolver_dpotrs_strided_batched")]
#[doc(alias = "rocsolver_cpotrs_strided_batched")]
#[doc(alias = "rocsolver_zpotrs_strided_batched")]
pub fn potrs_strided_batched<T: SolverScalar>(
    triangle: Triangle,
    a_shape: &Shape,
    a: &impl DeviceData<T>,
    b_shape: &Shape,
    batch: &Batch,
    b: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "potrs_strided_batched";
    let [n, lda, nrhs, ldb] = a_shape.solve_dims(OP, b_shape)?;
    let count = batch.count(OP)?;
    let stride_a = batch.operand(OP, "A", a_shape.len(), batch.stride_a, a.len(), false)?;
    let stride_b = batch.operand(OP, "B", b_shape.len(), batch.stride_b, b.len(), true)?;
    same_device(OP, b.device(), &[("A", a.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = b.stream().clone();
    // rocSOLVER's potrs only reads A, though its signature is not const.
    let (a_ptr, b_ptr, uplo) = (a.device_ptr() as *mut T, b.device_ptr_mut().cast::<T>(), triangle.raw());
    let operands = [(a.buffer(), Access::Read), (b.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to B's stream; A and B are device
        // memory of the checked extents on its device.
        unsafe {
            T::potrs_strided_batched(api, handle, uplo, n, nrhs, a_ptr, lda, stride_a, b_ptr, ldb, stride_b, count)
        }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))
}

/// Factor each `m × n` matrix of a strided batch as `A = Q R` in place,
/// on A's stream (`rocsolver_?geqrf_strided_batched`), as
/// [`geqrf`](super::geqrf) does one; problem `i`'s `min(m, n)` Householder
/// scalars go to `tau` from element `i × min(m, n)` on.
///
/// # Errors
/// As [`geqrf`](super::geqrf); [`LibError::InvalidInput`] also for an A or
/// tau shorter than the batch spans, a `stride_a` below one A's extent
/// (for more than one problem), or a count over `i32::MAX`.
#[doc(alias = "rocsolver_sgeqrf_strided_batched")]
#[doc(alias = "rocsolver_dgeqrf_strided_batched")]
#[doc(alias = "rocsolver_cgeqrf_strided_batched")]
#[doc(alias = "rocsolver_zgeqrf_strided_batched")]
pub fn geqrf_strided_batched<T: SolverScalar>(
    shape: &Shape,
    batch: &Batch,
    a: &mut impl DeviceDataMut<T>,
    tau: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "geqrf_strided_batched";
    let [m, n, lda] = shape.dims(OP, "A")?;
    let count = batch.count(OP)?;
    let stride_a = batch.operand(OP, "A", shape.len(), batch.stride_a, a.len(), true)?;
    let k = shape.rows.min(shape.cols);
    let stride_p = batch.operand(OP, "tau", k, k, tau.len(), true)?;
    same_device(OP, a.device(), &[("tau", tau.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    let (a_ptr, tau_ptr) = (a.device_ptr_mut().cast::<T>(), tau.device_ptr_mut().cast::<T>());
    let operands = [(a.buffer(), Access::Write), (tau.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A and tau are device
        // memory of the checked extents on its device.
        unsafe { T::geqrf_strided_batched(api, handle, m, n, a_ptr, lda, stride_a, tau_ptr, stride_p, count) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))
}

/// The eigenvalues (ascending) and, with [`Vectors::Compute`], the
/// eigenvectors of each symmetric (Hermitian) `n × n` matrix of a strided
/// batch, on A's stream (`rocsolver_?syevd_strided_batched`,
/// `rocsolver_?heevd_strided_batched`), as [`syevd`](super::syevd) does
/// one: problem `i`'s eigenvalues go to `eigenvalues` from element
/// `i × n` on, its eigenvectors over its A.
///
/// Returns one [`Info`] value per problem, still on the device:
/// [`Info::check`] names the first problem that did not converge.
///
/// # Errors
/// As [`syevd`](super::syevd); [`LibError::InvalidInput`] also for an A
/// shorter than the batch spans, a `stride_a` below one A's extent (for
/// more than one problem), fewer than `count × n` eigenvalues, a count
/// over `i32::MAX`, or, with eigenvectors from order 32, a batch whose
/// `2·n²·count` reaches 2^31 (rocSOLVER 3.21 sizes its divide-and-conquer
/// workspace in 32-bit ints and would overflow; the error says how many
/// problems a batch may hold).
///
/// # Examples
/// ```
/// use hip_libs::solver::{syevd_strided_batched, Batch, Shape, Triangle, Vectors};
/// # fn eigh(a: &mut impl hip_libs::DeviceDataMut<f64>, w: &mut impl hip_libs::DeviceDataMut<f64>)
/// #     -> hip_libs::Result<()> {
/// // 64 packed 16 × 16 symmetric matrices; w holds 64 × 16 eigenvalues.
/// let shape = Shape::square(16);
/// let info = syevd_strided_batched(Vectors::Compute, Triangle::Lower, &shape, &Batch::packed(64, &shape), a, w)?;
/// info.check()?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocsolver_ssyevd_strided_batched")]
#[doc(alias = "rocsolver_dsyevd_strided_batched")]
#[doc(alias = "rocsolver_cheevd_strided_batched")]
#[doc(alias = "rocsolver_zheevd_strided_batched")]
#[doc(alias = "heevd_strided_batched")]
pub fn syevd_strided_batched<T: SolverScalar>(
    vectors: Vectors,
    triangle: Triangle,
    shape: &Shape,
    batch: &Batch,
    a: &mut impl DeviceDataMut<T>,
    eigenvalues: &mut impl DeviceDataMut<T::Real>,
) -> Result<Info> {
    const OP: &str = "syevd_strided_batched";
    shape.square_check(OP, "A")?;
    let [n, _, lda] = shape.dims(OP, "A")?;
    let count = batch.count(OP)?;
    let order = shape.rows;
    sizing_fits(OP, vectors, order, batch.count)?;
    refuse_cusolver_capture("cusolverDn?syevd")?;
    let stride_a = batch.operand(OP, "A", shape.len(), batch.stride_a, a.len(), true)?;
    let stride_d = batch.operand(OP, "the eigenvalues", order, order, eigenvalues.len(), true)?;
    let device = a.device();
    same_device(OP, device, &[("the eigenvalues", eigenvalues.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    let info = Info::batch(OP, Factorization::Eigen, batch.count, &stream)?;
    // E, rocSOLVER's tridiagonal scratch of n reals a problem, from the
    // pool (one problem's for an empty batch: rocSOLVER still wants E).
    let scratch = scratch::<T::Real>(OP, order, batch.count.max(1), &stream)?;
    let evect = vectors.raw();
    let (a_ptr, d_ptr, e_ptr) =
        (a.device_ptr_mut().cast::<T>(), eigenvalues.device_ptr_mut().cast::<T::Real>(), scratch.as_ptr().cast());
    let (info_ptr, uplo) = (info.as_mut_ptr(), triangle.raw());
    let operands = [
        (a.buffer(), Access::Write),
        (eigenvalues.buffer(), Access::Write),
        (&scratch, Access::Write),
        (info.buffer(), Access::Write),
    ];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A, the eigenvalues,
        // the scratch and info are device memory of the checked extents
        // on its device.
        unsafe {
            T::syevd_strided_batched(
                api, handle, evect, uplo, n, a_ptr, lda, stride_a, d_ptr, stride_d, e_ptr, stride_d, info_ptr, count,
            )
        }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}
