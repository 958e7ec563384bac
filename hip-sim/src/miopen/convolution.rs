//! Convolution descriptors, and what a forward convolution's shapes and
//! workspace must be: the output dimensions, the im2col workspace size, and
//! the checks every forward call makes.

use super::objects::*;
use super::status::*;
use super::{Kind, OBJECTS};
use crate::bindings::miopen::*;
use crate::library::{call, span, write_out, Real};
use std::ffi::{c_int, c_void};

pub(crate) unsafe extern "C" fn miopenCreateConvolutionDescriptor(desc: *mut miopenConvolutionDescriptor_t) -> Status {
    call("miopenCreateConvolutionDescriptor", OK, INTERNAL, || {
        if desc.is_null() {
            return Err(BAD_PARM);
        }
        let conv = Convolution { pad: (0, 0), stride: (1, 1), dilation: (1, 1) };
        let h = OBJECTS.insert(Kind::Convolution(conv));
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
        OBJECTS
            .with(desc as usize, |o| match &mut o.kind {
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
        OBJECTS.remove_if(desc as usize, |k| matches!(k, Kind::Convolution(_))).map(drop).ok_or(BAD_PARM)
    })
}

pub(super) fn convolution(desc: miopenConvolutionDescriptor_t) -> Result<Convolution, Status> {
    OBJECTS
        .with(desc as usize, |o| match &o.kind {
            Kind::Convolution(c) => Some(*c),
            _ => None,
        })
        .flatten()
        .ok_or(BAD_PARM)
}

/// The output shape of `x` convolved with filter `w` under `conv`.
pub(super) fn output_dim(conv: &Convolution, x: &[usize; 4], w: &[usize; 4]) -> Result<[usize; 4], Status> {
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
pub(super) fn im2col_bytes(xs: &[usize; 4], ws: &[usize; 4], ys: &[usize; 4], conv: &Convolution) -> usize {
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
pub(super) fn check_workspace(function: &str, ptr: *mut c_void, size: usize) -> Result<(), Status> {
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
pub(super) fn conv_shapes(
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
