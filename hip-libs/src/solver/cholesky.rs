//! Cholesky: `potrf` factors a Hermitian positive definite matrix,
//! `potrs` solves with the factor.

use super::info::{Factorization, Info};
use super::raw::{check, SolverScalar};
use super::shape::Shape;
use crate::blas::on_handle_sized;
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::Result;
use hip_pool::Access;
use hip_sys::rocsolver::rocblas_fill;

/// Which triangle of a symmetric or Hermitian matrix holds it (the other
/// is not read, and not written).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Triangle {
    /// The lower triangle: `A = L Lᴴ`.
    #[default]
    Lower,
    /// The upper triangle: `A = Uᴴ U`.
    Upper,
}

impl Triangle {
    pub(crate) fn raw(self) -> rocblas_fill {
        match self {
            Triangle::Lower => rocblas_fill::rocblas_fill_lower,
            Triangle::Upper => rocblas_fill::rocblas_fill_upper,
        }
    }
}

/// Factor the Hermitian (symmetric, for real types) positive definite
/// `n × n` matrix in the `triangle` of A as `L Lᴴ` or `Uᴴ U`, in place of
/// that triangle, on A's stream (`rocsolver_?potrf`).
///
/// Returns the factorization's [`Info`], still on the device:
/// [`Info::check`] reports a matrix that is not positive definite as
/// [`Breakdown::NotPositiveDefinite`](crate::Breakdown::NotPositiveDefinite);
/// the factor is then valid only in the columns before that order.
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`](crate::LibError::InvalidInput) for an A that is not square,
/// a leading dimension below its rows, a size over `i32::MAX` or a short A.
/// Then [`LibError::Status`](crate::LibError::Status) with rocSOLVER's status,
/// [`LibError::Unavailable`](crate::LibError::Unavailable) without rocSOLVER or rocBLAS, or `Pool`/`Hip`
/// from the workspace, `info` or operand ordering
/// ([`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway) when
/// the handle's workspace would grow, for a stream that does not capture,
/// while this thread captures).
///
/// # Examples
/// ```
/// use hip_libs::solver::{potrf, Shape, Triangle};
/// # fn cholesky(a: &mut impl hip_libs::DeviceDataMut<f64>) -> hip_libs::Result<()> {
/// // A: 64 × 64 symmetric positive definite; its lower triangle becomes L.
/// let info = potrf(Triangle::Lower, &Shape::square(64), a)?;
/// info.check()?; // waits; Breakdown::NotPositiveDefinite names the order
/// # Ok(()) }
/// ```
#[doc(alias = "rocsolver_spotrf")]
#[doc(alias = "rocsolver_dpotrf")]
#[doc(alias = "rocsolver_cpotrf")]
#[doc(alias = "rocsolver_zpotrf")]
pub fn potrf<T: SolverScalar>(triangle: Triangle, shape: &Shape, a: &mut impl DeviceDataMut<T>) -> Result<Info> {
    const OP: &str = "potrf";
    shape.square_check(OP, "A")?;
    let [n, _, lda] = shape.check(OP, "A", a.len())?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    let info = Info::new(OP, Factorization::Cholesky, &stream)?;
    let (a_ptr, info_ptr, uplo) = (a.device_ptr_mut().cast::<T>(), info.as_mut_ptr(), triangle.raw());
    let operands = [(a.buffer(), Access::Write), (info.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A and
        // info are device memory of the checked extents on its device.
        unsafe { T::potrf(api, handle, uplo, n, a_ptr, lda, info_ptr) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    Ok(info)
}

/// Solve `A X = B` in place of B, on B's stream (`rocsolver_?potrs`), with
/// the Cholesky factor of the `n × n` A from [`potrf`] in its `triangle`;
/// B is `n × nrhs`.
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`](crate::LibError::InvalidInput) for an A that is not square,
/// a B whose rows are not A's, a leading dimension below its rows, a size
/// over `i32::MAX` or a short operand; [`LibError::Hip`](crate::LibError::Hip) with a device
/// mismatch when A is not on B's device. Then as [`potrf`].
#[doc(alias = "rocsolver_spotrs")]
#[doc(alias = "rocsolver_dpotrs")]
#[doc(alias = "rocsolver_cpotrs")]
#[doc(alias = "rocsolver_zpotrs")]
pub fn potrs<T: SolverScalar>(
    triangle: Triangle,
    a_shape: &Shape,
    a: &impl DeviceData<T>,
    b_shape: &Shape,
    b: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "potrs";
    let [n, lda, nrhs, ldb] = a_shape.solve_dims(OP, b_shape)?;
    a_shape.check(OP, "A", a.len())?;
    b_shape.check(OP, "B", b.len())?;
    let device = b.device();
    same_device(OP, device, &[("A", a.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = b.stream().clone();
    // rocSOLVER's potrs only reads A, though its signature is not const.
    let (a_ptr, b_ptr, uplo) = (a.device_ptr() as *mut T, b.device_ptr_mut().cast::<T>(), triangle.raw());
    let operands = [(a.buffer(), Access::Read), (b.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to B's stream; A and B
        // are device memory of the checked extents on its device.
        unsafe { T::potrs(api, handle, uplo, n, nrhs, a_ptr, lda, b_ptr, ldb) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))
}
