//! MIOpen through hip-libs, against direct loops on the CPU: softmax,
//! activations and convolution, convolution on every thread's handle,
//! FP64 refused, and operands on another device refused. Tolerances: 1e-5
//! relative for f32 element-wise results, 1e-4 for convolutions. Where the
//! backend lacks MIOpen the tests say so and pass.

use amdgpu::libs::{dnn, LibError, Library};
use amdgpu::prelude::*;
use hip_sys::{sim, Backend};

mod common;
use common::{have, noise, on_thread};

#[test]
fn softmax_activations_and_convolution_match_direct_loops() {
    let _x = sim::exclusive();
    if !have(Library::Miopen) {
        return;
    }
    let shape = dnn::Shape4::new(2, 3, 4, 5);
    let x: Vec<f32> = noise(shape.len(), 11).iter().map(|v| (*v * 3.0) as f32).collect();
    let dx = DeviceArray::from_slice(&x).unwrap();
    let mut dy = DeviceArray::<f32>::zeros(shape.len()).unwrap();
    // Tolerance: 1e-5 relative.
    let check = |got: &[f32], f: &dyn Fn(f32) -> f32| {
        for (g, v) in got.iter().zip(&x) {
            let want = f(*v);
            assert!((g - want).abs() <= 1e-5 * (1.0 + want.abs()), "{g} vs {want} for {v}");
        }
    };
    for (function, f) in [
        (dnn::Activation::Relu, &(|v: f32| v.max(0.0)) as &dyn Fn(f32) -> f32),
        (dnn::Activation::Sigmoid, &|v: f32| 1.0 / (1.0 + (-v).exp())),
        (dnn::Activation::Tanh, &|v: f32| v.tanh()),
        (dnn::Activation::LeakyRelu { slope: 0.1 }, &|v: f32| if v > 0.0 { v } else { 0.1 * v }),
    ] {
        let result = dnn::activation(&dx, &mut dy, shape, function);
        if amdgpu::backend() == Backend::Nvidia && matches!(function, dnn::Activation::LeakyRelu { .. }) {
            // cuDNN has no leaky ReLU: the mapping refuses it rather than
            // compute another function.
            let error = result.unwrap_err();
            assert!(error.to_string().contains("miopenStatusNotImplemented"), "{error}");
            continue;
        }
        result.unwrap();
        check(&dy.to_vec().unwrap(), f);
    }
    // Softmax over each image (instance mode).
    dnn::softmax(&dx, &mut dy, shape, dnn::SoftmaxAlgorithm::Accurate, dnn::SoftmaxMode::Instance).unwrap();
    let y = dy.to_vec().unwrap();
    let per = shape.c * shape.h * shape.w;
    for n in 0..shape.n {
        let image = &x[n * per..(n + 1) * per];
        let max = image.iter().cloned().fold(f32::MIN, f32::max);
        let sum: f32 = image.iter().map(|v| (v - max).exp()).sum();
        for i in 0..per {
            let want = (image[i] - max).exp() / sum;
            assert!((y[n * per + i] - want).abs() <= 1e-5, "{} vs {want}", y[n * per + i]);
        }
    }
    // Convolution: 3 input channels, 4 filters of 3x3, padding 1, stride 2.
    let filter = dnn::Shape4::new(4, 3, 3, 3);
    let w: Vec<f32> = noise(filter.len(), 12).iter().map(|v| *v as f32).collect();
    let dw = DeviceArray::from_slice(&w).unwrap();
    let params = dnn::Conv2d { pad: (1, 1), stride: (2, 2), dilation: (1, 1) };
    let out = dnn::conv2d_output_shape(shape, filter, params).unwrap();
    assert_eq!(out, dnn::Shape4::new(2, 4, 2, 3));
    let mut dout = DeviceArray::<f32>::zeros(out.len()).unwrap();
    dnn::conv2d_forward(&dx, shape, &dw, filter, &mut dout, params).unwrap();
    let got = dout.to_vec().unwrap();
    for n in 0..out.n {
        for k in 0..out.c {
            for oh in 0..out.h {
                for ow in 0..out.w {
                    let mut want = 0.0f32;
                    for c in 0..shape.c {
                        for r in 0..3 {
                            for s in 0..3 {
                                let (ih, iw) = ((oh * 2 + r) as isize - 1, (ow * 2 + s) as isize - 1);
                                if ih >= 0 && iw >= 0 && (ih as usize) < shape.h && (iw as usize) < shape.w {
                                    let xi = ((n * shape.c + c) * shape.h + ih as usize) * shape.w + iw as usize;
                                    want += x[xi] * w[((k * 3 + c) * 3 + r) * 3 + s];
                                }
                            }
                        }
                    }
                    let g = got[((n * out.c + k) * out.h + oh) * out.w + ow];
                    assert!((g - want).abs() <= 1e-4 * (1.0 + want.abs()), "out[{n},{k},{oh},{ow}] {g} vs {want}");
                }
            }
        }
    }
}

#[test]
fn convolution_runs_on_every_threads_handle_of_one_device() {
    // MIOpen registers what its algorithm search found in the handle that
    // searched; forward on any other handle fails. Two threads on one
    // device have two handles, and a handle made after the idle ones were
    // destroyed is a third: each must search for itself.
    let _x = sim::exclusive();
    if !have(Library::Miopen) {
        return;
    }
    let run = || {
        let shape = dnn::Shape4::new(1, 2, 5, 5);
        let filter = dnn::Shape4::new(3, 2, 3, 3);
        let params = dnn::Conv2d::default();
        let out = dnn::conv2d_output_shape(shape, filter, params).unwrap();
        let x = DeviceArray::from_slice(&vec![1.0f32; shape.len()]).unwrap();
        let w = DeviceArray::from_slice(&vec![0.5f32; filter.len()]).unwrap();
        let mut y = DeviceArray::<f32>::zeros(out.len()).unwrap();
        dnn::conv2d_forward(&x, shape, &w, filter, &mut y, params).unwrap();
        // Each output sums 2 channels × 9 taps of 1 × 0.5.
        assert!(y.to_vec().unwrap().iter().all(|v| (v - 9.0).abs() < 1e-5));
    };
    run();
    on_thread("second-handle", run);
    dnn::clear_idle_handles();
    on_thread("recreated-handle", run);
    run();
}

#[test]
fn miopen_refuses_fp64_instead_of_computing_garbage() {
    let _x = sim::exclusive();
    if !have(Library::Miopen) {
        return;
    }
    let shape = dnn::Shape4::new(1, 1, 2, 2);
    let x = DeviceArray::from_slice(&[0.5f64; 4]).unwrap();
    let mut y = DeviceArray::<f64>::zeros(4).unwrap();
    let refused = |error: LibError| {
        assert!(matches!(error, LibError::Unsupported { library: "MIOpen", .. }), "{error}");
        assert!(error.to_string().contains("FP64") && error.to_string().contains("f32"), "{error}");
    };
    refused(dnn::softmax(&x, &mut y, shape, dnn::SoftmaxAlgorithm::Accurate, dnn::SoftmaxMode::Channel).unwrap_err());
    refused(dnn::activation(&x, &mut y, shape, dnn::Activation::Relu).unwrap_err());
    let filter = dnn::Shape4::new(1, 1, 1, 1);
    refused(
        dnn::conv2d_forward(&x, shape, &x.slice(0..1).unwrap(), filter, &mut y, dnn::Conv2d::default()).unwrap_err(),
    );
}

#[test]
fn operands_on_another_device_are_refused() {
    let _x = sim::exclusive();
    if !have(Library::Miopen) || Device::count().unwrap() < 2 {
        eprintln!("skipped: needs MIOpen and two devices");
        return;
    }
    let shape = dnn::Shape4::new(1, 1, 2, 2);
    let x = with_device(Device::new(1).unwrap(), || DeviceArray::<f32>::zeros(4)).unwrap();
    let mut y = DeviceArray::<f32>::zeros(4).unwrap();
    let error = dnn::activation(&x, &mut y, shape, dnn::Activation::Relu).unwrap_err();
    assert_eq!(common::mismatch(error.device_mismatch()), Some(("x", 0, 1)), "{error}");
}
