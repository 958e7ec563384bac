//! Batches of separate matrices: one call factors, solves or decomposes
//! many problems of one shape whose matrices lie anywhere in device memory
//! (`rocsolver_*_batched`), through a device array of their addresses.
//!
//! A [`MatrixBatch`] borrows the matrices and writes that array once, when
//! it is made; every call on it after that queues without waiting, and
//! captures. While the batch lives the matrices are borrowed through it,
//! so none can be dropped, moved or written elsewhere while the array
//! names it; once it is dropped they are the caller's again, and the
//! pool's stream uses keep their memory from reuse until the calls that
//! read them are done. Where the matrices are packed at one stride, the
//! strided batches ([`Batch`](super::Batch)) need no array at all.

use super::batch::{pivots_hold, scratch, Batch};
use super::capture::{refuse_cusolver_capture, refuse_readback_capture};
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
use std::marker::PhantomData;

/// Matrices of one [`Shape`], anywhere in one device's memory, with the
/// device array of their addresses that rocSOLVER's `_batched` functions
/// take ([`getrf_batched`], [`getrs_batched`], [`potrf_batched`],
/// [`potrs_batched`], [`geqrf_batched`], [`syevd_batched`] and
/// [`gesvd_batched`](super::gesvd_batched)).
///
/// Problem `i` is `matrices[i]`. The batch runs on the first matrix's
/// stream; matrices of other streams are ordered before each call on the
/// GPU, and kept from reuse until it is done, as single operands are.
///
/// # Examples
/// ```
/// use hip_libs::solver::{self, MatrixBatch, Pivots, Shape};
/// # fn lu<A: hip_libs::DeviceDataMut<f64>>(matrices: &mut [A], stream: &hip_core::Stream)
/// #     -> hip_libs::Result<()> {
/// // Factor every 8 × 8 matrix, wherever each lies.
/// let mut batch = MatrixBatch::new(&Shape::square(8), matrices)?;
/// let mut pivots = Pivots::batched(8, batch.len(), stream)?;
/// solver::getrf_batched(&mut batch, &mut pivots)?.check()?;
/// # Ok(()) }
/// ```
pub struct MatrixBatch<'a, T, A> {
    matrices: &'a mut [A],
    /// The first matrix of each distinct buffer (matrices may be views of
    /// one array): each call's operands, found once.
    buffers: Vec<usize>,
    shape: Shape,
    /// The matrices' addresses, one device pointer each.
    array: Buffer,
    stream: Stream,
    count: i32,
    element: PhantomData<fn() -> T>,
}

impl<T, A> std::fmt::Debug for MatrixBatch<'_, T, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatrixBatch")
            .field("count", &self.count)
            .field("shape", &self.shape)
            .field("device", &self.stream.device())
            .finish_non_exhaustive()
    }
}

impl<'a, T: SolverScalar, A: DeviceDataMut<T>> MatrixBatch<'a, T, A> {
    /// Borrow `matrices`, each of `shape`, as one batch, and write the
    /// array of their addresses on the first matrix's stream, waiting for
    /// that stream (once, here: the calls on the batch do not wait).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] for no matrices (a batch runs on its
    /// first matrix's stream), more than `i32::MAX`, a shape whose leading
    /// dimension is below its rows or whose sizes exceed `i32::MAX`, or a
    /// matrix shorter than the shape; [`LibError::Hip`] with a device
    /// mismatch for a matrix on another device than the first; `Pool` or
    /// `Hip` from the array (refused inside a capture: make the batch
    /// before capturing).
    pub fn new(shape: &Shape, matrices: &'a mut [A]) -> Result<Self> {
        const OP: &str = "MatrixBatch::new";
        shape.dims(OP, "each matrix")?;
        let Some(first) = matrices.first() else {
            return Err(LibError::invalid(
                OP,
                "no matrices: a batch runs on its first matrix's stream, so it needs one",
            ));
        };
        let (device, stream) = (first.device(), first.stream().clone());
        let count = i32::try_from(matrices.len()).map_err(|_| {
            LibError::invalid(OP, format!("{} matrices exceed rocSOLVER's 32-bit count", matrices.len()))
        })?;
        for (i, matrix) in matrices.iter().enumerate() {
            shape.check(OP, &format!("matrix {i}"), matrix.len())?;
            same_device(OP, device, &[("a matrix", matrix.device())])?;
        }
        let addresses: Vec<usize> = matrices.iter_mut().map(|m| m.device_ptr_mut() as usize).collect();
        let array = hip_pool::alloc_on(device, std::mem::size_of_val(addresses.as_slice()), &stream)?;
        // SAFETY: the array holds one address per matrix, fresh from the
        // pool on `stream`, which the copy follows.
        unsafe { hip_core::upload_after(array.as_ptr(), addresses, &stream) }?;
        let mut buffers: Vec<usize> = (0..matrices.len()).collect();
        let key = |i: &usize| std::ptr::from_ref(matrices[*i].buffer()) as usize;
        buffers.sort_unstable_by_key(key);
        buffers.dedup_by_key(|i| key(i));
        Ok(MatrixBatch { matrices, buffers, shape: *shape, array, stream, count, element: PhantomData })
    }

    /// The number of matrices.
    pub fn len(&self) -> usize {
        self.matrices.len()
    }

    /// Always false: a batch holds at least one matrix.
    pub fn is_empty(&self) -> bool {
        self.matrices.is_empty()
    }

    /// The matrices' shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The stream the batch runs on: its first matrix's.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The count as rocSOLVER takes it.
    pub(super) fn count(&self) -> i32 {
        self.count
    }

    /// A packed batch of as many problems, which checks the operands that
    /// stay packed (pivots' twins: Householder scalars, eigenvalues,
    /// singular values).
    pub(super) fn packed(&self) -> Batch {
        Batch { count: self.len(), stride_a: 0, stride_b: 0 }
    }

    /// The matrices' buffers as operands of `access` (each buffer once),
    /// and the address array's, which the call reads.
    pub(super) fn operands(&self, access: Access) -> Vec<(&Buffer, Access)> {
        let matrices = self.buffers.iter().map(|&i| (self.matrices[i].buffer(), access));
        std::iter::once((&self.array, Access::Read)).chain(matrices).collect()
    }

    /// The address array, as rocSOLVER takes it.
    pub(super) fn addresses(&self) -> *const *mut T {
        self.array.as_ptr().cast()
    }
}

/// Factor each matrix of `a` as `P A = L U` in place
/// (`rocsolver_?getrf_batched`), on the batch's stream, as
/// [`getrf`](super::getrf) does one; `pivots` (from [`Pivots::batched`],
/// at least `a.len()` problems of `min(m, n)`) receive each problem's row
/// swaps. Returns one [`Info`] value per matrix.
///
/// # Errors
/// [`LibError::InvalidInput`] for pivots for fewer problems or of fewer
/// than `min(m, n)` each; [`LibError::Hip`] with a device mismatch for
/// pivots on another device; then as [`getrf`](super::getrf).
#[doc(alias = "rocsolver_sgetrf_batched")]
#[doc(alias = "rocsolver_dgetrf_batched")]
#[doc(alias = "rocsolver_cgetrf_batched")]
#[doc(alias = "rocsolver_zgetrf_batched")]
pub fn getrf_batched<T: SolverScalar, A: DeviceDataMut<T>>(
    a: &mut MatrixBatch<'_, T, A>,
    pivots: &mut Pivots,
) -> Result<Info> {
    const OP: &str = "getrf_batched";
    let [m, n, lda] = a.shape.dims(OP, "A")?;
    let k = a.shape.rows.min(a.shape.cols);
    let stride_p = pivots_hold(OP, pivots, a.len(), k)?;
    refuse_readback_capture(
        OP,
        m != n || stride_p != i64::from(n),
        "on the nvidia backend only a square LU with its pivots packed (Pivots::batched of n) has a batched \
         call; any other reads the address array back, which waits for the stream and cannot be captured: \
         capture a strided batch, or factor before the capture",
    )?;
    same_device(OP, a.stream.device(), &[("the pivots", pivots.device())])?;
    let api = hip_sys::rocsolver()?;
    let info = Info::batch(OP, Factorization::Lu, a.len(), &a.stream)?;
    let (array, ipiv, info_ptr, count) = (a.addresses(), pivots.as_mut_ptr(), info.as_mut_ptr(), a.count);
    let mut operands = a.operands(Access::Write);
    operands.extend([(pivots.buffer(), Access::Write), (info.buffer(), Access::Write)]);
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to the batch's stream; the array holds
        // `count` addresses of matrices of the checked shape, the pivots
        // and info device memory of the checked extents, on its device.
        unsafe { T::getrf_batched(api, handle, m, n, array, lda, ipiv, stride_p, info_ptr, count) }
    };
    on_handle_sized(&a.stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    pivots.written_by(a.shape.rows, a.len());
    Ok(info)
}

/// Solve `op(A_i) X_i = B_i` in place of each matrix of `b`, on `b`'s
/// stream (`rocsolver_?getrs_batched`), with the LU factors in `a` and the
/// pivots of [`getrf_batched`], as [`getrs`](super::getrs) does one.
///
/// # Errors
/// [`LibError::InvalidInput`] for batches of different lengths, an A that
/// is not square, B's rows not A's order, or pivots that no batched
/// `getrf` wrote for as many problems; [`LibError::Hip`] with a device
/// mismatch for operands on different devices; then as
/// [`getrs`](super::getrs).
#[doc(alias = "rocsolver_sgetrs_batched")]
#[doc(alias = "rocsolver_dgetrs_batched")]
#[doc(alias = "rocsolver_cgetrs_batched")]
#[doc(alias = "rocsolver_zgetrs_batched")]
pub fn getrs_batched<T: SolverScalar, A: DeviceDataMut<T>, B: DeviceDataMut<T>>(
    op: Op,
    a: &MatrixBatch<'_, T, A>,
    pivots: &Pivots,
    b: &mut MatrixBatch<'_, T, B>,
) -> Result<()> {
    const OP: &str = "getrs_batched";
    let [n, lda, nrhs, ldb] = a.shape.solve_dims(OP, &b.shape)?;
    same_len(OP, a.len(), b.len())?;
    pivots.check_solve(OP, a.shape.rows, b.len())?;
    let stride_p = i64::try_from(pivots.len_per_problem())
        .map_err(|_| LibError::invalid(OP, "the pivots' stride exceeds 64 bits"))?;
    refuse_readback_capture(
        OP,
        stride_p != i64::from(n),
        "on the nvidia backend only pivots packed n apart (from a square getrf_batched) have a batched solve; \
         any other reads the address arrays back, which waits for the stream and cannot be captured",
    )?;
    same_device(OP, b.stream.device(), &[("A", a.stream.device()), ("the pivots", pivots.device())])?;
    let api = hip_sys::rocsolver()?;
    let (a_array, ipiv, b_array, count, trans) =
        (a.addresses(), pivots.device_ptr().cast::<i32>(), b.addresses(), b.count, op.raw());
    let mut operands = a.operands(Access::Read);
    operands.push((pivots.buffer(), Access::Read));
    operands.extend(b.operands(Access::Write));
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to B's stream; both arrays hold
        // `count` addresses of matrices of the checked shapes; the pivots
        // (each in 1..=n, written by getrf) of the checked extent.
        unsafe { T::getrs_batched(api, handle, trans, n, nrhs, a_array, lda, ipiv, stride_p, b_array, ldb, count) }
    };
    on_handle_sized(&b.stream, OP, &operands, call, |handle| check(call(handle), OP))
}

/// Factor each Hermitian positive definite matrix of `a` in its
/// `triangle`, in place, on the batch's stream
/// (`rocsolver_?potrf_batched`), as [`potrf`](super::potrf) does one.
/// Returns one [`Info`] value per matrix.
///
/// # Errors
/// [`LibError::InvalidInput`] for matrices that are not square; then as
/// [`potrf`](super::potrf).
#[doc(alias = "rocsolver_spotrf_batched")]
#[doc(alias = "rocsolver_dpotrf_batched")]
#[doc(alias = "rocsolver_cpotrf_batched")]
#[doc(alias = "rocsolver_zpotrf_batched")]
pub fn potrf_batched<T: SolverScalar, A: DeviceDataMut<T>>(
    triangle: Triangle,
    a: &mut MatrixBatch<'_, T, A>,
) -> Result<Info> {
    const OP: &str = "potrf_batched";
    a.shape.square_check(OP, "A")?;
    let [n, _, lda] = a.shape.dims(OP, "A")?;
    let api = hip_sys::rocsolver()?;
    let info = Info::batch(OP, Factorization::Cholesky, a.len(), &a.stream)?;
    let (array, info_ptr, count, uplo) = (a.addresses(), info.as_mut_ptr(), a.count, triangle.raw());
    let mut operands = a.operands(Access::Write);
    operands.push((info.buffer(), Access::Write));
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to the batch's stream; the array holds
        // `count` addresses of n × n matrices; info `count` ints.
        unsafe { T::potrf_batched(api, handle, uplo, n, array, lda, info_ptr, count) }
    };
    on_handle_sized(&a.stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}

/// Solve `A_i X_i = B_i` in place of each matrix of `b`, on `b`'s stream
/// (`rocsolver_?potrs_batched`), with the Cholesky factors in `a` from
/// [`potrf_batched`] in their `triangle`, as [`potrs`](super::potrs) does
/// one.
///
/// # Errors
/// [`LibError::InvalidInput`] for batches of different lengths, an A that
/// is not square or B's rows not A's order; [`LibError::Hip`] with a
/// device mismatch; then as [`potrs`](super::potrs).
#[doc(alias = "rocsolver_spotrs_batched")]
#[doc(alias = "rocsolver_dpotrs_batched")]
#[doc(alias = "rocsolver_cpotrs_batched")]
#[doc(alias = "rocsolver_zpotrs_batched")]
pub fn potrs_batched<T: SolverScalar, A: DeviceDataMut<T>, B: DeviceDataMut<T>>(
    triangle: Triangle,
    a: &MatrixBatch<'_, T, A>,
    b: &mut MatrixBatch<'_, T, B>,
) -> Result<()> {
    const OP: &str = "potrs_batched";
    let [n, lda, nrhs, ldb] = a.shape.solve_dims(OP, &b.shape)?;
    same_len(OP, a.len(), b.len())?;
    refuse_readback_capture(
        OP,
        nrhs != 1,
        "on the nvidia backend only one right-hand side has a batched Cholesky solve; more read the address \
         arrays back, which waits for the stream and cannot be captured: solve one column at a time, or \
         capture a strided batch",
    )?;
    same_device(OP, b.stream.device(), &[("A", a.stream.device())])?;
    let api = hip_sys::rocsolver()?;
    let (a_array, b_array, count, uplo) = (a.addresses(), b.addresses(), b.count, triangle.raw());
    let mut operands = a.operands(Access::Read);
    operands.extend(b.operands(Access::Write));
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to B's stream; both arrays hold
        // `count` addresses of matrices of the checked shapes.
        unsafe { T::potrs_batched(api, handle, uplo, n, nrhs, a_array, lda, b_array, ldb, count) }
    };
    on_handle_sized(&b.stream, OP, &operands, call, |handle| check(call(handle), OP))
}

/// Factor each `m × n` matrix of `a` as `A = Q R` in place, on the batch's
/// stream (`rocsolver_?geqrf_batched`), as [`geqrf`](super::geqrf) does
/// one; problem `i`'s `min(m, n)` Householder scalars go to `tau` from
/// element `i × min(m, n)` on.
///
/// # Errors
/// [`LibError::InvalidInput`] for a `tau` shorter than `a.len() × min(m,
/// n)`; [`LibError::Hip`] with a device mismatch; then as
/// [`geqrf`](super::geqrf).
#[doc(alias = "rocsolver_sgeqrf_batched")]
#[doc(alias = "rocsolver_dgeqrf_batched")]
#[doc(alias = "rocsolver_cgeqrf_batched")]
#[doc(alias = "rocsolver_zgeqrf_batched")]
pub fn geqrf_batched<T: SolverScalar, A: DeviceDataMut<T>>(
    a: &mut MatrixBatch<'_, T, A>,
    tau: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "geqrf_batched";
    let [m, n, lda] = a.shape.dims(OP, "A")?;
    let k = a.shape.rows.min(a.shape.cols);
    let stride_p = a.packed().operand(OP, "tau", k, k, tau.len(), true)?;
    same_device(OP, a.stream.device(), &[("tau", tau.device())])?;
    let api = hip_sys::rocsolver()?;
    let (array, tau_ptr, count) = (a.addresses(), tau.device_ptr_mut().cast::<T>(), a.count);
    let mut operands = a.operands(Access::Write);
    operands.push((tau.buffer(), Access::Write));
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to the batch's stream; the array holds
        // `count` addresses of matrices of the checked shape; tau `count`
        // problems of `k` scalars.
        unsafe { T::geqrf_batched(api, handle, m, n, array, lda, tau_ptr, stride_p, count) }
    };
    on_handle_sized(&a.stream, OP, &operands, call, |handle| check(call(handle), OP))
}

/// The eigenvalues (ascending) and, with [`Vectors::Compute`], the
/// eigenvectors of each symmetric (Hermitian) matrix of `a`, on the
/// batch's stream (`rocsolver_?syevd_batched`, `rocsolver_?heevd_batched`),
/// as [`syevd`](super::syevd) does one: problem `i`'s eigenvalues go to
/// `eigenvalues` from element `i × n` on, its eigenvectors over its matrix.
/// Returns one [`Info`] value per matrix.
///
/// # Errors
/// [`LibError::InvalidInput`] for matrices that are not square, fewer than
/// `a.len() × n` eigenvalues, or, with eigenvectors from order 32, a batch
/// whose `2·n²·count` reaches 2^31 (rocSOLVER 3.21 sizes its workspace in
/// 32-bit ints); [`LibError::Hip`] with a device mismatch; then as
/// [`syevd`](super::syevd) (refused inside a capture on the nvidia
/// backend, whose cuSOLVER synchronizes).
#[doc(alias = "rocsolver_ssyevd_batched")]
#[doc(alias = "rocsolver_dsyevd_batched")]
#[doc(alias = "rocsolver_cheevd_batched")]
#[doc(alias = "rocsolver_zheevd_batched")]
#[doc(alias = "heevd_batched")]
pub fn syevd_batched<T: SolverScalar, A: DeviceDataMut<T>>(
    vectors: Vectors,
    triangle: Triangle,
    a: &mut MatrixBatch<'_, T, A>,
    eigenvalues: &mut impl DeviceDataMut<T::Real>,
) -> Result<Info> {
    const OP: &str = "syevd_batched";
    a.shape.square_check(OP, "A")?;
    let [n, _, lda] = a.shape.dims(OP, "A")?;
    let order = a.shape.rows;
    sizing_fits(OP, vectors, order, a.len())?;
    refuse_cusolver_capture("cusolverDn?syevd")?;
    let stride = a.packed().operand(OP, "the eigenvalues", order, order, eigenvalues.len(), true)?;
    same_device(OP, a.stream.device(), &[("the eigenvalues", eigenvalues.device())])?;
    let api = hip_sys::rocsolver()?;
    let info = Info::batch(OP, Factorization::Eigen, a.len(), &a.stream)?;
    // E, rocSOLVER's tridiagonal scratch of n reals a problem, from the pool.
    let scratch = scratch::<T::Real>(OP, order.max(1), a.len(), &a.stream)?;
    let (array, d_ptr, e_ptr) =
        (a.addresses(), eigenvalues.device_ptr_mut().cast::<T::Real>(), scratch.as_ptr().cast());
    let (info_ptr, uplo, evect, count) = (info.as_mut_ptr(), triangle.raw(), vectors.raw(), a.count);
    let mut operands = a.operands(Access::Write);
    operands.extend([(eigenvalues.buffer(), Access::Write), (&scratch, Access::Write), (info.buffer(), Access::Write)]);
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to the batch's stream; the array holds
        // `count` addresses of n × n matrices; the eigenvalues, the scratch
        // and info are device memory of the checked extents.
        unsafe {
            T::syevd_batched(api, handle, evect, uplo, n, array, lda, d_ptr, stride, e_ptr, stride, info_ptr, count)
        }
    };
    on_handle_sized(&a.stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}

/// Refuse batches of different lengths (rocSOLVER takes one count).
fn same_len(op: &'static str, a: usize, b: usize) -> Result<()> {
    if a == b {
        return Ok(());
    }
    Err(LibError::invalid(op, format!("A's batch holds {a} matrices and B's {b}: a solve pairs them one to one")))
}
