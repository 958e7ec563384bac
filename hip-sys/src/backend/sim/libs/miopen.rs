//! MIOpen in the simulator: handles, 4-d tensor descriptors, softmax,
//! activations and forward convolution, computed with direct loops in FP32.
//!
//! As strict as MIOpen (3.x, `convolutionocl.cpp`, `softmax.cpp`,
//! `activ.cpp`), where being lenient would hide a bug:
//!
//! - `miopenGetVersion` reports 3.1.0 (the MIOpen of ROCm 6.1).
//! - Tensors: NCHW, packed, `miopenFloat` or `miopenDouble` descriptors;
//!   other types are `miopenStatusNotImplemented`. No operation computes in
//!   FP64, as MIOpen has no FP64 kernels for them: softmax and activations
//!   of a `miopenDouble` tensor are `miopenStatusNotImplemented` (MIOpen's
//!   softmax would run its FP32 kernel over the doubles and return
//!   garbage), convolution of one is `miopenStatusUnknownError` (no solver
//!   applies).
//! - `alpha` and `beta` are read as `float` whatever the tensor type, as
//!   MIOpen reads them. Softmax computes `y = alpha * f(x) + beta * y`
//!   (with `beta == 0`, `y` is not read). Activations and convolution
//!   accept only alpha 1 and beta 0 (activations: `miopenStatusUnknownError`;
//!   2-d convolution: `miopenStatusNotImplemented`).
//! - Softmax V2: fast does not subtract the maximum (it overflows where
//!   MIOpen's does), accurate does, log gives log-softmax; mode instance
//!   normalizes over C × H × W of each image, mode channel over C at each
//!   (n, h, w).
//! - Activations with MIOpen's α, β, γ (the descriptor's `activAlpha`,
//!   `activBeta`, `activPower`): see [`activate`].
//! - Convolution: mode `miopenConvolution` (cross-correlation, no groups),
//!   `miopenFloat` only; the filter is a 4-d tensor K × C × R × S; padding,
//!   stride and dilation per dimension.
//!   - The workspace is that of MIOpen's im2col GEMM, C × R × S × (output
//!     H × W) floats, except for a 1 × 1 filter of stride 1 and no padding
//!     (0 bytes). A workspace pointer and size must be both null and zero
//!     or both non-null and non-zero (`miopenStatusBadParm`; MIOpen
//!     asserts it).
//!   - The algorithm search reports GEMM when the workspace it is given
//!     holds the im2col buffer and direct otherwise; it does not write
//!     `y`. What it found is recorded **on that handle**, as MIOpen's
//!     invoker cache is: forward on a handle that never searched this
//!     problem with this algorithm fails with `miopenStatusUnknownError`
//!     ("No invoker was registered ... Was find executed?").

use super::{accesses, call, host_scalar, insert, remove_if, span, with, write_out, Kind, Real};
use crate::backend::sim::machine::sim;
use crate::backend::sim::queue::Target;
use crate::backend::sim::thread::current_device;
use crate::backend::sim::violations;
use crate::backend::sim::violations::AccessKind;
use crate::backend::sim::{submit, targets};
use crate::bindings::miopen::*;
use std::ffi::{c_int, c_void};

type Status = miopenStatus_t;
const OK: Status = miopenStatus_t::miopenStatusSuccess;
const BAD_PARM: Status = miopenStatus_t::miopenStatusBadParm;
const INTERNAL: Status = miopenStatus_t::miopenStatusInternalError;
const NOT_IMPLEMENTED: Status = miopenStatus_t::miopenStatusNotImplemented;
const UNKNOWN: Status = miopenStatus_t::miopenStatusUnknownError;

/// What `miopenGetVersion` reports.
pub(crate) const VERSION: (usize, usize, usize) = (3, 1, 0);

/// A `miopenHandle_t`.
pub(crate) struct Handle {
    stream: usize,
    /// The invokers the algorithm search registered on this handle.
    invokers: Vec<(Problem, u32)>,
}

/// A forward convolution problem: input, filter and output shapes and the
/// convolution's parameters.
type Problem = ([usize; 4], [usize; 4], [usize; 4], Convolution);

/// A 4-d `miopenTensorDescriptor_t`; `None` until set.
#[derive(Clone, Copy)]
pub(crate) struct Tensor {
    shape: Option<([usize; 4], Real)>,
}

/// A `miopenActivationDescriptor_t`.
#[derive(Clone, Copy)]
pub(crate) struct Activation {
    mode: u32,
    alpha: f64,
    beta: f64,
    gamma: f64,
}

/// A `miopenConvolutionDescriptor_t`: pad, stride, dilation as (h, w).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Convolution {
    pad: (usize, usize),
    stride: (usize, usize),
    dilation: (usize, usize),
}

/// The handle's device and stream queue, recording a violation if the
/// calling thread is on another device.
fn handle_target(function: &'static str, handle: miopenHandle_t) -> Result<Target, Status> {
    let (device, stream) = with(handle as usize, |o| match &o.kind {
        Kind::DnnHandle(h) => Some((o.device, h.stream)),
        _ => None,
    })
    .flatten()
    .ok_or(BAD_PARM)?;
    violations::check(function, device);
    let target = if stream == 0 {
        targets::null_target(device).map_err(|_| INTERNAL)?
    } else {
        targets::target(stream as crate::hipStream_t).map_err(|_| BAD_PARM)?
    };
    if target.device != device {
        return Err(BAD_PARM);
    }
    Ok(target)
}

fn tensor(desc: miopenTensorDescriptor_t) -> Result<([usize; 4], Real), Status> {
    with(desc as usize, |o| match &o.kind {
        Kind::Tensor(t) => t.shape,
        _ => None,
    })
    .flatten()
    .ok_or(BAD_PARM)
}

fn count(shape: &[usize; 4]) -> usize {
    shape.iter().product()
}

// ---- handles ---------------------------------------------------------------

pub(crate) unsafe extern "C" fn miopenGetVersion(major: *mut usize, minor: *mut usize, patch: *mut usize) -> Status {
    call("miopenGetVersion", OK, INTERNAL, || {
        let (a, b, c) = VERSION;
        // SAFETY: null pointers are ignored, as MIOpen documents; others
        // are valid per the C contract.
        unsafe {
            for (out, value) in [(major, a), (minor, b), (patch, c)] {
                if !out.is_null() {
                    out.write(value);
                }
            }
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn miopenCreate(handle: *mut miopenHandle_t) -> Status {
    call("miopenCreate", OK, INTERNAL, || {
        if handle.is_null() {
            return Err(BAD_PARM);
        }
        if sim().device(current_device()).is_none() {
            return Err(miopenStatus_t::miopenStatusNotInitialized);
        }
        let h = insert(Kind::DnnHandle(Handle { stream: 0, invokers: Vec::new() }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(handle, h as miopenHandle_t, BAD_PARM) }
    })
}

pub(crate) unsafe extern "C" fn miopenDestroy(handle: miopenHandle_t) -> Status {
    call("miopenDestroy", OK, INTERNAL, || {
        let object = remove_if(handle as usize, |k| matches!(k, Kind::DnnHandle(_))).ok_or(BAD_PARM)?;
        violations::check("miopenDestroy", object.device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn miopenSetStream(handle: miopenHandle_t, stream: miopenAcceleratorQueue_t) -> Status {
    call("miopenSetStream", OK, INTERNAL, || {
        handle_target("miopenSetStream", handle)?;
        with(handle as usize, |o| {
            if let Kind::DnnHandle(h) = &mut o.kind {
                h.stream = stream as usize;
            }
        });
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn miopenGetStream(
    handle: miopenHandle_t,
    stream: *mut miopenAcceleratorQueue_t,
) -> Status {
    call("miopenGetStream", OK, INTERNAL, || {
        let device = with(handle as usize, |o| match &o.kind {
            Kind::DnnHandle(h) => Some((o.device, h.stream)),
            _ => None,
        })
        .flatten()
        .ok_or(BAD_PARM)?;
        violations::check("miopenGetStream", device.0);
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(stream, device.1 as miopenAcceleratorQueue_t, BAD_PARM) }
    })
}

// ---- tensors -----------------------------------------------------------------

pub(crate) unsafe extern "C" fn miopenCreateTensorDescriptor(desc: *mut miopenTensorDescriptor_t) -> Status {
    call("miopenCreateTensorDescriptor", OK, INTERNAL, || {
        if desc.is_null() {
            return Err(BAD_PARM);
        }
        let h = insert(Kind::Tensor(Tensor { shape: None }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(desc, h as miopenTensorDescriptor_t, BAD_PARM) }
    })
}

pub(crate) unsafe extern "C" fn miopenSet4dTensorDescriptor(
    desc: miopenTensorDescriptor_t,
    data_type: miopenDataType_t,
    n: c_int,
    c: c_int,
    h: c_int,
    w: c_int,
) -> Status {
    call("miopenSet4dTensorDescriptor", OK, INTERNAL, || {
        let real = match data_type {
            miopenDataType_t::miopenFloat => Real::F32,
            miopenDataType_t::miopenDouble => Real::F64,
            _ => return Err(NOT_IMPLEMENTED),
        };
        let dims = [n, c, h, w].map(|d| usize::try_from(d).ok().filter(|d| *d > 0));
        let [Some(n), Some(c), Some(h), Some(w)] = dims else {
            return Err(BAD_PARM);
        };
        with(desc as usize, |o| match &mut o.kind {
            Kind::Tensor(t) => {
                t.shape = Some(([n, c, h, w], real));
                true
            }
            _ => false,
        })
        .filter(|found| *found)
        .map(drop)
        .ok_or(BAD_PARM)
    })
}

pub(crate) unsafe extern "C" fn miopenDestroyTensorDescriptor(desc: miopenTensorDescriptor_t) -> Status {
    call("miopenDestroyTensorDescriptor", OK, INTERNAL, || {
        remove_if(desc as usize, |k| matches!(k, Kind::Tensor(_))).map(drop).ok_or(BAD_PARM)
    })
}

/// Common checks of `y = alpha * f(x) + beta * y` operations; returns the
/// shape, type, scalars and the two device spans.
#[allow(clippy::type_complexity)]
fn unary_operands(
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    alpha: *const c_void,
    beta: *const c_void,
) -> Result<([usize; 4], Real, f64, f64, super::Span, super::Span), Status> {
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
fn blend(y: &mut [f64], f: &[f32], alpha: f64, beta: f64) {
    let (alpha, beta) = (alpha as f32, beta as f32);
    for (yi, fi) in y.iter_mut().zip(f) {
        *yi = f64::from(alpha * fi + if beta == 0.0 { 0.0 } else { beta * *yi as f32 });
    }
}

/// FP32 values of reals read from an FP32 tensor (exact).
fn as_f32(values: &[f64]) -> Vec<f32> {
    values.iter().map(|v| *v as f32).collect()
}

// ---- softmax -----------------------------------------------------------------

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

// ---- activations ---------------------------------------------------------------

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
        let h = insert(Kind::Activation(Activation { mode: 0, alpha: 0.0, beta: 0.0, gamma: 0.0 }));
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
        with(desc as usize, |o| match &mut o.kind {
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
        remove_if(desc as usize, |k| matches!(k, Kind::Activation(_))).map(drop).ok_or(BAD_PARM)
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
        let act = with(desc as usize, |o| match &o.kind {
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

// ---- convolution -----------------------------------------------------------------

pub(crate) unsafe extern "C" fn miopenCreateConvolutionDescriptor(desc: *mut miopenConvolutionDescriptor_t) -> Status {
    call("miopenCreateConvolutionDescriptor", OK, INTERNAL, || {
        if desc.is_null() {
            return Err(BAD_PARM);
        }
        let conv = Convolution { pad: (0, 0), stride: (1, 1), dilation: (1, 1) };
        let h = insert(Kind::Convolution(conv));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(desc, h as miopenConvolutionDescriptor_t, BAD_PARM) }
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn miopenInitConvolutionDescriptor(
    desc: miopenConvolutionDescriptor_t,
    mode: miopenConvolutionMode_t,
    pad_h: c_int,
    pad_w: c_int,
    stride_h: c_int,
    stride_w: c_int,
    dilation_h: c_int,
    dilation_w: c_int,
) -> Status {
    call("miopenInitConvolutionDescriptor", OK, INTERNAL, || {
        if mode != miopenConvolutionMode_t::miopenConvolution {
            return Err(NOT_IMPLEMENTED);
        }
        let non_negative = |v: c_int| usize::try_from(v).map_err(|_| BAD_PARM);
        let positive = |v: c_int| usize::try_from(v).ok().filter(|v| *v > 0).ok_or(BAD_PARM);
        let conv = Convolution {
            pad: (non_negative(pad_h)?, non_negative(pad_w)?),
            stride: (positive(stride_h)?, positive(stride_w)?),
            dilation: (positive(dilation_h)?, positive(dilation_w)?),
        };
        with(desc as usize, |o| match &mut o.kind {
            Kind::Convolution(c) => {
                *c = conv;
                true
            }
            _ => false,
        })
        .filter(|found| *found)
        .map(drop)
        .ok_or(BAD_PARM)
    })
}

pub(crate) unsafe extern "C" fn miopenDestroyConvolutionDescriptor(desc: miopenConvolutionDescriptor_t) -> Status {
    call("miopenDestroyConvolutionDescriptor", OK, INTERNAL, || {
        remove_if(desc as usize, |k| matches!(k, Kind::Convolution(_))).map(drop).ok_or(BAD_PARM)
    })
}

fn convolution(desc: miopenConvolutionDescriptor_t) -> Result<Convolution, Status> {
    with(desc as usize, |o| match &o.kind {
        Kind::Convolution(c) => Some(*c),
        _ => None,
    })
    .flatten()
    .ok_or(BAD_PARM)
}

/// The output shape of `x` convolved with filter `w` under `conv`.
fn output_dim(conv: &Convolution, x: &[usize; 4], w: &[usize; 4]) -> Result<[usize; 4], Status> {
    let [n, c, h, wd] = *x;
    let [k, fc, r, s] = *w;
    if fc != c {
        return Err(BAD_PARM);
    }
    let out = |size: usize, pad: usize, dil: usize, f: usize, stride: usize| {
        let span = dil * (f - 1) + 1;
        (size + 2 * pad).checked_sub(span).map(|v| v / stride + 1).ok_or(BAD_PARM)
    };
    Ok([
        n,
        k,
        out(h, conv.pad.0, conv.dilation.0, r, conv.stride.0)?,
        out(wd, conv.pad.1, conv.dilation.1, s, conv.stride.1)?,
    ])
}

pub(crate) unsafe extern "C" fn miopenGetConvolutionForwardOutputDim(
    desc: miopenConvolutionDescriptor_t,
    input: miopenTensorDescriptor_t,
    filter: miopenTensorDescriptor_t,
    n: *mut c_int,
    c: *mut c_int,
    h: *mut c_int,
    w: *mut c_int,
) -> Status {
    call("miopenGetConvolutionForwardOutputDim", OK, INTERNAL, || {
        let conv = convolution(desc)?;
        let (xs, _) = tensor(input)?;
        let (ws, _) = tensor(filter)?;
        let out = output_dim(&conv, &xs, &ws)?;
        for (ptr, value) in [(n, out[0]), (c, out[1]), (h, out[2]), (w, out[3])] {
            let value = c_int::try_from(value).map_err(|_| BAD_PARM)?;
            // SAFETY: null is refused; otherwise valid per the C contract.
            unsafe { write_out(ptr, value, BAD_PARM)? };
        }
        Ok(())
    })
}

/// Bytes of MIOpen's im2col buffer for one image (its GEMM algorithm's
/// workspace): C × R × S × (output H × W) floats; none for a 1 × 1 filter
/// of stride 1 without padding, which is a plain GEMM.
fn im2col_bytes(xs: &[usize; 4], ws: &[usize; 4], ys: &[usize; 4], conv: &Convolution) -> usize {
    let [_, c, ..] = *xs;
    let [_, _, r, s] = *ws;
    let [_, _, oh, ow] = *ys;
    if r == 1 && s == 1 && conv.stride == (1, 1) && conv.pad == (0, 0) {
        return 0;
    }
    4 * c * r * s * oh * ow
}

/// MIOpen's workspace rule: pointer and size both null and zero, or both
/// not (`ValidateWorkspace`, an assertion in MIOpen).
fn check_workspace(function: &str, ptr: *mut c_void, size: usize) -> Result<(), Status> {
    if ptr.is_null() != (size == 0) {
        log::error!("{function}: workspace {ptr:?} of {size} bytes: pointer and size must be both zero or both not");
        return Err(BAD_PARM);
    }
    if size > 0 {
        span(ptr as usize, size).ok_or(BAD_PARM)?;
    }
    Ok(())
}

/// Check the three tensors of a forward convolution; returns their shapes.
#[allow(clippy::type_complexity)]
fn conv_shapes(
    x_desc: miopenTensorDescriptor_t,
    w_desc: miopenTensorDescriptor_t,
    conv_desc: miopenConvolutionDescriptor_t,
    y_desc: miopenTensorDescriptor_t,
) -> Result<([usize; 4], [usize; 4], [usize; 4], Convolution), Status> {
    let conv = convolution(conv_desc)?;
    let (xs, xr) = tensor(x_desc)?;
    let (ws, wr) = tensor(w_desc)?;
    let (ys, yr) = tensor(y_desc)?;
    if xr != yr || wr != yr {
        return Err(BAD_PARM);
    }
    if xr != Real::F32 {
        // No convolution solver of MIOpen applies to FP64.
        return Err(UNKNOWN);
    }
    if output_dim(&conv, &xs, &ws)? != ys {
        return Err(BAD_PARM);
    }
    Ok((xs, ws, ys, conv))
}

pub(crate) unsafe extern "C" fn miopenConvolutionForwardGetWorkSpaceSize(
    handle: miopenHandle_t,
    w_desc: miopenTensorDescriptor_t,
    x_desc: miopenTensorDescriptor_t,
    conv_desc: miopenConvolutionDescriptor_t,
    y_desc: miopenTensorDescriptor_t,
    size: *mut usize,
) -> Status {
    call("miopenConvolutionForwardGetWorkSpaceSize", OK, INTERNAL, || {
        handle_target("miopenConvolutionForwardGetWorkSpaceSize", handle)?;
        let (xs, ws, ys, conv) = conv_shapes(x_desc, w_desc, conv_desc, y_desc)?;
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(size, im2col_bytes(&xs, &ws, &ys, &conv), BAD_PARM) }
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn miopenFindConvolutionForwardAlgorithm(
    handle: miopenHandle_t,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    w_desc: miopenTensorDescriptor_t,
    w: *const c_void,
    conv_desc: miopenConvolutionDescriptor_t,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    request_algo_count: c_int,
    returned_algo_count: *mut c_int,
    perf_results: *mut miopenConvAlgoPerf_t,
    work_space: *mut c_void,
    work_space_size: usize,
    _exhaustive_search: bool,
) -> Status {
    const F: &str = "miopenFindConvolutionForwardAlgorithm";
    call(F, OK, INTERNAL, || {
        handle_target(F, handle)?;
        let (xs, ws, ys, conv) = conv_shapes(x_desc, w_desc, conv_desc, y_desc)?;
        if request_algo_count < 1 || returned_algo_count.is_null() || perf_results.is_null() {
            return Err(BAD_PARM);
        }
        check_workspace(F, work_space, work_space_size)?;
        for (ptr, shape) in [(x as usize, xs), (w as usize, ws), (y as usize, ys)] {
            span(ptr, 4 * count(&shape)).ok_or(BAD_PARM)?;
        }
        let needed = im2col_bytes(&xs, &ws, &ys, &conv);
        let (algorithm, memory) = if work_space_size >= needed {
            (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoGEMM, needed)
        } else {
            (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoDirect, 0)
        };
        let problem: Problem = (xs, ws, ys, conv);
        with(handle as usize, |o| {
            if let Kind::DnnHandle(h) = &mut o.kind {
                if !h.invokers.contains(&(problem, algorithm.0)) {
                    h.invokers.push((problem, algorithm.0));
                }
            }
        });
        let perf = miopenConvAlgoPerf_t { algo: miopenConvAlgoPerf_algo { fwd_algo: algorithm }, time: 0.1, memory };
        // SAFETY: both are non-null and valid for one element (C contract,
        // request_algo_count >= 1).
        unsafe {
            perf_results.write(perf);
            returned_algo_count.write(1);
        }
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn miopenConvolutionForward(
    handle: miopenHandle_t,
    alpha: *const c_void,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    w_desc: miopenTensorDescriptor_t,
    w: *const c_void,
    conv_desc: miopenConvolutionDescriptor_t,
    algo: miopenConvFwdAlgorithm_t,
    beta: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    work_space: *mut c_void,
    work_space_size: usize,
) -> Status {
    const F: &str = "miopenConvolutionForward";
    call(F, OK, INTERNAL, || {
        let target = handle_target(F, handle)?;
        if !matches!(algo.0, 0..=3 | 5) {
            return Err(BAD_PARM);
        }
        let (xs, ws, ys, conv) = conv_shapes(x_desc, w_desc, conv_desc, y_desc)?;
        if alpha.is_null() || beta.is_null() {
            return Err(BAD_PARM);
        }
        // SAFETY: non-null host floats, as MIOpen reads them.
        let (a, b) = unsafe { (host_scalar(alpha, Real::F32), host_scalar(beta, Real::F32)) };
        if a != 1.0 || b != 0.0 {
            // MIOpen's 2-d forward convolution takes only alpha 1, beta 0.
            return Err(NOT_IMPLEMENTED);
        }
        check_workspace(F, work_space, work_space_size)?;
        let registered = with(handle as usize, |o| match &o.kind {
            Kind::DnnHandle(h) => h.invokers.contains(&((xs, ws, ys, conv), algo.0)),
            _ => false,
        })
        .unwrap_or(false);
        if !registered {
            log::error!(
                "{F}: No invoker was registered for convolution forward ({xs:?} * {ws:?}, algorithm {}) on \
                 this handle. Was find executed?",
                algo.0
            );
            return Err(UNKNOWN);
        }
        if algo == miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoGEMM
            && work_space_size < im2col_bytes(&xs, &ws, &ys, &conv)
        {
            return Err(BAD_PARM);
        }
        let xspan = span(x as usize, 4 * count(&xs)).ok_or(BAD_PARM)?;
        let wspan = span(w as usize, 4 * count(&ws)).ok_or(BAD_PARM)?;
        let yspan = span(y as usize, 4 * count(&ys)).ok_or(BAD_PARM)?;
        let used = [(&xspan, AccessKind::Read), (&wspan, AccessKind::Read), (&yspan, AccessKind::Write)];
        let op = submit::Op::with(F, accesses(used));
        submit::submit(&target, false, op, move || {
            let xv = as_f32(&xspan.read(Real::F32, 0, count(&xs))?);
            let wv = as_f32(&wspan.read(Real::F32, 0, count(&ws))?);
            let mut yv = vec![0.0; count(&ys)];
            let f = direct_convolution(&xv, &xs, &wv, &ws, &ys, &conv);
            blend(&mut yv, &f, a, b);
            yspan.write(Real::F32, 0, &yv)
        })
        .map_err(|_| INTERNAL)
    })
}

/// The direct loops of a cross-correlation, NCHW, in FP32.
fn direct_convolution(
    x: &[f32],
    xs: &[usize; 4],
    w: &[f32],
    ws: &[usize; 4],
    ys: &[usize; 4],
    conv: &Convolution,
) -> Vec<f32> {
    let [n, c, h, wd] = *xs;
    let [k, _, r, s] = *ws;
    let [_, _, oh, ow] = *ys;
    let mut y = vec![0.0f32; n * k * oh * ow];
    for ni in 0..n {
        for ki in 0..k {
            for oy in 0..oh {
                for ox in 0..ow {
                    let mut acc = 0.0f32;
                    for ci in 0..c {
                        for ry in 0..r {
                            let iy = (oy * conv.stride.0 + ry * conv.dilation.0) as isize - conv.pad.0 as isize;
                            if iy < 0 || iy >= h as isize {
                                continue;
                            }
                            for sx in 0..s {
                                let ix = (ox * conv.stride.1 + sx * conv.dilation.1) as isize - conv.pad.1 as isize;
                                if ix < 0 || ix >= wd as isize {
                                    continue;
                                }
                                let xi = ((ni * c + ci) * h + iy as usize) * wd + ix as usize;
                                let wi = ((ki * c + ci) * r + ry) * s + sx;
                                acc += x[xi] * w[wi];
                            }
                        }
                    }
                    y[((ni * k + ki) * oh + oy) * ow + ox] = acc;
                }
            }
        }
    }
    y
}

/// The simulator's MIOpen table.
pub(crate) static SIM_MIOPEN: MiopenApi = MiopenApi {
    miopenGetVersion,
    miopenCreate,
    miopenDestroy,
    miopenSetStream,
    miopenGetStream,
    miopenCreateTensorDescriptor,
    miopenSet4dTensorDescriptor,
    miopenDestroyTensorDescriptor,
    miopenSoftmaxForward_V2,
    miopenCreateActivationDescriptor,
    miopenSetActivationDescriptor,
    miopenDestroyActivationDescriptor,
    miopenActivationForward,
    miopenCreateConvolutionDescriptor,
    miopenInitConvolutionDescriptor,
    miopenDestroyConvolutionDescriptor,
    miopenGetConvolutionForwardOutputDim,
    miopenConvolutionForwardGetWorkSpaceSize,
    miopenFindConvolutionForwardAlgorithm,
    miopenConvolutionForward,
};
