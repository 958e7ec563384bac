//! `solver::getrf_strided_batched`, `solver::potrf_strided_batched` and
//! `solver::geqrf_strided_batched` on many small matrices (1000 of
//! 32 × 32 f64 by default) against the two raw ways to factor them on
//! NVIDIA: one `cusolverDnDgetrf` / `cusolverDnDpotrf` /
//! `cusolverDnDgeqrf` per matrix (their workspace allocated once), and
//! the batched calls, cuBLAS's `cublasDgetrfBatched`, cuSOLVER's
//! `cusolverDnDpotrfBatched` and cuBLAS's `cublasDgeqrfBatched`, given
//! arrays of device pointers built once. The nvidia mapping of rocSOLVER's strided batch picks between
//! the two by order and count, a table measured with this benchmark
//! (`AMDGPU_BENCH_BATCH_N` and `_COUNT` from 16 × 1000 to 2048 × 2). Each iteration is a
//! device-to-device restore of the batch, the factorization and a
//! synchronize, on one stream, in one run. PyTorch's `torch.linalg.lu_factor` on the same batch is timed by
//! `solver_batched_torch.py` beside it.
//!
//! The batches of separate matrices (`solver::getrf_batched` and
//! `potrf_batched` over a `MatrixBatch`) are timed against the same raw
//! batched calls given the same matrices' address array: `count` arrays of
//! their own, factored in place again each iteration (no restore, the same
//! on both sides), then a synchronize.
//!
//! Run on an NVIDIA GPU: `AMDGPU_BACKEND=nvidia cargo bench -p amdgpu
//! --bench solver_batched` (`AMDGPU_BENCH_BATCH_N` and
//! `AMDGPU_BENCH_BATCH_COUNT` for other sizes). Elsewhere it says why it
//! skips.

use amdgpu::solver::{self, Batch, MatrixBatch, Pivots, Shape, Triangle};
use amdgpu::{DeviceArray, Stream};
use criterion::Criterion;
use std::ffi::{c_int, c_void};
use std::time::Duration;

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

mod nvidia;
use nvidia::{function, open};

const GROUP: &str = "solver-batched";

type Handle = *mut c_void;

/// `count` diagonally dominant `n × n` matrices, packed (LU's pivots stay
/// put, so every side does the same work).
fn batch(n: usize, count: usize) -> Vec<f64> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut all = vec![0.0; n * n * count];
    for (e, v) in all.iter_mut().enumerate() {
        let (i, j) = (e % n, (e / n) % n);
        *v = next() + if i == j { n as f64 } else { 0.0 };
    }
    all
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    if amdgpu::backend() != amdgpu::Backend::Nvidia {
        eprintln!("skipped: compares against cuSOLVER and cuBLAS; run with AMDGPU_BACKEND=nvidia on an NVIDIA GPU");
        return;
    }
    let (n, count) = (env("AMDGPU_BENCH_BATCH_N", 32), env("AMDGPU_BENCH_BATCH_COUNT", 1000));
    let stream = Stream::new().expect("a stream");
    let cusolver = open(&["libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"]);
    let cublas = open(&["libcublas.so.13", "libcublas.so.12", "libcublas.so"]);
    type Getrf = unsafe extern "C" fn(Handle, c_int, c_int, *mut f64, c_int, *mut f64, *mut c_int, *mut c_int) -> c_int;
    type GetrfSize = unsafe extern "C" fn(Handle, c_int, c_int, *mut f64, c_int, *mut c_int) -> c_int;
    type GetrfBatched =
        unsafe extern "C" fn(Handle, c_int, *const *mut f64, c_int, *mut c_int, *mut c_int, c_int) -> c_int;
    type Potrf = unsafe extern "C" fn(Handle, c_int, c_int, *mut f64, c_int, *mut f64, c_int, *mut c_int) -> c_int;
    type PotrfBatched = unsafe extern "C" fn(Handle, c_int, c_int, *const *mut f64, c_int, *mut c_int, c_int) -> c_int;
    type Create = unsafe extern "C" fn(*mut Handle) -> c_int;
    type SetStream = unsafe extern "C" fn(Handle, *mut c_void) -> c_int;
    // SAFETY: the signatures of cusolverDn.h and cublas_api.h.
    let (dn_create, dn_set_stream, getrf_size, getrf, blas_create, blas_set_stream, getrf_batched) = unsafe {
        (
            function::<Create>(&cusolver, "cusolverDnCreate"),
            function::<SetStream>(&cusolver, "cusolverDnSetStream"),
            function::<GetrfSize>(&cusolver, "cusolverDnDgetrf_bufferSize"),
            function::<Getrf>(&cusolver, "cusolverDnDgetrf"),
            function::<Create>(&cublas, "cublasCreate_v2"),
            function::<SetStream>(&cublas, "cublasSetStream_v2"),
            function::<GetrfBatched>(&cublas, "cublasDgetrfBatched"),
        )
    };
    // SAFETY: as above.
    let (potrf_size, potrf, potrf_batched) = unsafe {
        (
            function::<GetrfSize>(&cusolver, "cusolverDnDpotrf_bufferSize"),
            function::<Potrf>(&cusolver, "cusolverDnDpotrf"),
            function::<PotrfBatched>(&cusolver, "cusolverDnDpotrfBatched"),
        )
    };
    type Geqrf =
        unsafe extern "C" fn(Handle, c_int, c_int, *mut f64, c_int, *mut f64, *mut f64, c_int, *mut c_int) -> c_int;
    type GeqrfBatched =
        unsafe extern "C" fn(Handle, c_int, c_int, *const *mut f64, c_int, *const *mut f64, *mut c_int, c_int) -> c_int;
    // SAFETY: as above.
    let (geqrf_size, geqrf, geqrf_batched) = unsafe {
        (
            function::<GetrfSize>(&cusolver, "cusolverDnDgeqrf_bufferSize"),
            function::<Geqrf>(&cusolver, "cusolverDnDgeqrf"),
            function::<GeqrfBatched>(&cublas, "cublasDgeqrfBatched"),
        )
    };
    let shape = Shape::square(n);
    let batch_of = Batch::packed(count, &shape);
    let pristine = DeviceArray::from_slice_on(&stream, &batch(n, count)).expect("the batch");
    let mut a = DeviceArray::<f64>::zeros_on(&stream, n * n * count).expect("the working copy");
    let mut pivots = Pivots::batched(n, count, &stream).expect("pivots");
    let mut raw_pivots = DeviceArray::<i32>::zeros_on(&stream, n * count).expect("raw pivots");
    let mut raw_info = DeviceArray::<i32>::zeros_on(&stream, count).expect("raw info");
    let (ni, base) = (n as c_int, a.as_mut_ptr());
    let (ipiv, info) = (raw_pivots.as_mut_ptr(), raw_info.as_mut_ptr());
    let (mut dn, mut blas): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    let mut work = 0 as c_int;
    // SAFETY: valid out-pointers; a CUDA stream of this backend; A is n × n.
    unsafe {
        let cuda = amdgpu::sys::backend::nvidia::cuda_stream(stream.as_raw()).expect("a live stream");
        assert_eq!(dn_create(&mut dn), 0, "cusolverDnCreate");
        assert_eq!(dn_set_stream(dn, cuda), 0, "cusolverDnSetStream");
        assert_eq!(blas_create(&mut blas), 0, "cublasCreate");
        assert_eq!(blas_set_stream(blas, cuda), 0, "cublasSetStream");
        assert_eq!(getrf_size(dn, ni, ni, base, ni, &mut work), 0);
        let mut chol_work = 0 as c_int;
        assert_eq!(potrf_size(dn, 0, ni, base, ni, &mut chol_work), 0);
        let mut qr_work = 0 as c_int;
        assert_eq!(geqrf_size(dn, ni, ni, base, ni, &mut qr_work), 0);
        work = work.max(chol_work).max(qr_work);
    }
    let mut workspace = DeviceArray::<f64>::zeros_on(&stream, work.max(1) as usize).expect("getrf workspace");
    let workspace = workspace.as_mut_ptr();
    // cuBLAS's batched LU takes the matrices' addresses from device memory.
    let addresses: Vec<u64> = (0..count).map(|i| base.wrapping_add(i * n * n) as u64).collect();
    let pointers = DeviceArray::from_slice_on(&stream, &addresses).expect("the pointer array");
    let pointers = pointers.as_ptr().cast::<*mut f64>();
    let mut tau = DeviceArray::<f64>::zeros_on(&stream, n * count).expect("tau");
    let mut raw_tau = DeviceArray::<f64>::zeros_on(&stream, n * count).expect("raw tau");
    let tau_base = raw_tau.as_mut_ptr();
    let tau_addresses: Vec<u64> = (0..count).map(|i| tau_base.wrapping_add(i * n) as u64).collect();
    let tau_pointers = DeviceArray::from_slice_on(&stream, &tau_addresses).expect("the tau pointer array");
    let tau_pointers = tau_pointers.as_ptr().cast::<*mut f64>();

    let ours = |a: &mut DeviceArray<f64>, pivots: &mut Pivots| {
        a.copy_from(&pristine).expect("restore");
        solver::getrf_strided_batched(&shape, &batch_of, a, pivots).expect("getrf_strided_batched")
    };
    let raw_loop = |a: &mut DeviceArray<f64>| {
        a.copy_from(&pristine).expect("restore");
        for i in 0..count {
            // SAFETY: problem i's A (n × n), pivots and info inside their
            // arrays, and the workspace of its size, on this device.
            let status = unsafe {
                getrf(
                    dn,
                    ni,
                    ni,
                    base.wrapping_add(i * n * n),
                    ni,
                    workspace,
                    ipiv.wrapping_add(i * n),
                    info.wrapping_add(i),
                )
            };
            assert_eq!(status, 0, "cusolverDnDgetrf");
        }
    };
    let raw_batched = |a: &mut DeviceArray<f64>| {
        a.copy_from(&pristine).expect("restore");
        // SAFETY: `count` device pointers to n × n matrices, pivots and info of their sizes.
        assert_eq!(unsafe { getrf_batched(blas, ni, pointers, ni, ipiv, info, count as c_int) }, 0);
    };
    let ours_chol = |a: &mut DeviceArray<f64>| {
        a.copy_from(&pristine).expect("restore");
        solver::potrf_strided_batched(Triangle::Lower, &shape, &batch_of, a).expect("potrf_strided_batched")
    };
    let raw_chol_loop = |a: &mut DeviceArray<f64>| {
        a.copy_from(&pristine).expect("restore");
        for i in 0..count {
            let a_i = base.wrapping_add(i * n * n);
            // SAFETY: problem i's A (n × n), lower (0), the workspace of its size and info.
            let status = unsafe { potrf(dn, 0, ni, a_i, ni, workspace, work, info.wrapping_add(i)) };
            assert_eq!(status, 0, "cusolverDnDpotrf");
        }
    };
    let raw_chol_batched = |a: &mut DeviceArray<f64>| {
        a.copy_from(&pristine).expect("restore");
        // SAFETY: `count` device pointers to n × n matrices, lower (0), and info of their sizes.
        assert_eq!(unsafe { potrf_batched(dn, 0, ni, pointers, ni, info, count as c_int) }, 0);
    };
    let ours_qr = |a: &mut DeviceArray<f64>, tau: &mut DeviceArray<f64>| {
        a.copy_from(&pristine).expect("restore");
        solver::geqrf_strided_batched(&shape, &batch_of, a, tau).expect("geqrf_strided_batched")
    };
    let raw_qr_loop = |a: &mut DeviceArray<f64>| {
        a.copy_from(&pristine).expect("restore");
        for i in 0..count {
            let (a_i, tau_i) = (base.wrapping_add(i * n * n), tau_base.wrapping_add(i * n));
            // SAFETY: problem i's A (n × n), its n scalars, the workspace of its size and info.
            let status = unsafe { geqrf(dn, ni, ni, a_i, ni, tau_i, workspace, work, info.wrapping_add(i)) };
            assert_eq!(status, 0, "cusolverDnDgeqrf");
        }
    };
    let raw_qr_batched = |a: &mut DeviceArray<f64>| {
        a.copy_from(&pristine).expect("restore");
        let mut host_info = 0 as c_int;
        // SAFETY: `count` device pointers to n × n matrices and to n scalars each; info on the host.
        let status = unsafe { geqrf_batched(blas, ni, ni, pointers, ni, tau_pointers, &mut host_info, count as c_int) };
        assert_eq!((status, host_info), (0, 0), "cublasDgeqrfBatched");
    };
    // Each side once, checked, before timing (this also sizes our handle's workspace).
    ours_qr(&mut a, &mut tau);
    raw_qr_loop(&mut a);
    let looped_tau = raw_tau.to_vec().expect("tau");
    raw_qr_batched(&mut a);
    let batched_tau = raw_tau.to_vec().expect("tau");
    let ours_tau = tau.to_vec().expect("tau");
    for (what, other) in [("cuBLAS's batched QR", &batched_tau), ("ours", &ours_tau)] {
        let worst = other.iter().zip(&looped_tau).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(worst < 1e-10, "{what} and one cuSOLVER geqrf a matrix give the same scalars ({worst:e})");
    }
    ours(&mut a, &mut pivots).check().expect("regular matrices");
    ours_chol(&mut a).check().expect("positive definite matrices");
    type Raw<'a> = &'a dyn Fn(&mut DeviceArray<f64>);
    let raws: [Raw<'_>; 4] = [&raw_loop, &raw_batched, &raw_chol_loop, &raw_chol_batched];
    for raw in raws {
        raw(&mut a);
        assert!(raw_info.to_vec().expect("info").iter().all(|&v| v == 0), "regular, positive definite matrices");
    }

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let mut group = criterion.benchmark_group(GROUP);
    group.bench_function("getrf-ours", |b| {
        b.iter(|| {
            let info = ours(&mut a, &mut pivots);
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("getrf-raw-loop", |b| {
        b.iter(|| {
            raw_loop(&mut a);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("getrf-cublas-batched", |b| {
        b.iter(|| {
            raw_batched(&mut a);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("potrf-ours", |b| {
        b.iter(|| {
            let info = ours_chol(&mut a);
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("potrf-raw-loop", |b| {
        b.iter(|| {
            raw_chol_loop(&mut a);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("potrf-cusolver-batched", |b| {
        b.iter(|| {
            raw_chol_batched(&mut a);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("geqrf-ours", |b| {
        b.iter(|| {
            ours_qr(&mut a, &mut tau);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("geqrf-raw-loop", |b| {
        b.iter(|| {
            raw_qr_loop(&mut a);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("geqrf-cublas-batched", |b| {
        b.iter(|| {
            raw_qr_batched(&mut a);
            stream.synchronize().expect("sync");
        })
    });

    // Separate matrices: our batch and the raw calls on one address array.
    let host = batch(n, count);
    let mut separate: Vec<DeviceArray<f64>> =
        host.chunks(n * n).map(|m| DeviceArray::from_slice_on(&stream, m).expect("a matrix")).collect();
    let addresses: Vec<u64> = separate.iter_mut().map(|m| m.as_mut_ptr() as u64).collect();
    let raw_array = DeviceArray::from_slice_on(&stream, &addresses).expect("the raw address array");
    let raw_array = raw_array.as_ptr().cast::<*mut f64>();
    let mut matrices = MatrixBatch::new(&shape, &mut separate).expect("the batch");
    group.bench_function("getrf-ours-matrices", |b| {
        b.iter(|| {
            let info = solver::getrf_batched(&mut matrices, &mut pivots).expect("getrf_batched");
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("getrf-cublas-matrices", |b| {
        b.iter(|| {
            // SAFETY: `count` device pointers to n × n matrices, pivots and info of their sizes.
            assert_eq!(unsafe { getrf_batched(blas, ni, raw_array, ni, ipiv, info, count as c_int) }, 0);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("potrf-ours-matrices", |b| {
        b.iter(|| {
            let info = solver::potrf_batched(Triangle::Lower, &mut matrices).expect("potrf_batched");
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("potrf-cusolver-matrices", |b| {
        b.iter(|| {
            // SAFETY: `count` device pointers to n × n matrices, lower (0), and info of their sizes.
            assert_eq!(unsafe { potrf_batched(dn, 0, ni, raw_array, ni, info, count as c_int) }, 0);
            stream.synchronize().expect("sync");
        })
    });
    group.finish();
    criterion.final_summary();

    println!(
        "\nbackend {:?}, {count} factorizations of {n} x {n} f64, restore + factor + sync an iteration",
        amdgpu::backend()
    );
    let sides =
        [("getrf", "getrf-cublas-batched"), ("potrf", "potrf-cusolver-batched"), ("geqrf", "geqrf-cublas-batched")];
    for (what, batched) in sides {
        let ours = mean_ns(GROUP, &format!("{what}-ours"));
        let (looped, batched) = (mean_ns(GROUP, &format!("{what}-raw-loop")), mean_ns(GROUP, batched));
        if let (Some(o), Some(l), Some(c)) = (ours, looped, batched) {
            println!(
                "  {what}  ours {:>9.1} us   raw per matrix {:>9.1} us   raw batched {:>9.1} us   \
                 ours / per-matrix {:.3}   ours / batched {:.3}",
                o / 1e3,
                l / 1e3,
                c / 1e3,
                o / l,
                o / c
            );
        }
    }
    for (what, raw) in [("getrf", "getrf-cublas-matrices"), ("potrf", "potrf-cusolver-matrices")] {
        let (ours, raw) = (mean_ns(GROUP, &format!("{what}-ours-matrices")), mean_ns(GROUP, raw));
        if let (Some(o), Some(r)) = (ours, raw) {
            println!(
                "  {what} of separate matrices  ours {:>9.1} us   raw batched {:>9.1} us   ours / raw {:.3}",
                o / 1e3,
                r / 1e3,
                o / r
            );
        }
    }
}
