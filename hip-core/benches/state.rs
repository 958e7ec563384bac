//! The cost of the per-thread state against one raw `hipGetDevice`, on
//! the same backend in one run (`AMDGPU_BACKEND` picks it).
//!
//! Run: `cargo bench -p hip-core --bench state`. After criterion's own
//! report, the ratios of each operation to `raw hipGetDevice` are printed.
//! On the nvidia backend it also times `cudaGetDevice` and `cudaSetDevice`
//! straight from the CUDA runtime, and prints our translation's ratio to
//! them, and our event record + stream wait (whose handles the nvidia
//! backend checks against its table of live streams and events) against
//! CUDA's.

use criterion::Criterion;
use hip_core::{device, prepare_state, stream, with_device, Device};
use std::hint::black_box;

mod support;
use support::mean_ns;

#[path = "../../amdgpu/benches/nvidia/mod.rs"]
mod nvidia;

const GROUP: &str = "hip-core-state";
const BASELINE: &str = "raw hipGetDevice";

fn benches(c: &mut Criterion) {
    let api = hip_sys::hip().expect("a backend");
    let here = Device::new(0).expect("a device");
    let other = Device::new(1).unwrap_or(here);
    hip_core::set_device(here).expect("set_device");
    prepare_state().expect("bind");
    let _ = stream();

    let mut group = c.benchmark_group(GROUP);
    group.bench_function(BASELINE, |b| {
        b.iter(|| {
            let mut d = 0;
            // SAFETY: a valid out-pointer.
            let _ = black_box(unsafe { (api.hipGetDevice)(&mut d) });
            black_box(d)
        })
    });
    if other != here {
        group.bench_function("raw hipSetDevice there and back", |b| {
            b.iter(|| {
                // SAFETY: valid ordinals.
                unsafe {
                    let _ = black_box((api.hipSetDevice)(other.ordinal() as i32));
                    let _ = black_box((api.hipSetDevice)(here.ordinal() as i32));
                }
            })
        });
    }
    group.bench_function("raw hipSetDevice (same)", |b| {
        // SAFETY: a valid ordinal.
        b.iter(|| black_box(unsafe { (api.hipSetDevice)(black_box(here.ordinal() as i32)) }))
    });
    if hip_sys::backend() == hip_sys::Backend::Nvidia {
        let cudart = nvidia::open(&["libcudart.so.13", "libcudart.so.12", "libcudart.so"]);
        type GetDevice = unsafe extern "C" fn(*mut i32) -> i32;
        type SetDevice = unsafe extern "C" fn(i32) -> i32;
        // SAFETY: the CUDA runtime's signatures.
        let (get, set) = unsafe {
            (
                *nvidia::function::<GetDevice>(&cudart, "cudaGetDevice"),
                *nvidia::function::<SetDevice>(&cudart, "cudaSetDevice"),
            )
        };
        group.bench_function("cuda cudaGetDevice", |b| {
            b.iter(|| {
                let mut d = 0;
                // SAFETY: a valid out-pointer.
                let _ = black_box(unsafe { get(&mut d) });
                black_box(d)
            })
        });
        group.bench_function("cuda cudaSetDevice (same)", |b| {
            // SAFETY: a valid ordinal.
            b.iter(|| black_box(unsafe { set(black_box(here.ordinal() as i32)) }))
        });
    }
    // `iter` passes each result through `black_box` itself; the floor is
    // that and the loop, with nothing measured in it.
    group.bench_function("floor (a bool through black_box)", |b| b.iter(|| black_box(true)));
    group.bench_function("prepare_state (bound)", |b| b.iter(|| prepare_state().is_ok()));
    group.bench_function("device()", |b| b.iter(device));
    group.bench_function("with_device (same)", |b| b.iter(|| with_device(here, || black_box(1))));
    if other != here {
        group.bench_function("with_device (other)", |b| b.iter(|| with_device(other, || black_box(1))));
    }
    group.bench_function("stream()", |b| b.iter(stream));
    group.finish();
}

/// The CUDA runtime's `cudaGetDevice`, for [`bare_get_device`].
static CUDA_GET_DEVICE: std::sync::OnceLock<unsafe extern "C" fn(*mut i32) -> i32> = std::sync::OnceLock::new();

/// The least a translation can be: a C function that calls
/// `cudaGetDevice` and returns its status untranslated, called through a
/// function pointer as our table's entries are. What a call level costs
/// by itself, against our `hipGetDevice`'s status translation and error
/// record.
#[inline(never)]
unsafe extern "C" fn bare_get_device(device: *mut i32) -> i32 {
    match CUDA_GET_DEVICE.get() {
        // SAFETY: the caller's out-pointer, handed on.
        Some(get) => unsafe { get(device) },
        None => 1,
    }
}

/// Our translated `hipGetDevice`/`hipSetDevice` against CUDA's own, in
/// alternating rounds of a million calls each (the best round of each
/// printed), so that a drift of the machine during the run cannot pass for
/// a difference between them. Only on the nvidia backend.
fn alternate_with_cuda(here: Device) {
    if hip_sys::backend() != hip_sys::Backend::Nvidia {
        return;
    }
    let api = hip_sys::hip().expect("a backend");
    let cudart = nvidia::open(&["libcudart.so.13", "libcudart.so.12", "libcudart.so"]);
    // SAFETY: the CUDA runtime's signatures.
    let (get, set) = unsafe {
        (
            *nvidia::function::<unsafe extern "C" fn(*mut i32) -> i32>(&cudart, "cudaGetDevice"),
            *nvidia::function::<unsafe extern "C" fn(i32) -> i32>(&cudart, "cudaSetDevice"),
        )
    };
    let _ = CUDA_GET_DEVICE.set(get);
    let bare: unsafe extern "C" fn(*mut i32) -> i32 = black_box(bare_get_device);
    const CALLS: u32 = 1_000_000;
    let time = |call: &dyn Fn()| {
        let start = std::time::Instant::now();
        for _ in 0..CALLS {
            call();
        }
        start.elapsed().as_secs_f64() * 1e9 / f64::from(CALLS)
    };
    let ordinal = here.ordinal() as i32;
    let mut best = [f64::MAX; 5];
    for _ in 0..7 {
        let rounds = [
            time(&|| {
                let mut d = 0;
                // SAFETY: a valid out-pointer.
                let _ = black_box(unsafe { (api.hipGetDevice)(&mut d) });
            }),
            time(&|| {
                let mut d = 0;
                // SAFETY: a valid out-pointer.
                black_box(unsafe { get(&mut d) });
            }),
            time(&|| {
                // SAFETY: a valid ordinal.
                let _ = black_box(unsafe { (api.hipSetDevice)(black_box(ordinal)) });
            }),
            time(&|| {
                // SAFETY: a valid ordinal.
                black_box(unsafe { set(black_box(ordinal)) });
            }),
            time(&|| {
                let mut d = 0;
                // SAFETY: a valid out-pointer.
                black_box(unsafe { bare(&mut d) });
            }),
        ];
        for (b, r) in best.iter_mut().zip(rounds) {
            *b = b.min(r);
        }
    }
    println!(
        "  alternating rounds, best of 7: hipGetDevice {:.2} ns / cudaGetDevice {:.2} ns = {:.3}x; \
         hipSetDevice (same) {:.2} ns / cudaSetDevice (same) {:.2} ns = {:.3}x",
        best[0],
        best[1],
        best[0] / best[1],
        best[2],
        best[3],
        best[2] / best[3]
    );
    println!(
        "  a bare call level over cudaGetDevice (no translation): {:.2} ns = {:.3}x of cudaGetDevice",
        best[4],
        best[4] / best[1]
    );
}

/// The stream and event handles' validity check, measured: our
/// `hipEventRecord` + `hipStreamWaitEvent` (each resolving its handles in
/// the table of live streams and events) against `cudaEventRecord` +
/// `cudaStreamWaitEvent` on CUDA's own objects, in alternating rounds (the
/// best of 7 printed). Only on the nvidia backend.
fn alternate_record_wait() {
    if hip_sys::backend() != hip_sys::Backend::Nvidia {
        return;
    }
    type Handle = *mut std::ffi::c_void;
    let api = hip_sys::hip().expect("a backend");
    let cudart = nvidia::open(&["libcudart.so.13", "libcudart.so.12", "libcudart.so"]);
    // SAFETY: the CUDA runtime's signatures.
    let (stream_create, event_create, record, wait) = unsafe {
        (
            *nvidia::function::<unsafe extern "C" fn(*mut Handle) -> i32>(&cudart, "cudaStreamCreate"),
            *nvidia::function::<unsafe extern "C" fn(*mut Handle, u32) -> i32>(&cudart, "cudaEventCreateWithFlags"),
            *nvidia::function::<unsafe extern "C" fn(Handle, Handle) -> i32>(&cudart, "cudaEventRecord"),
            *nvidia::function::<unsafe extern "C" fn(Handle, Handle, u32) -> i32>(&cudart, "cudaStreamWaitEvent"),
        )
    };
    let (mut a, mut b, mut e) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    let (mut ca, mut cb, mut ce): (Handle, Handle, Handle) =
        (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: valid out-pointers; the objects live to the end of the process.
    unsafe {
        assert_eq!((api.hipStreamCreate)(&mut a), hip_sys::hipError_t::hipSuccess);
        assert_eq!((api.hipStreamCreate)(&mut b), hip_sys::hipError_t::hipSuccess);
        assert_eq!((api.hipEventCreateWithFlags)(&mut e, 2), hip_sys::hipError_t::hipSuccess);
        // Both events without timing (flag 2), as the pool's are.
        assert_eq!(stream_create(&mut ca) | stream_create(&mut cb) | event_create(&mut ce, 2), 0);
    }
    const CALLS: u32 = 100_000;
    let time = |call: &dyn Fn()| {
        let start = std::time::Instant::now();
        for _ in 0..CALLS {
            call();
        }
        start.elapsed().as_secs_f64() * 1e9 / f64::from(CALLS)
    };
    let mut best = [f64::MAX; 2];
    for _ in 0..7 {
        let rounds = [
            time(&|| {
                // SAFETY: live handles of this table.
                unsafe {
                    let _ = black_box((api.hipEventRecord)(e, a));
                    let _ = black_box((api.hipStreamWaitEvent)(b, e, 0));
                }
            }),
            time(&|| {
                // SAFETY: live CUDA objects.
                unsafe {
                    black_box(record(ce, ca));
                    black_box(wait(cb, ce, 0));
                }
            }),
        ];
        for (best, r) in best.iter_mut().zip(rounds) {
            *best = best.min(r);
        }
    }
    println!(
        "  alternating rounds, best of 7: hipEventRecord + hipStreamWaitEvent {:.1} ns / cudaEventRecord + \
         cudaStreamWaitEvent {:.1} ns = {:.3}x (handles resolved through the table of live objects)",
        best[0],
        best[1],
        best[0] / best[1]
    );
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
    criterion.final_summary();
    alternate_with_cuda(Device::new(0).expect("a device"));
    alternate_record_wait();
    let Some(base) = mean_ns(GROUP, BASELINE) else {
        println!("(no estimates found; ratios need a full `cargo bench` run)");
        return;
    };
    println!("\nbackend {:?}; ratios to one raw hipGetDevice ({base:.2} ns):", hip_sys::backend());
    for name in [
        "floor (a bool through black_box)",
        "raw hipSetDevice (same)",
        "prepare_state (bound)",
        "device()",
        "with_device (same)",
        "with_device (other)",
        "raw hipSetDevice there and back",
        "stream()",
    ] {
        if let Some(ns) = mean_ns(GROUP, name) {
            println!("  {name:<24} {ns:>9.2} ns  {:>7.3}x", ns / base);
        }
    }
    for (ours, theirs) in
        [("raw hipGetDevice", "cuda cudaGetDevice"), ("raw hipSetDevice (same)", "cuda cudaSetDevice (same)")]
    {
        if let (Some(a), Some(b)) = (mean_ns(GROUP, ours), mean_ns(GROUP, theirs)) {
            println!("  {ours} over {theirs}: {a:.2} / {b:.2} ns = {:.3}x", a / b);
        }
    }
}
