//! Activations: MIOpen's functions, the activation descriptor, and
//! `miopenActivationForward`.

use super::objects::*;
use super::status::*;
use super::unary::{blend, unary_operands};
use super::{Kind, OBJECTS};
use crate::bindings::miopen::*;
use crate::library::{accesses, call, write_out};
use crate::machine::violations::AccessKind;
use crate::submit;
use std::ffi::c_void;

/// MIOpen's activation functions; `None` for an unknown mode.
pub(crate) fn activate(mode: u32, x: f64, alpha: f64, beta: f64, gamma: f64) -> Option<f64> {
    Some(match mode {
        0 => x,
        1 => 1.0 / (1.0 + (-x).exp()),
        2 => beta * (alpha * x).tanh(),
        3 => x.max(0.0),
        4 => x.exp().ln_1p(),
        5 => x.abs(),
        6 => {
            let v = alpha + beta * x;
            if v <= 0.0 {
                0.0
            } else {
                v.powf(gamma)
            }
        }
        7 => x.max(0.0).min(alpha),
        8 => {
            if x > 0.0 {
                x
            } else {
                alpha * x
            }
        }
        9 => {
            if x > 0.0 {
                x
            } else {
                alpha * x.exp_m1()
            }
        }
        _ => return None,
    })
}

pub(crate) unsafe extern "C" fn miopenCreateActivationDescriptor(desc: *mut miopenActivationDescriptor_t) -> Status {
    call("miopenCreateActivationDescriptor", OK, INTERNAL, || {
        if desc.is_null() {
            return Err(BAD_PARM);
        }
        let h = OBJECTS.insert(Kind::Activation(Activation { mode: 0, alpha: 0.0, beta: 0.0, gamma: 0.0 }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(desc, h as miopenActivationDescriptor_t, BAD_PARM) }
    })
}

pub(crate) unsafe extern "C" fn miopenSetActivationDescriptor(
    desc: miopenActivationDescriptor_t,
    mode: miopenActivationMode_t,
    alpha: f64,
    beta: f64,
    gamma: f64,
) -> Status {
    call("miopenSetActivationDescriptor", OK, INTERNAL, || {
        if mode.0 > 9 {
            return Err(BAD_PARM);
        }
        OBJECTS
            .with(desc as usize, |o| match &mut o.kind {
                Kind::Activation(a) => {
                    *a = Activation { mode: mode.0, alpha, beta, gamma };
                    true
                }
                _ => false,
            })
            .filter(|found| *found)
            .map(drop)
            .ok_or(BAD_PARM)
    })
}

pub(crate) unsafe extern "C" fn miopenDestroyActivationDescriptor(desc: miopenActivationDescriptor_t) -> Status {
    call("miopenDestroyActivationDescriptor", OK, INTERNAL, || {
        OBJECTS.remove_if(desc as usize, |k| matches!(k, Kind::Activation(_))).map(drop).ok_or(BAD_PARM)
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn miopenActivationForward(
    handle: miopenHandle_t,
    desc: miopenActivationDescriptor_t,
    alpha: *const c_void,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    beta: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
) -> Status {
    call("miopenActivationForward", OK, INTERNAL, || {
        let target = handle_target("miopenActivationForward", handle)?;
        let act = OBJECTS
            .with(desc as usize, |o| match &o.kind {
                Kind::Activation(a) => Some(*a),
                _ => None,
            })
            .flatten()
            .ok_or(BAD_PARM)?;
        let (shape, real, a, b, xspan, yspan) = unary_operands(x_desc, x, y_desc, y, alpha, beta)?;
        if a != 1.0 || b != 0.0 {
            // MIOpen's activation forward takes only alpha 1 and beta 0.
            return Err(UNKNOWN);
        }
        let total = count(&shape);
        let op = submit::Op::with(
            "miopenActivationForward",
            accesses([(&xspan, AccessKind::Read), (&yspan, AccessKind::Write)]),
        );
        submit::submit(&target, false, op, move || {
            let xs = xspan.read(real, 0, total)?;
            let mut ys = vec![0.0; total];
            let f: Vec<f32> = xs
                .iter()
                .map(|&v| activate(act.mode, v, act.alpha, act.beta, act.gamma).unwrap_or(f64::NAN) as f32)
                .collect();
            blend(&mut ys, &f, a, b);
            yspan.write(real, 0, &ys)
        })
        .map_err(|_| INTERNAL)
    })
}
