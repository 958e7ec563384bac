//! The raw HIP table never crashes on bad input: AMD's hip-tests negative
//! scenarios, answered with the codes clr returns (ROCm 6.x
//! `hip_device.cpp`, `hip_stream.cpp`, `hip_event.cpp`, `hip_memory.cpp`),
//! on whichever backend runs (the simulator in CI, nvidia on an H200).
//!
//! - `hipDeviceGetName` with a null name or a length ≤ 0: `hipErrorInvalidValue`.
//! - `hipStreamDestroy` of the null stream: `hipErrorInvalidHandle`; of a
//!   stream destroyed before, or never created: `hipErrorContextIsDestroyed`,
//!   as are `hipStreamQuery`, `hipStreamSynchronize` and `hipStreamWaitEvent`
//!   on one.
//! - `hipEventDestroy` of a null event: `hipErrorInvalidHandle`; of an event
//!   destroyed before: `hipErrorContextIsDestroyed`.
//! - `hipEventCreateWithFlags` with a flag HIP does not define:
//!   `hipErrorInvalidValue`.
//! - `hipHostMalloc` with both `Coherent` and `NonCoherent`:
//!   `hipErrorInvalidValue`.

use std::ffi::{c_char, c_void};

use hip_sys::{hipError_t, hipEvent_t, hipStream_t, HipApi};

fn api() -> &'static HipApi {
    hip_sys::hip().expect("a backend")
}

/// A handle value no backend ever hands out.
fn never_created<T>() -> *mut T {
    0x7fff_0bad_f00d_0001_usize as *mut T
}

fn on_device_0() {
    // SAFETY: takes no pointers.
    assert_eq!(unsafe { (api().hipSetDevice)(0) }, hipError_t::hipSuccess);
}

#[test]
fn device_names_with_no_room_are_invalid_values() {
    on_device_0();
    let mut name = [0 as c_char; 64];
    // SAFETY: each call either gets `len` writable bytes or a null/≤0 length, which HIP refuses.
    unsafe {
        assert_eq!((api().hipDeviceGetName)(std::ptr::null_mut(), 64, 0), hipError_t::hipErrorInvalidValue);
        assert_eq!((api().hipDeviceGetName)(name.as_mut_ptr(), 0, 0), hipError_t::hipErrorInvalidValue);
        assert_eq!((api().hipDeviceGetName)(name.as_mut_ptr(), -5, 0), hipError_t::hipErrorInvalidValue);
        assert_eq!((api().hipDeviceGetName)(name.as_mut_ptr(), 64, 0), hipError_t::hipSuccess);
    }
    assert_ne!(name[0], 0, "a real name was written");
}

#[test]
fn destroyed_and_never_created_streams_are_errors_not_crashes() {
    on_device_0();
    let api = api();
    let mut stream: hipStream_t = std::ptr::null_mut();
    let mut event: hipEvent_t = std::ptr::null_mut();
    // SAFETY: valid out-pointers; every later call gets a handle that is
    // live, destroyed, null or never created, which HIP must refuse.
    unsafe {
        assert_eq!((api.hipStreamCreate)(&mut stream), hipError_t::hipSuccess);
        assert_eq!((api.hipEventCreate)(&mut event), hipError_t::hipSuccess);
        assert_eq!((api.hipStreamQuery)(stream), hipError_t::hipSuccess);
        assert_eq!((api.hipStreamDestroy)(stream), hipError_t::hipSuccess);
        for (what, dead) in [("destroyed", stream), ("never created", never_created())] {
            assert_eq!((api.hipStreamQuery)(dead), hipError_t::hipErrorContextIsDestroyed, "query of a {what} stream");
            assert_eq!(
                (api.hipStreamSynchronize)(dead),
                hipError_t::hipErrorContextIsDestroyed,
                "synchronize of a {what} stream"
            );
            assert_eq!(
                (api.hipStreamWaitEvent)(dead, event, 0),
                hipError_t::hipErrorContextIsDestroyed,
                "wait-event on a {what} stream"
            );
            assert_eq!(
                (api.hipStreamDestroy)(dead),
                hipError_t::hipErrorContextIsDestroyed,
                "destroy of a {what} stream"
            );
        }
        assert_eq!((api.hipStreamDestroy)(std::ptr::null_mut()), hipError_t::hipErrorInvalidHandle);
        // The null stream still works, and a new stream is a new handle.
        // (Synchronize, not query: the other tests of this binary run on
        // other threads, and the null stream is not ready while any of
        // their blocking streams has work queued.)
        assert_eq!((api.hipStreamSynchronize)(std::ptr::null_mut()), hipError_t::hipSuccess);
        let mut again: hipStream_t = std::ptr::null_mut();
        assert_eq!((api.hipStreamCreate)(&mut again), hipError_t::hipSuccess);
        assert_eq!((api.hipStreamQuery)(stream), hipError_t::hipErrorContextIsDestroyed, "the old handle stays dead");
        assert_eq!((api.hipStreamSynchronize)(again), hipError_t::hipSuccess);
        assert_eq!((api.hipStreamDestroy)(again), hipError_t::hipSuccess);
        assert_eq!((api.hipEventDestroy)(event), hipError_t::hipSuccess);
    }
}

#[test]
fn events_destroyed_twice_or_null_are_errors_not_crashes() {
    on_device_0();
    let api = api();
    let mut event: hipEvent_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; later calls get live, destroyed or null events.
    unsafe {
        assert_eq!((api.hipEventCreateWithFlags)(&mut event, 0), hipError_t::hipSuccess);
        assert_eq!((api.hipEventRecord)(event, std::ptr::null_mut()), hipError_t::hipSuccess);
        assert_eq!((api.hipEventSynchronize)(event), hipError_t::hipSuccess);
        assert_eq!((api.hipEventDestroy)(event), hipError_t::hipSuccess);
        assert_eq!((api.hipEventDestroy)(event), hipError_t::hipErrorContextIsDestroyed, "destroyed twice");
        assert_eq!((api.hipEventDestroy)(std::ptr::null_mut()), hipError_t::hipErrorInvalidHandle, "a null event");
    }
}

#[test]
fn flags_hip_refuses_are_invalid_values() {
    on_device_0();
    let api = api();
    let mut event: hipEvent_t = std::ptr::null_mut();
    let mut host: *mut c_void = std::ptr::null_mut();
    // hipHostMallocCoherent and hipHostMallocNonCoherent.
    let (coherent, non_coherent) = (0x4000_0000, 0x8000_0000);
    // SAFETY: valid out-pointers; the flags are what is being refused.
    unsafe {
        assert_eq!((api.hipEventCreateWithFlags)(&mut event, 0x8000), hipError_t::hipErrorInvalidValue, "unknown flag");
        assert!(event.is_null(), "no event on failure");
        assert_eq!(
            (api.hipHostMalloc)(&mut host, 4096, coherent | non_coherent),
            hipError_t::hipErrorInvalidValue,
            "Coherent | NonCoherent"
        );
        assert!(host.is_null(), "no memory on failure");
        assert_eq!((api.hipHostMalloc)(&mut host, 4096, coherent), hipError_t::hipSuccess);
        assert_eq!((api.hipHostFree)(host), hipError_t::hipSuccess);
    }
}
