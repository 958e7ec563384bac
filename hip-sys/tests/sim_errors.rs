//! The simulator's errors against HIP's documented behaviour
//! (`reference/hip_semantics.md`): the last error per HIP version, error
//! names, injected faults, and objects used under the wrong device
//! recorded as violations.
//! Every test holds `sim::exclusive()`: counters, faults and memory are
//! process-wide.

mod common;
use common::*;
use hip_sys::bindings::hip::hipError_t;
use hip_sys::sim::{self, Fault};
use std::ptr::null_mut;

#[test]
fn last_error_follows_the_simulated_hip_version() {
    let _x = sim::exclusive();
    on_thread("last-error", || {
        assert_eq!(status!((api().hipGetLastError)()), hipError_t::hipSuccess);
        assert_eq!(status!((api().hipSetDevice)(99)), hipError_t::hipErrorInvalidDevice);
        set_device(0);
        let _ = get_device();
        if hip_major() >= 7 {
            // HIP 7 (CUDA semantics): kept until read, success does not clear it.
            assert_eq!(status!((api().hipPeekAtLastError)()), hipError_t::hipErrorInvalidDevice);
            assert_eq!(status!((api().hipGetLastError)()), hipError_t::hipErrorInvalidDevice);
            assert_eq!(status!((api().hipGetLastError)()), hipError_t::hipSuccess);
        } else {
            // HIP 5 and 6: every call overwrites it, success included.
            assert_eq!(status!((api().hipPeekAtLastError)()), hipError_t::hipSuccess);
            assert_eq!(status!((api().hipSetDevice)(99)), hipError_t::hipErrorInvalidDevice);
            assert_eq!(status!((api().hipPeekAtLastError)()), hipError_t::hipErrorInvalidDevice);
            assert_eq!(status!((api().hipGetLastError)()), hipError_t::hipErrorInvalidDevice);
            assert_eq!(status!((api().hipGetLastError)()), hipError_t::hipSuccess);
        }
        // Another thread's errors are its own.
        assert_eq!(status!((api().hipSetDevice)(99)), hipError_t::hipErrorInvalidDevice);
        on_thread("other", || assert_eq!(status!((api().hipGetLastError)()), hipError_t::hipSuccess));
        assert_eq!(status!((api().hipGetLastError)()), hipError_t::hipErrorInvalidDevice);
    });
}

#[test]
fn a_free_under_the_wrong_device_is_a_violation() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("violator", || {
        set_device(1);
        let a = malloc(64);
        let b = malloc(64);
        set_device(0);
        ok!((api().hipFree)(a)); // HIP tolerates it; the simulator records it.
        set_device(1);
        ok!((api().hipFree)(b));
    });
    let found = violations_of("violator");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].function, "hipFree");
    assert_eq!((found[0].object_device, found[0].current_device), (1, 0));
}

#[test]
fn objects_used_under_the_wrong_device_are_violations() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("objects", || {
        set_device(1);
        let s = stream();
        let e = event();
        set_device(0);
        ok!((api().hipStreamSynchronize)(s));
        ok!((api().hipEventDestroy)(e));
        ok!((api().hipStreamDestroy)(s));
    });
    let names: Vec<_> = violations_of("objects").iter().map(|v| v.function).collect();
    assert_eq!(names, ["hipStreamSynchronize", "hipEventDestroy", "hipStreamDestroy"]);
}

#[test]
fn injected_faults_fire_once_and_reset() {
    let _x = sim::exclusive();
    on_thread("faults", || {
        assert!(sim::inject_fault(Fault {
            function: "hipMalloc".into(),
            nth: 2,
            error: hipError_t::hipErrorOutOfMemory
        }));
        let first = malloc(64);
        let mut p = null_mut();
        assert_eq!(status!((api().hipMalloc)(&mut p, 64)), hipError_t::hipErrorOutOfMemory);
        let third = malloc(64);
        assert!(!sim::inject_fault(Fault { function: "nope".into(), nth: 1, error: hipError_t::hipErrorUnknown }));

        sim::inject_sticky_fault(hipError_t::hipErrorIllegalAddress);
        assert_eq!(status!((api().hipFree)(first)), hipError_t::hipErrorIllegalAddress);
        let mut n = 0;
        assert_eq!(status!((api().hipGetDeviceCount)(&mut n)), hipError_t::hipErrorIllegalAddress);
        on_thread("faults-2", || assert_eq!(status!((api().hipGetDevice)(&mut 0)), hipError_t::hipErrorIllegalAddress));
        sim::reset_faults();
        ok!((api().hipFree)(first));
        ok!((api().hipFree)(third));
        let before = sim::call_count("hipFree");
        let mine = sim::thread_call_count("hipFree");
        ok!((api().hipFree)(null_mut()));
        assert_eq!(sim::call_count("hipFree"), before + 1);
        assert_eq!(sim::thread_call_count("hipFree"), mine + 1);
    });
}

#[test]
fn pointer_attributes_and_error_names() {
    if !common::devices_at_least(2) {
        return;
    }
    let _x = sim::exclusive();
    on_thread("attrs", || {
        set_device(1);
        let p = malloc(64);
        // SAFETY: an all-zero pointer-attribute struct is valid plain data.
        let mut attrs: hip_sys::bindings::hip::hipPointerAttribute_t = unsafe { std::mem::zeroed() };
        ok!((api().hipPointerGetAttributes)(&mut attrs, p));
        assert_eq!(attrs.device, 1);
        // SAFETY: reading the union field the simulator wrote.
        let memory_type = unsafe { attrs.__bindgen_anon_1.type_ };
        assert_eq!(memory_type, hip_sys::bindings::hip::hipMemoryType::hipMemoryTypeDevice);
        ok!((api().hipFree)(p));
        // SAFETY: hipGetErrorName returns a static NUL-terminated string.
        let name = unsafe { std::ffi::CStr::from_ptr((api().hipGetErrorName)(hipError_t::hipErrorInvalidDevice)) };
        assert_eq!(name.to_str().unwrap(), "hipErrorInvalidDevice");
        // SAFETY: as above.
        let unknown = unsafe { std::ffi::CStr::from_ptr((api().hipGetErrorName)(hipError_t(4242))) };
        assert_eq!(unknown.to_str().unwrap(), "hipErrorUnknown");
    });
}
