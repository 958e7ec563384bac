//! The library's objects (handles and tensor, activation and convolution
//! descriptors) and how a call finds them.

use super::status::*;
use super::{Kind, OBJECTS};
use crate::bindings::miopen::*;
use crate::library::Real;
use crate::machine::queue::Target;
use crate::machine::violations;
use crate::targets;

/// What `miopenGetVersion` reports.
pub(crate) const VERSION: (usize, usize, usize) = (3, 1, 0);

/// A `miopenHandle_t`.
pub(crate) struct Handle {
    pub(super) stream: usize,
    /// The invokers the algorithm search registered on this handle.
    pub(super) invokers: Vec<(Problem, u32)>,
}

/// A forward convolution problem: input, filter and output shapes and the
/// convolution's parameters.
pub(super) type Problem = ([usize; 4], [usize; 4], [usize; 4], Convolution);

/// A 4-d `miopenTensorDescriptor_t`; `None` until set.
#[derive(Clone, Copy)]
pub(crate) struct Tensor {
    pub(super) shape: Option<([usize; 4], Real)>,
}

/// A `miopenActivationDescriptor_t`.
#[derive(Clone, Copy)]
pub(crate) struct Activation {
    pub(super) mode: u32,
    pub(super) alpha: f64,
    pub(super) beta: f64,
    pub(super) gamma: f64,
}

/// A `miopenConvolutionDescriptor_t`: pad, stride, dilation as (h, w).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Convolution {
    pub(super) pad: (usize, usize),
    pub(super) stride: (usize, usize),
    pub(super) dilation: (usize, usize),
}

/// The handle's device and stream queue, recording a violation if the
/// calling thread is on another device.
pub(super) fn handle_target(function: &'static str, handle: miopenHandle_t) -> Result<Target, Status> {
    let (device, stream) = OBJECTS
        .with(handle as usize, |o| match &o.kind {
            Kind::DnnHandle(h) => Some((o.device, h.stream)),
            _ => None,
        })
        .flatten()
        .ok_or(BAD_PARM)?;
    violations::check(function, device);
    let target = if stream == 0 {
        targets::null_target(device).map_err(|_| INTERNAL)?
    } else {
        targets::target(stream as crate::bindings::hip::hipStream_t).map_err(|_| BAD_PARM)?
    };
    if target.device != device {
        return Err(BAD_PARM);
    }
    Ok(target)
}

pub(super) fn tensor(desc: miopenTensorDescriptor_t) -> Result<([usize; 4], Real), Status> {
    OBJECTS
        .with(desc as usize, |o| match &o.kind {
            Kind::Tensor(t) => t.shape,
            _ => None,
        })
        .flatten()
        .ok_or(BAD_PARM)
}

pub(super) fn count(shape: &[usize; 4]) -> usize {
    shape.iter().product()
}
