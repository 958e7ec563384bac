//! Allocate+free pairs of our cached pool against the `expandable`
//! strategy (the same hot path over mapped virtual memory), the `none`
//! strategy (`hipMalloc` + `hipFree`) and the `async` strategy
//! (`hipMallocAsync` + `hipFreeAsync`), on the same backend in one run; the cached pair with
//! the memory history recorded; then cached pairs on 1, 2 and 8 threads
//! over the devices.
//!
//! Run: `cargo bench -p hip-pool --bench pool`. After criterion's report the
//! ratios to the cached pool are printed, and `expandable` against
//! `cached` once more from batches of pairs of the two alternated, which
//! cancels the drift of a shared host between criterion's runs of the
//! one and the other.

use criterion::{BenchmarkId, Criterion};
use hip_core::{Device, Stream};
use hip_pool::{Pool, Strategy};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "support/strategies.rs"]
mod strategies;
#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

const SIZES: [(usize, &str); 4] = [(256, "256B"), (64 << 10, "64KiB"), (4 << 20, "4MiB"), (64 << 20, "64MiB")];
const THREADS: [usize; 3] = [1, 2, 8];

fn pairs(c: &mut Criterion) {
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let mut group = c.benchmark_group("pair");
    for (pool, name) in strategies::pools(device) {
        for (bytes, label) in SIZES {
            group.bench_with_input(BenchmarkId::new(name, label), &bytes, |b, &bytes| {
                b.iter(|| black_box(pool.alloc(bytes, &stream).expect("alloc")))
            });
        }
        let _ = pool.reclaim();
    }
    group.finish();
}

/// The cached pair of 64 KiB with the memory history recorded, without
/// and with backtraces, against the same pair without the history. The
/// history is cleared between batches of pairs, outside the timing, so
/// that it never fills (a million events with backtraces would hold
/// gigabytes).
fn history(c: &mut Criterion) {
    const BATCH: u64 = 10_000;
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let pool = Pool::new(device, Strategy::Cached).expect("a pool");
    let mut group = c.benchmark_group("history");
    for (on, backtraces, name) in [(false, false, "off"), (true, false, "on"), (true, true, "on with backtraces")] {
        hip_pool::history::record_history(on);
        hip_pool::history::record_backtraces(backtraces);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let n = left.min(BATCH);
                    hip_pool::history::clear_history();
                    let start = std::time::Instant::now();
                    for _ in 0..n {
                        black_box(pool.alloc(64 << 10, &stream).expect("alloc"));
                    }
                    total += start.elapsed();
                    left -= n;
                }
                total
            })
        });
    }
    hip_pool::history::record_history(false);
    hip_pool::history::record_backtraces(false);
    hip_pool::history::clear_history();
    group.finish();
}

fn threads(c: &mut Criterion) {
    let devices = Device::all().expect("devices");
    let pools: Vec<Pool> = devices.iter().map(|d| Pool::new(*d, Strategy::Cached).expect("pool")).collect();
    let mut group = c.benchmark_group("threads");
    for n in THREADS {
        group.bench_with_input(BenchmarkId::new("cached-64KiB", n), &n, |b, &n| {
            b.iter_custom(|iters| {
                let per_thread = iters.div_ceil(n as u64);
                let start = Instant::now();
                std::thread::scope(|scope| {
                    for t in 0..n {
                        let pool = pools[t % pools.len()];
                        scope.spawn(move || {
                            let stream = Stream::new_on(pool.device()).expect("stream");
                            for _ in 0..per_thread {
                                black_box(pool.alloc(64 << 10, &stream).expect("alloc"));
                            }
                        });
                    }
                });
                // Time per pair across all threads: throughput.
                start.elapsed().div_f64((per_thread * n as u64) as f64 / iters as f64)
            })
        });
    }
    group.finish();
}

/// Batches of pairs, alternated between the two pools.
const BATCHES: u32 = 400;
/// Pairs in a batch.
const BATCH: u32 = 1000;

/// Mean ns of a pair of `expandable` and of `cached` for each size, from
/// `BATCHES` batches of each, alternated; `None` without the strategy.
fn alternated_pairs() -> Option<Vec<(&'static str, f64, f64)>> {
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let expandable = Pool::new(device, Strategy::Expandable).ok()?;
    let cached = Pool::new(device, Strategy::Cached).expect("a cached pool");
    let batch = |pool: &Pool, bytes: usize| {
        let start = Instant::now();
        for _ in 0..BATCH {
            black_box(pool.alloc(bytes, &stream).expect("alloc"));
        }
        start.elapsed()
    };
    let mut figures = Vec::new();
    for (bytes, label) in SIZES {
        // The first pair of each grows its pool.
        batch(&expandable, bytes);
        batch(&cached, bytes);
        let (mut ours, mut base) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..BATCHES {
            ours += batch(&expandable, bytes);
            base += batch(&cached, bytes);
        }
        let per_pair = |total: Duration| total.as_secs_f64() * 1e9 / f64::from(BATCHES * BATCH);
        figures.push((label, per_pair(ours), per_pair(base)));
    }
    Some(figures)
}

fn main() {
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    pairs(&mut criterion);
    history(&mut criterion);
    threads(&mut criterion);
    criterion.final_summary();

    println!("\nbackend {:?}; allocate+free pairs, ns (ratio to cached):", hip_sys::backend());
    for (_, label) in SIZES {
        let Some(cached) = mean_ns("pair", &format!("cached/{label}")) else {
            continue;
        };
        let mut line = format!("  {label:>6}  cached {cached:>10.1}");
        for name in ["expandable", "none", "async"] {
            if let Some(ns) = mean_ns("pair", &format!("{name}/{label}")) {
                line.push_str(&format!("  {name} {ns:>10.1} ({:.2}x)", ns / cached));
            }
        }
        println!("{line}");
    }
    for (label, ours, cached) in alternated_pairs().unwrap_or_default() {
        println!(
            "  {label:>6}  expandable {ours:>8.1} / cached {cached:>8.1}, {BATCHES} batches of {BATCH} alternated: {:.3}x",
            ours / cached
        );
    }
    if let Some(off) = mean_ns("history", "off") {
        for name in ["on", "on with backtraces"] {
            if let Some(ns) = mean_ns("history", name) {
                println!("  64KiB  cached, memory history {name}: {ns:.1} ns, {:.2}x without ({off:.1} ns)", ns / off);
            }
        }
    }
    let one = mean_ns("threads", "cached-64KiB/1");
    for n in THREADS {
        if let (Some(base), Some(ns)) = (one, mean_ns("threads", &format!("cached-64KiB/{n}"))) {
            println!("  {n} thread(s): {:.2} M pairs/s ({:.2}x one thread)", 1e3 / ns, base / ns);
        }
    }
}
