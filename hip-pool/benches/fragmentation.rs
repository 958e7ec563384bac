//! Fragmentation (issue 52): a workload whose large requests grow step by
//! step, interleaved with smaller ones and a window of live buffers (the
//! pattern of pytorch#35901: sequence lengths that grow, so every freed
//! block is a little too small for the next request). For each strategy,
//! on a pool of its own, the peak of bytes reserved from the driver over
//! the peak of bytes handed out: 1.0 is no waste. For `async` and `none`
//! "reserved" is what the pool asked HIP for, block by block: what HIP's
//! own stream-ordered pool keeps behind `async` is not seen here. Each
//! strategy runs it with the stream idle at every request (nothing
//! queued), and busy (each large buffer and third filled on the stream),
//! which decides which free chunks `expandable` may move to where it
//! grows (those whose work is known done). Busy, `expandable` runs twice:
//! its growth waiting for the stream ([`GrowthWaits::Always`]) and not
//! ([`GrowthWaits::Never`]); its default waits on AMD, where the runtime's
//! mapping waits anyway, and not on NVIDIA. Criterion times one run of
//! the idle workload per strategy besides.
//!
//! Run: `cargo bench -p hip-pool --bench fragmentation` (the simulator's
//! devices have 1 GiB unless `AMDGPU_SIM_MEMORY` says otherwise; the
//! workload's live peak stays under 340 MiB). `AMDGPU_BENCH_FRAG_SCALE=n`
//! makes every large request `n` times as large (the steps and the small
//! buffers stay): the waste a pool's fixed units leave (`expandable`'s
//! 20 MiB chunks) weighs less the larger the workload.

use criterion::Criterion;
use hip_core::{Device, Stream};
use hip_pool::{GrowthWaits, Pool, Strategy};
use std::collections::VecDeque;
use std::hint::black_box;

#[path = "support/fill.rs"]
mod fill;
#[path = "support/strategies.rs"]
mod strategies;
use fill::fill;

/// Steps of the workload.
const STEPS: usize = 48;
/// Buffers kept alive at once.
const WINDOW: usize = 3;

/// One run: each step hands out a growing large buffer, a third of it
/// that dies at once, and a small one; the last `WINDOW` steps' buffers
/// stay alive. `busy`: each large buffer and third is filled on the
/// stream, so that work is queued when the next step allocates.
fn workload(pool: &Pool, stream: &Stream, busy: bool, scale: usize) {
    let mut live = VecDeque::new();
    for step in 0..STEPS {
        let large = scale * ((8 << 20) + step * (1536 << 10)) + 4096 * (step % 3);
        let a = pool.alloc(large, stream).expect("a large buffer");
        let b = pool.alloc(large / 3, stream).expect("a third");
        let small = pool.alloc(64 << 10, stream).expect("a small buffer");
        if busy {
            fill(&a, stream);
            fill(&b, stream);
        }
        drop(b);
        live.push_back((a, small));
        if live.len() > WINDOW {
            live.pop_front();
        }
    }
    black_box(live);
}

fn main() {
    let mut c = Criterion::default().configure_from_args().sample_size(10);
    let scale: usize = std::env::var("AMDGPU_BENCH_FRAG_SCALE").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let mut ratios = Vec::new();
    let mut group = c.benchmark_group("fragmentation");
    // The stream idle, then busy; an expandable pool busy both ways: its
    // growth waiting for the stream, and not.
    let runs = [("idle", None), ("busy", Some(GrowthWaits::Never)), ("busy", Some(GrowthWaits::Always))];
    for (run, (how, waits)) in runs.into_iter().enumerate() {
        for (pool, name) in strategies::pools(device) {
            let waits = match (waits, pool.strategy()) {
                (Some(waits), Strategy::Expandable) => {
                    pool.set_growth_waits(waits).expect("an expandable pool");
                    Some(waits)
                }
                // Other strategies run busy once.
                (Some(GrowthWaits::Always), _) => continue,
                _ => None,
            };
            // The memory figures come from one run on a fresh pool.
            workload(&pool, &stream, how == "busy", scale);
            stream.synchronize().expect("the stream");
            let stats = pool.stats();
            let how = match waits {
                Some(GrowthWaits::Always) => "busy, growth waits",
                Some(_) => "busy, no wait",
                None => how,
            };
            ratios.push((how, name, stats.reserved_peak, stats.allocated_peak, stats.oom_retries, stats.moved_chunks));
            if run == 0 {
                group.bench_function(name, |b| b.iter(|| workload(&pool, &stream, false, scale)));
            }
            pool.reclaim().expect("reclaim");
        }
    }
    group.finish();
    c.final_summary();
    println!("peak reserved / peak allocated, {STEPS} growing steps, {WINDOW} alive, large requests x{scale}:");
    for (how, name, reserved, allocated, retries, moved) in ratios {
        println!(
            "  {name:<10} {how:<18} {:>8.1} MiB / {:>8.1} MiB = {:.3} ({retries} out-of-memory retries, {moved} chunks moved)",
            reserved as f64 / f64::from(1u32 << 20),
            allocated as f64 / f64::from(1u32 << 20),
            reserved as f64 / allocated.max(1) as f64
        );
    }
}
