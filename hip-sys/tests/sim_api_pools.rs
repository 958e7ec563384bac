//! The simulator's memory pools, call by call, against what real HIP (ROCm
//! clr) answers in the HIP major version simulated
//! (`AMDGPU_SIM_HIP_VERSION`, default 7): the pool attributes' defaults
//! and checks, and opportunistic reuse. Every test holds
//! `sim::exclusive()` and runs on a fresh thread.

mod common;
use common::*;
use hip_sys::bindings::hip::{hipError_t as E, hipMemPoolAttr as PoolAttr, hipMemPool_t, hipStream_t};
use hip_sys::sim;
use std::ptr::null_mut;

// ---- 4. memory pool attributes ---------------------------------------------

fn get_u64(pool: hipMemPool_t, attr: PoolAttr) -> u64 {
    let mut v = 77u64;
    ok!((api().hipMemPoolGetAttribute)(pool, attr, (&mut v as *mut u64).cast()));
    v
}

fn get_i32(pool: hipMemPool_t, attr: PoolAttr) -> i32 {
    let mut v = 77i32;
    ok!((api().hipMemPoolGetAttribute)(pool, attr, (&mut v as *mut i32).cast()));
    v
}

fn set_u64(pool: hipMemPool_t, attr: PoolAttr, mut v: u64) -> E {
    status!((api().hipMemPoolSetAttribute)(pool, attr, (&mut v as *mut u64).cast()))
}

const REUSE: [PoolAttr; 3] = [
    PoolAttr::hipMemPoolReuseFollowEventDependencies,
    PoolAttr::hipMemPoolReuseAllowOpportunistic,
    PoolAttr::hipMemPoolReuseAllowInternalDependencies,
];

#[test]
fn pool_attributes_default_and_validate_as_hip_does() {
    isolated(|| {
        let mut default = null_mut();
        ok!((api().hipDeviceGetDefaultMemPool)(&mut default, 0));
        // SAFETY: an all-zero props struct is valid plain data.
        let mut props: hip_sys::bindings::hip::hipMemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = hip_sys::bindings::hip::hipMemAllocationType::hipMemAllocationTypePinned;
        props.location.type_ = hip_sys::bindings::hip::hipMemLocationType::hipMemLocationTypeDevice;
        props.location.id = 0;
        let mut created = null_mut();
        ok!((api().hipMemPoolCreate)(&mut created, &props));
        for pool in [default, created] {
            for attr in REUSE {
                assert_eq!(get_i32(pool, attr), 1, "{attr:?}");
            }
            assert_eq!(get_u64(pool, PoolAttr::hipMemPoolAttrReleaseThreshold), 0);
            assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrReservedMemCurrent, 0), E::hipErrorInvalidValue);
            assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrUsedMemCurrent, 0), E::hipErrorInvalidValue);
            assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrUsedMemHigh, 5), E::hipErrorInvalidValue);
            assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrReservedMemHigh, 5), E::hipErrorInvalidValue);
            assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrUsedMemHigh, 0), E::hipSuccess);
            // 5.7.x and 6.0.x fall through from ReservedMemHigh to the
            // read-only UsedMemCurrent: resetting it fails (fixed in 6.1).
            let reset = if hip_major() <= 6 { E::hipErrorInvalidValue } else { E::hipSuccess };
            assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrReservedMemHigh, 0), reset);
            assert_eq!(set_u64(pool, PoolAttr(99), 0), E::hipErrorInvalidValue);
            assert_eq!(
                status!((api().hipMemPoolSetAttribute)(pool, PoolAttr::hipMemPoolAttrReleaseThreshold, null_mut())),
                E::hipErrorInvalidValue
            );
        }
        assert_eq!(set_u64(null_mut(), PoolAttr::hipMemPoolAttrReleaseThreshold, 0), E::hipErrorInvalidValue);
        ok!((api().hipMemPoolDestroy)(created));
    });
}

fn set_i32(pool: hipMemPool_t, attr: PoolAttr, mut v: i32) -> E {
    status!((api().hipMemPoolSetAttribute)(pool, attr, (&mut v as *mut i32).cast()))
}

/// Wait for `s` without a synchronization call (which would tell the
/// pools that its frees are done).
fn poll_idle(s: hipStream_t) {
    while status!((api().hipStreamQuery)(s)) == E::hipErrorNotReady {
        std::thread::yield_now();
    }
}

#[test]
fn opportunistic_reuse_follows_its_attribute() {
    isolated(|| {
        let mut pool = null_mut();
        ok!((api().hipDeviceGetDefaultMemPool)(&mut pool, 0));
        assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrReleaseThreshold, u64::MAX), E::hipSuccess);
        let (mut s1, mut s2) = (null_mut(), null_mut());
        ok!((api().hipStreamCreateWithFlags)(&mut s1, hip_sys::bindings::hip::hipStreamNonBlocking));
        ok!((api().hipStreamCreateWithFlags)(&mut s2, hip_sys::bindings::hip::hipStreamNonBlocking));
        let alloc = |s: hipStream_t| {
            let mut p = null_mut();
            ok!((api().hipMallocAsync)(&mut p, 4096, s));
            p
        };
        for opportunistic in [1, 0] {
            assert_eq!(set_i32(pool, PoolAttr::hipMemPoolReuseAllowOpportunistic, opportunistic), E::hipSuccess);
            let p = alloc(s1);
            ok!((api().hipFreeAsync)(p, s1));
            poll_idle(s1);
            // The free has completed, but nothing orders s2 after it.
            let q = alloc(s2);
            assert_eq!(q == p, opportunistic == 1, "opportunistic {opportunistic}");
            ok!((api().hipFreeAsync)(q, s2));
            if q != p {
                // The stream that freed it may always reuse it.
                let r = alloc(s1);
                assert_eq!(r, p);
                ok!((api().hipFreeAsync)(r, s1));
            }
            ok!((api().hipDeviceSynchronize)());
        }
        assert_eq!(set_i32(pool, PoolAttr::hipMemPoolReuseAllowOpportunistic, 1), E::hipSuccess);
        assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrReleaseThreshold, 0), E::hipSuccess);
        ok!((api().hipMemPoolTrimTo)(pool, 0));
        ok!((api().hipStreamDestroy)(s1));
        ok!((api().hipStreamDestroy)(s2));
    });
}

/// clr's safe streams of a freed block (`MemoryPool::FreeMemory`,
/// `Heap::FindMemory`): with opportunistic reuse off, the stream that
/// allocated it may take it again, the stream that freed it only from 6.2
/// (HIP 7 here; 5.7 and 6.0 leave it out), and a synchronization makes no
/// other stream safe. The reuse flags keep only bit 0, and resetting a
/// high-water mark sets it to 0.
#[test]
fn reuse_without_opportunism_is_for_clrs_safe_streams_only() {
    isolated(|| {
        let mut pool = null_mut();
        ok!((api().hipDeviceGetDefaultMemPool)(&mut pool, 0));
        assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrReleaseThreshold, u64::MAX), E::hipSuccess);
        assert_eq!(set_i32(pool, PoolAttr::hipMemPoolReuseAllowOpportunistic, 2), E::hipSuccess);
        assert_eq!(get_i32(pool, PoolAttr::hipMemPoolReuseAllowOpportunistic), 0, "bit 0 of 2");
        let [s1, s2, s3] = [(); 3].map(|()| {
            let mut s = null_mut();
            ok!((api().hipStreamCreateWithFlags)(&mut s, hip_sys::bindings::hip::hipStreamNonBlocking));
            s
        });
        let alloc = |s: hipStream_t| {
            let mut p = null_mut();
            ok!((api().hipMallocAsync)(&mut p, 4096, s));
            p
        };
        // Allocated on s1, freed on s2 (after s1's work, by the host).
        let p = alloc(s1);
        ok!((api().hipStreamSynchronize)(s1));
        ok!((api().hipFreeAsync)(p, s2));
        poll_idle(s2);
        let on_s2 = alloc(s2);
        assert_eq!(on_s2 == p, hip_major() >= 7, "the freeing stream is safe from 6.2 only");
        ok!((api().hipFreeAsync)(on_s2, s2));
        poll_idle(s2);
        ok!((api().hipDeviceSynchronize)());
        let on_s3 = alloc(s3);
        assert_ne!(on_s3, p, "a synchronization makes no other stream safe");
        let on_s1 = alloc(s1);
        if on_s2 != p {
            assert_eq!(on_s1, p, "the allocating stream is safe");
        }
        let used = get_u64(pool, PoolAttr::hipMemPoolAttrUsedMemCurrent);
        assert!(used > 0);
        assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrUsedMemHigh, 0), E::hipSuccess);
        assert_eq!(get_u64(pool, PoolAttr::hipMemPoolAttrUsedMemHigh), 0, "clr resets the mark to 0");
        for (q, s) in [(on_s3, s3), (on_s1, s1)] {
            ok!((api().hipFreeAsync)(q, s));
        }
        ok!((api().hipDeviceSynchronize)());
        assert_eq!(set_i32(pool, PoolAttr::hipMemPoolReuseAllowOpportunistic, 1), E::hipSuccess);
        assert_eq!(set_u64(pool, PoolAttr::hipMemPoolAttrReleaseThreshold, 0), E::hipSuccess);
        ok!((api().hipMemPoolTrimTo)(pool, 0));
        for s in [s1, s2, s3] {
            ok!((api().hipStreamDestroy)(s));
        }
    });
}

/// hip-tests' `Unit_hipMemPoolApi_BasicReuse` and `_Default`: a block
/// freed with `hipFreeAsync` is reused at once by an allocation of the
/// same size on the stream that freed it (and allocated it), before the
/// stream has reached the free: stream order puts the free first. Another
/// stream cannot take it while the free is pending, opportunistic or not.
#[test]
fn an_allocation_on_the_freeing_stream_reuses_the_pending_free() {
    isolated(|| {
        let mut pool = null_mut();
        ok!((api().hipDeviceGetDefaultMemPool)(&mut pool, 0));
        let (mut s, mut other) = (null_mut(), null_mut());
        ok!((api().hipStreamCreateWithFlags)(&mut s, hip_sys::bindings::hip::hipStreamNonBlocking));
        ok!((api().hipStreamCreateWithFlags)(&mut other, hip_sys::bindings::hip::hipStreamNonBlocking));
        let alloc = |s: hipStream_t| {
            let mut p = null_mut();
            ok!((api().hipMallocAsync)(&mut p, 32 << 20, s));
            p
        };
        let a = alloc(s);
        let small = {
            let mut p = null_mut();
            ok!((api().hipMallocAsync)(&mut p, 4096, s));
            p
        };
        // The test's long kernel on A: the stream is held past the free.
        ok!((api().hipMemsetAsync)(a, 1, 32 << 20, s));
        let hold = sim::hold_stream(s).unwrap();
        ok!((api().hipFreeAsync)(a, s));
        let elsewhere = alloc(other);
        assert_ne!(elsewhere, a, "another stream waits for the free's completion");
        let b = alloc(s);
        assert_eq!(b, a, "runtime must reuse the pointer");
        ok!((api().hipMemsetAsync)(b, 2, 32 << 20, s));
        hold.release();
        ok!((api().hipStreamSynchronize)(s));
        let used = get_u64(pool, PoolAttr::hipMemPoolAttrUsedMemCurrent);
        assert!(used >= 2 * (32 << 20) + 4096, "B, the other block and the small one are in use: {used}");
        for p in [b, small] {
            ok!((api().hipFreeAsync)(p, s));
        }
        ok!((api().hipFreeAsync)(elsewhere, other));
        ok!((api().hipDeviceSynchronize)());
        assert_eq!(get_u64(pool, PoolAttr::hipMemPoolAttrUsedMemCurrent), 0, "each free counted once");
        assert!(sim::violations().iter().all(|v| v.kind != sim::ViolationKind::StreamRace), "no race");
        ok!((api().hipStreamDestroy)(s));
        ok!((api().hipStreamDestroy)(other));
    });
}

/// The device arguments of the pool-of-a-device calls, checked in clr's
/// order and with its codes (`hip_mempool.cpp`, the same in 5.7 to 6.2):
/// `hipDeviceGetDefaultMemPool` refuses a null out-pointer first
/// (`hipErrorInvalidValue`), then a bad device (`hipErrorInvalidDevice`);
/// `hipDeviceGetMemPool` and `hipDeviceSetMemPool` compare the device as an
/// unsigned number against the count and answer `hipErrorInvalidValue` for
/// a bad one, negative included; setting another device's pool is
/// `hipErrorInvalidDevice`.
#[test]
fn pool_calls_check_their_device_as_clr_does() {
    if !common::devices_at_least(2) {
        return;
    }
    isolated(|| {
        let (mut pool0, mut pool1) = (null_mut(), null_mut());
        ok!((api().hipDeviceGetDefaultMemPool)(&mut pool0, 0));
        ok!((api().hipDeviceGetDefaultMemPool)(&mut pool1, 1));
        let bad = 99;
        assert_eq!(status!((api().hipDeviceGetDefaultMemPool)(null_mut(), bad)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipDeviceGetDefaultMemPool)(&mut pool0, bad)), E::hipErrorInvalidDevice);
        assert_eq!(status!((api().hipDeviceGetDefaultMemPool)(&mut pool0, -1)), E::hipErrorInvalidDevice);
        let mut got = null_mut();
        for device in [bad, -1] {
            assert_eq!(status!((api().hipDeviceGetMemPool)(&mut got, device)), E::hipErrorInvalidValue, "{device}");
            assert_eq!(status!((api().hipDeviceSetMemPool)(device, pool0)), E::hipErrorInvalidValue, "{device}");
        }
        assert_eq!(status!((api().hipDeviceGetMemPool)(null_mut(), 0)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipDeviceSetMemPool)(0, null_mut())), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipDeviceSetMemPool)(0, pool1)), E::hipErrorInvalidDevice, "another device's pool");
        ok!((api().hipDeviceSetMemPool)(0, pool0));
        ok!((api().hipDeviceGetMemPool)(&mut got, 0));
        assert_eq!(got, pool0);
    });
}
