//! The singular value decomposition: `gesvd`.

use super::batch::{scratch, Batch};
use super::capture::refuse_cusolver_capture;
use super::info::{Factorization, Info};
use super::matrices::MatrixBatch;
use super::raw::{check, SolverScalar};
use super::shape::Shape;
use crate::blas::on_handle_sized;
use crate::data::{same_device, DeviceDataMut};
use crate::{LibError, Result};
use hip_core::Device;
use hip_pool::{Access, Buffer};
use hip_sys::rocsolver::{rocblas_svect, rocblas_workmode};

/// Where [`gesvd`] puts one side's singular vectors: the left ones (the
/// columns of U) or the right ones (the rows of Vᴴ).
pub enum SingularVectors<'a, T> {
    /// All of them, into a matrix of this shape: U `m × m`, Vᴴ `n × n`.
    All(Shape, &'a mut dyn DeviceDataMut<T>),
    /// The first `k = min(m, n)` (the thin SVD): U `m × k`, Vᴴ `k × n`.
    Thin(Shape, &'a mut dyn DeviceDataMut<T>),
    /// The first `k`, written over A: U into its first `k` columns, Vᴴ
    /// into its first `k` rows. One side at most.
    OverA,
    /// None.
    Skip,
}

impl<T> std::fmt::Debug for SingularVectors<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SingularVectors::All(shape, _) => f.debug_tuple("All").field(shape).finish_non_exhaustive(),
            SingularVectors::Thin(shape, _) => f.debug_tuple("Thin").field(shape).finish_non_exhaustive(),
            SingularVectors::OverA => f.write_str("OverA"),
            SingularVectors::Skip => f.write_str("Skip"),
        }
    }
}

/// One side's vectors, checked: rocSOLVER's enum, the matrix's pointer,
/// leading dimension, buffer and device.
struct Side<'b> {
    svect: rocblas_svect,
    ptr: *mut std::ffi::c_void,
    ld: i32,
    /// Elements between problems' matrices in a batch (packed).
    stride: i64,
    buffer: Option<(&'b Buffer, Device)>,
}

impl<'a, T> SingularVectors<'a, T> {
    /// Check the matrix of side `name` against the shape the SVD writes:
    /// `rows × cols` for all vectors, `thin` for the first `k`; it holds
    /// `count` of them packed.
    fn check(
        &mut self,
        op: &'static str,
        name: &'static str,
        all: (usize, usize),
        thin: (usize, usize),
        count: usize,
    ) -> Result<Side<'_>> {
        let (svect, shape, data, want) = match self {
            SingularVectors::All(shape, data) => (rocblas_svect::rocblas_svect_all, *shape, data, all),
            SingularVectors::Thin(shape, data) => (rocblas_svect::rocblas_svect_singular, *shape, data, thin),
            SingularVectors::OverA => {
                let svect = rocblas_svect::rocblas_svect_overwrite;
                return Ok(Side { svect, ptr: std::ptr::null_mut(), ld: 1, stride: 0, buffer: None });
            }
            SingularVectors::Skip => {
                let svect = rocblas_svect::rocblas_svect_none;
                return Ok(Side { svect, ptr: std::ptr::null_mut(), ld: 1, stride: 0, buffer: None });
            }
        };
        if (shape.rows, shape.cols) != want {
            return Err(LibError::invalid(
                op,
                format!("{name} is {}×{}; these vectors of A make it {}×{}", shape.rows, shape.cols, want.0, want.1),
            ));
        }
        let [_, _, ld] = if count == 1 { shape.check(op, name, data.len())? } else { shape.dims(op, name)? };
        let packed = shape.len().checked_mul(count).filter(|&need| need <= data.len());
        if count != 1 && packed.is_none() {
            return Err(LibError::invalid(
                op,
                format!(
                    "{name} holds {} elements; {count} packed {}×{} matrices with leading dimension {} span {}",
                    data.len(),
                    shape.rows,
                    shape.cols,
                    shape.ld(),
                    shape.len() as u128 * count as u128
                ),
            ));
        }
        let stride = i64::try_from(shape.len())
            .map_err(|_| LibError::invalid(op, format!("{name}'s extent exceeds rocSOLVER's 64-bit stride")))?;
        let device = data.device();
        let ptr = data.device_ptr_mut();
        Ok(Side { svect, ptr, ld, stride, buffer: Some((data.buffer(), device)) })
    }
}

/// Refuse both sides' vectors over A: A holds one side's.
fn refuse_both_over_a<T>(
    op: &'static str,
    left: &SingularVectors<'_, T>,
    right: &SingularVectors<'_, T>,
) -> Result<()> {
    if matches!((left, right), (SingularVectors::OverA, SingularVectors::OverA)) {
        return Err(LibError::invalid(
            op,
            "both sides' vectors over A: A holds one side's; give U or Vᴴ a matrix of its own",
        ));
    }
    Ok(())
}

/// Check both sides for `count` problems of A's `shape`, and that their
/// matrices and the singular values (`devices.1`) are on A's device
/// (`devices.0`).
fn sides<'l, 'r, T>(
    op: &'static str,
    shape: &Shape,
    count: usize,
    (device, values): (Device, Device),
    left: &'l mut SingularVectors<'_, T>,
    right: &'r mut SingularVectors<'_, T>,
) -> Result<(Side<'l>, Side<'r>)> {
    let (rows, cols) = (shape.rows, shape.cols);
    let k = rows.min(cols);
    let u = left.check(op, "U", (rows, rows), (rows, k), count)?;
    let v = right.check(op, "Vᴴ", (cols, cols), (k, cols), count)?;
    let mut others = vec![("the singular values", values)];
    others.extend(u.buffer.map(|(_, d)| ("U", d)));
    others.extend(v.buffer.map(|(_, d)| ("Vᴴ", d)));
    same_device(op, device, &others)?;
    Ok((u, v))
}

/// The buffers an SVD call writes: A, the singular values, the scratch
/// and info, and each side's own matrices.
fn written<'b>(fixed: [&'b Buffer; 4], u: &Side<'b>, v: &Side<'b>) -> Vec<(&'b Buffer, Access)> {
    let sides = u.buffer.iter().chain(v.buffer.iter()).map(|(b, _)| *b);
    fixed.into_iter().chain(sides).map(|b| (b, Access::Write)).collect()
}

/// The singular value decomposition `A = U Σ Vᴴ` of the `m × n` matrix A,
/// on A's stream (`rocsolver_?gesvd`: bidiagonalization and QR
/// iteration, rocSOLVER's out-of-place fast algorithm for thin shapes).
/// The `k = min(m, n)` singular values go into `singular_values` (at
/// least `k` of A's real type), descending; `left` and `right` say where
/// the vectors go ([`SingularVectors`]). A's contents are destroyed,
/// unless a side's vectors are written over it. The vectors' signs
/// (phases, for complex) are not specified.
///
/// Returns the solver's [`Info`], still on the device: [`Info::check`]
/// reports a failure to converge as
/// [`Breakdown::SvdNotConverged`](crate::Breakdown::SvdNotConverged).
///
/// # Examples
/// The thin SVD of a 4 × 3 matrix: U is 4 × 3, Vᴴ 3 × 3.
/// ```
/// use hip_libs::solver::{self, Shape, SingularVectors};
/// # use hip_libs::DeviceDataMut;
/// # fn example<A, S>(a: &mut A, s: &mut S, u: &mut A, vt: &mut A) -> hip_libs::Result<()>
/// # where A: DeviceDataMut<f64>, S: DeviceDataMut<f64> {
/// let info = solver::gesvd(
///     &Shape::new(4, 3),
///     a,
///     s,
///     SingularVectors::Thin(Shape::new(4, 3), u),
///     SingularVectors::Thin(Shape::new(3, 3), vt),
/// )?;
/// info.check()?; // waits, then Ok or LibError::Breakdown
/// # Ok(()) }
/// ```
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for both sides
/// [`OverA`](SingularVectors::OverA), a U or Vᴴ whose shape is not the
/// one the side asks for, a leading dimension below its rows, a size over
/// `i32::MAX`, a short matrix or fewer than `k` singular values;
/// [`LibError::Hip`] with a device mismatch when an operand is not on A's
/// device, or with
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// inside a capture on the nvidia backend (cuSOLVER's `gesvd`
/// synchronizes). Then as [`potrf`](super::potrf).
#[doc(alias = "rocsolver_sgesvd")]
#[doc(alias = "rocsolver_dgesvd")]
#[doc(alias = "rocsolver_cgesvd")]
#[doc(alias = "rocsolver_zgesvd")]
#[doc(alias = "svd")]
pub fn gesvd<T: SolverScalar>(
    shape: &Shape,
    a: &mut impl DeviceDataMut<T>,
    singular_values: &mut impl DeviceDataMut<T::Real>,
    mut left: SingularVectors<'_, T>,
    mut right: SingularVectors<'_, T>,
) -> Result<Info> {
    const OP: &str = "gesvd";
    let [m, n, lda] = shape.check(OP, "A", a.len())?;
    refuse_cusolver_capture("cusolverDn?gesvd")?;
    let (rows, cols) = (shape.rows, shape.cols);
    let k = rows.min(cols);
    refuse_both_over_a(OP, &left, &right)?;
    if singular_values.len() < k {
        return Err(LibError::invalid(
            OP,
            format!("the singular values hold {}; a {rows}×{cols} A has min(m, n) = {k}", singular_values.len()),
        ));
    }
    let device = a.device();
    let (u, v) = sides(OP, shape, 1, (device, singular_values.device()), &mut left, &mut right)?;
    let stream = a.stream().clone();
    if k == 0 {
        // rocSOLVER returns from an empty problem without writing info.
        return Info::succeeded(OP, Factorization::Svd, &stream);
    }
    let api = hip_sys::rocsolver()?;
    let info = Info::new(OP, Factorization::Svd, &stream)?;
    // E, rocSOLVER's bidiagonal scratch of k − 1 reals, from the pool.
    let scratch = hip_pool::alloc_on(device, k.max(2).saturating_sub(1) * std::mem::size_of::<T::Real>(), &stream)?;
    let (a_ptr, s_ptr, e_ptr) =
        (a.device_ptr_mut().cast::<T>(), singular_values.device_ptr_mut().cast::<T::Real>(), scratch.as_ptr().cast());
    let (u_ptr, ldu, left_svect) = (u.ptr.cast::<T>(), u.ld, u.svect);
    let (v_ptr, ldv, right_svect) = (v.ptr.cast::<T>(), v.ld, v.svect);
    let info_ptr = info.as_mut_ptr();
    let operands = written([a.buffer(), singular_values.buffer(), &scratch, info.buffer()], &u, &v);
    let fast = rocblas_workmode::rocblas_outofplace;
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A, the singular values,
        // U and Vᴴ (where a side has its own matrix), the scratch and info
        // are device memory of the checked extents on its device.
        unsafe {
            T::gesvd(
                api,
                handle,
                left_svect,
                right_svect,
                m,
                n,
                a_ptr,
                lda,
                s_ptr,
                u_ptr,
                ldu,
                v_ptr,
                ldv,
                e_ptr,
                fast,
                info_ptr,
            )
        }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}

/// The singular value decompositions of a strided batch of `m × n`
/// matrices, on A's stream (`rocsolver_?gesvd_strided_batched`), as
/// [`gesvd`] does one: problem `i`'s A begins `i × stride_a` elements
/// after the first's, its `k = min(m, n)` singular values at `i × k` in
/// `singular_values`, and its U and Vᴴ (where a side has matrices of its
/// own) packed one after another in the side's buffer, each of the
/// side's [`Shape`].
///
/// Returns one [`Info`] value per problem, still on the device:
/// [`Info::check`] names the first problem that did not converge.
///
/// # Errors
/// As [`gesvd`]; [`LibError::InvalidInput`] also for an A shorter than
/// the batch spans, a `stride_a` below one A's extent (for more than one
/// problem), fewer than `count × k` singular values, a U or Vᴴ buffer
/// shorter than `count` packed matrices, or a count over `i32::MAX`.
#[doc(alias = "rocsolver_sgesvd_strided_batched")]
#[doc(alias = "rocsolver_dgesvd_strided_batched")]
#[doc(alias = "rocsolver_cgesvd_strided_batched")]
#[doc(alias = "rocsolver_zgesvd_strided_batched")]
pub fn gesvd_strided_batched<T: SolverScalar>(
    shape: &Shape,
    batch: &Batch,
    a: &mut impl DeviceDataMut<T>,
    singular_values: &mut impl DeviceDataMut<T::Real>,
    mut left: SingularVectors<'_, T>,
    mut right: SingularVectors<'_, T>,
) -> Result<Info> {
    const OP: &str = "gesvd_strided_batched";
    let [m, n, lda] = shape.dims(OP, "A")?;
    refuse_cusolver_capture("cusolverDn?gesvd")?;
    let count = batch.count(OP)?;
    let stride_a = batch.operand(OP, "A", shape.len(), batch.stride_a, a.len(), true)?;
    let k = shape.rows.min(shape.cols);
    refuse_both_over_a(OP, &left, &right)?;
    let stride_s = batch.operand(OP, "the singular values", k, k, singular_values.len(), true)?;
    let device = a.device();
    let (u, v) = sides(OP, shape, batch.count, (device, singular_values.device()), &mut left, &mut right)?;
    let stream = a.stream().clone();
    if k == 0 || batch.count == 0 {
        // rocSOLVER returns from an empty problem without writing info.
        return Info::batch_succeeded(OP, Factorization::Svd, batch.count, &stream);
    }
    let api = hip_sys::rocsolver()?;
    let info = Info::batch(OP, Factorization::Svd, batch.count, &stream)?;
    // E, rocSOLVER's bidiagonal scratch of k − 1 reals a problem, from the pool.
    let per_problem = k.max(2) - 1;
    let scratch = scratch::<T::Real>(OP, per_problem, batch.count, &stream)?;
    let stride_e = per_problem as i64;
    let (a_ptr, s_ptr, e_ptr) =
        (a.device_ptr_mut().cast::<T>(), singular_values.device_ptr_mut().cast::<T::Real>(), scratch.as_ptr().cast());
    let (u_ptr, ldu, stride_u, left_svect) = (u.ptr.cast::<T>(), u.ld, u.stride, u.svect);
    let (v_ptr, ldv, stride_v, right_svect) = (v.ptr.cast::<T>(), v.ld, v.stride, v.svect);
    let info_ptr = info.as_mut_ptr();
    let operands = written([a.buffer(), singular_values.buffer(), &scratch, info.buffer()], &u, &v);
    let fast = rocblas_workmode::rocblas_outofplace;
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A, the singular values,
        // U and Vᴴ (where a side has its own matrices), the scratch and
        // info are device memory of the checked extents on its device.
        unsafe {
            T::gesvd_strided_batched(
                api,
                handle,
                left_svect,
                right_svect,
                m,
                n,
                a_ptr,
                lda,
                stride_a,
                s_ptr,
                stride_s,
                u_ptr,
                ldu,
                stride_u,
                v_ptr,
                ldv,
                stride_v,
                e_ptr,
                stride_e,
                fast,
                info_ptr,
                count,
            )
        }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}

/// The singular value decompositions of each `m × n` matrix of `a`, on the
/// batch's stream (`rocsolver_?gesvd_batched`), as [`gesvd`] does one:
/// problem `i`'s `k = min(m, n)` singular values at `i × k` in
/// `singular_values`, and its U and Vᴴ (where a side has matrices of its
/// own) packed one after another in the side's buffer, each of the side's
/// [`Shape`], as in [`gesvd_strided_batched`]; vectors over A go over each
/// problem's own matrix.
///
/// Returns one [`Info`] value per problem, still on the device.
///
/// # Errors
/// As [`gesvd_strided_batched`], but for A's extent, which the batch
/// checked when it was made.
#[doc(alias = "rocsolver_sgesvd_batched")]
#[doc(alias = "rocsolver_dgesvd_batched")]
#[doc(alias = "rocsolver_cgesvd_batched")]
#[doc(alias = "rocsolver_zgesvd_batched")]
pub fn gesvd_batched<T: SolverScalar, A: DeviceDataMut<T>>(
    a: &mut MatrixBatch<'_, T, A>,
    singular_values: &mut impl DeviceDataMut<T::Real>,
    mut left: SingularVectors<'_, T>,
    mut right: SingularVectors<'_, T>,
) -> Result<Info> {
    const OP: &str = "gesvd_batched";
    let shape = *a.shape();
    let [m, n, lda] = shape.dims(OP, "A")?;
    refuse_cusolver_capture("cusolverDn?gesvd")?;
    let (count, problems) = (a.count(), a.len());
    let k = shape.rows.min(shape.cols);
    refuse_both_over_a(OP, &left, &right)?;
    let stride_s = a.packed().operand(OP, "the singular values", k, k, singular_values.len(), true)?;
    let stream = a.stream().clone();
    let device = stream.device();
    let (u, v) = sides(OP, &shape, problems, (device, singular_values.device()), &mut left, &mut right)?;
    if k == 0 {
        // rocSOLVER returns from an empty problem without writing info.
        return Info::batch_succeeded(OP, Factorization::Svd, problems, &stream);
    }
    let api = hip_sys::rocsolver()?;
    let info = Info::batch(OP, Factorization::Svd, problems, &stream)?;
    // E, rocSOLVER's bidiagonal scratch of k − 1 reals a problem, from the pool.
    let per_problem = k.max(2) - 1;
    let scratch = scratch::<T::Real>(OP, per_problem, problems, &stream)?;
    let stride_e = per_problem as i64;
    let (array, s_ptr, e_ptr) =
        (a.addresses(), singular_values.device_ptr_mut().cast::<T::Real>(), scratch.as_ptr().cast());
    let (u_ptr, ldu, stride_u, left_svect) = (u.ptr.cast::<T>(), u.ld, u.stride, u.svect);
    let (v_ptr, ldv, stride_v, right_svect) = (v.ptr.cast::<T>(), v.ld, v.stride, v.svect);
    let info_ptr = info.as_mut_ptr();
    let mut operands = a.operands(Access::Write);
    operands.extend([singular_values.buffer(), &scratch, info.buffer()].map(|b| (b, Access::Write)));
    operands.extend(u.buffer.iter().chain(v.buffer.iter()).map(|(b, _)| (*b, Access::Write)));
    let fast = rocblas_workmode::rocblas_outofplace;
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to the batch's stream; the array holds
        // `count` addresses of m × n matrices; the singular values, U and
        // Vᴴ (where a side has its own matrices), the scratch and info are
        // device memory of the checked extents on its device.
        unsafe {
            T::gesvd_batched(
                api,
                handle,
                left_svect,
                right_svect,
                m,
                n,
                array,
                lda,
                s_ptr,
                stride_s,
                u_ptr,
                ldu,
                stride_u,
                v_ptr,
                ldv,
                stride_v,
                e_ptr,
                stride_e,
                fast,
                info_ptr,
                count,
            )
        }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}
