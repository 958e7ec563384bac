//! The simulator's special streams, priorities and stream flags, call by
//! call, against what real HIP (ROCm clr) answers in the HIP major version
//! simulated (`AMDGPU_SIM_HIP_VERSION`, default 7): `hipStreamPerThread`,
//! `hipStreamLegacy`, and the priority range and its clamping. Every test
//! holds `sim::exclusive()` and runs on a fresh thread.

mod common;
use common::*;
use hip_sys::bindings::hip::{hipError_t as E, hipEvent_t, hipStream_t};
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

fn stream_with(flags: u32, priority: i32) -> hipStream_t {
    let mut s = null_mut();
    ok!((api().hipStreamCreateWithPriority)(&mut s, flags, priority));
    s
}

// ---- 2. hipStreamPerThread and hipStreamLegacy ------------------------------

#[test]
fn the_per_thread_stream_is_a_real_stream_per_thread_and_device() {
    if !common::devices_at_least(2) {
        return;
    }
    isolated(|| {
        let per_thread = hip_sys::hipStreamPerThread;
        let mut flags = 99;
        ok!((api().hipStreamGetFlags)(per_thread, &mut flags));
        assert_eq!(flags, 0, "a blocking stream");
        let mut priority = 99;
        ok!((api().hipStreamGetPriority)(per_thread, &mut priority));
        assert_eq!(priority, 0);
        // It is not the null stream: work on it does not make the null
        // stream of another thread wait, but the null stream waits for it.
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        assert_eq!(launch([1, 1, 1], [16, 1, 1], per_thread), E::hipSuccess);
        ok!((api().hipStreamSynchronize)(per_thread));
        assert_eq!(download(p, 16), vec![2.5; 16]);
        ok!((api().hipStreamQuery)(per_thread));
        // Events recorded on it belong to its device.
        let mut e: hipEvent_t = null_mut();
        ok!((api().hipEventCreate)(&mut e));
        ok!((api().hipEventRecord)(e, per_thread));
        ok!((api().hipEventSynchronize)(e));
        ok!((api().hipEventDestroy)(e));
        // Another device has another per-thread stream: an event of device
        // 0 cannot be recorded on device 1's.
        let mut e0: hipEvent_t = null_mut();
        ok!((api().hipEventCreate)(&mut e0));
        set_device(1);
        assert_eq!(status!((api().hipEventRecord)(e0, per_thread)), E::hipErrorInvalidHandle);
        set_device(0);
        ok!((api().hipEventDestroy)(e0));
        assert_eq!(status!((api().hipStreamDestroy)(per_thread)), E::hipErrorInvalidHandle);
        ok!((api().hipFree)(p));
        sim::clear_violations();
    });
}

#[test]
fn the_per_thread_stream_is_not_the_null_stream() {
    if !common::devices_at_least(2) {
        return;
    }
    isolated(|| {
        // hipStreamGetFlags of the null stream is InvalidValue in every
        // version; the per-thread stream is a stream with flags.
        let mut flags = 7;
        assert_eq!(status!((api().hipStreamGetFlags)(null_mut(), &mut flags)), E::hipErrorInvalidValue);
        ok!((api().hipStreamGetFlags)(hip_sys::hipStreamPerThread, &mut flags));
        assert_eq!(flags, 0);
        // Each thread has its own, also usable from a thread that made no
        // other call, on each device.
        let p = malloc(64) as usize;
        std::thread::spawn(move || {
            set_device(1);
            let q = malloc(64);
            ok!((api().hipMemsetAsync)(q, 0, 64, hip_sys::hipStreamPerThread));
            ok!((api().hipStreamSynchronize)(hip_sys::hipStreamPerThread));
            ok!((api().hipFree)(q));
            set_device(0);
            ok!((api().hipMemsetAsync)(p as *mut c_void, 0, 64, hip_sys::hipStreamPerThread));
            ok!((api().hipStreamSynchronize)(hip_sys::hipStreamPerThread));
        })
        .join()
        .expect("second thread");
        // It is blocking: the null stream waits for it.
        let launch = fill_launcher(p as *mut c_void, 16);
        assert_eq!(launch([1, 1, 1], [16, 1, 1], hip_sys::hipStreamPerThread), E::hipSuccess);
        assert_eq!(download(p as *const c_void, 16), vec![2.5; 16]);
        ok!((api().hipFree)(p as *mut c_void));
        assert!(sim::violations().iter().all(|v| !v.function.contains("Stream")), "{:?}", sim::violations());
    });
}

#[test]
fn the_legacy_stream_is_the_null_stream_from_hip_7() {
    isolated(|| {
        let legacy = hip_sys::hipStreamLegacy;
        if hip_major() >= 7 {
            ok!((api().hipStreamSynchronize)(legacy));
            ok!((api().hipStreamQuery)(legacy));
            let mut e: hipEvent_t = null_mut();
            ok!((api().hipEventCreate)(&mut e));
            ok!((api().hipEventRecord)(e, legacy));
            ok!((api().hipEventSynchronize)(e));
            ok!((api().hipEventDestroy)(e));
            let mut priority = 9;
            ok!((api().hipStreamGetPriority)(legacy, &mut priority));
            assert_eq!(priority, 0);
            assert_eq!(status!((api().hipStreamDestroy)(legacy)), E::hipErrorInvalidHandle);
        } else {
            // clr before 6.3 does not know it: an invalid stream.
            assert_eq!(status!((api().hipStreamSynchronize)(legacy)), E::hipErrorContextIsDestroyed);
            assert_eq!(status!((api().hipStreamQuery)(legacy)), E::hipErrorContextIsDestroyed);
            assert_eq!(status!((api().hipStreamDestroy)(legacy)), E::hipErrorContextIsDestroyed);
        }
    });
}

// ---- 3. priorities and flags ------------------------------------------------

#[test]
fn stream_priorities_range_from_minus_one_to_one_and_clamp() {
    isolated(|| {
        let (mut least, mut greatest) = (99, 99);
        ok!((api().hipDeviceGetStreamPriorityRange)(&mut least, &mut greatest));
        assert_eq!((least, greatest), (1, -1));
        ok!((api().hipDeviceGetStreamPriorityRange)(null_mut(), null_mut()));
        for (asked, got) in [(-5, -1), (-1, -1), (0, 0), (1, 1), (7, 1)] {
            let s = stream_with(0, asked);
            let mut p = 99;
            ok!((api().hipStreamGetPriority)(s, &mut p));
            assert_eq!(p, got, "asked {asked}");
            ok!((api().hipStreamDestroy)(s));
        }
        let mut s = null_mut();
        assert_eq!(status!((api().hipStreamCreateWithPriority)(&mut s, 2, 0)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipStreamCreateWithFlags)(&mut s, 0x10)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipStreamCreateWithPriority)(null_mut(), 0, 0)), E::hipErrorInvalidValue);
        let mut flags = 0;
        assert_eq!(status!((api().hipStreamGetFlags)(null_mut(), &mut flags)), E::hipErrorInvalidValue);
        let mut p = 99;
        ok!((api().hipStreamGetPriority)(null_mut(), &mut p));
        assert_eq!(p, 0);
        let nb = stream_with(hip_sys::bindings::hip::hipStreamNonBlocking, 0);
        ok!((api().hipStreamGetFlags)(nb, &mut flags));
        assert_eq!(flags, hip_sys::bindings::hip::hipStreamNonBlocking);
        ok!((api().hipStreamDestroy)(nb));
    });
}
