//! MIOpen over cuDNN on a real NVIDIA GPU: every convolution algorithm the
//! search offers computes in FP32, and forward without a search runs a
//! member of the algorithm's family that fits, or refuses.
//!
//! Skipped (it says so) unless `AMDGPU_BACKEND=nvidia` is set:
//!
//! ```sh
//! AMDGPU_BACKEND=nvidia cargo test -p hip-sys --test nvidia_miopen -- --nocapture
//! ```

use std::ffi::c_int;
use std::ffi::c_void;
use std::ptr::null_mut;

use hip_sys::bindings::hip::HipApi;
use hip_sys::miopen::*;

mod nvidia_common;
use nvidia_common::{api, device_alloc, ok, to_device, to_host};
#[path = "common/noise.rs"]
mod noise;
use noise::noise;

macro_rules! mi_ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, miopenStatus_t::miopenStatusSuccess, "{}", stringify!($call));
    }};
}

fn tensor(dnn: &MiopenApi, [n, c, h, w]: [c_int; 4]) -> miopenTensorDescriptor_t {
    let mut desc = null_mut();
    mi_ok!((dnn.miopenCreateTensorDescriptor)(&mut desc));
    mi_ok!((dnn.miopenSet4dTensorDescriptor)(desc, miopenDataType_t::miopenFloat, n, c, h, w));
    desc
}

/// `noise` as `f32`, scaled by `scale`.
fn noise_f32(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    noise(n, seed).into_iter().map(|v| v as f32 * scale).collect()
}

/// A 3 × 3 convolution with padding 1 of noise, on the device: its
/// descriptors, buffers, a handle and a 256 MiB workspace.
struct Problem {
    api: &'static HipApi,
    dnn: &'static MiopenApi,
    shape: (usize, usize, usize, usize, usize),
    x: Vec<f32>,
    f: Vec<f32>,
    device: [*mut f32; 3],
    descs: [miopenTensorDescriptor_t; 3],
    conv: miopenConvolutionDescriptor_t,
    handle: miopenHandle_t,
    workspace: *mut u8,
}

const WORKSPACE: usize = 256 << 20;

impl Problem {
    /// `n` images of `c` channels of `h` × `w`, and `k` filters.
    fn new(api: &'static HipApi, (n, c, h, w, k): (usize, usize, usize, usize, usize)) -> Problem {
        let dnn = hip_sys::miopen().expect("MIOpen over cuDNN loads");
        let x = noise_f32(n * c * h * w, 31, 3.0);
        let f = noise_f32(k * c * 9, 32, 1.0);
        let device = [to_device(api, &x), to_device(api, &f), device_alloc::<f32>(api, n * k * h * w)];
        let dims = |a: usize, b: usize| [a as c_int, b as c_int, h as c_int, w as c_int];
        let descs = [tensor(dnn, dims(n, c)), tensor(dnn, [k as c_int, c as c_int, 3, 3]), tensor(dnn, dims(n, k))];
        let mut conv = null_mut();
        mi_ok!((dnn.miopenCreateConvolutionDescriptor)(&mut conv));
        mi_ok!((dnn.miopenInitConvolutionDescriptor)(
            conv,
            miopenConvolutionMode_t::miopenConvolution,
            1,
            1,
            1,
            1,
            1,
            1
        ));
        let mut handle = null_mut();
        mi_ok!((dnn.miopenCreate)(&mut handle));
        let workspace = device_alloc::<u8>(api, WORKSPACE);
        Problem { api, dnn, shape: (n, c, h, w, k), x, f, device, descs, conv, handle, workspace }
    }

    /// The algorithms the search reports, fastest first.
    fn search(&self) -> Vec<miopenConvAlgoPerf_t> {
        let ([x, f, y], [xd, fd, yd]) = (self.device, self.descs);
        // SAFETY: an all-zero result is a valid plain struct.
        let mut found: [miopenConvAlgoPerf_t; 5] = unsafe { std::mem::zeroed() };
        let mut count = 0;
        mi_ok!((self.dnn.miopenFindConvolutionForwardAlgorithm)(
            self.handle,
            xd,
            x.cast(),
            fd,
            f.cast(),
            self.conv,
            yd,
            y.cast(),
            5,
            &mut count,
            found.as_mut_ptr(),
            self.workspace.cast(),
            WORKSPACE,
            false
        ));
        found[..count as usize].to_vec()
    }

    /// Forward with `algorithm` and `workspace` bytes of workspace.
    fn forward(&self, algorithm: miopenConvFwdAlgorithm_t, workspace: usize) -> miopenStatus_t {
        let ([x, f, y], [xd, fd, yd]) = (self.device, self.descs);
        let (alpha, beta) = (1.0f32, 0.0f32);
        let area: *mut c_void = if workspace == 0 { null_mut() } else { self.workspace.cast() };
        // SAFETY: live handle, descriptors and buffers of the problem's
        // sizes; the workspace holds at least `workspace` bytes.
        unsafe {
            (self.dnn.miopenConvolutionForward)(
                self.handle,
                (&alpha as *const f32).cast(),
                xd,
                x.cast(),
                fd,
                f.cast(),
                self.conv,
                algorithm,
                (&beta as *const f32).cast(),
                yd,
                y.cast(),
                area,
                workspace,
            )
        }
    }

    /// The largest error of the output at sampled positions, as a share of
    /// the sum of the sizes of its terms (against a CPU sum in f64).
    fn worst_error(&self) -> f64 {
        let (n, c, h, w, k) = self.shape;
        let got = to_host(self.api, self.device[2], n * k * h * w);
        let mut worst = 0.0f64;
        for index in (0..got.len()).step_by(89) {
            let (ow, oh, ko, no) = (index % w, (index / w) % h, (index / (w * h)) % k, index / (w * h * k));
            let (mut want, mut size) = (0.0f64, 0.0f64);
            for ci in 0..c {
                for r in 0..3 {
                    for s in 0..3 {
                        let (ih, iw) = ((oh + r) as isize - 1, (ow + s) as isize - 1);
                        if ih >= 0 && iw >= 0 && (ih as usize) < h && (iw as usize) < w {
                            let xi = ((no * c + ci) * h + ih as usize) * w + iw as usize;
                            let term = f64::from(self.x[xi]) * f64::from(self.f[((ko * c + ci) * 3 + r) * 3 + s]);
                            want += term;
                            size += term.abs();
                        }
                    }
                }
            }
            worst = worst.max((f64::from(got[index]) - want).abs() / size);
        }
        worst
    }
}

impl Drop for Problem {
    fn drop(&mut self) {
        mi_ok!((self.dnn.miopenDestroy)(self.handle));
        mi_ok!((self.dnn.miopenDestroyConvolutionDescriptor)(self.conv));
        for desc in self.descs {
            mi_ok!((self.dnn.miopenDestroyTensorDescriptor)(desc));
        }
        for p in self.device {
            ok!((self.api.hipFree)(p.cast()));
        }
        ok!((self.api.hipFree)(self.workspace.cast()));
    }
}

#[test]
fn every_convolution_algorithm_the_search_offers_computes_in_fp32() {
    // cuDNN's default math lets kernels round FP32 operands to TF32 on GPUs
    // since the A100: its implicit precomputed GEMM does for this problem
    // when the workspace allows. MIOpen computes FP32 in FP32, so with a
    // workspace large enough for anything, each algorithm the search
    // reports must be within 1e-5 of the sum of its terms' sizes at every
    // sampled output; TF32 is about a hundred times further off.
    let Some(api) = api() else { return };
    let problem = Problem::new(api, (2, 128, 28, 28, 128));
    let found = problem.search();
    assert!(!found.is_empty(), "the search found no algorithm");
    for perf in &found {
        // SAFETY: the forward search fills the forward member of the union.
        let algorithm = unsafe { perf.algo.fwd_algo };
        assert_eq!(problem.forward(algorithm, WORKSPACE), miopenStatus_t::miopenStatusSuccess, "{algorithm:?}");
        let worst = problem.worst_error();
        println!("{algorithm:?}: {:.1} µs, worst error {worst:.1e} of the terms' sizes", perf.time * 1e3);
        assert!(worst <= 1e-5, "{algorithm:?} is off by {worst:e} of the sum of its terms' sizes: not FP32");
    }
}

#[test]
fn forward_without_a_search_runs_a_member_that_fits_or_refuses() {
    // cuDNN needs no search before forward (the mapping's documented
    // difference from MIOpen): without one, forward runs the first member
    // of the algorithm's family whose workspace fits. FFT's members both
    // need a workspace for this problem, so with none forward must refuse
    // rather than compute something else; with one, it must be right.
    let Some(api) = api() else { return };
    let problem = Problem::new(api, (2, 64, 28, 28, 64));
    let fft = miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoFFT;
    assert_ne!(problem.forward(fft, 0), miopenStatus_t::miopenStatusSuccess, "FFT ran without a workspace");
    for algorithm in [
        fft,
        miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoDirect,
        miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoImplicitGEMM,
    ] {
        assert_eq!(problem.forward(algorithm, WORKSPACE), miopenStatus_t::miopenStatusSuccess, "{algorithm:?}");
        let worst = problem.worst_error();
        assert!(worst <= 1e-5, "{algorithm:?} without a search is off by {worst:e} of its terms' sizes");
    }
}
