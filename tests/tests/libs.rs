//! rocSPARSE, rocFFT and MIOpen through hip-libs, against independent CPU
//! references. Tolerances: 1e-5 relative for f32 element-wise results,
//! 1e-10 for f64, and a bound proportional to n for FFTs (stated at each
//! check). Where the backend lacks a library the tests say so and pass.

use amdgpu::libs::{dnn, fft, sparse, LibError, Library};
use amdgpu::prelude::*;
use hip_sys::{sim, Backend};

mod common;
use common::{have, noise, on_thread, violations_of};

/// A random sparse matrix in CSR and the same matrix dense (row-major).
fn random_csr(rows: usize, cols: usize, seed: u64) -> (Vec<i32>, Vec<i32>, Vec<f64>, Vec<f64>) {
    let mut dense = vec![0.0; rows * cols];
    let (mut row_ptr, mut col_ind, mut values) = (vec![0i32], Vec::new(), Vec::new());
    let r = noise(rows * cols, seed);
    for i in 0..rows {
        for j in 0..cols {
            if r[i * cols + j] > 0.6 {
                let v = r[i * cols + j] * 3.0 - 1.0;
                dense[i * cols + j] = v;
                col_ind.push(j as i32);
                values.push(v);
            }
        }
        row_ptr.push(col_ind.len() as i32);
    }
    (row_ptr, col_ind, values, dense)
}

#[test]
fn spmv_matches_a_dense_product() {
    let _x = sim::exclusive();
    if !have(Library::Rocsparse) {
        return;
    }
    let (rows, cols) = (37, 53);
    let (row_ptr, col_ind, values, dense) = random_csr(rows, cols, 1);
    let x = noise(cols, 2);
    let y0 = noise(rows, 3);
    let (alpha, beta) = (1.5, -0.5);
    let want: Vec<f64> =
        (0..rows).map(|i| alpha * (0..cols).map(|j| dense[i * cols + j] * x[j]).sum::<f64>() + beta * y0[i]).collect();

    let a = sparse::CsrMatrix::from_host(&stream(), rows, cols, &row_ptr, &col_ind, &values).unwrap();
    let dx = DeviceArray::from_slice(&x).unwrap();
    let mut dy = DeviceArray::from_slice(&y0).unwrap();
    sparse::spmv(alpha, &a, &dx, beta, &mut dy).unwrap();
    for (got, want) in dy.to_vec().unwrap().iter().zip(&want) {
        assert!((got - want).abs() <= 1e-10 * (1.0 + want.abs()), "{got} vs {want}");
    }

    // Transposed, in f32.
    let a32 = sparse::CsrMatrix::from_host(
        &stream(),
        rows,
        cols,
        &row_ptr,
        &col_ind,
        &values.iter().map(|v| *v as f32).collect::<Vec<_>>(),
    )
    .unwrap();
    let xt: Vec<f32> = noise(rows, 4).iter().map(|v| *v as f32).collect();
    let dxt = DeviceArray::from_slice(&xt).unwrap();
    let mut dyt = DeviceArray::<f32>::zeros(cols).unwrap();
    sparse::spmv_op(sparse::Operation::Transpose, 1.0f32, &a32, &dxt, 0.0, &mut dyt).unwrap();
    let got = dyt.to_vec().unwrap();
    for j in 0..cols {
        let want: f32 = (0..rows).map(|i| dense[i * cols + j] as f32 * xt[i]).sum();
        assert!((got[j] - want).abs() <= 1e-5 * (1.0 + want.abs()), "column {j}: {} vs {want}", got[j]);
    }
}

#[test]
fn spmv_preprocesses_each_matrix_once_and_never_takes_the_slow_path() {
    // rocSPARSE's SpMV preprocess analyses a CSR matrix once; without it,
    // compute silently runs the slow general kernel (the simulator records
    // that). A transposed product first must not analyse the matrix for
    // the transpose (rocSPARSE would then refuse the plain product), and
    // two threads sharing the matrix must both see it analysed.
    let _x = sim::exclusive();
    if !have(Library::Rocsparse) || amdgpu::backend() != Backend::Sim {
        return;
    }
    sim::clear_rocsparse_slow_paths();
    let analyses = sim::rocsparse_analyses();
    let (rows, cols) = (29, 31);
    let (row_ptr, col_ind, values, dense) = random_csr(rows, cols, 11);
    let a = sparse::CsrMatrix::from_host(&stream(), rows, cols, &row_ptr, &col_ind, &values).unwrap();
    let xt = DeviceArray::from_slice(&noise(rows, 12)).unwrap();
    let mut yt = DeviceArray::<f64>::zeros(cols).unwrap();
    sparse::spmv_op(sparse::Operation::Transpose, 1.0, &a, &xt, 0.0, &mut yt).unwrap();
    let x = noise(cols, 13);
    let want: Vec<f64> = (0..rows).map(|i| (0..cols).map(|j| dense[i * cols + j] * x[j]).sum()).collect();
    std::thread::scope(|scope| {
        for t in 0..2 {
            let (a, x, want) = (&a, &x, &want);
            scope.spawn(move || {
                for round in 0..4 {
                    let dx = DeviceArray::from_slice(x).unwrap();
                    let mut dy = DeviceArray::<f64>::zeros(rows).unwrap();
                    sparse::spmv(1.0, a, &dx, 0.0, &mut dy).unwrap();
                    for (got, want) in dy.to_vec().unwrap().iter().zip(want) {
                        assert!((got - want).abs() <= 1e-10 * (1.0 + want.abs()), "thread {t} round {round}");
                    }
                }
            });
        }
    });
    assert_eq!(sim::rocsparse_slow_paths(), vec![], "every compute ran after the preprocess");
    assert_eq!(sim::rocsparse_analyses(), analyses + 1, "one analysis for the matrix");
}

#[test]
fn spmm_matches_a_dense_product() {
    let _x = sim::exclusive();
    if !have(Library::Rocsparse) {
        return;
    }
    let (m, k, n) = (19, 23, 5);
    let (row_ptr, col_ind, values, dense) = random_csr(m, k, 5);
    let a = sparse::CsrMatrix::from_host(&stream(), m, k, &row_ptr, &col_ind, &values).unwrap();
    let b = noise(k * n, 6); // column-major k x n
    let db = DeviceArray::from_slice(&b).unwrap();
    let mut dc = DeviceArray::<f64>::zeros(m * n).unwrap();
    sparse::spmm(2.0, &a, &db, n, 0.0, &mut dc, sparse::DenseOrder::ColumnMajor).unwrap();
    let c = dc.to_vec().unwrap();
    for col in 0..n {
        for i in 0..m {
            let want: f64 = 2.0 * (0..k).map(|j| dense[i * k + j] * b[col * k + j]).sum::<f64>();
            let got = c[col * m + i];
            assert!((got - want).abs() <= 1e-10 * (1.0 + want.abs()), "C[{i},{col}] {got} vs {want}");
        }
    }
}

#[test]
fn invalid_csr_input_is_refused_before_the_library() {
    let _x = sim::exclusive();
    if !have(Library::Rocsparse) {
        return;
    }
    let s = stream();
    type Case = (&'static str, Vec<i32>, Vec<i32>, Vec<f32>);
    let cases: Vec<Case> = vec![
        ("row_ptr has", vec![0, 1], vec![0], vec![1.0]),
        ("decreases", vec![0, 2, 1], vec![0, 1], vec![1.0, 2.0]),
        ("outside", vec![0, 1, 2], vec![0, 9], vec![1.0, 2.0]),
        ("values", vec![0, 1, 2], vec![0, 1], vec![1.0]),
        ("row_ptr[0]", vec![1, 1, 2], vec![0, 1], vec![1.0, 2.0]),
    ];
    let live = sim::live_allocations(0);
    for (needle, row_ptr, col_ind, values) in cases {
        let error = sparse::CsrMatrix::from_host(&s, 2, 3, &row_ptr, &col_ind, &values).unwrap_err();
        assert!(matches!(error, LibError::InvalidInput { .. }), "{error}");
        assert!(error.to_string().contains(needle), "{needle}: {error}");
    }
    let a = sparse::CsrMatrix::from_host(&s, 2, 3, &[0, 1, 2], &[0, 2], &[1.0f32, 2.0]).unwrap();
    let x = DeviceArray::<f32>::zeros(2).unwrap(); // should be 3
    let mut y = DeviceArray::<f32>::zeros(2).unwrap();
    let error = sparse::spmv(1.0, &a, &x, 0.0, &mut y).unwrap_err();
    assert!(error.to_string().contains("needs x of 3"), "{error}");
    drop((a, x, y));
    amdgpu::pool::reclaim(Device::new(0).unwrap()).unwrap();
    if amdgpu::backend() == Backend::Sim {
        assert!(sim::live_allocations(0) <= live, "nothing leaked");
    }
}

fn dft(x: &[[f64; 2]], sign: f64) -> Vec<[f64; 2]> {
    let n = x.len();
    (0..n)
        .map(|k| {
            x.iter().enumerate().fold([0.0, 0.0], |acc, (j, v)| {
                let angle = sign * 2.0 * std::f64::consts::PI * (j * k % n) as f64 / n as f64;
                let (s, c) = angle.sin_cos();
                [acc[0] + v[0] * c - v[1] * s, acc[1] + v[0] * s + v[1] * c]
            })
        })
        .collect()
}

#[test]
fn ffts_match_a_naive_dft() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    for n in [1usize, 2, 3, 8, 15, 64] {
        let r = noise(2 * n, n as u64);
        let x: Vec<[f64; 2]> = (0..n).map(|i| [r[2 * i], r[2 * i + 1]]).collect();
        let dx = DeviceArray::from_slice(&x).unwrap();
        for (direction, sign) in [(fft::Direction::Forward, -1.0), (fft::Direction::Inverse, 1.0)] {
            let mut dy = DeviceArray::<[f64; 2]>::zeros(n).unwrap();
            fft::c2c(&dx, &mut dy, &[n], 1, direction).unwrap();
            let want = dft(&x, sign);
            // Tolerance: 1e-9 × n (double precision, unnormalized).
            for (got, want) in dy.to_vec().unwrap().iter().zip(&want) {
                assert!((got[0] - want[0]).abs() < 1e-9 * n as f64 && (got[1] - want[1]).abs() < 1e-9 * n as f64);
            }
        }
        // Real to complex: the half spectrum of the DFT of a real signal.
        let real: Vec<f64> = r[..n].to_vec();
        let dr = DeviceArray::from_slice(&real).unwrap();
        let mut dh = DeviceArray::<[f64; 2]>::zeros(n / 2 + 1).unwrap();
        fft::r2c(&dr, &mut dh, &[n], 1).unwrap();
        let want = dft(&real.iter().map(|v| [*v, 0.0]).collect::<Vec<_>>(), -1.0);
        for (k, got) in dh.to_vec().unwrap().iter().enumerate() {
            assert!((got[0] - want[k][0]).abs() < 1e-9 * n as f64 && (got[1] - want[k][1]).abs() < 1e-9 * n as f64);
        }
        // And back: c2r of it is n × the signal.
        let mut back = DeviceArray::<f64>::zeros(n).unwrap();
        fft::c2r(&mut dh, &mut back, &[n], 1).unwrap();
        for (got, x) in back.to_vec().unwrap().iter().zip(&real) {
            assert!((got - x * n as f64).abs() < 1e-9 * n as f64, "{got} vs {}", x * n as f64);
        }
    }
}

#[test]
fn multi_dimensional_and_batched_ffts_round_trip() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    for (shape, batch) in [(vec![16usize, 12], 1usize), (vec![4, 6, 10], 1), (vec![256], 3), (vec![32, 32], 2)] {
        let n: usize = shape.iter().product::<usize>() * batch;
        let r = noise(2 * n, 9);
        let x: Vec<[f32; 2]> = (0..n).map(|i| [r[2 * i] as f32, r[2 * i + 1] as f32]).collect();
        let mut data = DeviceArray::from_slice(&x).unwrap();
        fft::c2c_in_place(&mut data, &shape, batch, fft::Direction::Forward).unwrap();
        fft::c2c_in_place(&mut data, &shape, batch, fft::Direction::Inverse).unwrap();
        let scale = (n / batch) as f32;
        // Tolerance: 1e-4 × the transform size (single precision).
        for (got, want) in data.to_vec().unwrap().iter().zip(&x) {
            assert!((got[0] - want[0] * scale).abs() < 1e-4 * scale, "{shape:?}: {got:?} vs {want:?}×{scale}");
        }
    }
}

#[test]
fn bad_fft_shapes_are_errors() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    let x = DeviceArray::<[f32; 2]>::zeros(8).unwrap();
    let mut y = DeviceArray::<[f32; 2]>::zeros(8).unwrap();
    for (shape, batch) in [(vec![], 1), (vec![0], 1), (vec![8], 0), (vec![2, 2, 2, 1], 1), (vec![4], 1)] {
        let error = fft::c2c(&x, &mut y, &shape, batch, fft::Direction::Forward).unwrap_err();
        assert!(matches!(error, LibError::InvalidInput { .. }), "{shape:?} {batch}: {error}");
    }
}

#[test]
fn the_plan_cache_stays_bounded_and_releases_memory() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    let capacity = fft::plan_cache_capacity();
    fft::set_plan_cache_capacity(4);
    let baseline = sim::live_allocations(0);
    for n in 2..40usize {
        let mut data = DeviceArray::<[f32; 2]>::zeros(n).unwrap();
        fft::c2c_in_place(&mut data, &[n], 1, fft::Direction::Forward).unwrap();
        assert!(fft::plan_cache_len() <= 4);
    }
    assert!(fft::live_plans() <= 4);
    fft::cleanup().unwrap();
    assert_eq!(fft::live_plans(), 0);
    amdgpu::pool::reclaim(Device::new(0).unwrap()).unwrap();
    if amdgpu::backend() == Backend::Sim {
        assert!(sim::live_allocations(0) <= baseline, "{} > {baseline}", sim::live_allocations(0));
    }
    fft::set_plan_cache_capacity(capacity);
}

#[test]
fn a_plan_evicted_from_another_device_is_released_under_its_own() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) || Device::count().unwrap() < 2 {
        eprintln!("skipped: needs rocFFT and two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    fft::cleanup().unwrap();
    fft::set_plan_cache_capacity(1);
    on_thread("plan-evictor", move || {
        with_device(d1, || {
            let mut data = DeviceArray::<[f32; 2]>::zeros(64).unwrap();
            fft::c2c_in_place(&mut data, &[64], 1, fft::Direction::Forward).unwrap();
        });
        set_device(d0).unwrap();
        let mut data = DeviceArray::<[f32; 2]>::zeros(32).unwrap();
        // Evicts device 1's plan from a thread on device 0.
        fft::c2c_in_place(&mut data, &[32], 1, fft::Direction::Forward).unwrap();
        assert_eq!(device(), d0);
    });
    assert_eq!(violations_of("plan-evictor"), []);
    fft::set_plan_cache_capacity(32);
}

#[test]
fn a_handle_returns_to_its_own_devices_idle_list() {
    let _x = sim::exclusive();
    if !have(Library::Rocsparse) || Device::count().unwrap() < 2 {
        eprintln!("skipped: needs rocSPARSE and two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    let spmv_on_current = || {
        let a = sparse::CsrMatrix::from_host(&stream(), 2, 2, &[0, 1, 2], &[0, 1], &[1.0f32, 1.0]).unwrap();
        let x = DeviceArray::from_slice(&[1.0f32, 2.0]).unwrap();
        let mut y = DeviceArray::<f32>::zeros(2).unwrap();
        sparse::spmv(1.0, &a, &x, 0.0, &mut y).unwrap();
        assert_eq!(y.to_vec().unwrap(), [1.0, 2.0]);
    };
    // Counts are read as lower bounds: the test harness's previous test
    // thread may still be exiting and returning its own handles to idle
    // lists while this test runs.
    let idle_on =
        |d: Device| sparse::handle_stats().idle.iter().find(|(o, _)| *o == d.ordinal()).map_or(0, |(_, n)| *n);
    on_thread("handle-maker", move || {
        set_device(d1).unwrap();
        spmv_on_current(); // makes (or takes) a device-1 handle
        set_device(d0).unwrap(); // then the thread switches away and exits
    });
    assert!(idle_on(d1) >= 1, "the handle went back to device 1's idle list");
    // Had it gone to device 0's list, a device-0 thread would take it and
    // use a device-1 handle under device 0: a context violation.
    on_thread("device-0-user", move || {
        set_device(d0).unwrap();
        spmv_on_current();
    });
    let created = sparse::handle_stats().created;
    on_thread("handle-reuser", move || {
        set_device(d1).unwrap();
        spmv_on_current();
    });
    assert_eq!(sparse::handle_stats().created, created, "the idle handle was reused");
    assert_eq!(violations_of("device-0-user"), []);
    assert_eq!(violations_of("handle-maker"), []);
    assert_eq!(violations_of("handle-reuser"), []);
}

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
fn a_raw_handle_is_rebound_to_its_stream_after_the_callers_closure() {
    let _x = sim::exclusive();
    if !have(Library::Rocsparse) {
        return;
    }
    let device = Device::new(0).unwrap();
    let (ours, theirs) = (Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap());
    let api = hip_sys::rocsparse().unwrap();
    sparse::with_raw_handle(device, &ours, |h| {
        // SAFETY: a live handle and a stream of its device.
        unsafe { (api.rocsparse_set_stream)(h, theirs.as_raw()) }
    })
    .unwrap();
    let bound = sparse::with_raw_handle(device, &ours, |h| {
        let mut s = std::ptr::null_mut();
        // SAFETY: a live handle and a valid out-pointer.
        unsafe { (api.rocsparse_get_stream)(h, &mut s) };
        s
    })
    .unwrap();
    assert_eq!(bound, ours.as_raw(), "the handle kept the caller's stream, while the cache believes it is ours");
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

#[test]
fn the_main_example_runs_on_every_device() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) || !have(Library::Rocsparse) || !have(Library::Miopen) {
        return;
    }
    let reports = example::run().expect("the example runs");
    assert_eq!(reports.len(), Device::count().unwrap());
    for report in &reports {
        for (name, outcome) in &report.checks {
            assert!(matches!(outcome, example::Outcome::Passed), "{}: {name}: {outcome:?}", report.device);
        }
    }
    if amdgpu::backend() == Backend::Sim {
        let bad: Vec<_> = sim::violations()
            .into_iter()
            .filter(|v| v.thread.starts_with("worker-") || v.thread == "dropper")
            .collect();
        assert_eq!(bad, []);
    }
}

#[allow(dead_code)]
#[path = "../../amdgpu/examples/multi_gpu.rs"]
mod example;

/// Model rocFFT `version` in the simulator until dropped (nothing on other
/// backends, which use the version they loaded).
struct ModelRocfft;
impl ModelRocfft {
    fn new(version: hip_sys::RocfftVersion) -> ModelRocfft {
        if amdgpu::backend() == Backend::Sim {
            sim::set_rocfft_version(Some(version));
        }
        ModelRocfft
    }
}
impl Drop for ModelRocfft {
    fn drop(&mut self) {
        if amdgpu::backend() == Backend::Sim {
            sim::set_rocfft_version(None);
        }
    }
}

#[test]
fn r2c_leaves_its_input_intact_on_every_rocfft_version() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    // rocFFT before 1.0.25 (ROCm 6.0) may overwrite an R2C input.
    for version in [hip_sys::RocfftVersion::new(1, 0, 24), hip_sys::sim::DEFAULT_ROCFFT_VERSION] {
        let _model = ModelRocfft::new(version);
        let n = 20;
        let real: Vec<f32> = noise(n, 21).iter().map(|v| *v as f32).collect();
        let dr = DeviceArray::from_slice(&real).unwrap();
        let mut dh = DeviceArray::<[f32; 2]>::zeros(n / 2 + 1).unwrap();
        fft::r2c(&dr, &mut dh, &[n], 1).unwrap();
        assert_eq!(dr.to_vec().unwrap(), real, "rocFFT {version}: r2c overwrote its `&` input");
        let want = dft(&real.iter().map(|v| [*v as f64, 0.0]).collect::<Vec<_>>(), -1.0);
        // Tolerance: 1e-5 × n (single precision, unnormalized).
        for (k, got) in dh.to_vec().unwrap().iter().enumerate() {
            let err = (got[0] as f64 - want[k][0]).abs().max((got[1] as f64 - want[k][1]).abs());
            assert!(err < 1e-5 * n as f64, "rocFFT {version}: bin {k}: {got:?} vs {:?}", want[k]);
        }
    }
}

#[test]
fn rocfft_is_set_up_under_the_plans_device() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) || amdgpu::backend() != Backend::Sim || Device::count().unwrap() < 2 {
        eprintln!("skipped: needs the simulator's rocFFT and two devices");
        return;
    }
    let d1 = Device::new(1).unwrap();
    fft::cleanup().unwrap();
    on_thread("fft-setup", move || {
        // This thread stays on device 0; the data and the plan are device 1's.
        let mut data = with_device(d1, || DeviceArray::<[f32; 2]>::zeros(16)).unwrap();
        fft::c2c_in_place(&mut data, &[16], 1, fft::Direction::Forward).unwrap();
        assert_eq!(device().ordinal(), 0);
    });
    assert_eq!(sim::rocfft_setup_device(), Some(1), "rocfft_setup ran under another device than the plan's");
    assert_eq!(violations_of("fft-setup"), []);
    fft::cleanup().unwrap();
}

#[test]
fn plans_made_while_another_thread_cleans_up_always_work() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) {
        return;
    }
    let capacity = fft::plan_cache_capacity();
    // A small cache, so threads keep making plans.
    fft::set_plan_cache_capacity(2);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cleaner = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut cleanups = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                match fft::cleanup() {
                    Ok(()) => cleanups += 1,
                    // Plans in use elsewhere: refused, and rocFFT stays set up.
                    Err(LibError::InvalidInput { .. }) => {}
                    Err(other) => panic!("fft::cleanup: {other}"),
                }
                std::thread::yield_now();
            }
            cleanups
        })
    };
    let workers: Vec<_> = (0..3)
        .map(|w| {
            std::thread::spawn(move || {
                for i in 0..150usize {
                    let n = 2 + (w * 7 + i) % 9;
                    let x: Vec<[f64; 2]> = (0..n).map(|k| [k as f64, 1.0]).collect();
                    let mut data = DeviceArray::from_slice(&x).unwrap();
                    fft::c2c_in_place(&mut data, &[n], 1, fft::Direction::Forward)
                        .unwrap_or_else(|e| panic!("worker {w}, transform {i} (n = {n}): {e}"));
                    // Bin 0 is the sum of the inputs.
                    let sum = data.to_vec().unwrap()[0];
                    let want = [(n * (n - 1) / 2) as f64, n as f64];
                    assert!((sum[0] - want[0]).abs() < 1e-9 * n as f64 && (sum[1] - want[1]).abs() < 1e-9, "{sum:?}");
                }
            })
        })
        .collect();
    let failures: Vec<String> = workers
        .into_iter()
        .filter_map(|w| w.join().err())
        .map(|e| e.downcast_ref::<String>().cloned().unwrap_or_else(|| "a worker panicked".into()))
        .collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let cleanups = cleaner.join().expect("the cleaner panicked");
    eprintln!("{cleanups} cleanups ran meanwhile");
    assert_eq!(failures, Vec::<String>::new(), "after {cleanups} cleanups");
    fft::set_plan_cache_capacity(capacity);
    fft::cleanup().unwrap();
}
