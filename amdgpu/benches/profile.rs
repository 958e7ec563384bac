//! Profiler ranges (issue 50): what a range costs the calling thread.
//!
//! - **Switched off** (`profile::set_enabled(false)`, as without an
//!   annotation library): `range` + its drop, and `mark`, beside the
//!   timing loop alone; the goal is at most 2 ns a range, one atomic load
//!   each.
//! - **On the backend's library** (ROCTx on amd, the simulator's timeline
//!   on sim): `range` + its drop against the raw `roctxRangePushA` +
//!   `roctxRangePop` through the same table, with a name already
//!   NUL-terminated; the ratio is what the guard and the name's copy add.
//!   On the simulator the timeline is cleared between batches, outside
//!   the timing, so it never fills.
//!
//! - **The simulator's stream timeline** (sim only): a device-to-device
//!   copy of 4 bytes, queued and waited for, with a trace recording
//!   against none; the difference is what the trace costs an operation
//!   (its record, and its start and end times). The trace restarts
//!   between batches, outside the timing, so it never fills.
//!
//! `cargo bench -p amdgpu --bench profile`.

use amdgpu::profile;
use criterion::Criterion;
use std::hint::black_box;
use std::time::{Duration, Instant};

mod common;
use common::print_ratios;

const GROUP: &str = "profile";
/// Ranges per timed batch (the simulator's timeline holds 65536 events).
const BATCH: u64 = 16_384;

/// Time `iters` runs of `f` in batches, clearing the simulator's timeline
/// between them.
fn batched(iters: u64, mut f: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let n = left.min(BATCH);
        #[cfg(feature = "sim")]
        hip_sys::sim::clear_profile_events();
        let start = Instant::now();
        for _ in 0..n {
            f();
        }
        total += start.elapsed();
        left -= n;
    }
    total
}

fn ranges(c: &mut Criterion) {
    let mut group = c.benchmark_group(GROUP);
    // The timing loop with the same black box and nothing in it.
    group.bench_function("loop alone", |b| b.iter_custom(|n| batched(n, || black_box(()))));
    profile::set_enabled(false);
    group.bench_function("range off", |b| b.iter_custom(|n| batched(n, || drop(black_box(profile::range("step"))))));
    group.bench_function("mark off", |b| b.iter_custom(|n| batched(n, || profile::mark(black_box("step")))));
    profile::set_enabled(true);
    if !profile::enabled() {
        println!("no annotation library on this backend: the on-library figures are skipped");
        group.finish();
        return;
    }
    let table = hip_sys::roctx().expect("the library profile::enabled found");
    group.bench_function("range on", |b| b.iter_custom(|n| batched(n, || drop(black_box(profile::range("step"))))));
    group.bench_function("raw push pop", |b| {
        b.iter_custom(|n| {
            batched(n, || {
                // SAFETY: a NUL-terminated name; a pop after the push.
                unsafe {
                    (table.roctxRangePushA)(black_box(c"step").as_ptr());
                    (table.roctxRangePop)();
                }
            })
        })
    });
    group.finish();
}

/// A traced operation against an untraced one, on the simulator.
#[cfg(feature = "sim")]
fn trace(c: &mut Criterion) {
    use amdgpu::sys::sim;
    if amdgpu::backend() != amdgpu::Backend::Sim {
        return;
    }
    let from = amdgpu::DeviceArray::from_slice(&[1.0f32]).expect("an array");
    let mut to = amdgpu::DeviceArray::<f32>::zeros(1).expect("an array");
    let mut group = c.benchmark_group(GROUP);
    for (traced, name) in [(false, "copy untraced"), (true, "copy traced")] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let n = left.min(BATCH);
                    if traced {
                        sim::start_trace();
                    }
                    let start = Instant::now();
                    for _ in 0..n {
                        to.copy_from(&from).expect("a copy");
                    }
                    total += start.elapsed();
                    sim::stop_trace();
                    left -= n;
                }
                total
            })
        });
    }
    group.finish();
}

#[cfg(not(feature = "sim"))]
fn trace(_: &mut Criterion) {}

fn main() {
    let mut c = Criterion::default().configure_from_args().measurement_time(Duration::from_secs(2));
    ranges(&mut c);
    trace(&mut c);
    c.final_summary();
    print_ratios(GROUP, &[("range + drop / raw push + pop (library on)", "range on", "raw push pop")]);
    if let (Some(off), Some(on)) = (common::mean_ns(GROUP, "copy untraced"), common::mean_ns(GROUP, "copy traced")) {
        println!("  the stream timeline costs an operation {:.1} ns ({on:.1} ns traced, {off:.1} ns not)", on - off);
    }
    let alone = common::mean_ns(GROUP, "loop alone").unwrap_or(0.0);
    for what in ["range off", "mark off"] {
        if let Some(ns) = common::mean_ns(GROUP, what) {
            println!("  {what:<50} {ns:>12.2} ns, {:.2} ns over the loop alone (goal: at most 2 ns)", ns - alone);
        }
    }
}
