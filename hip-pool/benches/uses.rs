//! The cost of declaring buffer uses: the cached allocate+free pair on one
//! stream with and without the use check of the same stream (which must
//! stay as cheap), and a use on another stream (prepare + record) against
//! raw calls: `hipEventRecord` + `hipStreamWaitEvent` (the other stream
//! waits for the own stream's work, the yardstick), and those plus
//! the `hipEventRecord` after the use that later uses and the block's next
//! owner wait for (all that the protocol guarantees, done by hand).
//!
//! Run: `cargo bench -p hip-pool --bench uses`. After criterion's report the
//! ratios are printed.

use criterion::Criterion;
use hip_core::{Device, Event, Stream};
use hip_pool::{Access, Pool, Strategy};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

const BYTES: usize = 64 << 10;
/// Uses between two stream synchronizations, so that queues stay short.
const BATCH: u64 = 256;

fn same_stream(c: &mut Criterion, pool: Pool, stream: &Stream) {
    let mut group = c.benchmark_group("same-stream");
    group.bench_function("pair", |b| b.iter(|| black_box(pool.alloc(BYTES, stream).expect("alloc"))));
    group.bench_function("pair+use", |b| {
        b.iter(|| {
            let buffer = pool.alloc(BYTES, stream).expect("alloc");
            buffer.prepare(stream, Access::Write).expect("prepare");
            buffer.record(stream, Access::Write).expect("record");
            black_box(buffer)
        })
    });
    group.finish();
}

/// Time `iters` runs of `step`, synchronizing both streams every [`BATCH`].
fn batched(iters: u64, a: &Stream, b: &Stream, mut step: impl FnMut()) -> Duration {
    let start = Instant::now();
    for i in 0..iters {
        step();
        if i % BATCH == BATCH - 1 {
            a.synchronize().expect("sync");
            b.synchronize().expect("sync");
        }
    }
    a.synchronize().expect("sync");
    b.synchronize().expect("sync");
    start.elapsed()
}

fn cross_stream(c: &mut Criterion, pool: Pool, a: &Stream, other: &Stream) {
    let mut group = c.benchmark_group("cross-stream");
    let buffer = pool.alloc(BYTES, a).expect("alloc");
    group.bench_function("use", |bench| {
        bench.iter_custom(|iters| {
            batched(iters, a, other, || {
                buffer.prepare(other, Access::Read).expect("prepare");
                buffer.record(other, Access::Read).expect("record");
            })
        })
    });
    let event = Event::untimed_on(a.device()).expect("event");
    group.bench_function("raw", |bench| {
        bench.iter_custom(|iters| {
            batched(iters, a, other, || {
                event.record(a).expect("record");
                other.wait(&event).expect("wait");
            })
        })
    });
    let after = Event::untimed_on(a.device()).expect("event");
    group.bench_function("raw+record", |bench| {
        bench.iter_custom(|iters| {
            batched(iters, a, other, || {
                event.record(a).expect("record");
                other.wait(&event).expect("wait");
                after.record(other).expect("record");
            })
        })
    });
    group.finish();
}

fn main() {
    let device = Device::new(0).expect("a device");
    let pool = Pool::new(device, Strategy::Cached).expect("pool");
    let (a, b) = (Stream::new_on(device).expect("stream"), Stream::new_on(device).expect("stream"));
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    same_stream(&mut criterion, pool, &a);
    cross_stream(&mut criterion, pool, &a, &b);
    criterion.final_summary();

    println!("\nbackend {:?}, ns per operation:", hip_sys::backend());
    if let (Some(pair), Some(used)) = (mean_ns("same-stream", "pair"), mean_ns("same-stream", "pair+use")) {
        println!("  same stream: pair {pair:.1}, pair with its use declared {used:.1} ({:.2}x)", used / pair);
    }
    if let (Some(used), Some(raw)) = (mean_ns("cross-stream", "use"), mean_ns("cross-stream", "raw")) {
        println!("  other stream: prepare+record {used:.1}, raw record+wait {raw:.1} ({:.2}x)", used / raw);
    }
    if let (Some(used), Some(raw)) = (mean_ns("cross-stream", "use"), mean_ns("cross-stream", "raw+record")) {
        println!("  other stream: prepare+record {used:.1}, raw record+wait+record {raw:.1} ({:.2}x)", used / raw);
    }
}
