//! The allocator shoot-out: allocate+free pairs of our pool (`cached`), our
//! `none` and `async` strategies, and PyTorch's CUDA caching allocator
//! where it is installed, in one process on one backend. Single-threaded at
//! 256 B, 64 KiB, 4 MiB and 64 MiB; then 64 KiB pairs on 1, 2, 4, 8 and 16
//! threads sharing device 0, each thread with its own stream.
//!
//! ```text
//! cargo bench -p hip-pool --bench shootout
//! # with PyTorch (NVIDIA backend): build the shim, then point at it
//! hip-pool/benches/shootout/build.sh /tmp && AMDGPU_TORCH_SHIM=/tmp/libtorch_shim.so \
//!     AMDGPU_BACKEND=nvidia cargo bench -p hip-pool --bench shootout
//! ```
//!
//! `ambient` is `hip_pool::alloc(bytes)` and a drop: the process's pool
//! of the thread's device, on the thread's own stream, as most code calls
//! it (`cached` is `Pool::alloc` on a stream the benchmark made).
//!
//! The table at the end gives ns per pair, M pairs/s and each ratio to our
//! pool. `tls-list` is the floor: a plain thread-local free list with no
//! pool behind it.

use criterion::{BenchmarkId, Criterion};
use hip_core::{Device, Stream};
use hip_pool::{Pool, Strategy};
use std::ffi::c_void;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

const SIZES: [(usize, &str); 4] = [(256, "256B"), (64 << 10, "64KiB"), (4 << 20, "4MiB"), (64 << 20, "64MiB")];
const THREADS: [usize; 5] = [1, 2, 4, 8, 16];

/// PyTorch's allocator through the shim.
struct Torch {
    _library: libloading::Library,
    alloc: unsafe extern "C" fn(usize, *mut c_void) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
}

fn load_torch() -> Result<Torch, String> {
    let path = std::env::var("AMDGPU_TORCH_SHIM").map_err(|_| "AMDGPU_TORCH_SHIM is not set".to_string())?;
    // SAFETY: loading the shim runs PyTorch's static initialisers, which is what it is for.
    let library = unsafe { libloading::Library::new(&path) }.map_err(|e| format!("{path}: {e}"))?;
    // SAFETY: the shim's C signatures, as declared in torch_shim.cpp.
    unsafe {
        let init: libloading::Symbol<'_, unsafe extern "C" fn() -> i32> =
            library.get(b"torch_shim_init\0").map_err(|e| e.to_string())?;
        if init() != 0 {
            return Err("torch_shim_init failed (no CUDA device?)".into());
        }
        let alloc = *library.get(b"torch_shim_alloc\0").map_err(|e| e.to_string())?;
        let free = *library.get(b"torch_shim_free\0").map_err(|e| e.to_string())?;
        Ok(Torch { _library: library, alloc, free })
    }
}

thread_local! {
    /// The floor: a plain thread-local free list of (size, address).
    static FREE_LIST: std::cell::RefCell<Vec<(usize, usize)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One contender: a name and an allocate+free pair.
enum Contender {
    Ours(&'static str, Pool),
    /// `hip_pool::alloc`: the thread's device, pool and stream.
    Ambient,
    Torch(&'static Torch),
    /// A thread-local free list with no pool behind it: what a cache hit
    /// cannot beat.
    FreeList,
}

impl Contender {
    fn name(&self) -> &'static str {
        match self {
            Contender::Ours(name, _) => name,
            Contender::Ambient => "ambient",
            Contender::Torch(_) => "pytorch",
            Contender::FreeList => "tls-list",
        }
    }

    fn pair(&self, bytes: usize, stream: &Stream) {
        match self {
            Contender::Ours(_, pool) => drop(black_box(pool.alloc(bytes, stream).expect("alloc"))),
            Contender::Ambient => drop(black_box(hip_pool::alloc(bytes).expect("alloc"))),
            Contender::Torch(torch) => {
                // SAFETY: the shim allocates on the current device (set by the caller) for a
                // live stream of it, and the block is freed once.
                unsafe {
                    let p = (torch.alloc)(bytes, stream.as_raw().cast());
                    assert!(!p.is_null(), "PyTorch's allocator returned null");
                    (torch.free)(black_box(p));
                }
            }
            Contender::FreeList => FREE_LIST.with(|list| {
                let mut list = list.borrow_mut();
                let block = match list.last() {
                    Some(&(size, ptr)) if size == bytes => list.pop().map_or(ptr, |(_, p)| p),
                    _ => 0x1000,
                };
                list.push((bytes, black_box(block)));
            }),
        }
    }
}

fn main() {
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    let device = Device::new(0).expect("a device");
    hip_core::set_device(device).expect("set_device");
    let torch = match load_torch() {
        Ok(torch) => Some(&*Box::leak(Box::new(torch))),
        Err(why) => {
            println!("pytorch: not measured ({why})");
            None
        }
    };
    let mut single: Vec<Contender> = Vec::new();
    for (strategy, name) in [(Strategy::Cached, "cached"), (Strategy::None, "none"), (Strategy::Async, "async")] {
        match Pool::new(device, strategy) {
            Ok(pool) => single.push(Contender::Ours(name, pool)),
            Err(e) => println!("{name}: not measured ({e})"),
        }
    }
    single.push(Contender::Ambient);
    single.extend(torch.map(Contender::Torch));
    single.push(Contender::FreeList);

    let stream = Stream::new_on(device).expect("a stream");
    let mut group = criterion.benchmark_group("shootout-pair");
    for contender in &single {
        for (bytes, label) in SIZES {
            group.bench_with_input(BenchmarkId::new(contender.name(), label), &bytes, |b, &bytes| {
                b.iter(|| contender.pair(bytes, &stream))
            });
        }
    }
    group.finish();

    let threaded: Vec<&Contender> = single.iter().filter(|c| c.name() != "none").collect();
    let mut group = criterion.benchmark_group("shootout-threads");
    for contender in &threaded {
        for n in THREADS {
            group.bench_with_input(BenchmarkId::new(contender.name(), n), &n, |b, &n| {
                b.iter_custom(|iters| {
                    let per_thread = iters.div_ceil(n as u64);
                    // Timed from the first thread's first pair to the last
                    // thread's last pair. The threads leave a start
                    // together (a spin on one counter, not a lock handed
                    // from thread to thread, which starts the last thread
                    // tens of microseconds after the first); neither their
                    // start (a stream made, a warm pair) nor their exit
                    // (caches flushed, streams handed back) is timed.
                    let ready = AtomicUsize::new(0);
                    let spans: Vec<(Instant, Instant)> = std::thread::scope(|scope| {
                        let workers: Vec<_> = (0..n)
                            .map(|_| {
                                let ready = &ready;
                                scope.spawn(move || {
                                    hip_core::set_device(device).expect("set_device");
                                    let stream = Stream::new_on(device).expect("stream");
                                    contender.pair(64 << 10, &stream); // warm this thread
                                    ready.fetch_add(1, Ordering::AcqRel);
                                    let mut spins = 0u32;
                                    while ready.load(Ordering::Acquire) < n {
                                        spins += 1;
                                        if spins % 64 == 0 {
                                            std::thread::yield_now(); // more threads than cores
                                        } else {
                                            std::hint::spin_loop();
                                        }
                                    }
                                    let began = Instant::now();
                                    for _ in 0..per_thread {
                                        contender.pair(64 << 10, &stream);
                                    }
                                    (began, Instant::now())
                                })
                            })
                            .collect();
                        workers.into_iter().map(|w| w.join().expect("a worker")).collect()
                    });
                    let began = spans.iter().map(|s| s.0).min().expect("a thread");
                    let ended = spans.iter().map(|s| s.1).max().expect("a thread");
                    (ended - began).div_f64((per_thread * n as u64) as f64 / iters as f64)
                })
            });
        }
    }
    group.finish();
    criterion.final_summary();

    println!("\nallocator shoot-out, backend {:?}, device 0", hip_sys::backend());
    println!("single thread, ns per allocate+free pair (ratio to cached):");
    for (_, label) in SIZES {
        let base = mean_ns("shootout-pair", &format!("cached/{label}"));
        let mut line = format!("  {label:>6}");
        for contender in &single {
            if let Some(ns) = mean_ns("shootout-pair", &format!("{}/{label}", contender.name())) {
                let ratio = base.map_or(String::new(), |b| format!(" ({:.1}x)", ns / b));
                line.push_str(&format!("  {} {ns:.1}{ratio}", contender.name()));
            }
        }
        println!("{line}");
    }
    println!("64 KiB pairs, threads sharing device 0, total M pairs/s (ratio to cached):");
    for n in THREADS {
        let base = mean_ns("shootout-threads", &format!("cached/{n}"));
        let mut line = format!("  {n:>2} threads");
        for contender in &threaded {
            if let Some(ns) = mean_ns("shootout-threads", &format!("{}/{n}", contender.name())) {
                let ratio = base.map_or(String::new(), |b| format!(" ({:.2}x)", b / ns));
                line.push_str(&format!("  {} {:.2}{ratio}", contender.name(), 1e3 / ns));
            }
        }
        println!("{line}");
    }
}
