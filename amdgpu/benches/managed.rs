//! Managed memory (issue 52): a 256 MiB `ManagedArray` prefetched to its
//! device and back to the host on a stream, and waited for, against the
//! same two `hipMemPrefetchAsync` calls through the HIP table and the same
//! wait (on NVIDIA, `cudaMemPrefetchAsync`'s driver call). Each iteration
//! moves the pages both ways, so the figure is a bandwidth: bytes moved
//! over time. `cargo bench -p amdgpu --bench managed`.

use amdgpu::managed::Location;
use amdgpu::prelude::*;
use amdgpu::ManagedArray;
use criterion::Criterion;
use hip_core::raw::managed;
use std::time::Duration;

mod common;
use common::mean_ns;

const GROUP: &str = "managed";
const LEN: usize = 1 << 26; // 256 MiB of u32

fn main() {
    let mut c = Criterion::default().configure_from_args().sample_size(10).measurement_time(Duration::from_secs(3));
    let stream = Stream::new().expect("a stream");
    let device = stream.device();
    if !managed::supported(device).expect("the attribute") {
        eprintln!("managed: skipped, {device} has no managed memory");
        return;
    }
    let values = ManagedArray::<u32>::zeroed_on(&stream, LEN).expect("managed memory");
    let bytes = LEN * 4;
    let ptr = values.array().as_ptr().cast::<std::ffi::c_void>();
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("ours", |b| {
        b.iter(|| {
            values.prefetch(Location::Device(device), &stream).expect("to the device");
            values.prefetch(Location::Host, &stream).expect("to the host");
            stream.synchronize().expect("the stream");
        })
    });
    group.bench_function("raw", |b| {
        b.iter(|| {
            // SAFETY: the array's managed memory, alive through the bench;
            // a live stream, waited for before the next iteration.
            unsafe {
                managed::prefetch_async(device, ptr, bytes, managed::Location::Device(device), stream.as_raw())
                    .expect("to the device");
                managed::prefetch_async(device, ptr, bytes, managed::Location::Host, stream.as_raw())
                    .expect("to the host");
            }
            stream.synchronize().expect("the stream");
        })
    });
    group.finish();
    c.final_summary();
    if let (Some(ours), Some(raw)) = (mean_ns(GROUP, "ours"), mean_ns(GROUP, "raw")) {
        let rate = |ns: f64| 2.0 * bytes as f64 / ns;
        println!(
            "prefetch of 256 MiB there and back: ours {:.1} GB/s, raw {:.1} GB/s, ours / raw time {:.3}",
            rate(ours),
            rate(raw),
            ours / raw
        );
    }
}
