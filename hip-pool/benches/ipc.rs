//! IPC (issue 51): sharing a pooled 1 MiB buffer with another process,
//! against the raw calls, on the same backend in one run.
//!
//! - **export**: a pooled buffer allocated, shared (`ipc::share`: its
//!   memory handle, an IPC event recorded after its queued work, a ledger
//!   of importers in shared memory), dropped and finished
//!   (`ipc::collect`), against the same allocation with a raw
//!   `hipIpcGetMemHandle` and the drop.
//! - **open + close**, in a second process (the bench reruns itself):
//!   `ipc::open` (the ledger joined, the memory and the event opened, the
//!   stream ordered after the event) and the buffer's drop (its uses
//!   waited for, the memory closed, the ledger left), against raw
//!   `hipIpcOpenMemHandle` and `hipIpcCloseMemHandle` of a handle of the
//!   same size.
//!
//! `cargo bench -p hip-pool --bench ipc`; the ratios are printed last.

use criterion::Criterion;
use hip_core::raw;
use hip_core::{Device, Stream};
use hip_pool::ipc::{self, IpcHandle};
use hip_pool::Pool;
use hip_sys::bindings::hip::hipIpcMemHandle_t;
use std::hint::black_box;
use std::time::Duration;

#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use support::mean_ns;

const GROUP: &str = "ipc";
const BYTES: usize = 1 << 20;
/// The variable that makes a run the second process, and the two handles.
const ROLE: &str = "HIP_POOL_BENCH_IPC_OPENER";
const OURS: &str = "HIP_POOL_BENCH_IPC_OURS";
const RAW: &str = "HIP_POOL_BENCH_IPC_RAW";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2).map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex")).collect()
}

fn criterion() -> Criterion {
    Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

/// The second process: open and close both handles, timed.
fn opener() {
    let ours = IpcHandle::from_bytes(&unhex(&std::env::var(OURS).expect("our handle"))).expect("our handle");
    let raw_bytes = unhex(&std::env::var(RAW).expect("the raw handle"));
    let mut raw_handle = hipIpcMemHandle_t::default();
    for (slot, byte) in raw_handle.reserved.iter_mut().zip(raw_bytes) {
        *slot = byte as std::ffi::c_char;
    }
    let device = Device::new(ours.device() as usize).expect("the device");
    let stream = Stream::new_on(device).expect("a stream");
    let mut c = criterion();
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("open + close", |b| {
        b.iter(|| black_box(ipc::open(&ours, &stream).expect("opened")));
    });
    group.bench_function("raw open + close", |b| {
        b.iter(|| {
            let ptr = raw::ipc::open_memory(device, raw_handle).expect("opened");
            // SAFETY: just opened, nothing uses it; closed once.
            unsafe { raw::ipc::close_memory(device, black_box(ptr)) }.expect("closed");
        })
    });
    group.finish();
}

fn main() {
    if std::env::var_os(ROLE).is_some() {
        return opener();
    }
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let pool = Pool::new(device, hip_pool::Strategy::Cached).expect("a pool");
    let mut c = criterion();
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("export", |b| {
        b.iter(|| {
            let buffer = pool.alloc(BYTES, &stream).expect("a buffer");
            black_box(ipc::share(&buffer).expect("shared"));
            drop(buffer);
            ipc::collect();
        })
    });
    group.bench_function("raw export", |b| {
        b.iter(|| {
            let buffer = pool.alloc(BYTES, &stream).expect("a buffer");
            // SAFETY: the buffer's device memory, alive for the call.
            black_box(unsafe { raw::ipc::memory_handle(device, buffer.as_ptr()) }.expect("a handle"));
        })
    });
    group.finish();

    // The second process opens a shared buffer and a raw one.
    let shared = pool.alloc(BYTES, &stream).expect("a buffer");
    let ours = ipc::share(&shared).expect("shared");
    let raw_memory = raw::mem::malloc(device, BYTES).expect("raw memory");
    // SAFETY: memory just allocated, freed below after the opener exits.
    let raw_handle = unsafe { raw::ipc::memory_handle(device, raw_memory) }.expect("a raw handle");
    let raw_bytes: Vec<u8> = raw_handle.reserved.iter().map(|b| *b as u8).collect();
    let status = std::process::Command::new(std::env::current_exe().expect("this binary"))
        .args(std::env::args().skip(1))
        .env(ROLE, "1")
        .env(OURS, hex(&ours.to_bytes()))
        .env(RAW, hex(&raw_bytes))
        .status()
        .expect("the opener runs");
    assert!(status.success(), "the opener failed: {status}");
    drop(shared);
    ipc::collect();
    // SAFETY: the raw memory, closed by the opener, freed once.
    unsafe { raw::mem::free(device, raw_memory) }.expect("freed");
    c.final_summary();

    println!("\nbackend {:?}; one 1 MiB pooled buffer, ns (ours / raw):", hip_sys::backend());
    for (what, raw_what) in [("export", "raw export"), ("open + close", "raw open + close")] {
        if let (Some(ours), Some(raw)) = (mean_ns(GROUP, what), mean_ns(GROUP, raw_what)) {
            println!("  {what:<14} {ours:>10.1}  raw {raw:>10.1}  {:.2}x", ours / raw);
        }
    }
}
