//! The simulator's host-memory registration, host functions and peer
//! reachability, against what clr answers. Every test holds
//! `sim::exclusive()` and runs on a fresh thread.

use hip_sys::bindings::hip::{hipError_t as E, hipMemcpyKind, hipStream_t};
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;
use common::{api, isolated, ok, status};

#[test]
fn host_register_checks_its_arguments_as_clr_does() {
    isolated(|| {
        let mut memory = vec![0u8; 4096];
        let p = memory.as_mut_ptr().cast::<c_void>();
        assert_eq!(status!((api().hipHostRegister)(null_mut(), 16, 0)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipHostRegister)(p, 0, 0)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipHostRegister)(p, 4096, 16)), E::hipErrorInvalidValue);
        ok!((api().hipHostRegister)(p, 4096, hip_sys::bindings::hip::hipHostRegisterPortable));
        // Bytes that are pinned already, from the base or inside.
        assert_eq!(status!((api().hipHostRegister)(p, 4096, 0)), E::hipErrorHostMemoryAlreadyRegistered);
        // SAFETY: 100 bytes into a 4096-byte vector.
        let inner = unsafe { p.cast::<u8>().add(100) }.cast::<c_void>();
        assert_eq!(status!((api().hipHostRegister)(inner, 8, 0)), E::hipErrorHostMemoryAlreadyRegistered);
        // Registered memory is not hipHostFree's.
        assert_eq!(status!((api().hipHostFree)(p)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipHostUnregister)(inner)), E::hipErrorHostMemoryNotRegistered);
        assert_eq!(status!((api().hipHostUnregister)(null_mut())), E::hipErrorInvalidValue);
        ok!((api().hipHostUnregister)(p));
        assert_eq!(status!((api().hipHostUnregister)(p)), E::hipErrorHostMemoryNotRegistered);
        // hipHostMalloc memory cannot be unregistered.
        let mut pinned = null_mut();
        ok!((api().hipHostMalloc)(&mut pinned, 64, 0));
        assert_eq!(status!((api().hipHostUnregister)(pinned)), E::hipErrorHostMemoryNotRegistered);
        ok!((api().hipHostFree)(pinned));
    });
}

#[test]
fn registered_memory_is_pinned_memory_with_its_bounds_and_device() {
    if !common::devices_at_least(2) {
        return;
    }
    isolated(|| {
        ok!((api().hipSetDevice)(1));
        let mut memory = vec![7u8; 1024];
        let p = memory.as_mut_ptr().cast::<c_void>();
        ok!((api().hipHostRegister)(p, 1024, 0));
        let mut attributes = hip_sys::bindings::hip::hipPointerAttribute_t::default();
        ok!((api().hipPointerGetAttributes)(&mut attributes, p));
        assert_eq!(attributes.device, 1, "the device current at registration");
        assert_eq!(attributes.hostPointer, p);
        let mut device = null_mut();
        ok!((api().hipMalloc)(&mut device, 2048));
        // A copy past the registered bytes is refused, as for hipHostMalloc memory.
        let kind = hipMemcpyKind::hipMemcpyDefault;
        assert_eq!(status!((api().hipMemcpy)(device, p, 2048, kind)), E::hipErrorInvalidValue);
        ok!((api().hipMemcpy)(device, p, 1024, kind));
        ok!((api().hipHostUnregister)(p));
        let mut back = vec![0u8; 1024];
        ok!((api().hipMemcpy)(back.as_mut_ptr().cast(), device, 1024, kind));
        assert_eq!(back, memory);
        ok!((api().hipFree)(device));
    });
}

static CALLED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_call(user_data: *mut c_void) {
    CALLED.fetch_add(user_data as usize, Ordering::SeqCst);
}

#[test]
fn a_host_function_runs_in_stream_order() {
    isolated(|| {
        let mut stream: hipStream_t = null_mut();
        ok!((api().hipStreamCreate)(&mut stream));
        let before = CALLED.load(Ordering::SeqCst);
        let hold = sim::hold_stream(stream).unwrap();
        ok!((api().hipLaunchHostFunc)(stream, Some(count_call), 5 as *mut c_void));
        assert_eq!(CALLED.load(Ordering::SeqCst), before, "it ran before the work ahead of it");
        hold.release();
        ok!((api().hipStreamSynchronize)(stream));
        assert_eq!(CALLED.load(Ordering::SeqCst), before + 5);
        ok!((api().hipStreamDestroy)(stream));
    });
}

#[test]
fn host_function_errors_follow_clr() {
    isolated(|| {
        let mut stream: hipStream_t = null_mut();
        ok!((api().hipStreamCreate)(&mut stream));
        assert_eq!(status!((api().hipLaunchHostFunc)(stream, None, null_mut())), E::hipErrorInvalidValue);
        ok!((api().hipStreamDestroy)(stream));
        // The function is checked before the stream.
        assert_eq!(status!((api().hipLaunchHostFunc)(stream, None, null_mut())), E::hipErrorInvalidValue);
        let destroyed = status!((api().hipLaunchHostFunc)(stream, Some(count_call), null_mut()));
        assert_eq!(destroyed, E::hipErrorContextIsDestroyed);
    });
}

#[test]
fn a_host_function_on_another_devices_stream_is_a_violation() {
    if !common::devices_at_least(2) {
        return;
    }
    isolated(|| {
        ok!((api().hipSetDevice)(1));
        let mut stream: hipStream_t = null_mut();
        ok!((api().hipStreamCreate)(&mut stream));
        ok!((api().hipSetDevice)(0));
        sim::clear_violations();
        ok!((api().hipLaunchHostFunc)(stream, Some(count_call), null_mut()));
        let found = sim::violations();
        assert!(found.iter().any(|v| v.function == "hipLaunchHostFunc" && v.object_device == 1), "{found:?}");
        ok!((api().hipSetDevice)(1));
        ok!((api().hipStreamSynchronize)(stream));
        ok!((api().hipStreamDestroy)(stream));
        sim::clear_violations();
    });
}

#[test]
fn an_unreachable_peer_is_refused_as_clr_refuses_it() {
    if !common::devices_at_least(2) {
        return;
    }
    isolated(|| {
        let mut can = -1;
        ok!((api().hipDeviceCanAccessPeer)(&mut can, 0, 0));
        assert_eq!(can, 0, "a device is not its own peer");
        ok!((api().hipDeviceCanAccessPeer)(&mut can, 0, 1));
        assert_eq!(can, 1);
        sim::set_peer_reachable(0, 1, false);
        ok!((api().hipDeviceCanAccessPeer)(&mut can, 0, 1));
        let reverse = {
            let mut c = -1;
            ok!((api().hipDeviceCanAccessPeer)(&mut c, 1, 0));
            c
        };
        ok!((api().hipSetDevice)(0));
        let enabled = status!((api().hipDeviceEnablePeerAccess)(1, 0));
        sim::set_peer_reachable(0, 1, true);
        assert_eq!(can, 0);
        assert_eq!(reverse, 1, "links are per direction");
        assert_eq!(enabled, E::hipErrorInvalidDevice);
        ok!((api().hipDeviceEnablePeerAccess)(1, 0));
        assert_eq!(status!((api().hipDeviceEnablePeerAccess)(1, 0)), E::hipErrorPeerAccessAlreadyEnabled);
        assert_eq!(status!((api().hipDeviceEnablePeerAccess)(0, 0)), E::hipErrorInvalidDevice);
        ok!((api().hipDeviceDisablePeerAccess)(1));
    });
}
