//! The simulator's stream-race detector: races made on purpose are
//! reported once, naming both operations, their streams and the bytes;
//! each kind of synchronization HIP offers orders them away. Every test
//! holds `sim::exclusive()` and runs on its own named thread, and looks
//! only at the violations that thread's calls found.

use hip_sys::bindings::hip::{hipError_t, hipFunction_t, hipMemcpyKind, hipStream_t};
use hip_sys::sim::{self, AccessKind, StreamRace, ViolationKind};
use std::ffi::c_void;
use std::ptr::null_mut;

mod common;
use common::{api, event, malloc, ok};

const N: usize = 256;
const BYTES: usize = N * 4;

fn stream(flags: u32) -> hipStream_t {
    let mut s = null_mut();
    ok!((api().hipStreamCreateWithFlags)(&mut s, flags));
    s
}

fn fill_kernel() -> (hip_sys::bindings::hip::hipModule_t, hipFunction_t) {
    let image = sim::code_object(&["fill_f32"]);
    let mut m = null_mut();
    ok!((api().hipModuleLoadData)(&mut m, image.as_ptr().cast()));
    let name = std::ffi::CString::new("fill_f32").unwrap();
    let mut f = null_mut();
    ok!((api().hipModuleGetFunction)(&mut f, m, name.as_ptr()));
    (m, f)
}

/// `fill_f32(p, value, N)` on `s`.
fn fill(f: hipFunction_t, p: *mut c_void, value: f32, s: hipStream_t) {
    let (mut p, mut value, mut n) = (p, value, N as u32);
    let mut params: [*mut c_void; 3] =
        [(&mut p as *mut *mut c_void).cast(), (&mut value as *mut f32).cast(), (&mut n as *mut u32).cast()];
    ok!((api().hipModuleLaunchKernel)(f, 1, 1, 1, N as u32, 1, 1, 0, s, params.as_mut_ptr(), null_mut()));
}

/// Copy the buffer to the host on `s` (asynchronously).
fn read_back(p: *mut c_void, out: &mut [f32], s: hipStream_t) {
    ok!((api().hipMemcpyAsync)(out.as_mut_ptr().cast(), p, BYTES, hipMemcpyKind::hipMemcpyDeviceToHost, s));
}

/// Run `f` on a fresh thread named `name` under `exclusive()`, and return
/// the stream races its calls found.
fn races_of(name: &str, f: impl FnOnce() + Send + 'static) -> Vec<sim::Violation> {
    let _x = sim::exclusive();
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            // These tests race on purpose, also under AMDGPU_SIM_RACES=fail.
            let _expected = sim::expect_races();
            f()
        })
        .expect("spawn")
        .join()
        .expect("thread panicked");
    sim::violations().into_iter().filter(|v| v.thread == name && v.kind == ViolationKind::StreamRace).collect()
}

fn race(v: &sim::Violation) -> &StreamRace {
    v.race.as_ref().expect("a stream race has its details")
}

fn handle(s: hipStream_t) -> String {
    format!("stream {:#x} of device 0", s as usize)
}

#[test]
fn a_memset_and_a_copy_on_unordered_streams_race() {
    let streams = std::sync::Arc::new(std::sync::Mutex::new((String::new(), String::new(), 0usize)));
    let seen = streams.clone();
    let found = races_of("race-memset-copy", move || {
        let p = malloc(BYTES);
        let (a, b) = (stream(0), stream(0));
        let mut out = vec![0f32; N];
        ok!((api().hipMemsetAsync)(p, 1, BYTES, a));
        read_back(p, &mut out, b);
        ok!((api().hipDeviceSynchronize)());
        *seen.lock().unwrap() = (handle(a), handle(b), p as usize);
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipStreamDestroy)(b));
        ok!((api().hipFree)(p));
    });
    let (a, b, p) = streams.lock().unwrap().clone();
    assert_eq!(found.len(), 1, "{found:#?}");
    let r = race(&found[0]);
    assert_eq!((r.first.function, r.first.access), ("hipMemsetAsync", AccessKind::Write));
    assert_eq!((r.second.function, r.second.access), ("hipMemcpyAsync", AccessKind::Read));
    assert_eq!((r.first.stream.as_str(), r.second.stream.as_str()), (a.as_str(), b.as_str()));
    assert_eq!((r.address, r.len, r.after_free), (p, BYTES, false));
    let text = found[0].to_string();
    for word in ["hipMemsetAsync", "hipMemcpyAsync", &a, &b, &format!("{p:#x}")] {
        assert!(text.contains(word), "{word} missing from: {text}");
    }
}

#[test]
fn a_kernel_and_a_copy_on_unordered_streams_race_on_the_bytes_both_touch() {
    let found = races_of("race-kernel-copy", || {
        let (m, f) = fill_kernel();
        let p = malloc(2 * BYTES);
        let (a, b) = (stream(0), stream(0));
        let mut out = vec![0f32; N];
        fill(f, p, 2.0, a);
        // The second half is not the kernel's: no race there.
        // SAFETY: inside the allocation of 2 * BYTES.
        let second_half = unsafe { p.cast::<u8>().add(BYTES) }.cast();
        read_back(second_half, &mut out, b);
        // SAFETY: as above; half of each half overlaps the kernel's bytes.
        let middle = unsafe { p.cast::<u8>().add(BYTES / 2) }.cast();
        read_back(middle, &mut out, b);
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipStreamDestroy)(b));
        ok!((api().hipModuleUnload)(m));
        ok!((api().hipFree)(p));
    });
    assert_eq!(found.len(), 1, "{found:#?}");
    let r = race(&found[0]);
    assert_eq!((r.first.function, r.second.function), ("hipModuleLaunchKernel", "hipMemcpyAsync"));
    assert_eq!(r.len, BYTES / 2, "only the overlap is named");
}

#[test]
fn an_event_between_the_streams_orders_them() {
    let found = races_of("race-event", || {
        let (m, f) = fill_kernel();
        let p = malloc(BYTES);
        let (a, b) = (stream(0), stream(0));
        let e = event();
        let mut out = vec![0f32; N];
        fill(f, p, 3.0, a);
        ok!((api().hipEventRecord)(e, a));
        ok!((api().hipStreamWaitEvent)(b, e, 0));
        read_back(p, &mut out, b);
        // And back: a write on `a` after b's read, ordered by another event.
        ok!((api().hipEventRecord)(e, b));
        ok!((api().hipStreamWaitEvent)(a, e, 0));
        ok!((api().hipMemsetAsync)(p, 0, BYTES, a));
        ok!((api().hipStreamSynchronize)(a));
        assert_eq!(out, vec![3.0; N]);
        ok!((api().hipEventDestroy)(e));
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipStreamDestroy)(b));
        ok!((api().hipModuleUnload)(m));
        ok!((api().hipFree)(p));
    });
    assert_eq!(found, vec![]);
}

#[test]
fn an_event_recorded_before_the_write_does_not_order_it() {
    let found = races_of("race-early-event", || {
        let p = malloc(BYTES);
        let (a, b) = (stream(0), stream(0));
        let e = event();
        let mut out = vec![0f32; N];
        ok!((api().hipEventRecord)(e, a));
        ok!((api().hipMemsetAsync)(p, 1, BYTES, a));
        ok!((api().hipStreamWaitEvent)(b, e, 0));
        read_back(p, &mut out, b);
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipEventDestroy)(e));
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipStreamDestroy)(b));
        ok!((api().hipFree)(p));
    });
    assert_eq!(found.len(), 1, "{found:#?}");
}

#[test]
fn host_synchronization_orders_the_streams() {
    let found = races_of("race-host-sync", || {
        let (m, f) = fill_kernel();
        let p = malloc(BYTES);
        let (a, b) = (stream(0), stream(0));
        let e = event();
        let mut out = vec![0f32; N];
        // Each way the host can learn that work is done.
        fill(f, p, 1.0, a);
        ok!((api().hipStreamSynchronize)(a));
        read_back(p, &mut out, b);
        // (Without this, the next write on `a` would race with b's read.)
        ok!((api().hipStreamSynchronize)(b));
        fill(f, p, 2.0, a);
        ok!((api().hipDeviceSynchronize)());
        read_back(p, &mut out, b);
        ok!((api().hipStreamSynchronize)(b));
        fill(f, p, 3.0, a);
        ok!((api().hipEventRecord)(e, a));
        ok!((api().hipEventSynchronize)(e));
        read_back(p, &mut out, b);
        ok!((api().hipStreamSynchronize)(b));
        fill(f, p, 4.0, a);
        // SAFETY: a plain call.
        while unsafe { (api().hipStreamQuery)(a) } != hipError_t::hipSuccess {
            std::thread::yield_now();
        }
        read_back(p, &mut out, b);
        ok!((api().hipStreamSynchronize)(b));
        fill(f, p, 5.0, a);
        ok!((api().hipEventRecord)(e, a));
        // SAFETY: a plain call.
        while unsafe { (api().hipEventQuery)(e) } != hipError_t::hipSuccess {
            std::thread::yield_now();
        }
        read_back(p, &mut out, b);
        ok!((api().hipStreamSynchronize)(b));
        assert_eq!(out, vec![5.0; N]);
        // A blocking copy to the host waits too.
        fill(f, p, 6.0, a);
        ok!((api().hipMemcpy)(out.as_mut_ptr().cast(), p, BYTES, hipMemcpyKind::hipMemcpyDeviceToHost));
        ok!((api().hipMemsetAsync)(p, 0, BYTES, b));
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipEventDestroy)(e));
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipStreamDestroy)(b));
        ok!((api().hipModuleUnload)(m));
        ok!((api().hipFree)(p));
    });
    assert_eq!(found, vec![]);
}

/// A synchronization that answers a sticky device fault has still waited:
/// after `reset_faults`, the host is ordered after the stream's work, so
/// a read of what it wrote does not race. (Returning the fault before
/// waiting left the host unordered: a read after the reset was a false
/// race whenever the fault came before the synchronization.)
#[test]
fn a_synchronization_that_answers_a_sticky_fault_still_orders_the_host() {
    let found = races_of("race-sticky-sync", || {
        let p = malloc(BYTES);
        let a = stream(hip_sys::bindings::hip::hipStreamNonBlocking);
        let e = event();
        let mut out = vec![0f32; N];
        let synchronizations: [(&str, &dyn Fn() -> hipError_t); 3] = [
            // SAFETY: a plain call on a live stream.
            ("hipStreamSynchronize", &|| unsafe { (api().hipStreamSynchronize)(a) }),
            // SAFETY: as above.
            ("hipDeviceSynchronize", &|| unsafe { (api().hipDeviceSynchronize)() }),
            // SAFETY: as above.
            ("hipEventSynchronize", &|| unsafe { (api().hipEventSynchronize)(e) }),
        ];
        for (name, synchronize) in synchronizations {
            ok!((api().hipMemsetAsync)(p, 1, BYTES, a));
            ok!((api().hipEventRecord)(e, a));
            sim::inject_sticky_fault(hipError_t::hipErrorIllegalAddress);
            assert_eq!(synchronize(), hipError_t::hipErrorIllegalAddress, "{name} answers the fault");
            sim::reset_faults();
            // The null stream is not ordered after the non-blocking `a`:
            // only the host's synchronization orders this read.
            ok!((api().hipMemcpy)(out.as_mut_ptr().cast(), p, BYTES, hipMemcpyKind::hipMemcpyDeviceToHost));
        }
        ok!((api().hipEventDestroy)(e));
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipFree)(p));
    });
    assert_eq!(found, vec![]);
}

#[test]
fn a_free_while_another_stream_still_uses_the_memory_is_a_race() {
    let found = races_of("race-free", || {
        let (m, f) = fill_kernel();
        let (a, b) = (stream(0), stream(0));
        let mut p = null_mut();
        ok!((api().hipMallocAsync)(&mut p, BYTES, a));
        let hold = sim::hold_stream(a).unwrap();
        // Queued behind the hold: still to run when b frees the memory.
        fill(f, p, 1.0, a);
        ok!((api().hipFreeAsync)(p, b));
        hold.release();
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipStreamDestroy)(b));
        ok!((api().hipModuleUnload)(m));
    });
    assert_eq!(found.len(), 1, "{found:#?}");
    let r = race(&found[0]);
    assert_eq!((r.first.function, r.first.access), ("hipModuleLaunchKernel", AccessKind::Write));
    assert_eq!((r.second.function, r.second.access), ("hipFreeAsync", AccessKind::Free));
    assert!(!r.after_free);
}

#[test]
fn a_free_of_memory_another_device_still_copies_is_a_race() {
    if sim::configured_devices() < 2 {
        eprintln!("skipped: needs 2 simulated devices");
        return;
    }
    let found = races_of("race-free-peer", || {
        let p = malloc(BYTES);
        ok!((api().hipSetDevice)(1));
        let q = malloc(BYTES);
        let s = stream(0);
        // A copy on device 1's stream reads device 0's memory; hipFree on
        // device 0 synchronizes device 0 only.
        ok!((api().hipMemcpyAsync)(q, p, BYTES, hipMemcpyKind::hipMemcpyDeviceToDevice, s));
        ok!((api().hipSetDevice)(0));
        ok!((api().hipFree)(p));
        ok!((api().hipSetDevice)(1));
        ok!((api().hipStreamSynchronize)(s));
        ok!((api().hipStreamDestroy)(s));
        ok!((api().hipFree)(q));
        ok!((api().hipSetDevice)(0));
    });
    assert_eq!(found.len(), 1, "{found:#?}");
    let r = race(&found[0]);
    assert_eq!(
        (r.first.function, r.second.function, r.second.stream.as_str()),
        ("hipMemcpyAsync", "hipFree", "the host")
    );
}

#[test]
fn a_use_after_a_stream_ordered_free_is_reported_and_reuse_starts_afresh() {
    let found = races_of("race-after-free", || {
        let s = stream(0);
        let mut p = null_mut();
        ok!((api().hipMallocAsync)(&mut p, BYTES, s));
        ok!((api().hipMemsetAsync)(p, 0, BYTES, s));
        ok!((api().hipFreeAsync)(p, s));
        // The block is freeing, not yet reused: a use now is after the free.
        ok!((api().hipMemsetAsync)(p, 1, BYTES, s));
        ok!((api().hipStreamSynchronize)(s));
        // The pool may hand the block out again: a new allocation, whose
        // uses are its own.
        let mut q = null_mut();
        ok!((api().hipMallocAsync)(&mut q, BYTES, s));
        ok!((api().hipMemsetAsync)(q, 2, BYTES, s));
        ok!((api().hipFreeAsync)(q, s));
        ok!((api().hipStreamSynchronize)(s));
        ok!((api().hipStreamDestroy)(s));
    });
    assert_eq!(found.len(), 1, "{found:#?}");
    let r = race(&found[0]);
    assert_eq!((r.first.function, r.second.function, r.after_free), ("hipFreeAsync", "hipMemsetAsync", true));
}

#[test]
fn the_legacy_null_stream_orders_blocking_streams() {
    let found = races_of("race-legacy", || {
        let (m, f) = fill_kernel();
        let p = malloc(BYTES);
        let (a, b) = (stream(0), stream(0));
        let mut out = vec![0f32; N];
        // a, then the null stream, then b: each waits for the one before.
        fill(f, p, 1.0, a);
        ok!((api().hipMemsetAsync)(p, 0, BYTES, null_mut()));
        read_back(p, &mut out, b);
        // And a blocking stream's work orders the null stream's after it.
        fill(f, p, 2.0, b);
        fill(f, p, 3.0, null_mut());
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipStreamDestroy)(b));
        ok!((api().hipModuleUnload)(m));
        ok!((api().hipFree)(p));
    });
    assert_eq!(found, vec![]);
}

#[test]
fn a_non_blocking_stream_is_not_ordered_by_the_null_stream() {
    let found = races_of("race-non-blocking", || {
        let (m, f) = fill_kernel();
        let p = malloc(BYTES);
        let a = stream(hip_sys::bindings::hip::hipStreamNonBlocking);
        fill(f, p, 1.0, a);
        ok!((api().hipMemsetAsync)(p, 0, BYTES, null_mut()));
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipModuleUnload)(m));
        ok!((api().hipFree)(p));
    });
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(race(&found[0]).second.stream, "the null stream of device 0");
}

#[test]
fn concurrent_reads_do_not_race() {
    let found = races_of("race-reads", || {
        let p = malloc(BYTES);
        let (a, b) = (stream(0), stream(0));
        let (mut x, mut y) = (vec![0f32; N], vec![0f32; N]);
        read_back(p, &mut x, a);
        read_back(p, &mut y, b);
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipStreamDestroy)(a));
        ok!((api().hipStreamDestroy)(b));
        ok!((api().hipFree)(p));
    });
    assert_eq!(found, vec![]);
}

#[test]
#[ignore = "run by fail_mode_stops_the_process_at_an_unexpected_race in a child process"]
fn child_racing_without_expecting_it() {
    if !common::is_child("child_racing_without_expecting_it") {
        return;
    }
    let p = malloc(BYTES);
    let (a, b) = (stream(0), stream(0));
    let mut out = vec![0f32; N];
    ok!((api().hipMemsetAsync)(p, 1, BYTES, a));
    read_back(p, &mut out, b);
    ok!((api().hipDeviceSynchronize)());
    println!("the race did not stop the process");
}

#[test]
fn fail_mode_stops_the_process_at_an_unexpected_race() {
    let (status, text) = common::child_process("child_racing_without_expecting_it", &[("AMDGPU_SIM_RACES", "fail")]);
    assert!(!status.success(), "the child should have stopped: {text}");
    assert!(!text.contains("did not stop"), "{text}");
    assert!(text.contains("stream race") && text.contains("hipMemsetAsync"), "{text}");
}
