//! GEMV and the level 1 functions, on contiguous vectors.

use super::handle::on_handle;
use super::raw::check;
use super::raw::scalar::BlasScalar;
use super::{dim, matrix_len, Op};
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_pool::Access;

/// `y = α op(A) x + β y` on y's stream (`rocblas_?gemv`), A m × n
/// column-major with leading dimension `lda` (at least m, and 1).
///
/// x has n elements (m for a transpose) and y m (n for a transpose),
/// exactly; A holds at least `lda × (n - 1) + m`.
///
/// # Errors
/// [`LibError::Hip`] with a device mismatch when A or x is not on y's
/// device, and [`LibError::InvalidInput`] for a size over `i32::MAX`, `lda`
/// below m, or lengths other than these, before any call; else
/// [`LibError::Status`] with rocBLAS's status, [`LibError::Unavailable`]
/// without rocBLAS, or `Pool`/`Hip` from the workspace or operand ordering.
///
/// # Examples
/// ```
/// use hip_libs::blas::{self, Op};
/// # fn apply(a: &impl hip_libs::DeviceData<f64>, x: &impl hip_libs::DeviceData<f64>,
/// #          y: &mut impl hip_libs::DeviceDataMut<f64>) -> hip_libs::Result<()> {
/// // y (100) = A x, A 100 × 50 column-major (lda 100), x of 50.
/// blas::gemv(Op::None, 100, 50, 1.0, a, 100, x, 0.0, y)?;
/// # Ok(()) }
/// ```
#[allow(clippy::too_many_arguments)]
#[doc(alias = "rocblas_sgemv")]
#[doc(alias = "rocblas_dgemv")]
#[doc(alias = "rocblas_cgemv")]
#[doc(alias = "rocblas_zgemv")]
pub fn gemv<T: BlasScalar>(
    op: Op,
    m: usize,
    n: usize,
    alpha: T,
    a: &impl DeviceData<T>,
    lda: usize,
    x: &impl DeviceData<T>,
    beta: T,
    y: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "gemv";
    let device = y.device();
    same_device(OP, device, &[("A", a.device()), ("x", x.device())])?;
    for (name, value) in [("m", m), ("n", n), ("lda", lda)] {
        dim(OP, name, value)?;
    }
    if lda < m.max(1) {
        return Err(LibError::invalid(OP, format!("lda = {lda} is less than m = {m} (and at least 1)")));
    }
    let (x_len, y_len) = if op == Op::None { (n, m) } else { (m, n) };
    if x.len() != x_len || y.len() != y_len {
        return Err(LibError::invalid(
            OP,
            format!(
                "an {m}×{n} A ({op:?}) needs x of {x_len} and y of {y_len} elements; got {} and {}",
                x.len(),
                y.len()
            ),
        ));
    }
    let need = matrix_len(m, n, lda);
    if a.len() < need {
        return Err(LibError::invalid(
            OP,
            format!("A holds {} elements; {m}×{n} with lda {lda} needs {need}", a.len()),
        ));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let stream = y.stream().clone();
    let (a_ptr, x_ptr, y_ptr) = (a.device_ptr(), x.device_ptr(), y.device_ptr_mut());
    let operands = [(a.buffer(), Access::Read), (x.buffer(), Access::Read), (y.buffer(), Access::Write)];
    on_handle(&stream, &operands, |api, handle| {
        // SAFETY: a live handle on y's stream; operands of the checked
        // sizes on its device; host scalars.
        let status = unsafe {
            T::gemv(api, handle, op.raw(), m as i32, n as i32, &alpha, a_ptr, lda as i32, x_ptr, &beta, y_ptr)
        };
        check(status, "rocblas_?gemv")
    })
}

/// Check that two vectors have one length that fits rocBLAS's 32-bit `n`.
fn same_len(op: &'static str, x: usize, y: usize) -> Result<i32> {
    if x != y {
        return Err(LibError::invalid(op, format!("x has {x} elements and y {y}; they must match")));
    }
    dim(op, "the length", x)
}

/// `y = α x + y` on y's stream (`rocblas_?axpy`).
///
/// # Errors
/// [`LibError::Hip`] with a device mismatch when x is not on y's device,
/// and [`LibError::InvalidInput`] when the lengths differ or exceed
/// `i32::MAX`, before any call; then the errors of a call as for [`gemv`].
///
/// # Examples
/// ```
/// # fn step(grad: &impl hip_libs::DeviceData<f32>, weights: &mut impl hip_libs::DeviceDataMut<f32>)
/// #     -> hip_libs::Result<()> {
/// // weights -= 0.01 × grad: one length, one device, on weights' stream.
/// hip_libs::blas::axpy(-0.01, grad, weights)?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocblas_saxpy")]
#[doc(alias = "rocblas_daxpy")]
#[doc(alias = "rocblas_caxpy")]
#[doc(alias = "rocblas_zaxpy")]
pub fn axpy<T: BlasScalar>(alpha: T, x: &impl DeviceData<T>, y: &mut impl DeviceDataMut<T>) -> Result<()> {
    const OP: &str = "axpy";
    same_device(OP, y.device(), &[("x", x.device())])?;
    let n = same_len(OP, x.len(), y.len())?;
    if n == 0 {
        return Ok(());
    }
    let stream = y.stream().clone();
    let (x_ptr, y_ptr) = (x.device_ptr(), y.device_ptr_mut());
    on_handle(&stream, &[(x.buffer(), Access::Read), (y.buffer(), Access::Write)], |api, handle| {
        // SAFETY: a live handle on y's stream; two vectors of n elements on its device.
        check(unsafe { T::axpy(api, handle, n, &alpha, x_ptr, y_ptr) }, "rocblas_?axpy")
    })
}

/// `x = α x` on x's stream (`rocblas_?scal`).
///
/// # Errors
/// [`LibError::InvalidInput`] when the length exceeds `i32::MAX`, before
/// any call; then the errors of a call as for [`gemv`].
#[doc(alias = "rocblas_sscal")]
#[doc(alias = "rocblas_dscal")]
#[doc(alias = "rocblas_cscal")]
#[doc(alias = "rocblas_zscal")]
pub fn scal<T: BlasScalar>(alpha: T, x: &mut impl DeviceDataMut<T>) -> Result<()> {
    const OP: &str = "scal";
    let n = dim(OP, "the length", x.len())?;
    if n == 0 {
        return Ok(());
    }
    let stream = x.stream().clone();
    let x_ptr = x.device_ptr_mut();
    on_handle(&stream, &[(x.buffer(), Access::Write)], |api, handle| {
        // SAFETY: a live handle on x's stream; a vector of n elements on its device.
        check(unsafe { T::scal(api, handle, n, &alpha, x_ptr) }, "rocblas_?scal")
    })
}

fn dot_impl<T: BlasScalar>(
    op: &'static str,
    x: &impl DeviceData<T>,
    y: &impl DeviceData<T>,
    conjugate: bool,
) -> Result<T> {
    same_device(op, x.device(), &[("y", y.device())])?;
    let n = same_len(op, x.len(), y.len())?;
    let mut result = T::default();
    if n == 0 {
        return Ok(result);
    }
    let stream = x.stream().clone();
    // The result comes back to the host, waited for: not capturable.
    hip_core::capture::check_wait("rocblas_?dot", &stream)?;
    let (x_ptr, y_ptr) = (x.device_ptr(), y.device_ptr());
    on_handle(&stream, &[(x.buffer(), Access::Read), (y.buffer(), Access::Read)], |api, handle| {
        // SAFETY: a live handle on x's stream; two vectors of n elements;
        // the result is host memory (host pointer mode: the call waits).
        check(unsafe { T::dot(api, handle, n, x_ptr, y_ptr, conjugate, &mut result) }, "rocblas_?dot")
    })?;
    Ok(result)
}

/// `Σ xᵢ yᵢ` (no conjugation), on x's stream; waits for the result
/// (`rocblas_?dot`, `rocblas_?dotu` for complex types).
///
/// # Errors
/// [`LibError::Hip`] with a device mismatch when y is not on x's device,
/// and [`LibError::InvalidInput`] when the lengths differ or exceed
/// `i32::MAX`, before any call; then the errors of a call as for [`gemv`].
#[doc(alias = "rocblas_sdot")]
#[doc(alias = "rocblas_ddot")]
#[doc(alias = "rocblas_cdotu")]
#[doc(alias = "rocblas_zdotu")]
pub fn dot<T: BlasScalar>(x: &impl DeviceData<T>, y: &impl DeviceData<T>) -> Result<T> {
    dot_impl("dot", x, y, false)
}

/// `Σ conj(xᵢ) yᵢ`, on x's stream; waits for the result (`rocblas_?dotc`;
/// the same as [`dot`] for real types).
///
/// # Errors
/// As [`dot`].
#[doc(alias = "rocblas_cdotc")]
#[doc(alias = "rocblas_zdotc")]
pub fn dotc<T: BlasScalar>(x: &impl DeviceData<T>, y: &impl DeviceData<T>) -> Result<T> {
    dot_impl("dotc", x, y, true)
}

/// The Euclidean norm `√Σ|xᵢ|²`, on x's stream; waits for the result
/// (`rocblas_?nrm2`).
///
/// # Errors
/// [`LibError::InvalidInput`] when the length exceeds `i32::MAX`, before
/// any call; then the errors of a call as for [`gemv`].
#[doc(alias = "rocblas_snrm2")]
#[doc(alias = "rocblas_dnrm2")]
#[doc(alias = "rocblas_scnrm2")]
#[doc(alias = "rocblas_dznrm2")]
pub fn nrm2<T: BlasScalar>(x: &impl DeviceData<T>) -> Result<T::Real> {
    const OP: &str = "nrm2";
    let n = dim(OP, "the length", x.len())?;
    let mut result = T::Real::default();
    if n == 0 {
        return Ok(result);
    }
    let stream = x.stream().clone();
    // The result comes back to the host, waited for: not capturable.
    hip_core::capture::check_wait("rocblas_?nrm2", &stream)?;
    let x_ptr = x.device_ptr();
    on_handle(&stream, &[(x.buffer(), Access::Read)], |api, handle| {
        // SAFETY: a live handle on x's stream; a vector of n elements; a
        // host result (the call waits).
        check(unsafe { T::nrm2(api, handle, n, x_ptr, &mut result) }, "rocblas_?nrm2")
    })?;
    Ok(result)
}
