//! Forward convolution: the algorithm search, which registers invokers on
//! the handle as MIOpen's does, and `miopenConvolutionForward`, computed
//! with direct loops in FP32.

use super::convolution::{check_workspace, conv_shapes, im2col_bytes};
use super::objects::*;
use super::status::*;
use super::unary::{as_f32, blend};
use super::{Kind, OBJECTS};
use crate::bindings::miopen::*;
use crate::library::{accesses, call, host_scalar, span, Real};
use crate::machine::violations::AccessKind;
use crate::submit;
use std::ffi::{c_int, c_void};

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
        OBJECTS.with(handle as usize, |o| {
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
        let registered = OBJECTS
            .with(handle as usize, |o| match &o.kind {
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
