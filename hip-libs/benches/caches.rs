//! A warm handle lookup (rocSPARSE, rocBLAS: what every wrapper does
//! first), a raw handle lent out (the lookup, and the handle's stream and
//! pointer mode put back after), and a plan-cache hit, each against making
//! the handle or plan from scratch, on the same backend in one run.
//!
//! First, once the device's context exists and before anything else in
//! the process uses the libraries, one handle of each and one plan are
//! made and destroyed, timed once: what the first use in a process costs
//! (the library's own initialization included). Then criterion times the warm lookups and hits against
//! making and destroying the same objects again, which is what each call
//! would pay without the caches.
//!
//! Run: `cargo bench -p hip-libs --bench caches` (needs a backend with
//! rocSPARSE and rocFFT: the simulator, AMD, or the nvidia backend's
//! mappings onto cuSPARSE, cuBLAS and cuFFT).

use criterion::Criterion;
use hip_core::{Device, Stream};
use hip_libs::fft::{self, Placement, PlanKey, TransformKind};
use hip_libs::{blas, sparse};
use hip_sys::rocblas::RocblasApi;
use hip_sys::rocsparse::RocsparseApi;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

const GROUP: &str = "hip-libs-caches";

fn key(device: Device) -> PlanKey {
    PlanKey {
        device,
        shape: vec![256, 256],
        batch: 1,
        kind: TransformKind::ComplexForward,
        double: false,
        placement: Placement::OutOfPlace,
    }
}

/// Make and destroy a rocSPARSE handle on `device`.
fn sparse_round_trip(api: &RocsparseApi, device: Device) {
    hip_core::raw::on_device(device, || {
        let mut h = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the handle is destroyed right after.
        unsafe {
            black_box((api.rocsparse_create_handle)(&mut h));
            black_box((api.rocsparse_destroy_handle)(h));
        }
    })
    .expect("on_device")
}

/// Make and destroy a rocBLAS handle on `device`.
fn blas_round_trip(api: &RocblasApi, device: Device) {
    hip_core::raw::on_device(device, || {
        let mut h = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the handle is destroyed right after.
        unsafe {
            black_box((api.rocblas_create_handle)(&mut h));
            black_box((api.rocblas_destroy_handle)(h));
        }
    })
    .expect("on_device")
}

/// The first handle of each library and the first plan in the process,
/// made and destroyed, timed once each.
fn first_uses(device: Device) -> Vec<(&'static str, Duration)> {
    let timed = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed()
    };
    let mut firsts = Vec::new();
    let api = hip_sys::rocsparse().expect("rocSPARSE");
    firsts.push(("rocSPARSE handle", timed(&mut || sparse_round_trip(api, device))));
    if hip_libs::available(hip_libs::Library::Rocblas) {
        let blas_api = hip_sys::rocblas().expect("rocBLAS");
        firsts.push(("rocBLAS handle", timed(&mut || blas_round_trip(blas_api, device))));
    }
    firsts.push(("256 x 256 C2C plan", timed(&mut || drop(black_box(fft::Plan::new(key(device)).expect("plan"))))));
    firsts
}

fn benches(c: &mut Criterion) -> bool {
    if !hip_libs::available(hip_libs::Library::Rocsparse) || !hip_libs::available(hip_libs::Library::Rocfft) {
        eprintln!("skipped: rocSPARSE and rocFFT are not available on the {} backend", hip_sys::backend());
        return false;
    }
    let device = Device::new(0).expect("a device");
    // The device's context first, so that the first uses time the
    // libraries' own start.
    let stream = Stream::new_on(device).expect("a stream");
    stream.synchronize().expect("synchronize");
    let firsts = first_uses(device);
    let api = hip_sys::rocsparse().expect("rocSPARSE");
    let mut group = c.benchmark_group(GROUP);
    // What every wrapper does first: find the thread's handle, bound to
    // the stream already.
    group.bench_function("handle lookup (warm)", |b| {
        b.iter(|| sparse::warm_handle(black_box(&stream)).expect("handle"))
    });
    // Lending the raw handle out also puts its stream and pointer mode back
    // afterwards (two rocSPARSE calls).
    group.bench_function("raw handle lent (warm)", |b| {
        b.iter(|| black_box(sparse::with_raw_handle(device, &stream, |h| h).expect("handle")))
    });
    group.bench_function("handle create+destroy", |b| b.iter(|| sparse_round_trip(api, device)));
    if hip_libs::available(hip_libs::Library::Rocblas) {
        let blas_api = hip_sys::rocblas().expect("rocBLAS");
        group.bench_function("blas handle lookup (warm)", |b| {
            b.iter(|| blas::warm_handle(black_box(&stream)).expect("handle"))
        });
        group.bench_function("blas raw handle lent (warm)", |b| {
            b.iter(|| black_box(blas::with_raw_handle(device, &stream, |h| h).expect("handle")))
        });
        group.bench_function("blas handle create+destroy", |b| b.iter(|| blas_round_trip(blas_api, device)));
    }
    let key = key(device);
    group.bench_function("plan cache hit", |b| b.iter(|| black_box(fft::cached_plan(key.clone()).expect("plan"))));
    // What a transform does: the key's shape borrowed, no allocation.
    group.bench_function("plan cache hit (borrowed key)", |b| {
        b.iter(|| black_box(fft::cached_plan_for(key.query()).expect("plan")))
    });
    group.bench_function("plan create+destroy", |b| b.iter(|| black_box(fft::Plan::new(key.clone()).expect("plan"))));
    group.finish();
    let warm = [("rocSPARSE handle", "handle lookup (warm)"), ("rocBLAS handle", "blas handle lookup (warm)")];
    println!("\nthe first use in the process (made and destroyed once):");
    for (what, took) in firsts {
        let cached = warm.iter().find(|(w, _)| *w == what).map_or("plan cache hit", |(_, c)| *c);
        let ratio = mean_ns(GROUP, cached)
            .map_or(String::new(), |c| format!("   {:.0}x the {cached}", took.as_nanos() as f64 / c));
        println!("  {what:<20} {:>12.3} ms{ratio}", took.as_secs_f64() * 1e3);
    }
    true
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    if !benches(&mut criterion) {
        return;
    }
    criterion.final_summary();
    println!("\nbackend {:?}:", hip_sys::backend());
    for (cached, fresh) in [
        ("handle lookup (warm)", "handle create+destroy"),
        ("raw handle lent (warm)", "handle create+destroy"),
        ("blas handle lookup (warm)", "blas handle create+destroy"),
        ("blas raw handle lent (warm)", "blas handle create+destroy"),
        ("plan cache hit", "plan create+destroy"),
        ("plan cache hit (borrowed key)", "plan create+destroy"),
    ] {
        if let (Some(c), Some(f)) = (mean_ns(GROUP, cached), mean_ns(GROUP, fresh)) {
            println!("  {cached:<27} {c:>10.1} ns   {fresh:<27} {f:>10.1} ns   {:.0}x", f / c);
        }
    }
}
