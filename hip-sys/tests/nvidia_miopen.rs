//! MIOpen over cuDNN on a real NVIDIA GPU: every convolution algorithm the
//! search offers computes in FP32.
//!
//! Skipped (it says so) unless `AMDGPU_BACKEND=nvidia` is set:
//!
//! ```sh
//! AMDGPU_BACKEND=nvidia cargo test -p hip-sys --test nvidia_miopen -- --nocapture
//! ```

use std::ffi::c_int;
use std::ptr::null_mut;

use hip_sys::miopen::*;

mod nvidia_common;
use nvidia_common::{api, device_alloc, ok, to_device, to_host};

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

/// Values in [-1, 1) from a seed, the same on every run.
fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u32 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
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
    let dnn = hip_sys::miopen().expect("MIOpen over cuDNN loads");
    let (n, c, h, w, k) = (2usize, 128usize, 28usize, 28usize, 128usize);
    let x = noise(n * c * h * w, 31).iter().map(|v| v * 3.0).collect::<Vec<f32>>();
    let f = noise(k * c * 9, 32);
    let (xp, fp) = (to_device(api, &x), to_device(api, &f));
    let yp = device_alloc::<f32>(api, n * k * h * w);
    let dims = |a: usize, b: usize| [a as c_int, b as c_int, h as c_int, w as c_int];
    let (x_desc, y_desc) = (tensor(dnn, dims(n, c)), tensor(dnn, dims(n, k)));
    let f_desc = tensor(dnn, [k as c_int, c as c_int, 3, 3]);
    let mut conv = null_mut();
    mi_ok!((dnn.miopenCreateConvolutionDescriptor)(&mut conv));
    mi_ok!((dnn.miopenInitConvolutionDescriptor)(conv, miopenConvolutionMode_t::miopenConvolution, 1, 1, 1, 1, 1, 1));
    let mut handle = null_mut();
    mi_ok!((dnn.miopenCreate)(&mut handle));
    let workspace_bytes = 256usize << 20;
    let workspace = device_alloc::<u8>(api, workspace_bytes);
    // SAFETY: an all-zero result is a valid plain struct.
    let mut found: [miopenConvAlgoPerf_t; 5] = unsafe { std::mem::zeroed() };
    let mut count = 0;
    mi_ok!((dnn.miopenFindConvolutionForwardAlgorithm)(
        handle,
        x_desc,
        xp.cast(),
        f_desc,
        fp.cast(),
        conv,
        y_desc,
        yp.cast(),
        5,
        &mut count,
        found.as_mut_ptr(),
        workspace.cast(),
        workspace_bytes,
        false
    ));
    assert!(count >= 1, "the search found no algorithm");
    let (alpha, beta) = (1.0f32, 0.0f32);
    for perf in &found[..count as usize] {
        // SAFETY: the forward search fills the forward member of the union.
        let algorithm = unsafe { perf.algo.fwd_algo };
        mi_ok!((dnn.miopenConvolutionForward)(
            handle,
            (&alpha as *const f32).cast(),
            x_desc,
            xp.cast(),
            f_desc,
            fp.cast(),
            conv,
            algorithm,
            (&beta as *const f32).cast(),
            y_desc,
            yp.cast(),
            workspace.cast(),
            workspace_bytes
        ));
        let got = to_host(api, yp, n * k * h * w);
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
                            let term = f64::from(x[xi]) * f64::from(f[((ko * c + ci) * 3 + r) * 3 + s]);
                            want += term;
                            size += term.abs();
                        }
                    }
                }
            }
            worst = worst.max((f64::from(got[index]) - want).abs() / size);
        }
        println!("{algorithm:?}: {:.1} µs, worst error {worst:.1e} of the terms' sizes", perf.time * 1e3);
        assert!(worst <= 1e-5, "{algorithm:?} is off by {worst:e} of the sum of its terms' sizes: not FP32");
    }
    mi_ok!((dnn.miopenDestroy)(handle));
    mi_ok!((dnn.miopenDestroyConvolutionDescriptor)(conv));
    for desc in [x_desc, y_desc, f_desc] {
        mi_ok!((dnn.miopenDestroyTensorDescriptor)(desc));
    }
    for p in [xp, fp, yp] {
        ok!((api.hipFree)(p.cast()));
    }
    ok!((api.hipFree)(workspace.cast()));
}
