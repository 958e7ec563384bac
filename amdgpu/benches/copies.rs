//! Pinned asynchronous copies against the raw HIP calls on the same
//! buffers, in one run:
//!
//! - `h2d` / `d2h`: one copy of `AMDGPU_BENCH_COPY_MIB` MiB (default 256)
//!   between a [`HostBuffer`] and a [`DeviceArray`], then a stream
//!   synchronize; ours is `copy_from_host_async` / `copy_to_host_async`,
//!   raw is `hipMemcpyAsync` through the `hip-sys` table.
//! - `pipeline`: 8 chunks of that size / 8, each copied in, run through a
//!   kernel (`vector_add_f32(x, x, y)`) and copied out, on two streams
//!   (chunk i on stream i % 2) against all on one stream; and the same two
//!   with raw `hipMemcpyAsync` and launches and no tracking (`-raw`), which
//!   says what the hardware gives two streams.
//! - `enqueue-4KiB`: the host cost of enqueuing one 4 KiB copy (ours
//!   records its events; `-scoped` is the same copy in an
//!   `amdgpu::copy_scope`, which records none; raw is the bare call); the
//!   stream is synchronized outside the timing, every 64 copies.
//!   `event-record-raw` is one bare `hipEventRecord`, what tracking a copy
//!   with an event costs at least.
//!
//! Run `cargo bench -p amdgpu --bench copies` (any backend; on the
//! simulator, make the copies smaller with `AMDGPU_BENCH_COPY_MIB=16`).
//! The pipeline needs test kernels: the simulator's or the NVIDIA PTX.

use amdgpu::{Device, DeviceArray, HostBuffer, Stream};
use criterion::Criterion;
use hip_core::{LaunchConfig, Module};
use std::ffi::c_void;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

const GROUP: &str = "copies";
const CHUNKS: usize = 8;

fn copy_bytes() -> usize {
    let mib = std::env::var("AMDGPU_BENCH_COPY_MIB").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(256);
    mib.max(1) << 20
}

/// The raw copy: the bare `hipMemcpyAsync` on `stream`, whose device is
/// the current one (`main` binds it).
fn raw_copy(dst: *mut c_void, src: *const c_void, bytes: usize, stream: &Stream) {
    let api = hip_sys::hip().expect("a backend");
    let kind = hip_sys::hipMemcpyKind::hipMemcpyDefault;
    // SAFETY: both ranges hold `bytes` bytes and outlive the copy (the
    // caller synchronizes the stream before they go).
    let status = unsafe { (api.hipMemcpyAsync)(dst, src, bytes, kind, stream.as_raw()) };
    assert_eq!(status, hip_sys::hipError_t::hipSuccess, "hipMemcpyAsync");
}

fn transfer_benches(c: &mut Criterion, device: Device, stream: &Stream) {
    let n = copy_bytes() / 4;
    let mut host = HostBuffer::<f32>::zeroed_on(device, n).expect("pinned memory");
    let mut array = DeviceArray::<f32>::zeros_on(stream, n).expect("device memory");
    let mut group = c.benchmark_group(GROUP);
    group.sample_size(10);
    group.bench_function("h2d-ours", |b| {
        b.iter(|| {
            array.copy_from_host_async(&host, stream).expect("copy");
            stream.synchronize().expect("sync");
        })
    });
    let (hp, dp) = (host.as_ptr().cast::<c_void>(), array.as_mut_ptr().cast::<c_void>());
    group.bench_function("h2d-raw", |b| {
        b.iter(|| {
            raw_copy(dp, hp, n * 4, stream);
            stream.synchronize().expect("sync");
        })
    });
    group.bench_function("d2h-ours", |b| {
        b.iter(|| {
            array.copy_to_host_async(&mut host, stream).expect("copy");
            stream.synchronize().expect("sync");
        })
    });
    let hp = host.as_ptr().cast_mut().cast::<c_void>();
    group.bench_function("d2h-raw", |b| {
        b.iter(|| {
            raw_copy(hp, dp, n * 4, stream);
            stream.synchronize().expect("sync");
        })
    });
    group.finish();
}

fn kernel_image() -> Option<Vec<u8>> {
    match amdgpu::backend() {
        amdgpu::Backend::Sim => Some(hip_sys::sim::code_object(&["vector_add_f32"])),
        amdgpu::Backend::Nvidia => {
            let mut ptx = include_bytes!("../../hip-sys/kernels/test_kernels.ptx").to_vec();
            ptx.push(0);
            Some(ptx)
        }
        _ => None,
    }
}

fn pipeline_benches(c: &mut Criterion, device: Device) {
    let Some(image) = kernel_image() else {
        eprintln!("pipeline skipped: no test kernels for the {:?} backend", amdgpu::backend());
        return;
    };
    let module = Module::load(device, &image).expect("kernels");
    let add = module.function("vector_add_f32").expect("vector_add_f32");
    let chunk = copy_bytes() / 4 / CHUNKS;
    let streams = [Stream::new_on(device).expect("stream"), Stream::new_on(device).expect("stream")];
    let input = HostBuffer::<f32>::from_slice_on(device, &vec![1.0; chunk * CHUNKS]).expect("pinned");
    let mut output = HostBuffer::<f32>::zeroed_on(device, chunk * CHUNKS).expect("pinned");
    let mut ins: Vec<_> =
        (0..CHUNKS).map(|i| DeviceArray::<f32>::zeros_on(&streams[i % 2], chunk).expect("device")).collect();
    let mut outs: Vec<_> =
        (0..CHUNKS).map(|i| DeviceArray::<f32>::zeros_on(&streams[i % 2], chunk).expect("device")).collect();
    let mut run = |spread: usize| {
        for i in 0..CHUNKS {
            // With `spread` 1 every chunk runs on stream 0: its arrays'
            // own stream for half of them, declared as foreign uses.
            let stream = &streams[i % spread];
            let range = i * chunk..(i + 1) * chunk;
            ins[i].copy_from_host_async(input.slice(range.clone()).expect("range"), stream).expect("in");
            let (x, y, n) = (ins[i].as_ptr(), outs[i].as_mut_ptr(), chunk as u32);
            ins[i].buffer().prepare(stream, amdgpu::pool::Access::Read).expect("prepare");
            outs[i].buffer().prepare(stream, amdgpu::pool::Access::Write).expect("prepare");
            // SAFETY: vector_add_f32(const float*, const float*, float*, uint32_t) over `chunk` elements.
            unsafe { add.launch(LaunchConfig::for_elements(chunk, 256), stream, &[&x, &x, &y, &n]) }.expect("launch");
            ins[i].buffer().record(stream, amdgpu::pool::Access::Read).expect("record");
            outs[i].buffer().record(stream, amdgpu::pool::Access::Write).expect("record");
            outs[i].copy_to_host_async(output.slice_mut(range).expect("range"), stream).expect("out");
        }
        output.synchronize().expect("sync");
    };
    let mut group = c.benchmark_group(GROUP);
    group.sample_size(10);
    group.bench_function("pipeline-two-streams", |b| b.iter(|| run(2)));
    group.bench_function("pipeline-serialized", |b| b.iter(|| run(1)));
    run(2); // once more, so the results are checked also when a filter skipped the benchmarks
    assert!(output.as_slice().expect("read").iter().all(|v| *v == 2.0), "the pipeline's results");
    // The same work with no tracking at all: what two streams give here.
    let (input_ptr, output_ptr) = (input.as_ptr(), output.as_ptr().cast_mut());
    let raw_run = |spread: usize| {
        for i in 0..CHUNKS {
            let stream = &streams[i % spread];
            let (x, y, n) = (ins[i].as_ptr(), outs[i].as_ptr().cast_mut(), chunk as u32);
            let bytes = chunk * 4;
            // SAFETY: chunk i of the pinned buffers, inside them; the
            // streams are synchronized below, before anything is reused.
            raw_copy(x.cast_mut().cast(), unsafe { input_ptr.add(i * chunk) }.cast(), bytes, stream);
            // SAFETY: as in `run`.
            unsafe { add.launch(LaunchConfig::for_elements(chunk, 256), stream, &[&x, &x, &y, &n]) }.expect("launch");
            // SAFETY: as above.
            raw_copy(unsafe { output_ptr.add(i * chunk) }.cast(), y.cast_const().cast(), bytes, stream);
        }
        streams.iter().for_each(|s| s.synchronize().expect("sync"));
    };
    group.bench_function("pipeline-two-streams-raw", |b| b.iter(|| raw_run(2)));
    group.bench_function("pipeline-serialized-raw", |b| b.iter(|| raw_run(1)));
    group.finish();
}

/// The host time of `iters` calls of `enqueue`, in batches of 64 with the
/// stream drained between batches (outside the timing), so the queue never
/// fills and back-pressure does not count.
fn enqueue_time(iters: u64, stream: &Stream, enqueue: &mut dyn FnMut()) -> Duration {
    const BATCH: u64 = 64;
    let mut spent = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let start = Instant::now();
        for _ in 0..left.min(BATCH) {
            enqueue();
        }
        spent += start.elapsed();
        stream.synchronize().expect("sync");
        left -= left.min(BATCH);
    }
    spent
}

fn enqueue_benches(c: &mut Criterion, device: Device, stream: &Stream) {
    let host = HostBuffer::<u8>::zeroed_on(device, 4096).expect("pinned");
    let mut array = DeviceArray::<u8>::zeros_on(stream, 4096).expect("device");
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("enqueue-4KiB-ours", |b| {
        b.iter_custom(|iters| {
            enqueue_time(iters, stream, &mut || array.copy_from_host_async(black_box(&host), stream).expect("copy"))
        })
    });
    group.bench_function("enqueue-4KiB-scoped", |b| {
        b.iter_custom(|iters| {
            amdgpu::copy_scope(stream, |scope| {
                Ok(enqueue_time(iters, stream, &mut || scope.to_device(&mut array, black_box(&host)).expect("copy")))
            })
            .expect("scope")
        })
    });
    let (hp, dp) = (host.as_ptr().cast::<c_void>(), array.as_mut_ptr().cast::<c_void>());
    group.bench_function("enqueue-4KiB-raw", |b| {
        b.iter_custom(|iters| enqueue_time(iters, stream, &mut || raw_copy(dp, black_box(hp), 4096, stream)))
    });
    let event = hip_core::Event::untimed_on(device).expect("event");
    let api = hip_sys::hip().expect("a backend");
    group.bench_function("event-record-raw", |b| {
        b.iter_custom(|iters| {
            enqueue_time(iters, stream, &mut || {
                // SAFETY: a live event and stream of the current device.
                let _ = black_box(unsafe { (api.hipEventRecord)(event.as_raw(), stream.as_raw()) });
            })
        })
    });
    group.finish();
}

fn main() {
    let device = Device::new(0).expect("a device");
    amdgpu::set_device(device).expect("set_device"); // the raw calls run on it
    let stream = Stream::new_on(device).expect("a stream");
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    transfer_benches(&mut criterion, device, &stream);
    pipeline_benches(&mut criterion, device);
    enqueue_benches(&mut criterion, device, &stream);
    criterion.final_summary();
    let mib = copy_bytes() >> 20;
    println!("\nbackend {:?}, {mib} MiB copies: first / second (1.00 = the same time)", amdgpu::backend());
    for (what, first, second) in [
        ("pinned H2D: ours vs hipMemcpyAsync", "h2d-ours", "h2d-raw"),
        ("pinned D2H: ours vs hipMemcpyAsync", "d2h-ours", "d2h-raw"),
        ("8-chunk pipeline: two streams vs one", "pipeline-two-streams", "pipeline-serialized"),
        ("the same, raw: two streams vs one", "pipeline-two-streams-raw", "pipeline-serialized-raw"),
        ("two streams: ours vs raw", "pipeline-two-streams", "pipeline-two-streams-raw"),
        ("4 KiB enqueue: ours vs hipMemcpyAsync", "enqueue-4KiB-ours", "enqueue-4KiB-raw"),
        ("4 KiB enqueue, scoped: ours vs raw", "enqueue-4KiB-scoped", "enqueue-4KiB-raw"),
        ("hipEventRecord vs hipMemcpyAsync 4 KiB", "event-record-raw", "enqueue-4KiB-raw"),
    ] {
        if let (Some(a), Some(b)) = (mean_ns(GROUP, first), mean_ns(GROUP, second)) {
            println!("  {what:<40} {:>10.2} us  {:>10.2} us   ratio {:.3}", a / 1e3, b / 1e3, a / b);
        }
    }
}
