//! rocSPARSE through hip-libs, against dense CPU products: SpMV (plain
//! and transposed) and SpMM, the preprocess made once per matrix, input
//! refused before the library, and the handle cache's devices and
//! streams. Tolerances: 1e-5 relative for f32 element-wise results, 1e-10
//! for f64. Where the backend lacks rocSPARSE the tests say so and pass.

use amdgpu::libs::{sparse, LibError, Library};
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
