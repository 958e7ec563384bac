//! Softmax: `miopenSoftmaxForward_V2`, fast, accurate and log, by instance
//! or by channel.

use super::objects::*;
use super::status::*;
use super::unary::{as_f32, blend, unary_operands};
use crate::bindings::miopen::*;
use crate::library::{accesses, call};
use crate::machine::violations::AccessKind;
use crate::submit;
use std::ffi::c_void;

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn miopenSoftmaxForward_V2(
    handle: miopenHandle_t,
    alpha: *const c_void,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    beta: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    algorithm: miopenSoftmaxAlgorithm_t,
    mode: miopenSoftmaxMode_t,
) -> Status {
    call("miopenSoftmaxForward_V2", OK, INTERNAL, || {
        let target = handle_target("miopenSoftmaxForward_V2", handle)?;
        // FAST (0) does not subtract the maximum; ACCURATE (1) and LOG (2) do.
        let (subtract_max, log) = match algorithm.0 {
            0 => (false, false),
            1 => (true, false),
            2 => (true, true),
            _ => return Err(BAD_PARM),
        };
        let channel = match mode.0 {
            0 => false,
            1 => true,
            _ => return Err(BAD_PARM),
        };
        let (shape, real, a, b, xspan, yspan) = unary_operands(x_desc, x, y_desc, y, alpha, beta)?;
        let total = count(&shape);
        let op = submit::Op::with(
            "miopenSoftmaxForward_V2",
            accesses([(&xspan, AccessKind::Read), (&yspan, AccessKind::Write)]),
        );
        submit::submit(&target, false, op, move || {
            let xs = as_f32(&xspan.read(real, 0, total)?);
            let mut ys = if b == 0.0 { vec![0.0; total] } else { yspan.read(real, 0, total)? };
            let [n, c, h, w] = shape;
            let mut f = vec![0.0f32; total];
            // Each group is a set of element indices normalized together.
            let groups: Vec<Vec<usize>> = if channel {
                (0..n)
                    .flat_map(|ni| (0..h * w).map(move |s| (0..c).map(|ci| (ni * c + ci) * h * w + s).collect()))
                    .collect()
            } else {
                (0..n).map(|ni| (ni * c * h * w..(ni + 1) * c * h * w).collect()).collect()
            };
            for group in groups {
                let max =
                    if subtract_max { group.iter().map(|&i| xs[i]).fold(f32::NEG_INFINITY, f32::max) } else { 0.0 };
                let sum: f32 = group.iter().map(|&i| (xs[i] - max).exp()).sum();
                for &i in &group {
                    f[i] = if log { xs[i] - max - sum.ln() } else { (xs[i] - max).exp() / sum };
                }
            }
            blend(&mut ys, &f, a, b);
            yspan.write(real, 0, &ys)
        })
        .map_err(|_| INTERNAL)
    })
}
