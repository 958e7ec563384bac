//! What softmax and the activations share: the checks of
//! `y = alpha * f(x) + beta * y`, and the blend in FP32.

use super::objects::*;
use super::status::*;
use crate::bindings::miopen::*;
use crate::library::{host_scalar, span, Real, Span};
use std::ffi::c_void;

/// Common checks of `y = alpha * f(x) + beta * y` operations; returns the
/// shape, type, scalars and the two device spans.
#[allow(clippy::type_complexity)]
pub(super) fn unary_operands(
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    alpha: *const c_void,
    beta: *const c_void,
) -> Result<([usize; 4], Real, f64, f64, Span, Span), Status> {
    let (xs, xr) = tensor(x_desc)?;
    let (ys, yr) = tensor(y_desc)?;
    if xs != ys || xr != yr {
        return Err(BAD_PARM);
    }
    if alpha.is_null() || beta.is_null() {
        return Err(BAD_PARM);
    }
    if xr != Real::F32 {
        // MIOpen has no FP64 softmax or activation kernels.
        return Err(NOT_IMPLEMENTED);
    }
    let bytes = count(&xs) * xr.size();
    let xspan = span(x as usize, bytes).ok_or(BAD_PARM)?;
    let yspan = span(y as usize, bytes).ok_or(BAD_PARM)?;
    // SAFETY: non-null host scalars; MIOpen reads them as float whatever
    // the tensor type.
    let (a, b) = unsafe { (host_scalar(alpha, Real::F32), host_scalar(beta, Real::F32)) };
    Ok((xs, xr, a, b, xspan, yspan))
}

/// Blend `alpha * f + beta * y` into `y`, in FP32.
pub(super) fn blend(y: &mut [f64], f: &[f32], alpha: f64, beta: f64) {
    let (alpha, beta) = (alpha as f32, beta as f32);
    for (yi, fi) in y.iter_mut().zip(f) {
        *yi = f64::from(alpha * fi + if beta == 0.0 { 0.0 } else { beta * *yi as f32 });
    }
}

/// FP32 values of reals read from an FP32 tensor (exact).
pub(super) fn as_f32(values: &[f64]) -> Vec<f32> {
    values.iter().map(|v| *v as f32).collect()
}
