//! On a real NVIDIA GPU: calls queued on a stream return before the stream
//! runs them.
//!
//! Its own test binary, so its own process: the stream waits behind a
//! host function that the test holds shut, and a device-synchronizing call
//! on another thread of the process (`cudaFree` in a test running in
//! parallel) would wait for that stream while holding the runtime's locks,
//! so that the test's own calls, and the gate, could never move. Skipped
//! (it says so) unless `AMDGPU_BACKEND=nvidia` is set:
//!
//! ```sh
//! AMDGPU_BACKEND=nvidia cargo test -p hip-sys --test nvidia_async
//! ```

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use hip_sys::bindings::hip::{hipError_t as E, hipEvent_t, hipMemcpyKind, hipStream_t};

mod nvidia_common;
use nvidia_common::{api, device_alloc, ok, to_device, to_host};

/// A gate the test holds shut while work waits behind it on a stream.
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    /// Open the gate; whether it was open already.
    fn open(&self) -> bool {
        let was = std::mem::replace(&mut *self.open.lock().unwrap_or_else(PoisonError::into_inner), true);
        self.opened.notify_all();
        was
    }
}

/// A host function on a stream: returns once the gate opens.
unsafe extern "C" fn wait_for_gate(gate: *mut c_void) {
    // SAFETY: a `Gate` whose reference the test leaked for this function.
    let gate = unsafe { &*gate.cast::<Gate>() };
    let mut open = gate.open.lock().unwrap_or_else(PoisonError::into_inner);
    while !*open {
        open = gate.opened.wait(open).unwrap_or_else(PoisonError::into_inner);
    }
}

/// Opens the gate after 30 s if the test has not: a call that blocked
/// behind the shut gate would hang the test binary, and now fails it.
/// Not a timing assertion: on a working runtime the test opens the gate
/// within milliseconds and the watchdog never acts.
fn open_later(gate: Arc<Gate>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let open = gate.open.lock().unwrap_or_else(PoisonError::into_inner);
        let (open, _) = gate
            .opened
            .wait_timeout_while(open, Duration::from_secs(30), |open| !*open)
            .unwrap_or_else(PoisonError::into_inner);
        let was_open = *open;
        drop(open);
        if !was_open {
            gate.open();
        }
    })
}

#[test]
fn calls_return_before_the_stream_runs_them() {
    // No timing: the stream's first item is a host function that cannot
    // return before the test opens its gate, so every call queued behind
    // it must return with its work still pending, and the work must then
    // run, in order, once the gate opens.
    let Some(api) = api() else { return };
    let n = 1usize << 20;
    let pattern: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let a = to_device(api, &pattern);
    let b = device_alloc::<u32>(api, n);
    let c = device_alloc::<u32>(api, n);
    let mut stream: hipStream_t = null_mut();
    ok!((api.hipStreamCreateWithFlags)(&mut stream, hip_sys::bindings::hip::hipStreamNonBlocking));
    let mut done: hipEvent_t = null_mut();
    ok!((api.hipEventCreate)(&mut done));
    let gate = Arc::new(Gate { open: Mutex::new(false), opened: Condvar::new() });
    // The host function's reference is never released: it stays valid
    // however the test ends.
    let gate_ptr = Arc::into_raw(Arc::clone(&gate)).cast_mut().cast::<c_void>();
    let watchdog = open_later(Arc::clone(&gate));
    ok!((api.hipLaunchHostFunc)(stream, Some(wait_for_gate), gate_ptr));
    let bytes = n * std::mem::size_of::<u32>();
    ok!((api.hipMemcpyAsync)(b.cast(), a.cast(), bytes, hipMemcpyKind::hipMemcpyDeviceToDevice, stream));
    ok!((api.hipMemcpyAsync)(c.cast(), b.cast(), bytes, hipMemcpyKind::hipMemcpyDeviceToDevice, stream));
    ok!((api.hipEventRecord)(done, stream));
    // SAFETY: a live stream and event.
    let (stream_state, event_state) = unsafe { ((api.hipStreamQuery)(stream), (api.hipEventQuery)(done)) };
    let opened_by_the_watchdog = gate.open();
    assert!(
        !opened_by_the_watchdog,
        "the watchdog had to open the gate: a call queued behind the host function blocked until it returned"
    );
    assert_eq!(stream_state, E::hipErrorNotReady, "the stream finished behind a shut gate");
    assert_eq!(event_state, E::hipErrorNotReady, "the event completed behind a shut gate");
    ok!((api.hipStreamSynchronize)(stream));
    ok!((api.hipStreamQuery)(stream));
    ok!((api.hipEventQuery)(done));
    assert!(to_host(api, c, n) == pattern, "the copies behind the gate did not run in order");
    // The stream's error state is clean after the expected NotReady.
    // SAFETY: no arguments.
    assert_eq!(unsafe { (api.hipGetLastError)() }, hip_sys::bindings::hip::hipError_t::hipSuccess);
    ok!((api.hipEventDestroy)(done));
    ok!((api.hipStreamDestroy)(stream));
    for p in [a, b, c] {
        ok!((api.hipFree)(p.cast()));
    }
    watchdog.join().expect("the watchdog thread");
}
