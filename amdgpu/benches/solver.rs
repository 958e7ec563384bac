//! `solver::getrf`, `solver::potrf`, `solver::syevd` and `solver::gesvd`
//! against the raw cuSOLVER calls they map onto (`cusolverDnDgetrf`,
//! `cusolverDnDpotrf`, `cusolverDnDsyevd` with vectors, `cusolverDnDgesvd`
//! with thin U and Vᴴ, their workspaces allocated once) on a cuSOLVER
//! handle of the same stream, in one run: an 8192 × 8192 f64 matrix
//! (512 MiB) for the factorizations, a 4096 × 4096 one for the
//! eigensolver, and for the SVD a 2048 × 2048 one and a wide 512 × 2048
//! one (which cuSOLVER takes only turned around: the raw side is given
//! Aᴴ ready, ours turns A and the vectors around on the stream), each
//! iteration a device-to-device restore of the matrix,
//! the call and a synchronize (the same restore for both sides), reported
//! in ms and, for the factorizations, GFLOP/s (LU 2n³/3, Cholesky n³/3).
//! PyTorch's `torch.linalg.lu_factor`, `torch.linalg.cholesky` and
//! `torch.linalg.eigh` on the same matrices are timed by `solver_torch.py`
//! beside it.
//!
//! Run on an NVIDIA GPU: `AMDGPU_BACKEND=nvidia cargo bench -p amdgpu
//! --bench solver` (`AMDGPU_BENCH_SOLVER_N`, `AMDGPU_BENCH_EIGEN_N` and
//! `AMDGPU_BENCH_SVD_N` for other orders). Elsewhere it says why it skips.

use amdgpu::solver::{self, Pivots, Shape, SingularVectors, Triangle, Vectors};
use amdgpu::{DeviceArray, Stream};
use criterion::Criterion;
use std::ffi::{c_int, c_void};
use std::time::Duration;

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

mod nvidia;
use nvidia::{function, open};

const GROUP: &str = "solver";

type Handle = *mut c_void;

/// A symmetric, strictly diagonally dominant matrix of order `n` with a
/// positive diagonal (so positive definite, and LU's pivots stay put):
/// off-diagonal entries in [-1, 1), `n` added on the diagonal.
fn matrix(n: usize) -> Vec<f64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut a = vec![0.0; n * n];
    for j in 0..n {
        for i in j..n {
            let v = next();
            a[i + j * n] = v;
            a[j + i * n] = v;
        }
        a[j + j * n] += n as f64;
    }
    a
}

fn main() {
    if amdgpu::backend() != amdgpu::Backend::Nvidia {
        eprintln!("skipped: compares against cuSOLVER; run with AMDGPU_BACKEND=nvidia on an NVIDIA GPU");
        return;
    }
    let n: usize = std::env::var("AMDGPU_BENCH_SOLVER_N").ok().and_then(|v| v.parse().ok()).unwrap_or(8192);
    let stream = Stream::new().expect("a stream");
    let cusolver = open(&["libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"]);
    type Getrf = unsafe extern "C" fn(Handle, c_int, c_int, *mut f64, c_int, *mut f64, *mut c_int, *mut c_int) -> c_int;
    type Potrf = unsafe extern "C" fn(Handle, c_int, c_int, *mut f64, c_int, *mut f64, c_int, *mut c_int) -> c_int;
    type SyevdSize =
        unsafe extern "C" fn(Handle, c_int, c_int, c_int, *const f64, c_int, *const f64, *mut c_int) -> c_int;
    type Syevd = unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        *mut f64,
        c_int,
        *mut f64,
        *mut f64,
        c_int,
        *mut c_int,
    ) -> c_int;
    // SAFETY: the signatures of cusolverDn.h.
    let (create, set_stream, getrf_size, getrf, potrf_size, potrf) = unsafe {
        (
            function::<unsafe extern "C" fn(*mut Handle) -> c_int>(&cusolver, "cusolverDnCreate"),
            function::<unsafe extern "C" fn(Handle, *mut c_void) -> c_int>(&cusolver, "cusolverDnSetStream"),
            function::<unsafe extern "C" fn(Handle, c_int, c_int, *mut f64, c_int, *mut c_int) -> c_int>(
                &cusolver,
                "cusolverDnDgetrf_bufferSize",
            ),
            function::<Getrf>(&cusolver, "cusolverDnDgetrf"),
            function::<unsafe extern "C" fn(Handle, c_int, c_int, *mut f64, c_int, *mut c_int) -> c_int>(
                &cusolver,
                "cusolverDnDpotrf_bufferSize",
            ),
            function::<Potrf>(&cusolver, "cusolverDnDpotrf"),
        )
    };
    // SAFETY: as above.
    let (syevd_size, syevd) = unsafe {
        (
            function::<SyevdSize>(&cusolver, "cusolverDnDsyevd_bufferSize"),
            function::<Syevd>(&cusolver, "cusolverDnDsyevd"),
        )
    };
    type GesvdSize = unsafe extern "C" fn(Handle, c_int, c_int, *mut c_int) -> c_int;
    type Gesvd = unsafe extern "C" fn(
        Handle,
        i8,
        i8,
        c_int,
        c_int,
        *mut f64,
        c_int,
        *mut f64,
        *mut f64,
        c_int,
        *mut f64,
        c_int,
        *mut f64,
        c_int,
        *mut f64,
        *mut c_int,
    ) -> c_int;
    // SAFETY: as above.
    let (gesvd_size, gesvd) = unsafe {
        (
            function::<GesvdSize>(&cusolver, "cusolverDnDgesvd_bufferSize"),
            function::<Gesvd>(&cusolver, "cusolverDnDgesvd"),
        )
    };
    let host = matrix(n);
    let pristine = DeviceArray::from_slice_on(&stream, &host).expect("the matrix");
    let mut a = DeviceArray::<f64>::zeros_on(&stream, n * n).expect("the working copy");
    let mut pivots = Pivots::new(n, &stream).expect("pivots");
    let mut raw_pivots = DeviceArray::<i32>::zeros_on(&stream, n).expect("raw pivots");
    let mut raw_info = DeviceArray::<i32>::zeros_on(&stream, 1).expect("raw info");
    let (ni, ptr) = (n as c_int, a.as_mut_ptr());
    let mut dn: Handle = std::ptr::null_mut();
    let (mut lu_work, mut chol_work) = (0 as c_int, 0 as c_int);
    // SAFETY: valid out-pointers; a CUDA stream of this backend; A is n × n.
    unsafe {
        assert_eq!(create(&mut dn), 0, "cusolverDnCreate");
        let cuda = amdgpu::sys::backend::nvidia::cuda_stream(stream.as_raw()).expect("a live stream");
        assert_eq!(set_stream(dn, cuda), 0, "cusolverDnSetStream");
        assert_eq!(getrf_size(dn, ni, ni, ptr, ni, &mut lu_work), 0);
        assert_eq!(potrf_size(dn, 1, ni, ptr, ni, &mut chol_work), 0);
    }
    let ne: usize = std::env::var("AMDGPU_BENCH_EIGEN_N").ok().and_then(|v| v.parse().ok()).unwrap_or(4096);
    let eigen_pristine = DeviceArray::from_slice_on(&stream, &matrix(ne)).expect("the eigen matrix");
    let mut e = DeviceArray::<f64>::zeros_on(&stream, ne * ne).expect("the eigen working copy");
    let mut w = DeviceArray::<f64>::zeros_on(&stream, ne).expect("eigenvalues");
    let (nei, e_ptr, w_ptr) = (ne as c_int, e.as_mut_ptr(), w.as_mut_ptr());
    let mut eig_work = 0 as c_int;
    // SAFETY: a live handle; vectors (1), lower (0); E is ne × ne, W ne.
    assert_eq!(unsafe { syevd_size(dn, 1, 0, nei, e_ptr, nei, w_ptr, &mut eig_work) }, 0);
    let mut eig_ws = DeviceArray::<f64>::zeros_on(&stream, eig_work.max(1) as usize).expect("syevd workspace");
    let eig_ws = eig_ws.as_mut_ptr();
    let mut lu_ws = DeviceArray::<f64>::zeros_on(&stream, lu_work.max(1) as usize).expect("getrf workspace");
    let mut chol_ws = DeviceArray::<f64>::zeros_on(&stream, chol_work.max(1) as usize).expect("potrf workspace");
    let (ipiv, info) = (raw_pivots.as_mut_ptr(), raw_info.as_mut_ptr());
    let (lu_ws, chol_ws) = (lu_ws.as_mut_ptr(), chol_ws.as_mut_ptr());

    // The SVDs: square (ns × ns) and wide (ns / 4 × ns; raw: its transpose).
    let ns: usize = std::env::var("AMDGPU_BENCH_SVD_N").ok().and_then(|v| v.parse().ok()).unwrap_or(2048);
    let nw = ns / 4;
    let svd_host = matrix(ns);
    let svd_pristine = DeviceArray::from_slice_on(&stream, &svd_host).expect("the SVD matrix");
    // The wide A: the first nw rows of the square one; the raw side's Aᴴ.
    let wide_host: Vec<f64> = (0..nw * ns).map(|e| svd_host[e % nw + (e / nw) * ns]).collect();
    let tall_host: Vec<f64> = (0..ns * nw).map(|e| wide_host[e / ns + (e % ns) * nw]).collect();
    let wide_pristine = DeviceArray::from_slice_on(&stream, &wide_host).expect("the wide matrix");
    let tall_pristine = DeviceArray::from_slice_on(&stream, &tall_host).expect("its transpose");
    let mut sv = DeviceArray::<f64>::zeros_on(&stream, ns * ns).expect("the SVD working copy");
    let mut wv = DeviceArray::<f64>::zeros_on(&stream, nw * ns).expect("the wide working copy");
    let mut raw_sv = DeviceArray::<f64>::zeros_on(&stream, ns * ns).expect("the raw SVD working copy");
    let mut raw_tv = DeviceArray::<f64>::zeros_on(&stream, ns * nw).expect("the raw tall working copy");
    let mut s_out = DeviceArray::<f64>::zeros_on(&stream, ns).expect("singular values");
    let mut u_out = DeviceArray::<f64>::zeros_on(&stream, ns * ns).expect("U");
    let mut vt_out = DeviceArray::<f64>::zeros_on(&stream, ns * ns).expect("Vᴴ");
    let mut rwork = DeviceArray::<f64>::zeros_on(&stream, ns).expect("rwork");
    let (nsi, nwi) = (ns as c_int, nw as c_int);
    let (s_ptr, u_ptr, vt_ptr, rwork_ptr) =
        (s_out.as_mut_ptr(), u_out.as_mut_ptr(), vt_out.as_mut_ptr(), rwork.as_mut_ptr());
    let (mut svd_work, mut tall_work) = (0 as c_int, 0 as c_int);
    // SAFETY: a live handle and valid out-pointers.
    unsafe {
        assert_eq!(gesvd_size(dn, nsi, nsi, &mut svd_work), 0);
        assert_eq!(gesvd_size(dn, nsi, nwi, &mut tall_work), 0);
    }
    let mut svd_ws = DeviceArray::<f64>::zeros_on(&stream, svd_work.max(tall_work).max(1) as usize).expect("gesvd ws");
    let svd_ws = svd_ws.as_mut_ptr();
    // Ours: restore A, then the thin SVD of its `a_shape` (U `u_shape`, Vᴴ `vt_shape`).
    let ours_svd = |a: &mut DeviceArray<f64>,
                    pristine: &DeviceArray<f64>,
                    (a_shape, u_shape, vt_shape): (Shape, Shape, Shape),
                    s: &mut DeviceArray<f64>,
                    u: &mut DeviceArray<f64>,
                    vt: &mut DeviceArray<f64>| {
        a.copy_from(pristine).expect("restore");
        solver::gesvd(&a_shape, a, s, SingularVectors::Thin(u_shape, u), SingularVectors::Thin(vt_shape, vt))
            .expect("gesvd")
    };
    let square = (Shape::square(ns), Shape::square(ns), Shape::square(ns));
    let wide = (Shape::new(nw, ns), Shape::square(nw), Shape::new(nw, ns));
    // Raw: restore A (m × n, m ≥ n), then cusolverDnDgesvd with jobs 'S'.
    let raw_svd = |a: &mut DeviceArray<f64>, pristine: &DeviceArray<f64>, m: c_int, n: c_int, work: c_int| {
        a.copy_from(pristine).expect("restore");
        let jobs = b'S' as i8;
        // SAFETY: A m × n, S, U (m × n) and Vᴴ (n × n) of their sizes, the
        // workspace of `work` elements, rwork and info, all on this device.
        let status = unsafe {
            gesvd(dn, jobs, jobs, m, n, a.as_mut_ptr(), m, s_ptr, u_ptr, m, vt_ptr, n, svd_ws, work, rwork_ptr, info)
        };
        assert_eq!(status, 0, "cusolverDnDgesvd");
    };

    // Each side once, checked, before timing (this also sizes our handle's workspace).
    ours_svd(&mut sv, &svd_pristine, square, &mut s_out, &mut u_out, &mut vt_out).check().expect("converged");
    ours_svd(&mut wv, &wide_pristine, wide, &mut s_out, &mut u_out, &mut vt_out).check().expect("converged");
    let shape = Shape::square(n);
    a.copy_from(&pristine).expect("restore");
    solver::getrf(&shape, &mut a, &mut pivots).expect("getrf").check().expect("a regular matrix");
    a.copy_from(&pristine).expect("restore");
    solver::potrf(Triangle::Lower, &shape, &mut a).expect("potrf").check().expect("a positive definite matrix");
    let eigen_shape = Shape::square(ne);
    e.copy_from(&eigen_pristine).expect("restore");
    solver::syevd(Vectors::Compute, Triangle::Lower, &eigen_shape, &mut e, &mut w)
        .expect("syevd")
        .check()
        .expect("converged");

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8));
    let mut group = criterion.benchmark_group(GROUP);
    group.bench_function("getrf-ours", |b| {
        b.iter(|| {
            a.copy_from(&pristine).expect("restore");
            let info = solver::getrf(&shape, &mut a, &mut pivots).expect("getrf");
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("getrf-raw", |b| {
        b.iter(|| {
            a.copy_from(&pristine).expect("restore");
            // SAFETY: A n × n, the workspace of its size, pivots and info on its device.
            assert_eq!(unsafe { getrf(dn, ni, ni, ptr, ni, lu_ws, ipiv, info) }, 0);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("potrf-ours", |b| {
        b.iter(|| {
            a.copy_from(&pristine).expect("restore");
            let info = solver::potrf(Triangle::Lower, &shape, &mut a).expect("potrf");
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("potrf-raw", |b| {
        b.iter(|| {
            a.copy_from(&pristine).expect("restore");
            // SAFETY: as above; CUBLAS_FILL_MODE_LOWER is 0.
            assert_eq!(unsafe { potrf(dn, 0, ni, ptr, ni, chol_ws, chol_work, info) }, 0);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("syevd-ours", |b| {
        b.iter(|| {
            e.copy_from(&eigen_pristine).expect("restore");
            let info = solver::syevd(Vectors::Compute, Triangle::Lower, &eigen_shape, &mut e, &mut w).expect("syevd");
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("syevd-raw", |b| {
        b.iter(|| {
            e.copy_from(&eigen_pristine).expect("restore");
            // SAFETY: E ne × ne, W ne, the workspace of its size, info on its device.
            assert_eq!(unsafe { syevd(dn, 1, 0, nei, e_ptr, nei, w_ptr, eig_ws, eig_work, info) }, 0);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("gesvd-ours", |b| {
        b.iter(|| {
            let info = ours_svd(&mut sv, &svd_pristine, square, &mut s_out, &mut u_out, &mut vt_out);
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("gesvd-raw", |b| {
        b.iter(|| {
            raw_svd(&mut raw_sv, &svd_pristine, nsi, nsi, svd_work);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("gesvd-wide-ours", |b| {
        b.iter(|| {
            let info = ours_svd(&mut wv, &wide_pristine, wide, &mut s_out, &mut u_out, &mut vt_out);
            stream.synchronize().expect("sync");
            info
        })
    });
    group.bench_function("gesvd-wide-raw", |b| {
        b.iter(|| {
            raw_svd(&mut raw_tv, &tall_pristine, nsi, nwi, tall_work);
            stream.synchronize().expect("sync");
        })
    });
    group.finish();
    criterion.final_summary();

    let nf = n as f64;
    println!(
        "\nbackend {:?}, {n} x {n} f64, restore + factor + sync an iteration (ours / raw time)",
        amdgpu::backend()
    );
    for (what, flops) in [("getrf", 2.0 * nf.powi(3) / 3.0), ("potrf", nf.powi(3) / 3.0)] {
        if let (Some(o), Some(r)) = (mean_ns(GROUP, &format!("{what}-ours")), mean_ns(GROUP, &format!("{what}-raw"))) {
            println!(
                "  {what}  ours {:>8.2} ms {:>7.0} GFLOP/s   raw {:>8.2} ms {:>7.0} GFLOP/s   ratio {:.3}",
                o / 1e6,
                flops / o,
                r / 1e6,
                flops / r,
                o / r
            );
        }
    }
    if let (Some(o), Some(r)) = (mean_ns(GROUP, "syevd-ours"), mean_ns(GROUP, "syevd-raw")) {
        println!(
            "  syevd ({ne} x {ne}, vectors)  ours {:>8.2} ms   raw {:>8.2} ms   ratio {:.3}",
            o / 1e6,
            r / 1e6,
            o / r
        );
    }
    for (what, shape) in [("gesvd", format!("{ns} x {ns}")), ("gesvd-wide", format!("{nw} x {ns}"))] {
        if let (Some(o), Some(r)) = (mean_ns(GROUP, &format!("{what}-ours")), mean_ns(GROUP, &format!("{what}-raw"))) {
            println!(
                "  {what} ({shape}, thin U and Vᴴ)  ours {:>8.2} ms   raw {:>8.2} ms   ratio {:.3}",
                o / 1e6,
                r / 1e6,
                o / r
            );
        }
    }
}
