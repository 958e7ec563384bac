//! Fragmentation (issue 52): a workload whose large requests grow step by
//! step, interleaved with smaller ones and a window of live buffers (the
//! pattern of pytorch#35901: sequence lengths that grow, so every freed
//! block is a little too small for the next request). For each strategy,
//! on a pool of its own, the peak of bytes reserved from the driver over
//! the peak of bytes handed out: 1.0 is no waste. For `async` and `none`
//! "reserved" is what the pool asked HIP for, block by block: what HIP's
//! own stream-ordered pool keeps behind `async` is not seen here. Each
//! strategy runs it twice: with the stream idle at every request (nothing
//! queued), and busy (each large buffer and third filled on the stream),
//! which decides which free chunks `expandable` may move to where it
//! grows (those whose work is known done). Criterion times one run of the idle workload per strategy
//! besides.
//!
//! Run: `cargo bench -p hip-pool --bench fragmentation` (the simulator's
//! devices have 1 GiB unless `AMDGPU_SIM_MEMORY` says otherwise; the
//! workload's live peak stays under 300 MiB).

use criterion::Criterion;
use hip_core::{Device, Stream};
use hip_pool::Pool;
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
fn workload(pool: &Pool, stream: &Stream, busy: bool) {
    let mut live = VecDeque::new();
    for step in 0..STEPS {
        let large = (8 << 20) + step * (1536 << 10) + 4096 * (step % 3);
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
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let mut ratios = Vec::new();
    let mut group = c.benchmark_group("fragmentation");
    for busy in [false, true] {
        for (pool, name) in strategies::pools(device) {
            // The memory figures come from one run on a fresh pool.
            workload(&pool, &stream, busy);
            stream.synchronize().expect("the stream");
            let stats = pool.stats();
            ratios.push((busy, name, stats.reserved_peak, stats.allocated_peak, stats.oom_retries, stats.moved_chunks));
            if !busy {
                group.bench_function(name, |b| b.iter(|| workload(&pool, &stream, false)));
            }
            pool.reclaim().expect("reclaim");
        }
    }
    group.finish();
    c.final_summary();
    println!("peak reserved / peak allocated, {STEPS} growing steps, {WINDOW} alive:");
    for (busy, name, reserved, allocated, retries, moved) in ratios {
        let stream = if busy { "busy" } else { "idle" };
        println!(
            "  {name:<10} {stream} {:>8.1} MiB / {:>8.1} MiB = {:.3} ({retries} out-of-memory retries, {moved} chunks moved)",
            reserved as f64 / f64::from(1u32 << 20),
            allocated as f64 / f64::from(1u32 << 20),
            reserved as f64 / allocated.max(1) as f64
        );
    }
}
