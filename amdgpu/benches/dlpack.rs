//! DLPack (issue 51): what a hand-over costs on the Rust side.
//!
//! - **export + deleter**: a pooled array made into a tensor and the
//!   tensor's deleter run (what a framework that takes the tensor and
//!   frees it costs this crate), against the pooled allocation and drop
//!   alone.
//! - **round trip**: the same tensor taken back as an array
//!   (`from_dlpack`) and dropped: the import's checks, and its drop's
//!   waits (an idle stream's synchronize) before the deleter.
//!
//! No copy is made in either (the tests assert the pointer). The goal
//! is at most 2 µs a round trip. `cargo bench -p amdgpu --bench dlpack`.

use amdgpu::prelude::*;
use criterion::Criterion;
use std::hint::black_box;
use std::time::Duration;

mod common;
use common::mean_ns;

const GROUP: &str = "dlpack";
const LEN: usize = 1 << 18; // 1 MiB of f32

fn fresh(stream: &Stream) -> DeviceArray<f32> {
    // SAFETY: never read; the benchmark measures the hand-over only.
    unsafe { DeviceArray::uninit_on(stream.device(), LEN, stream) }.expect("an array")
}

fn main() {
    let mut c = Criterion::default().configure_from_args().measurement_time(Duration::from_secs(2));
    let stream = Stream::new().expect("a stream");
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("alloc + drop", |b| b.iter(|| black_box(fresh(&stream))));
    group.bench_function("export + deleter", |b| {
        b.iter(|| black_box(fresh(&stream).into_dlpack(None).expect("a tensor")))
    });
    group.bench_function("round trip", |b| {
        b.iter(|| {
            let tensor = fresh(&stream).into_dlpack(None).expect("a tensor");
            black_box(DeviceArray::<f32>::from_dlpack(tensor, &stream).expect("the array"))
        })
    });
    group.finish();
    c.final_summary();
    let alone = mean_ns(GROUP, "alloc + drop").unwrap_or(0.0);
    for what in ["export + deleter", "round trip"] {
        if let Some(ns) = mean_ns(GROUP, what) {
            println!("  {what:<20} {ns:>10.1} ns, {:.1} ns over the pooled pair alone ({alone:.1} ns)", ns - alone);
        }
    }
}
