//! The symmetric / Hermitian eigensolver: `syevd` (`heevd` for complex).

use super::capture::refuse_cusolver_capture;
use super::cholesky::Triangle;
use super::info::{Factorization, Info};
use super::raw::{check, SolverScalar};
use super::shape::Shape;
use crate::blas::on_handle_sized;
use crate::data::{same_device, DeviceDataMut};
use crate::{LibError, Result};
use hip_pool::Access;
use hip_sys::rocsolver::rocblas_evect;

/// Whether an eigensolver computes the eigenvectors too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Vectors {
    /// Eigenvalues and eigenvectors: A is overwritten by the orthonormal
    /// eigenvectors, column `j` for eigenvalue `j`.
    #[default]
    Compute,
    /// Eigenvalues only; A's contents are destroyed.
    Skip,
}

impl Vectors {
    /// rocSOLVER's `rocblas_evect` of the choice.
    pub(super) fn raw(self) -> rocblas_evect {
        match self {
            Vectors::Compute => rocblas_evect::rocblas_evect_original,
            Vectors::Skip => rocblas_evect::rocblas_evect_none,
        }
    }
}

/// The eigenvalues (ascending) and, with [`Vectors::Compute`], the
/// eigenvectors of the symmetric (Hermitian, for complex types) `n × n`
/// matrix in the `triangle` of A, on A's stream (`rocsolver_?syevd`,
/// `rocsolver_?heevd`: divide and conquer). The eigenvalues go into
/// `eigenvalues` (at least `n` of A's real type); the eigenvectors over A.
/// Their signs (phases, for complex) are not specified.
///
/// Returns the solver's [`Info`], still on the device: [`Info::check`]
/// reports a failure to converge as
/// [`Breakdown::NotConverged`](crate::Breakdown::NotConverged).
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for an A that is not square,
/// a leading dimension below its rows, a size over `i32::MAX`, a short A
/// or fewer than `n` eigenvalues; [`LibError::Hip`] with a device mismatch
/// when the eigenvalues are not on A's device, or with
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// inside a capture on the nvidia backend (cuSOLVER's `syevd`
/// synchronizes). Then as [`potrf`](super::potrf).
///
/// # Examples
/// ```
/// use hip_libs::solver::{syevd, Shape, Triangle, Vectors};
/// # fn eigh(a: &mut impl hip_libs::DeviceDataMut<f64>, w: &mut impl hip_libs::DeviceDataMut<f64>)
/// #     -> hip_libs::Result<()> {
/// // A: 16 × 16 symmetric. w gets its 16 eigenvalues, ascending; A the eigenvectors.
/// syevd(Vectors::Compute, Triangle::Lower, &Shape::square(16), a, w)?.check()?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocsolver_ssyevd")]
#[doc(alias = "rocsolver_dsyevd")]
#[doc(alias = "rocsolver_cheevd")]
#[doc(alias = "rocsolver_zheevd")]
#[doc(alias = "heevd")]
#[doc(alias = "eigh")]
pub fn syevd<T: SolverScalar>(
    vectors: Vectors,
    triangle: Triangle,
    shape: &Shape,
    a: &mut impl DeviceDataMut<T>,
    eigenvalues: &mut impl DeviceDataMut<T::Real>,
) -> Result<Info> {
    const OP: &str = "syevd";
    shape.square_check(OP, "A")?;
    let [n, _, lda] = shape.check(OP, "A", a.len())?;
    sizing_fits(OP, vectors, shape.rows, 1)?;
    refuse_cusolver_capture("cusolverDn?syevd")?;
    if eigenvalues.len() < shape.rows {
        return Err(LibError::invalid(
            OP,
            format!("the eigenvalues hold {}; A of order {n} has {n}", eigenvalues.len()),
        ));
    }
    let device = a.device();
    same_device(OP, device, &[("the eigenvalues", eigenvalues.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    let info = Info::new(OP, Factorization::Eigen, &stream)?;
    // E, rocSOLVER's tridiagonal scratch of n reals, from the pool.
    let scratch = hip_pool::alloc_on(device, shape.rows * std::mem::size_of::<T::Real>(), &stream)?;
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
        // SAFETY: a live handle bound to A's stream; A, the eigenvalues, the
        // scratch and info are device memory of the checked extents on its
        // device.
        unsafe { T::syevd(api, handle, evect, uplo, n, a_ptr, lda, d_ptr, e_ptr, info_ptr) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}

/// `Ok` if rocSOLVER 3.21 can size `count` problems of `order`: with
/// eigenvectors from order 32 (divide and conquer) its `stedc` computes
/// `2·n²·count` reals in a 32-bit int, which past `i32::MAX` overflows
/// (undefined behaviour, an absurd workspace). Refused on every backend,
/// so that a program that runs on one runs on all.
pub(super) fn sizing_fits(operation: &'static str, vectors: Vectors, order: usize, count: usize) -> Result<()> {
    let per_problem = 2 * (order as u128) * (order as u128);
    if vectors == Vectors::Skip || order < 32 || per_problem * count as u128 <= i32::MAX as u128 {
        return Ok(());
    }
    let fix = match i32::MAX as u128 / per_problem {
        0 => {
            format!(
                "order {order} is past it even for one problem: only the eigenvalues (Vectors::Skip) can be computed"
            )
        }
        most => format!("make batches of at most {most}"),
    };
    Err(LibError::invalid(
        operation,
        format!(
            "{count} problem(s) of order {order} with eigenvectors overflow rocSOLVER's 32-bit workspace sizing \
             (2·n²·count must stay below 2^31): {fix}"
        ),
    ))
}
