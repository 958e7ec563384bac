//! The simulator's MIOpen against direct loops: softmax (accurate, log and
//! fast), every activation, and convolution with padding, strides and
//! dilations; no FP64; and its errors.
//! Every test holds `sim::exclusive()`: violations, memory and library
//! objects are process-wide, and each test checks it left none behind.
//!
//! Tolerances: results are compared with a relative tolerance of 1e-4 for
//! single precision and 1e-10 for double precision, scaled by the size of
//! the values involved (the references compute in double precision; the
//! simulator computes single precision in single precision).

mod common;
use common::libs::*;
use common::status;
use hip_sys::bindings::hip::{hipError_t, hipStream_t};
use hip_sys::miopen::*;
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn dnn() -> &'static MiopenApi {
    sim::miopen_api()
}

macro_rules! mi_ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, miopenStatus_t::miopenStatusSuccess, "{}", stringify!($call));
    }};
}

fn tensor<T: Num>(shape: [i32; 4]) -> miopenTensorDescriptor_t {
    let mut d = null_mut();
    mi_ok!((dnn().miopenCreateTensorDescriptor)(&mut d));
    let dt = if std::mem::size_of::<T>() == 4 { miopenDataType_t::miopenFloat } else { miopenDataType_t::miopenDouble };
    mi_ok!((dnn().miopenSet4dTensorDescriptor)(d, dt, shape[0], shape[1], shape[2], shape[3]));
    d
}

fn dnn_handle() -> miopenHandle_t {
    let mut h = null_mut();
    mi_ok!((dnn().miopenCreate)(&mut h));
    h
}

fn softmax_case<T: Num>(log: bool, channel: bool) {
    let handle = dnn_handle();
    let shape = [2, 3, 2, 2];
    let desc = tensor::<T>(shape);
    let total = 24;
    let x = values(total, 11);
    let y0 = values(total, 12);
    let xp = upload(&x.iter().map(|v| T::from_f64(*v * 3.0)).collect::<Vec<T>>());
    let yp = upload(&y0.iter().map(|v| T::from_f64(*v)).collect::<Vec<T>>());
    // MIOpen reads alpha and beta as float, whatever the tensor type.
    let (alpha, beta) = (1.0f32, 0.5f32);
    let algorithm = if log {
        miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_LOG
    } else {
        miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE
    };
    let mode = if channel {
        miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_CHANNEL
    } else {
        miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_INSTANCE
    };
    mi_ok!((dnn().miopenSoftmaxForward_V2)(
        handle,
        (&alpha as *const f32).cast(),
        desc,
        xp,
        (&beta as *const f32).cast(),
        desc,
        yp,
        algorithm,
        mode
    ));
    let got: Vec<T> = download(yp, total);
    let xs: Vec<f64> = x.iter().map(|v| T::from_f64(v * 3.0).to_f64()).collect();
    let mut want = vec![0.0; total];
    let (c, hw) = (3, 4);
    for n in 0..2 {
        let groups: Vec<Vec<usize>> = if channel {
            (0..hw).map(|s| (0..c).map(|ci| (n * c + ci) * hw + s).collect()).collect()
        } else {
            vec![(n * c * hw..(n + 1) * c * hw).collect()]
        };
        for g in groups {
            let sum: f64 = g.iter().map(|&i| xs[i].exp()).sum();
            for &i in &g {
                let f = if log { xs[i] - sum.ln() } else { xs[i].exp() / sum };
                want[i] = f + 0.5 * T::from_f64(y0[i]).to_f64();
            }
        }
    }
    assert_close(&got, &want, &format!("softmax log {log} channel {channel}"));
    mi_ok!((dnn().miopenDestroyTensorDescriptor)(desc));
    free(xp);
    free(yp);
    mi_ok!((dnn().miopenDestroy)(handle));
}

#[test]
fn softmax_matches_direct_loops() {
    let _g = start();
    for log in [false, true] {
        for channel in [false, true] {
            softmax_case::<f32>(log, channel);
        }
    }
    finish();
}

/// One softmax of `x` (1 × 4 × 1 × 1, channel mode) with `algorithm` and
/// `T` tensors; the status and the output.
fn softmax_of<T: Num>(x: &[f64], algorithm: miopenSoftmaxAlgorithm_t) -> (miopenStatus_t, Vec<f64>) {
    let handle = dnn_handle();
    let desc = tensor::<T>([1, 4, 1, 1]);
    let xp = upload(&x.iter().map(|v| T::from_f64(*v)).collect::<Vec<T>>());
    let yp = upload(&[T::from_f64(0.0); 4]);
    let (alpha, beta) = (1.0f32, 0.0f32);
    // SAFETY: live handle and descriptor, device buffers of 4 elements, host floats.
    let status = unsafe {
        (dnn().miopenSoftmaxForward_V2)(
            handle,
            (&alpha as *const f32).cast(),
            desc,
            xp,
            (&beta as *const f32).cast(),
            desc,
            yp,
            algorithm,
            miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_CHANNEL,
        )
    };
    let got: Vec<T> = download(yp, 4);
    mi_ok!((dnn().miopenDestroyTensorDescriptor)(desc));
    free(xp);
    free(yp);
    mi_ok!((dnn().miopenDestroy)(handle));
    (status, got.iter().map(|v| v.to_f64()).collect())
}

#[test]
fn fast_softmax_does_not_subtract_the_maximum() {
    let _g = start();
    let x = [100.0, 101.0, 102.0, 103.0];
    let (status, accurate) = softmax_of::<f32>(&x, miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE);
    assert_eq!(status, miopenStatus_t::miopenStatusSuccess);
    assert!(accurate.iter().all(|v| v.is_finite()) && (accurate.iter().sum::<f64>() - 1.0).abs() < 1e-5);
    // e^103 overflows FP32: MIOpen's fast softmax gives NaN there, and so
    // must the simulator, so that nobody relies on it.
    let (status, fast) = softmax_of::<f32>(&x, miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_FAST);
    assert_eq!(status, miopenStatus_t::miopenStatusSuccess);
    assert!(fast.iter().any(|v| !v.is_finite()), "{fast:?}");
    finish();
}

#[test]
fn miopen_computes_nothing_in_fp64() {
    let _g = start();
    let x = [0.0, 1.0, 2.0, 3.0];
    let (status, _) = softmax_of::<f64>(&x, miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE);
    assert_eq!(status, miopenStatus_t::miopenStatusNotImplemented);
    let handle = dnn_handle();
    let desc = tensor::<f64>([1, 1, 1, 4]);
    let (xp, yp) = (upload(&[0.5f64; 4]), malloc(32));
    let mut act = null_mut();
    mi_ok!((dnn().miopenCreateActivationDescriptor)(&mut act));
    mi_ok!((dnn().miopenSetActivationDescriptor)(act, miopenActivationMode_t::miopenActivationRELU, 0.0, 0.0, 0.0));
    let (alpha, beta) = (1.0f32, 0.0f32);
    assert_eq!(
        status!((dnn().miopenActivationForward)(
            handle,
            act,
            (&alpha as *const f32).cast(),
            desc,
            xp,
            (&beta as *const f32).cast(),
            desc,
            yp
        )),
        miopenStatus_t::miopenStatusNotImplemented
    );
    mi_ok!((dnn().miopenDestroyActivationDescriptor)(act));
    mi_ok!((dnn().miopenDestroyTensorDescriptor)(desc));
    free(xp);
    free(yp);
    mi_ok!((dnn().miopenDestroy)(handle));
    finish();
}

#[test]
fn activations_follow_miopen_definitions() {
    let _g = start();
    let handle = dnn_handle();
    let mut stream: hipStream_t = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (hip().hipStreamCreate)(&mut stream) }, hipError_t::hipSuccess);
    mi_ok!((dnn().miopenSetStream)(handle, stream));
    let mut got_stream: hipStream_t = null_mut();
    mi_ok!((dnn().miopenGetStream)(handle, &mut got_stream));
    assert_eq!(got_stream, stream);
    let desc = tensor::<f32>([1, 2, 2, 3]);
    let x: Vec<f32> = values(12, 21).iter().map(|v| (v * 3.0) as f32).collect();
    let xp = upload(&x);
    let yp = malloc(12 * 4);
    let (a, b, g) = (0.7, 1.3, 2.0);
    type Reference = fn(f64, f64, f64, f64) -> f64;
    let cases: [(miopenActivationMode_t, Reference); 10] = [
        (miopenActivationMode_t::miopenActivationPASTHRU, |x, _, _, _| x),
        (miopenActivationMode_t::miopenActivationLOGISTIC, |x, _, _, _| 1.0 / (1.0 + (-x).exp())),
        (miopenActivationMode_t::miopenActivationTANH, |x, a, b, _| b * (a * x).tanh()),
        (miopenActivationMode_t::miopenActivationRELU, |x, _, _, _| if x > 0.0 { x } else { 0.0 }),
        (miopenActivationMode_t::miopenActivationSOFTRELU, |x, _, _, _| (1.0 + x.exp()).ln()),
        (miopenActivationMode_t::miopenActivationABS, |x, _, _, _| x.abs()),
        (miopenActivationMode_t::miopenActivationPOWER, |x, a, b, g| {
            let v = a + b * x;
            if v <= 0.0 {
                0.0
            } else {
                v.powf(g)
            }
        }),
        (miopenActivationMode_t::miopenActivationCLIPPEDRELU, |x, a, _, _| x.clamp(0.0, a)),
        (miopenActivationMode_t::miopenActivationLEAKYRELU, |x, a, _, _| if x > 0.0 { x } else { a * x }),
        (miopenActivationMode_t::miopenActivationELU, |x, a, _, _| if x > 0.0 { x } else { a * (x.exp() - 1.0) }),
    ];
    for (mode, reference) in cases {
        let mut act = null_mut();
        mi_ok!((dnn().miopenCreateActivationDescriptor)(&mut act));
        mi_ok!((dnn().miopenSetActivationDescriptor)(act, mode, a, b, g));
        // MIOpen's activation forward takes alpha 1 and beta 0 only, as floats.
        let (two, alpha, beta) = (2.0f32, 1.0f32, 0.0f32);
        let refused = status!((dnn().miopenActivationForward)(
            handle,
            act,
            (&two as *const f32).cast(),
            desc,
            xp,
            (&beta as *const f32).cast(),
            desc,
            yp
        ));
        assert_eq!(refused, miopenStatus_t::miopenStatusUnknownError, "alpha 2");
        mi_ok!((dnn().miopenActivationForward)(
            handle,
            act,
            (&alpha as *const f32).cast(),
            desc,
            xp,
            (&beta as *const f32).cast(),
            desc,
            yp
        ));
        // SAFETY: a live stream.
        assert_eq!(unsafe { (hip().hipStreamSynchronize)(stream) }, hipError_t::hipSuccess);
        let got: Vec<f32> = download(yp, 12);
        let want: Vec<f64> = x.iter().map(|v| reference(f64::from(*v), a, b, g)).collect();
        assert_close(&got, &want, &format!("activation {mode:?}"));
        mi_ok!((dnn().miopenDestroyActivationDescriptor)(act));
    }
    mi_ok!((dnn().miopenDestroyTensorDescriptor)(desc));
    free(xp);
    free(yp);
    mi_ok!((dnn().miopenDestroy)(handle));
    // SAFETY: a live stream, destroyed once.
    assert_eq!(unsafe { (hip().hipStreamDestroy)(stream) }, hipError_t::hipSuccess);
    finish();
}

#[test]
fn convolution_matches_direct_loops() {
    let _g = start();
    let handle = dnn_handle();
    let mut version = (0usize, 0usize, 0usize);
    mi_ok!((dnn().miopenGetVersion)(&mut version.0, &mut version.1, null_mut()));
    assert_eq!((version.0, version.1), (3, 1));
    // (pad, stride, dilation) for (h, w).
    for (pad, stride, dil) in [((0, 0), (1, 1), (1, 1)), ((1, 2), (2, 1), (1, 2)), ((2, 1), (1, 3), (2, 1))] {
        let (n, c, h, w, k, r, s) = (2usize, 3usize, 7usize, 8usize, 4usize, 3usize, 2usize);
        let xd = tensor::<f32>([n as i32, c as i32, h as i32, w as i32]);
        let wd = tensor::<f32>([k as i32, c as i32, r as i32, s as i32]);
        let mut conv = null_mut();
        mi_ok!((dnn().miopenCreateConvolutionDescriptor)(&mut conv));
        mi_ok!((dnn().miopenInitConvolutionDescriptor)(
            conv,
            miopenConvolutionMode_t::miopenConvolution,
            pad.0,
            pad.1,
            stride.0,
            stride.1,
            dil.0,
            dil.1
        ));
        let mut out = [0i32; 4];
        mi_ok!((dnn().miopenGetConvolutionForwardOutputDim)(
            conv,
            xd,
            wd,
            &mut out[0],
            &mut out[1],
            &mut out[2],
            &mut out[3]
        ));
        let oh = (h + 2 * pad.0 as usize - dil.0 as usize * (r - 1) - 1) / stride.0 as usize + 1;
        let ow = (w + 2 * pad.1 as usize - dil.1 as usize * (s - 1) - 1) / stride.1 as usize + 1;
        assert_eq!(out, [n as i32, k as i32, oh as i32, ow as i32]);
        let yd = tensor::<f32>(out);
        let mut ws_size = 0;
        mi_ok!((dnn().miopenConvolutionForwardGetWorkSpaceSize)(handle, wd, xd, conv, yd, &mut ws_size));
        // MIOpen's im2col buffer of one image: C × R × S × output pixels, floats.
        assert_eq!(ws_size, 4 * c * r * s * oh * ow);
        let workspace = malloc(ws_size);
        let x: Vec<f32> = values(n * c * h * w, 31).iter().map(|v| *v as f32).collect();
        let wv: Vec<f32> = values(k * c * r * s, 32).iter().map(|v| *v as f32).collect();
        let y0: Vec<f32> = values(n * k * oh * ow, 33).iter().map(|v| *v as f32).collect();
        let (xp, wp, yp) = (upload(&x), upload(&wv), upload(&y0));
        let mut perf = [miopenConvAlgoPerf_t {
            algo: miopenConvAlgoPerf_algo { fwd_algo: miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoDirect },
            time: 0.0,
            memory: 99,
        }; 2];
        let mut returned = 0;
        let find = |handle, workspace: *mut c_void, size: usize, perf: *mut miopenConvAlgoPerf_t, returned| {
            status!((dnn().miopenFindConvolutionForwardAlgorithm)(
                handle, xd, xp, wd, wp, conv, yd, yp, 2, returned, perf, workspace, size, false
            ))
        };
        // The workspace pointer and size are both zero or both not.
        assert_eq!(
            find(handle, null_mut(), ws_size, perf.as_mut_ptr(), &mut returned),
            miopenStatus_t::miopenStatusBadParm
        );
        assert_eq!(find(handle, workspace, 0, perf.as_mut_ptr(), &mut returned), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(
            find(handle, workspace, ws_size, perf.as_mut_ptr(), &mut returned),
            miopenStatus_t::miopenStatusSuccess
        );
        assert_eq!(returned, 1);
        // SAFETY: the simulator wrote the forward member.
        let found = unsafe { perf[0].algo.fwd_algo };
        assert_eq!(found, miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoGEMM);
        assert!(perf[0].time > 0.0 && perf[0].memory == ws_size);
        let forward = |handle, alpha: f32, beta: f32, workspace, size| {
            status!((dnn().miopenConvolutionForward)(
                handle,
                (&alpha as *const f32).cast(),
                xd,
                xp,
                wd,
                wp,
                conv,
                found,
                (&beta as *const f32).cast(),
                yd,
                yp,
                workspace,
                size
            ))
        };
        // MIOpen's 2-d forward convolution takes only alpha 1 and beta 0.
        assert_eq!(forward(handle, 1.5, 0.0, workspace, ws_size), miopenStatus_t::miopenStatusNotImplemented);
        assert_eq!(forward(handle, 1.0, -1.0, workspace, ws_size), miopenStatus_t::miopenStatusNotImplemented);
        // Another handle never searched: MIOpen has no invoker there.
        let other = dnn_handle();
        assert_eq!(forward(other, 1.0, 0.0, workspace, ws_size), miopenStatus_t::miopenStatusUnknownError);
        mi_ok!((dnn().miopenDestroy)(other));
        assert_eq!(forward(handle, 1.0, 0.0, null_mut(), ws_size), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(forward(handle, 1.0, 0.0, workspace, ws_size), miopenStatus_t::miopenStatusSuccess);
        free(workspace);
        let got: Vec<f32> = download(yp, n * k * oh * ow);
        let mut want = vec![0.0f64; n * k * oh * ow];
        for ni in 0..n {
            for ki in 0..k {
                for oy in 0..oh {
                    for ox in 0..ow {
                        let mut acc = 0.0f64;
                        for ci in 0..c {
                            for ry in 0..r {
                                for sx in 0..s {
                                    let iy = (oy * stride.0 as usize + ry * dil.0 as usize) as isize - pad.0 as isize;
                                    let ix = (ox * stride.1 as usize + sx * dil.1 as usize) as isize - pad.1 as isize;
                                    if iy >= 0 && ix >= 0 && (iy as usize) < h && (ix as usize) < w {
                                        acc += x[((ni * c + ci) * h + iy as usize) * w + ix as usize] as f64
                                            * wv[((ki * c + ci) * r + ry) * s + sx] as f64;
                                    }
                                }
                            }
                        }
                        let at = ((ni * k + ki) * oh + oy) * ow + ox;
                        want[at] = acc;
                    }
                }
            }
        }
        assert_close(&got, &want, &format!("convolution pad {pad:?} stride {stride:?} dilation {dil:?}"));
        for d in [xd, wd, yd] {
            mi_ok!((dnn().miopenDestroyTensorDescriptor)(d));
        }
        mi_ok!((dnn().miopenDestroyConvolutionDescriptor)(conv));
        [xp, wp, yp].into_iter().for_each(free);
    }
    mi_ok!((dnn().miopenDestroy)(handle));
    finish();
}

#[test]
fn miopen_bad_input_gives_miopen_errors() {
    let _g = start();
    let m = dnn();
    let bad = miopenStatus_t::miopenStatusBadParm;
    assert_eq!(status!((m.miopenCreate)(null_mut())), bad);
    assert_eq!(status!((m.miopenDestroy)(null_mut())), bad);
    let handle = dnn_handle();
    let mut d = null_mut();
    mi_ok!((m.miopenCreateTensorDescriptor)(&mut d));
    assert_eq!(status!((m.miopenSet4dTensorDescriptor)(d, miopenDataType_t::miopenFloat, 0, 1, 1, 1)), bad);
    assert_eq!(
        status!((m.miopenSet4dTensorDescriptor)(d, miopenDataType_t::miopenHalf, 1, 1, 1, 1)),
        miopenStatus_t::miopenStatusNotImplemented
    );
    mi_ok!((m.miopenSet4dTensorDescriptor)(d, miopenDataType_t::miopenFloat, 1, 2, 3, 4));
    let other = tensor::<f32>([1, 2, 3, 5]);
    let p = malloc(4 * 30);
    let one = 1.0f32;
    let one = (&one as *const f32).cast::<c_void>();
    let accurate = miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE;
    let channel = miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_CHANNEL;
    // Shapes differ, a scalar is null, an algorithm is unknown.
    assert_eq!(status!((m.miopenSoftmaxForward_V2)(handle, one, d, p, one, other, p, accurate, channel)), bad);
    assert_eq!(status!((m.miopenSoftmaxForward_V2)(handle, null(), d, p, one, d, p, accurate, channel)), bad);
    let unknown = miopenSoftmaxAlgorithm_t(7);
    assert_eq!(status!((m.miopenSoftmaxForward_V2)(handle, one, d, p, one, d, p, unknown, channel)), bad);
    let mut conv = null_mut();
    mi_ok!((m.miopenCreateConvolutionDescriptor)(&mut conv));
    let mode = miopenConvolutionMode_t::miopenConvolution;
    assert_eq!(status!((m.miopenInitConvolutionDescriptor)(conv, mode, -1, 0, 1, 1, 1, 1)), bad);
    assert_eq!(status!((m.miopenInitConvolutionDescriptor)(conv, mode, 0, 0, 0, 1, 1, 1)), bad);
    assert_eq!(
        status!((m.miopenInitConvolutionDescriptor)(conv, miopenConvolutionMode_t::miopenTranspose, 0, 0, 1, 1, 1, 1)),
        miopenStatus_t::miopenStatusNotImplemented
    );
    // A filter wider than the padded input.
    mi_ok!((m.miopenInitConvolutionDescriptor)(conv, mode, 0, 0, 1, 1, 1, 1));
    let filter = tensor::<f32>([1, 2, 1, 9]);
    let mut out = [0i32; 4];
    assert_eq!(
        status!((m.miopenGetConvolutionForwardOutputDim)(
            conv,
            d,
            filter,
            &mut out[0],
            &mut out[1],
            &mut out[2],
            &mut out[3]
        )),
        bad
    );
    for t in [d, other, filter] {
        mi_ok!((m.miopenDestroyTensorDescriptor)(t));
    }
    assert_eq!(status!((m.miopenDestroyTensorDescriptor)(d)), bad);
    mi_ok!((m.miopenDestroyConvolutionDescriptor)(conv));
    free(p);
    mi_ok!((m.miopenDestroy)(handle));
    finish();
}
