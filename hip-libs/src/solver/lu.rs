//! LU with partial pivoting: `getrf` factors, `getrs` solves with the
//! factors.

use super::info::{Factorization, Info, Pivots};
use super::raw::{check, SolverScalar};
use super::shape::Shape;
use crate::blas::{on_handle_sized, Op};
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_pool::Access;

/// Factor the `m × n` matrix A as `P A = L U` in place, on A's stream
/// (`rocsolver_?getrf`): L unit lower triangular (below the diagonal), U
/// upper triangular (on and above it), the row swaps into `pivots`.
///
/// Returns the factorization's [`Info`], still on the device:
/// [`Info::check`] reports an exactly-zero pivot (a singular matrix) as
/// [`Breakdown::ZeroPivot`](crate::Breakdown::ZeroPivot). rocSOLVER
/// completes the factorization past it.
///
/// ```
/// # fn main() -> hip_libs::Result<()> {
/// # use hip_libs::{DeviceData, DeviceDataMut};
/// use hip_libs::solver::{self, Pivots, Shape};
/// # fn lu<A: DeviceDataMut<f64>>(a: &mut A, stream: &hip_core::Stream) -> hip_libs::Result<()> {
/// let mut pivots = Pivots::new(3, stream)?;
/// solver::getrf(&Shape::square(3), a, &mut pivots)?.check()?;
/// # Ok(()) }
/// # Ok(()) }
/// ```
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for a leading dimension
/// below the rows, a size over `i32::MAX`, an A shorter than its shape or
/// fewer than `min(m, n)` pivots; [`LibError::Hip`] with a device mismatch
/// when the pivots are not on A's device. Then [`LibError::Status`] with
/// rocSOLVER's status, [`LibError::Unavailable`] without rocSOLVER or
/// rocBLAS, or `Pool`/`Hip` from the workspace, `info` or operand ordering
/// ([`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway) when
/// the handle's workspace would grow, for a stream that does not capture,
/// while this thread captures).
#[doc(alias = "rocsolver_sgetrf")]
#[doc(alias = "rocsolver_dgetrf")]
#[doc(alias = "rocsolver_cgetrf")]
#[doc(alias = "rocsolver_zgetrf")]
pub fn getrf<T: SolverScalar>(shape: &Shape, a: &mut impl DeviceDataMut<T>, pivots: &mut Pivots) -> Result<Info> {
    const OP: &str = "getrf";
    let [m, n, lda] = shape.check(OP, "A", a.len())?;
    let k = shape.rows.min(shape.cols);
    single(OP, pivots)?;
    if pivots.len() < k {
        return Err(LibError::invalid(
            OP,
            format!("{} pivots are too few for a {}×{} LU: it needs min(m, n) = {k}", pivots.len(), m, n),
        ));
    }
    let device = a.device();
    same_device(OP, device, &[("the pivots", pivots.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    let info = Info::new(OP, Factorization::Lu, &stream)?;
    let (a_ptr, ipiv, info_ptr) = (a.device_ptr_mut().cast::<T>(), pivots.as_mut_ptr(), info.as_mut_ptr());
    let operands = [(a.buffer(), Access::Write), (pivots.buffer(), Access::Write), (info.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A, the
        // pivots and info are device memory of the checked extents on its device.
        unsafe { T::getrf(api, handle, m, n, a_ptr, lda, ipiv, info_ptr) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))?;
    pivots.written_by(shape.rows, 1);
    Ok(info)
}

/// Solve `op(A) X = B` in place of B, on B's stream (`rocsolver_?getrs`),
/// with the LU factors of the `n × n` A and its pivots from [`getrf`]; B
/// is `n × nrhs`. `Op::ConjTranspose` is the transpose for real types.
///
/// A solve with the factors of a singular matrix divides by its zero
/// pivot (infinities or NaNs in X): check the factorization's [`Info`]
/// first.
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for an A that is not square,
/// a B whose rows are not A's, pivots that no `getrf` wrote or that came
/// from a matrix with more rows than A, a leading dimension below its
/// rows, a size over `i32::MAX` or a short operand; [`LibError::Hip`] with
/// a device mismatch when A or the pivots are not on B's device. Then as
/// [`getrf`].
#[doc(alias = "rocsolver_sgetrs")]
#[doc(alias = "rocsolver_dgetrs")]
#[doc(alias = "rocsolver_cgetrs")]
#[doc(alias = "rocsolver_zgetrs")]
pub fn getrs<T: SolverScalar>(
    op: Op,
    a_shape: &Shape,
    a: &impl DeviceData<T>,
    pivots: &Pivots,
    b_shape: &Shape,
    b: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "getrs";
    let [n, lda, nrhs, ldb] = a_shape.solve_dims(OP, b_shape)?;
    a_shape.check(OP, "A", a.len())?;
    b_shape.check(OP, "B", b.len())?;
    single(OP, pivots)?;
    pivots.check_solve(OP, a_shape.rows, 1)?;
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
        // SAFETY: a live handle bound to B's stream; A, the
        // pivots (each in 1..=n) and B are device memory of the checked
        // extents on its device.
        unsafe { T::getrs(api, handle, trans, n, nrhs, a_ptr, lda, ipiv, b_ptr, ldb) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))
}

/// Refuse the pivots of a batch where one problem's are taken.
fn single(op: &'static str, pivots: &Pivots) -> Result<()> {
    if pivots.count() != 1 {
        return Err(LibError::invalid(
            op,
            format!(
                "these pivots hold a batch of {} problems; pass them to the strided-batched call, or make one \
                 problem's with Pivots::new",
                pivots.count()
            ),
        ));
    }
    Ok(())
}
