//! The simulator's streams and events against HIP's documented behaviour
//! (`reference/hip_semantics.md`): events and streams of different
//! devices, stream order and waits across devices, and which recording a
//! wait is for.
//! Every test holds `sim::exclusive()`: counters, faults and memory are
//! process-wide.

mod common;
use common::*;
use hip_sys::bindings::hip::{hipError_t, hipMemcpyKind};
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

#[test]
fn event_record_on_another_devices_stream_is_invalid_handle() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("events", || {
        set_device(1);
        let e1 = event();
        set_device(0);
        let s0 = stream();
        assert_eq!(status!((api().hipEventRecord)(e1, s0)), hipError_t::hipErrorInvalidHandle);
        // The null stream is the current device's: also device 0.
        assert_eq!(status!((api().hipEventRecord)(e1, null_mut())), hipError_t::hipErrorInvalidHandle);
        let (start, stop) = (event(), event());
        ok!((api().hipEventRecord)(start, s0));
        ok!((api().hipEventRecord)(stop, s0));
        ok!((api().hipEventSynchronize)(stop));
        let mut ms = -1.0f32;
        ok!((api().hipEventElapsedTime)(&mut ms, start, stop));
        assert!(ms >= 0.0);
        // Events of two devices cannot be compared.
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, start, e1)), hipError_t::hipErrorInvalidHandle);
        ok!((api().hipEventDestroy)(start));
        ok!((api().hipEventDestroy)(stop));
        assert_eq!(status!((api().hipEventDestroy)(stop)), hipError_t::hipErrorContextIsDestroyed);
        ok!((api().hipStreamDestroy)(s0));
        set_device(1);
        ok!((api().hipEventDestroy)(e1));
    });
}

#[test]
fn streams_run_in_order_and_wait_on_events_across_devices() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("order", || {
        let n = 4096;
        let x = upload(&vec![1.0; n]);
        let s = stream();
        let m = module(&["axpy_f32"]);
        let f = function(m, "axpy_f32");
        let (mut a, mut px, mut py, mut nn) = (1.0f32, x, x, n as u32);
        let mut params: [*mut c_void; 4] = [
            (&mut a as *mut f32).cast(),
            (&mut px as *mut *mut c_void).cast(),
            (&mut py as *mut *mut c_void).cast(),
            (&mut nn as *mut u32).cast(),
        ];
        for _ in 0..10 {
            // x = x + x, ten times in order: 2^10.
            ok!((api().hipModuleLaunchKernel)(f, 16, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut()));
        }
        let done = event();
        ok!((api().hipEventRecord)(done, s));
        // A device-1 stream waits for device 0's event, then copies.
        set_device(1);
        let s1 = stream();
        let y = malloc(n * 4);
        ok!((api().hipStreamWaitEvent)(s1, done, 0));
        ok!((api().hipMemcpyAsync)(y, x, n * 4, hipMemcpyKind::hipMemcpyDefault, s1));
        ok!((api().hipStreamSynchronize)(s1));
        assert_eq!(download(y, n), vec![1024.0; n]);
        ok!((api().hipStreamQuery)(s1));
        ok!((api().hipFree)(y));
        ok!((api().hipStreamDestroy)(s1));
        set_device(0);
        ok!((api().hipEventDestroy)(done));
        ok!((api().hipStreamDestroy)(s));
        ok!((api().hipModuleUnload)(m));
        ok!((api().hipFree)(x));
    });
    assert!(violations_of("order").is_empty(), "{:?}", violations_of("order"));
}

#[test]
fn a_wait_is_for_the_recording_it_saw_even_when_a_later_one_finishes_first() {
    // HIP (and CUDA): hipStreamWaitEvent waits for the event's latest
    // recording at the time of the call; recording the event again later
    // on another stream does not release it, even if that recording
    // completes first.
    let _x = sim::exclusive();
    on_thread("re-recorded-event", || {
        let (a, b, c) = (stream(), stream(), stream());
        let mut e = null_mut();
        ok!((api().hipEventCreate)(&mut e));
        let hold = sim::hold_stream(a).expect("hold a");
        ok!((api().hipEventRecord)(e, a)); // recording 1, behind the hold
        ok!((api().hipStreamWaitEvent)(c, e, 0)); // c waits for recording 1
        ok!((api().hipEventRecord)(e, b)); // recording 2, completes at once
        ok!((api().hipStreamSynchronize)(b));
        // c must still be waiting for recording 1.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(status!((api().hipStreamQuery)(c)), hipError_t::hipErrorNotReady, "c ran before a reached e");
        hold.release();
        ok!((api().hipStreamSynchronize)(c));
        ok!((api().hipEventDestroy)(e));
        for s in [a, b, c] {
            ok!((api().hipStreamDestroy)(s));
        }
    });
}
