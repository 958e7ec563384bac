//! IPC (issue 51): sharing a pooled 1 MiB buffer with another process,
//! against the raw calls, on the same backend in one run.
//!
//! - **export**: a pooled buffer allocated, shared (`ipc::share`: its
//!   memory handle, an IPC event of the pool's recorded after its queued
//!   work, a ledger slot in shared memory), dropped and finished
//!   (`ipc::collect`), against the same allocation with a raw
//!   `hipIpcGetMemHandle` and the drop.
//! - **open + close**, in a second process (the bench reruns itself):
//!   `ipc::open` (the ledger joined, the memory opened, the event opened
//!   at the first open and found again after it, the stream ordered after
//!   the event) and the buffer's drop (its uses
//!   waited for, the memory closed, the ledger left), against raw
//!   `hipIpcOpenMemHandle` and `hipIpcCloseMemHandle` of the same
//!   allocation's handle; and the two alternated round by round, which
//!   cancels the drift of the driver's open between criterion's runs.
//! - **ping-pong**, with a third process: the exporter fills its 1 MiB
//!   buffer and records an IPC event; the other process's stream waits
//!   for it on the GPU, fills the buffer it opened and records its own
//!   event, which the exporter's stream waits for in turn (a byte through
//!   a pipe each way says the event is recorded; no host synchronize).
//!   Ours (`enqueue`, `Event::record`, `Stream::wait`) against the raw
//!   `hipMemsetAsync`, `hipEventRecord` and `hipStreamWaitEvent` on raw
//!   memory and events.
//!
//! The measure is a handle's whole life, export + open + close:
//! the sum of the first two, printed last with the ratios, from rounds of
//! ours and raw alternated (export in this process, open + close in the
//! second): criterion's runs of the one and then the other drift apart by
//! more than the difference measured.
//!
//! `cargo bench -p hip-pool --bench ipc`; the ratios are printed last.

use criterion::Criterion;
use hip_core::raw;
use hip_core::{Device, Event, IpcEventHandle, Stream};
use hip_pool::ipc::{self, IpcHandle};
use hip_pool::{Buffer, Pool};
use hip_sys::bindings::hip::{hipEvent_t, hipIpcEventHandle_t, hipIpcMemHandle_t};
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/fill.rs"]
mod fill;
#[path = "../../hip-core/benches/support/mod.rs"]
mod support;
use fill::fill;
use support::mean_ns;

const GROUP: &str = "ipc";
const BYTES: usize = 1 << 20;
/// The variable that makes a run the second process, and the two handles.
const ROLE: &str = "HIP_POOL_BENCH_IPC_OPENER";
const OURS: &str = "HIP_POOL_BENCH_IPC_OURS";
const RAW: &str = "HIP_POOL_BENCH_IPC_RAW";
/// The variable that makes a run the ping-pong's other side.
const PONG: &str = "HIP_POOL_BENCH_IPC_PONG";

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

/// A raw fill of `BYTES` at `ptr` on `stream`, then a raw record of `event`.
fn raw_fill_and_record(device: Device, ptr: *mut std::ffi::c_void, event: hipEvent_t, stream: &Stream) {
    // SAFETY: `BYTES` of live device memory; a live event and stream.
    unsafe {
        raw::mem::fill_async(device, ptr, 7, BYTES, stream.as_raw()).expect("a fill");
        raw::event::record(device, event, stream.as_raw()).expect("a record");
    }
}

fn event_bytes(handle: hipIpcEventHandle_t) -> Vec<u8> {
    handle.reserved.iter().map(|b| *b as u8).collect()
}

fn raw_event_handle(bytes: &[u8]) -> hipIpcEventHandle_t {
    let mut handle = hipIpcEventHandle_t::default();
    for (slot, byte) in handle.reserved.iter_mut().zip(bytes) {
        *slot = *byte as std::ffi::c_char;
    }
    handle
}

/// The ping-pong's other side: opens the buffers and the exporter's
/// events, says its own events' handles on its first line, then answers
/// each `o` (ours) or `r` (raw) line with a round, until its input ends.
fn pong() {
    let lines: Vec<Vec<u8>> = std::env::var(PONG).expect("the handles").split(',').map(unhex).collect();
    let ours = IpcHandle::from_bytes(&lines[0]).expect("our handle");
    let device = Device::new(ours.device() as usize).expect("the device");
    let stream = Stream::new_on(device).expect("a stream");
    let buffer = ipc::open(&ours, &stream).expect("opened");
    let their_event =
        Event::open_ipc(device, &IpcEventHandle(lines[1].clone().try_into().expect("64 bytes"))).expect("their event");
    let mut raw_memory = hipIpcMemHandle_t::default();
    for (slot, byte) in raw_memory.reserved.iter_mut().zip(&lines[2]) {
        *slot = *byte as std::ffi::c_char;
    }
    let raw_ptr = raw::ipc::open_memory(device, raw_memory).expect("raw memory");
    let their_raw = raw::ipc::open_event(device, raw_event_handle(&lines[3])).expect("their raw event");
    let mine = Event::interprocess_on(device).expect("an event");
    let mine_raw = raw::event::create_interprocess(device).expect("a raw event");
    // SAFETY: a live interprocess event.
    let mine_raw_handle = unsafe { raw::ipc::event_handle(mine_raw) }.expect("its handle");
    let mut out = std::io::stdout().lock();
    writeln!(out, "{},{}", hex(&mine.ipc_handle().expect("its handle").0), hex(&event_bytes(mine_raw_handle)))
        .expect("the handles");
    out.flush().expect("said");
    for line in std::io::stdin().lock().lines() {
        match line.expect("a line").as_str() {
            "o" => {
                stream.wait(&their_event).expect("a wait");
                fill(&buffer, &stream);
                mine.record(&stream).expect("a record");
            }
            _ => {
                // SAFETY: live events and stream.
                unsafe { raw::stream::wait_event(device, stream.as_raw(), their_raw) }.expect("a wait");
                raw_fill_and_record(device, raw_ptr, mine_raw, &stream);
            }
        }
        out.write_all(b"k\n").and_then(|()| out.flush()).expect("answered");
    }
    stream.synchronize().expect("the stream");
    drop(buffer);
    // SAFETY: opened above, nothing uses them any more.
    unsafe {
        raw::ipc::close_memory(device, raw_ptr).expect("closed");
        raw::event::destroy(device, mine_raw).expect("destroyed");
        raw::event::destroy(device, their_raw).expect("destroyed");
    }
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
    let open_close = || drop(black_box(ipc::open(&ours, &stream).expect("opened")));
    let raw_open_close = || {
        let ptr = raw::ipc::open_memory(device, raw_handle).expect("opened");
        // SAFETY: just opened, nothing uses it; closed once.
        unsafe { raw::ipc::close_memory(device, black_box(ptr)) }.expect("closed");
    };
    group.bench_function("open + close", |b| b.iter(open_close));
    group.bench_function("raw open + close", |b| b.iter(raw_open_close));
    group.finish();
    // The driver's open varies by several per cent between criterion's
    // runs of one and the other: the same pair, alternated, cancels that.
    alternate("open + close", open_close, raw_open_close);
}

/// Rounds of each alternated pair.
const INTERLEAVED: u32 = 2000;

/// Time `ours` and `raw` alternated round by round, [`INTERLEAVED`]
/// rounds; print the mean of each (the line [`alternated`] reads back)
/// and give them, in ns.
fn alternate(what: &str, mut ours: impl FnMut(), mut raw: impl FnMut()) -> (f64, f64) {
    let (mut ours_time, mut raw_time) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..INTERLEAVED {
        let start = Instant::now();
        ours();
        ours_time += start.elapsed();
        let start = Instant::now();
        raw();
        raw_time += start.elapsed();
    }
    let mean = |total: Duration| total.as_secs_f64() * 1e9 / f64::from(INTERLEAVED);
    let (ours_ns, raw_ns) = (mean(ours_time), mean(raw_time));
    println!("{what}, {INTERLEAVED} rounds alternated: {ours_ns:.1} ns, raw {raw_ns:.1} ns, {:.3}x", ours_ns / raw_ns);
    (ours_ns, raw_ns)
}

fn main() {
    if std::env::var_os(ROLE).is_some() {
        return opener();
    }
    if std::env::var_os(PONG).is_some() {
        return pong();
    }
    let device = Device::new(0).expect("a device");
    let stream = Stream::new_on(device).expect("a stream");
    let pool = Pool::new(device, hip_pool::Strategy::Cached).expect("a pool");
    let mut c = criterion();
    let mut group = c.benchmark_group(GROUP);
    let export = || {
        let buffer = pool.alloc(BYTES, &stream).expect("a buffer");
        black_box(ipc::share(&buffer).expect("shared"));
        drop(buffer);
        ipc::collect();
    };
    let raw_export = || {
        let buffer = pool.alloc(BYTES, &stream).expect("a buffer");
        // SAFETY: the buffer's device memory, alive for the call.
        black_box(unsafe { raw::ipc::memory_handle(device, buffer.as_ptr()) }.expect("a handle"));
    };
    group.bench_function("export", |b| b.iter(export));
    group.bench_function("raw export", |b| b.iter(raw_export));
    group.finish();
    // Alternated round by round too, as the open + close in the second.
    let export = alternate("export", export, raw_export);

    // The second process opens a shared buffer and a raw one.
    let shared = pool.alloc(BYTES, &stream).expect("a buffer");
    let ours = ipc::share(&shared).expect("shared");
    let raw_memory = raw::mem::malloc(device, BYTES).expect("raw memory");
    // SAFETY: memory just allocated, freed below after the opener exits.
    let raw_handle = unsafe { raw::ipc::memory_handle(device, raw_memory) }.expect("a raw handle");
    // The raw open and close are of the shared buffer's own allocation,
    // the same memory ours opens.
    // SAFETY: the buffer's device memory, alive while the opener runs.
    let same = unsafe { raw::ipc::memory_handle(device, shared.as_ptr()) }.expect("its raw handle");
    let raw_bytes: Vec<u8> = same.reserved.iter().map(|b| *b as u8).collect();
    let mut opener = Command::new(std::env::current_exe().expect("this binary"))
        .args(std::env::args().skip(1))
        .env(ROLE, "1")
        .env(OURS, hex(&ours.to_bytes()))
        .env(RAW, hex(&raw_bytes))
        .stdout(Stdio::piped())
        .spawn()
        .expect("the opener runs");
    // Its lines, passed on; its alternated open + close kept.
    let mut open_close = None;
    for line in BufReader::new(opener.stdout.take().expect("its output")).lines() {
        let line = line.expect("a line");
        println!("{line}");
        open_close = open_close.or_else(|| alternated(&line, "open + close"));
    }
    let status = opener.wait().expect("the opener ends");
    assert!(status.success(), "the opener failed: {status}");
    ping_pong(&mut c, &shared, &ours, raw_memory, raw_handle, &stream);
    drop(shared);
    ipc::collect();
    // SAFETY: the raw memory, closed by the opener and the ping-pong's
    // other side, freed once.
    unsafe { raw::mem::free(device, raw_memory) }.expect("freed");
    c.final_summary();

    println!("\nbackend {:?}; one 1 MiB pooled buffer, ns (ours / raw):", hip_sys::backend());
    for (what, raw_what) in
        [("export", "raw export"), ("open + close", "raw open + close"), ("ping-pong", "raw ping-pong")]
    {
        if let (Some(ours), Some(raw)) = (mean_ns(GROUP, what), mean_ns(GROUP, raw_what)) {
            println!("  {what:<14} {ours:>10.1}  raw {raw:>10.1}  {:.2}x", ours / raw);
        }
    }
    // The measure, from the alternated rounds: criterion's runs of
    // ours and raw, one after the other, drift apart.
    if let Some((open_ours, open_raw)) = open_close {
        let (ours, raw) = (export.0 + open_ours, export.1 + open_raw);
        println!("  {:<14} {ours:>10.1}  raw {raw:>10.1}  {:.3}x (alternated rounds)", "a handle's life", ours / raw);
    }
}

/// The (ours, raw) nanoseconds of a `what, N rounds alternated: X ns, raw
/// Y ns, ...` line.
fn alternated(line: &str, what: &str) -> Option<(f64, f64)> {
    let rest = line.strip_prefix(what)?.split_once("alternated:")?.1;
    let words: Vec<&str> = rest.split_whitespace().collect();
    Some((words.first()?.parse().ok()?, words.get(3)?.trim_end_matches(',').parse().ok()?))
}

/// The ping-pong rounds, ours and raw, against a third process.
fn ping_pong(
    c: &mut Criterion,
    shared: &Buffer,
    ours: &IpcHandle,
    raw_memory: *mut std::ffi::c_void,
    raw_handle: hipIpcMemHandle_t,
    stream: &Stream,
) {
    let device = stream.device();
    let mine = Event::interprocess_on(device).expect("an event");
    let mine_raw = raw::event::create_interprocess(device).expect("a raw event");
    // SAFETY: a live interprocess event.
    let mine_raw_handle = unsafe { raw::ipc::event_handle(mine_raw) }.expect("its handle");
    let handles = [
        hex(&ours.to_bytes()),
        hex(&mine.ipc_handle().expect("its handle").0),
        hex(&raw_handle.reserved.iter().map(|b| *b as u8).collect::<Vec<_>>()),
        hex(&event_bytes(mine_raw_handle)),
    ]
    .join(",");
    let mut child = Command::new(std::env::current_exe().expect("this binary"))
        .env(PONG, handles)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the other side runs");
    let mut to = child.stdin.take().expect("its input");
    let mut from = BufReader::new(child.stdout.take().expect("its output"));
    let mut line = String::new();
    from.read_line(&mut line).expect("its handles");
    let theirs: Vec<Vec<u8>> = line.trim().split(',').map(unhex).collect();
    let their_event =
        Event::open_ipc(device, &IpcEventHandle(theirs[0].clone().try_into().expect("64 bytes"))).expect("theirs");
    let their_raw = raw::ipc::open_event(device, raw_event_handle(&theirs[1])).expect("their raw event");
    let mut round = |kind: &[u8]| {
        to.write_all(kind).and_then(|()| to.flush()).expect("asked");
        line.clear();
        from.read_line(&mut line).expect("answered");
    };
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("ping-pong", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                fill(shared, stream);
                mine.record(stream).expect("a record");
                round(b"o\n");
                stream.wait(&their_event).expect("a wait");
            }
            stream.synchronize().expect("the stream");
            start.elapsed()
        })
    });
    group.bench_function("raw ping-pong", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                raw_fill_and_record(device, raw_memory, mine_raw, stream);
                round(b"r\n");
                // SAFETY: live events and stream.
                unsafe { raw::stream::wait_event(device, stream.as_raw(), their_raw) }.expect("a wait");
            }
            stream.synchronize().expect("the stream");
            start.elapsed()
        })
    });
    group.finish();
    drop(to);
    assert!(child.wait().expect("the other side ends").success(), "the other side failed");
    // SAFETY: made or opened above; the other side is gone and the stream idle.
    unsafe {
        raw::event::destroy(device, mine_raw).expect("destroyed");
        raw::event::destroy(device, their_raw).expect("destroyed");
    }
}
