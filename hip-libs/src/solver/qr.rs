//! QR: `geqrf` factors into Householder reflectors and R, `orgqr`
//! (`ungqr`) builds Q's columns from the reflectors.

use super::raw::{check, SolverScalar};
use super::shape::Shape;
use crate::blas::on_handle_sized;
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_pool::Access;

/// Factor the `m × n` matrix A as `Q R` in place, on A's stream
/// (`rocsolver_?geqrf`): R on and above the diagonal, the Householder
/// vectors of `Q = H₁ H₂ … H_k` (`k = min(m, n)`, `H_i = I − τ_i v_i v_iᴴ`)
/// below it with their leading 1 implicit, as LAPACK stores them, and the
/// scalars τ into `tau` (at least `k` of them). R's diagonal is real, of
/// either sign. QR never fails on finite input: there is no `info`.
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for a leading dimension
/// below the rows, a size over `i32::MAX`, a short A or too few scalars;
/// [`LibError::Hip`] with a device mismatch when `tau` is not on A's
/// device. Then as [`potrf`](super::potrf).
#[doc(alias = "rocsolver_sgeqrf")]
#[doc(alias = "rocsolver_dgeqrf")]
#[doc(alias = "rocsolver_cgeqrf")]
#[doc(alias = "rocsolver_zgeqrf")]
pub fn geqrf<T: SolverScalar>(
    shape: &Shape,
    a: &mut impl DeviceDataMut<T>,
    tau: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "geqrf";
    let [m, n, lda] = shape.check(OP, "A", a.len())?;
    let k = shape.rows.min(shape.cols);
    if tau.len() < k {
        return Err(LibError::invalid(
            OP,
            format!("tau holds {}; a {m}×{n} QR has min(m, n) = {k} scalars", tau.len()),
        ));
    }
    same_device(OP, a.device(), &[("tau", tau.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    let (a_ptr, tau_ptr) = (a.device_ptr_mut().cast::<T>(), tau.device_ptr_mut().cast::<T>());
    let operands = [(a.buffer(), Access::Write), (tau.buffer(), Access::Write)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A and tau are device
        // memory of the checked extents on its device.
        unsafe { T::geqrf(api, handle, m, n, a_ptr, lda, tau_ptr) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))
}

/// Overwrite the `m × n` A (`n ≤ m`) with the first `n` columns of
/// `Q = H₁ … H_k`, from the `k ≤ n` reflectors [`geqrf`] left in A and
/// their scalars `tau`, on A's stream (`rocsolver_?orgqr`,
/// `rocsolver_?ungqr`): orthonormal columns. With `k = n` from a `geqrf`
/// of the same A, `Q R` is the factored matrix.
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for `n > m`, `k > n`, too
/// few scalars, a leading dimension below the rows, a size over `i32::MAX`
/// or a short A; [`LibError::Hip`] with a device mismatch when `tau` is not
/// on A's device. Then as [`potrf`](super::potrf).
#[doc(alias = "rocsolver_sorgqr")]
#[doc(alias = "rocsolver_dorgqr")]
#[doc(alias = "rocsolver_cungqr")]
#[doc(alias = "rocsolver_zungqr")]
#[doc(alias = "ungqr")]
pub fn orgqr<T: SolverScalar>(
    shape: &Shape,
    k: usize,
    a: &mut impl DeviceDataMut<T>,
    tau: &impl DeviceData<T>,
) -> Result<()> {
    const OP: &str = "orgqr";
    let [m, n, lda] = shape.check(OP, "A", a.len())?;
    if shape.cols > shape.rows || k > shape.cols {
        return Err(LibError::invalid(
            OP,
            format!("Q's first columns need n ≤ m and k ≤ n; here m = {m}, n = {n}, k = {k}"),
        ));
    }
    if tau.len() < k {
        return Err(LibError::invalid(OP, format!("tau holds {}; {k} reflectors need {k} scalars", tau.len())));
    }
    same_device(OP, a.device(), &[("tau", tau.device())])?;
    let api = hip_sys::rocsolver()?;
    let stream = a.stream().clone();
    // rocSOLVER only reads tau, though its signature is not const.
    let (a_ptr, tau_ptr, k32) = (a.device_ptr_mut().cast::<T>(), tau.device_ptr() as *mut T, k as i32);
    let operands = [(a.buffer(), Access::Write), (tau.buffer(), Access::Read)];
    // The call, once during a size query and once to run.
    let call = move |handle| {
        // SAFETY: a live handle bound to A's stream; A and tau are device
        // memory of the checked extents on its device.
        unsafe { T::orgqr(api, handle, m, n, k32, a_ptr, lda, tau_ptr) }
    };
    on_handle_sized(&stream, OP, &operands, call, |handle| check(call(handle), OP))
}
