//! A warm handle lookup (rocSPARSE, rocBLAS) and a plan-cache hit, each against making the
//! handle or plan from scratch, on the same backend in one run.
//!
//! Run: `cargo bench -p hip-libs --bench caches` (needs a backend with
//! rocSPARSE and rocFFT: the simulator or AMD).

use criterion::Criterion;
use hip_core::{Device, Stream};
use hip_libs::fft::{self, Placement, PlanKey, TransformKind};
use hip_libs::{blas, sparse};
use std::hint::black_box;

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

const GROUP: &str = "hip-libs-caches";

fn benches(c: &mut Criterion) -> bool {
    if !hip_libs::available(hip_libs::Library::Rocsparse) || !hip_libs::available(hip_libs::Library::Rocfft) {
        eprintln!("skipped: rocSPARSE and rocFFT are not available on the {} backend", hip_sys::backend());
        return false;
    }
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let api = hip_sys::rocsparse().expect("rocSPARSE");
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("handle lookup (warm)", |b| {
        b.iter(|| black_box(sparse::with_raw_handle(device, &stream, |h| h).expect("handle")))
    });
    group.bench_function("handle create+destroy", |b| {
        b.iter(|| {
            hip_core::raw::on_device(device, || {
                let mut h = std::ptr::null_mut();
                // SAFETY: a valid out-pointer; the handle is destroyed right after.
                unsafe {
                    black_box((api.rocsparse_create_handle)(&mut h));
                    black_box((api.rocsparse_destroy_handle)(h));
                }
            })
            .expect("on_device")
        })
    });
    if hip_libs::available(hip_libs::Library::Rocblas) {
        let blas_api = hip_sys::rocblas().expect("rocBLAS");
        group.bench_function("blas handle lookup (warm)", |b| {
            b.iter(|| black_box(blas::with_raw_handle(device, &stream, |h| h).expect("handle")))
        });
        group.bench_function("blas handle create+destroy", |b| {
            b.iter(|| {
                hip_core::raw::on_device(device, || {
                    let mut h = std::ptr::null_mut();
                    // SAFETY: a valid out-pointer; the handle is destroyed right after.
                    unsafe {
                        black_box((blas_api.rocblas_create_handle)(&mut h));
                        black_box((blas_api.rocblas_destroy_handle)(h));
                    }
                })
                .expect("on_device")
            })
        });
    }
    let key = PlanKey {
        device,
        shape: vec![256, 256],
        batch: 1,
        kind: TransformKind::ComplexForward,
        double: false,
        placement: Placement::OutOfPlace,
    };
    group.bench_function("plan cache hit", |b| b.iter(|| black_box(fft::cached_plan(key.clone()).expect("plan"))));
    group.bench_function("plan create+destroy", |b| b.iter(|| black_box(fft::Plan::new(key.clone()).expect("plan"))));
    group.finish();
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
        ("blas handle lookup (warm)", "blas handle create+destroy"),
        ("plan cache hit", "plan create+destroy"),
    ] {
        if let (Some(c), Some(f)) = (mean_ns(GROUP, cached), mean_ns(GROUP, fresh)) {
            println!("  {cached:<27} {c:>10.1} ns   {fresh:<27} {f:>10.1} ns   {:.0}x", f / c);
        }
    }
}
