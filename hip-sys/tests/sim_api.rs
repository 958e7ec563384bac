//! The simulator's API, function by function, against what real HIP
//! (ROCm clr) answers in the HIP major version simulated
//! (`AMDGPU_SIM_HIP_VERSION`, default 7). Every test holds
//! `sim::exclusive()` and runs on a fresh thread.

use hip_sys::sim;
use hip_sys::{
    hipDeviceAttribute_t as Attr, hipError_t as E, hipEvent_t, hipMemPoolAttr as PoolAttr, hipMemPool_t, hipMemcpyKind,
    hipStream_t, HipApi,
};
use std::ffi::{c_void, CStr};
use std::ptr::null_mut;

fn api() -> &'static HipApi {
    sim::api()
}

/// Assert a HIP call succeeded, naming it.
macro_rules! ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, E::hipSuccess, "{}", stringify!($call));
    }};
}

/// The status of a HIP call.
macro_rules! status {
    ($call:expr) => {{
        // SAFETY: each call site passes arguments the C function accepts.
        unsafe { $call }
    }};
}

/// Run `f` on a fresh thread holding the simulator alone.
fn isolated<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    let _x = sim::exclusive();
    std::thread::spawn(f).join().expect("test thread panicked")
}

/// The simulated HIP major version.
fn hip_major() -> i32 {
    let mut v = 0;
    ok!((api().hipRuntimeGetVersion)(&mut v));
    v / 10_000_000
}

fn set_device(d: i32) {
    ok!((api().hipSetDevice)(d));
}

fn malloc(bytes: usize) -> *mut c_void {
    let mut p = null_mut();
    ok!((api().hipMalloc)(&mut p, bytes));
    p
}

fn download(p: *const c_void, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    ok!((api().hipMemcpy)(out.as_mut_ptr().cast(), p, n * 4, hipMemcpyKind::hipMemcpyDeviceToHost));
    out
}

fn stream_with(flags: u32, priority: i32) -> hipStream_t {
    let mut s = null_mut();
    ok!((api().hipStreamCreateWithPriority)(&mut s, flags, priority));
    s
}

fn attribute(attr: Attr, device: i32) -> Result<i32, E> {
    let mut v = -7;
    match status!((api().hipDeviceGetAttribute)(&mut v, attr, device)) {
        E::hipSuccess => Ok(v),
        e => Err(e),
    }
}

// ---- 1. kernel launch limits ----------------------------------------------

/// A `fill_f32` function on device 0 writing `n` floats at `p`, and a
/// launcher for it: `launch(grid, block, stream)`.
fn fill_launcher(p: *mut c_void, n: u32) -> impl Fn([u32; 3], [u32; 3], hipStream_t) -> E {
    let image = sim::code_object(&["fill_f32"]);
    let mut m = null_mut();
    ok!((api().hipModuleLoadData)(&mut m, image.as_ptr().cast()));
    let mut f = null_mut();
    ok!((api().hipModuleGetFunction)(&mut f, m, c"fill_f32".as_ptr()));
    let f = f as usize;
    let p = p as usize;
    move |g, b, s| {
        let (mut pp, mut v, mut n) = (p as *mut c_void, 2.5f32, n);
        let mut params: [*mut c_void; 3] =
            [(&mut pp as *mut *mut c_void).cast(), (&mut v as *mut f32).cast(), (&mut n as *mut u32).cast()];
        status!((api().hipModuleLaunchKernel)(
            f as hip_sys::hipFunction_t,
            g[0],
            g[1],
            g[2],
            b[0],
            b[1],
            b[2],
            0,
            s,
            params.as_mut_ptr(),
            null_mut()
        ))
    }
}

#[test]
fn grid_limits_are_reported_and_enforced_per_version() {
    isolated(|| {
        assert_eq!(attribute(Attr::hipDeviceAttributeMaxGridDimX, 0), Ok(2_147_483_647));
        assert_eq!(attribute(Attr::hipDeviceAttributeMaxGridDimY, 0), Ok(65_536));
        assert_eq!(attribute(Attr::hipDeviceAttributeMaxGridDimZ, 0), Ok(65_536));
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        let major = hip_major();
        assert_eq!(launch([1, 65_536, 1], [1, 1, 1], null_mut()), E::hipSuccess);
        assert_eq!(launch([1, 1, 65_536], [1, 1, 1], null_mut()), E::hipSuccess);
        // 7.x: Y and Z above 65536; 6.x: above INT32_MAX / 1024; 5.7: above INT32_MAX.
        let over_y = if major >= 7 { E::hipErrorInvalidValue } else { E::hipSuccess };
        assert_eq!(launch([1, 65_537, 1], [1, 1, 1], null_mut()), over_y);
        assert_eq!(launch([1, 1, 65_537], [1, 1, 1], null_mut()), over_y);
        if major == 6 {
            assert_eq!(launch([1, 2_097_152, 1], [1, 1, 1], null_mut()), E::hipErrorInvalidValue);
        }
        // X above INT32_MAX: every version.
        assert_eq!(launch([1 << 31, 1, 1], [1, 1, 1], null_mut()), E::hipErrorInvalidValue);
        assert_eq!(launch([u32::MAX, 1, 1], [1, 1, 1], null_mut()), E::hipErrorInvalidValue);
        ok!((api().hipDeviceSynchronize)());
        assert_eq!(download(p, 16), vec![2.5; 16]);
        ok!((api().hipFree)(p));
    });
}

#[test]
fn zero_dimensions_and_large_blocks_give_the_versions_codes() {
    isolated(|| {
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        let major = hip_major();
        // 5.7 and 7.x: InvalidValue; 6.0-6.3: InvalidConfiguration.
        let zero = if major == 6 { E::hipErrorInvalidConfiguration } else { E::hipErrorInvalidValue };
        for (grid, block) in [([0, 1, 1], [16, 1, 1]), ([1, 0, 1], [16, 1, 1]), ([1, 1, 0], [16, 1, 1])] {
            assert_eq!(launch(grid, block, null_mut()), zero, "grid {grid:?}");
        }
        for block in [[0, 1, 1], [16, 0, 1], [16, 1, 0]] {
            assert_eq!(launch([1, 1, 1], block, null_mut()), zero, "block {block:?}");
        }
        // A block product above 1024 is InvalidValue in every version, also
        // when each dimension is within its own limit.
        assert_eq!(launch([1, 1, 1], [2048, 1, 1], null_mut()), E::hipErrorInvalidValue);
        assert_eq!(launch([1, 1, 1], [32, 32, 2], null_mut()), E::hipErrorInvalidValue);
        assert_eq!(launch([1, 1, 1], [1, 1, 1024], null_mut()), E::hipSuccess);
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipFree)(p));
    });
}

#[test]
fn a_launch_on_an_unknown_stream_gives_the_versions_code() {
    isolated(|| {
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        let mut s = null_mut();
        ok!((api().hipStreamCreate)(&mut s));
        ok!((api().hipStreamDestroy)(s));
        let expected = if hip_major() >= 7 { E::hipErrorContextIsDestroyed } else { E::hipErrorInvalidValue };
        assert_eq!(launch([1, 1, 1], [16, 1, 1], s), expected);
        ok!((api().hipFree)(p));
    });
}

#[test]
fn hip_7_refuses_a_launch_on_a_stream_of_another_device() {
    isolated(|| {
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        set_device(1);
        let mut s1 = null_mut();
        ok!((api().hipStreamCreate)(&mut s1));
        set_device(0);
        // Current device 0, stream on device 1, function on device 0.
        let expected = if hip_major() >= 7 { E::hipErrorInvalidHandle } else { E::hipErrorInvalidDevice };
        assert_eq!(launch([1, 1, 1], [16, 1, 1], s1), expected);
        ok!((api().hipStreamDestroy)(s1));
        ok!((api().hipFree)(p));
        sim::clear_violations();
    });
}

// ---- 2. hipStreamPerThread and hipStreamLegacy ------------------------------

#[test]
fn the_per_thread_stream_is_a_real_stream_per_thread_and_device() {
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
        let nb = stream_with(hip_sys::hipStreamNonBlocking, 0);
        ok!((api().hipStreamGetFlags)(nb, &mut flags));
        assert_eq!(flags, hip_sys::hipStreamNonBlocking);
        ok!((api().hipStreamDestroy)(nb));
    });
}

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
        let mut props: hip_sys::hipMemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = hip_sys::hipMemAllocationType::hipMemAllocationTypePinned;
        props.location.type_ = hip_sys::hipMemLocationType::hipMemLocationTypeDevice;
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

// ---- 5. error names ----------------------------------------------------------

fn name(e: E) -> String {
    // SAFETY: hipGetErrorName returns a static NUL-terminated string.
    unsafe { CStr::from_ptr((api().hipGetErrorName)(e)) }.to_string_lossy().into_owned()
}

fn text(e: E) -> String {
    // SAFETY: hipGetErrorString returns a static NUL-terminated string.
    unsafe { CStr::from_ptr((api().hipGetErrorString)(e)) }.to_string_lossy().into_owned()
}

#[test]
fn every_hip_error_code_has_hips_name() {
    isolated(|| {
        for (code, expected) in [
            (0, "hipSuccess"),
            (2, "hipErrorOutOfMemory"),
            (3, "hipErrorNotInitialized"),
            (205, "hipErrorMapFailed"),
            (400, "hipErrorInvalidHandle"),
            (709, "hipErrorContextIsDestroyed"),
            (910, "hipErrorGraphExecUpdateFailure"),
            (999, "hipErrorUnknown"),
            (1052, "hipErrorRuntimeMemory"),
            (1053, "hipErrorRuntimeOther"),
            (1054, "hipErrorTbd"),
        ] {
            assert_eq!(name(E(code)), expected, "{code}");
        }
        // clr's ihipGetErrorName has no case for the 6.3 and 7.x codes: its
        // default gives "hipErrorUnknown", and the string "unknown error".
        for code in [911, 912, 914, 915, 916, 1055, 4242, u32::MAX] {
            assert_eq!(name(E(code)), "hipErrorUnknown", "{code}");
            assert_eq!(text(E(code)), "unknown error", "{code}");
        }
        assert_eq!(text(E::hipErrorInvalidValue), "invalid argument");
        // The crate's own table still names them, for messages.
        let described = sim::describe(E::hipErrorInvalidTexture).map(|(n, _)| n.to_string_lossy().into_owned());
        assert_eq!(described.as_deref(), Some("hipErrorInvalidTexture"));
        assert_eq!(
            sim::describe(E::hipErrorStreamDetached).map(|(n, _)| n.to_string_lossy().into_owned()).as_deref(),
            Some("hipErrorStreamDetached")
        );
        assert!(sim::describe(E(4242)).is_none());
    });
}

// ---- 6. device attributes ---------------------------------------------------

#[test]
fn attributes_hip_does_not_answer_are_invalid_value() {
    isolated(|| {
        let major = hip_major();
        // Renamed Unused1..5 in HIP 6; never answered by clr (5.7's switch
        // lacks them too).
        for attr in [
            Attr::hipDeviceAttributeUnused1,
            Attr::hipDeviceAttributeUnused2,
            Attr::hipDeviceAttributeUnused3,
            Attr::hipDeviceAttributeUnused4,
            Attr::hipDeviceAttributeUnused5,
            Attr::hipDeviceAttributeMaxThreadsDim,
            Attr::hipDeviceAttributeLuid,
            Attr::hipDeviceAttributeClockInstructionRate,
            Attr::hipDeviceAttributeTccDriver,
            Attr::hipDeviceAttributeSingleToDoublePrecisionPerfRatio,
            Attr::hipDeviceAttributeCudaCompatibleEnd,
            Attr::hipDeviceAttributeAmdSpecificEnd,
            Attr::hipDeviceAttributeVendorSpecificBegin,
        ] {
            assert_eq!(attribute(attr, 0), Err(E::hipErrorInvalidValue), "{attr:?}");
        }
        // 5.7's switch lacks these; 6.0 added them.
        for attr in [
            Attr::hipDeviceAttributePciDomainID,
            Attr::hipDeviceAttributeStreamPrioritiesSupported,
            Attr::hipDeviceAttributeTotalGlobalMem,
        ] {
            if major == 5 {
                assert_eq!(attribute(attr, 0), Err(E::hipErrorInvalidValue), "{attr:?}");
            } else {
                assert!(attribute(attr, 0).is_ok(), "{attr:?}");
            }
        }
        assert_eq!(attribute(Attr::hipDeviceAttributeWarpSize, 0), Ok(64));
        assert_eq!(attribute(Attr::hipDeviceAttributeWarpSize, 9), Err(E::hipErrorInvalidDevice));
        assert_eq!(
            status!((api().hipDeviceGetAttribute)(null_mut(), Attr::hipDeviceAttributeWarpSize, 0)),
            E::hipErrorInvalidValue
        );
    });
}

// ---- 7. events -----------------------------------------------------------------

fn create_event(flags: u32) -> Result<hipEvent_t, E> {
    let mut e = null_mut();
    match status!((api().hipEventCreateWithFlags)(&mut e, flags)) {
        E::hipSuccess => Ok(e),
        status => Err(status),
    }
}

#[test]
fn event_flags_are_validated_as_clr_does() {
    isolated(|| {
        use hip_sys::{
            hipEventBlockingSync as Blocking, hipEventDisableSystemFence as NoFence, hipEventDisableTiming as NoTiming,
            hipEventInterprocess as Ipc, hipEventReleaseToDevice as ToDevice, hipEventReleaseToSystem as ToSystem,
        };
        for flags in [0, Blocking, NoTiming, Blocking | NoTiming, Ipc | NoTiming, NoFence, ToDevice, ToSystem] {
            let e = create_event(flags).unwrap_or_else(|s| panic!("flags {flags:#x}: {s:?}"));
            ok!((api().hipEventDestroy)(e));
        }
        for flags in [Ipc, Ipc | Blocking, ToDevice | ToSystem, NoFence | ToDevice, NoFence | ToSystem, 0x8, 0x100] {
            assert_eq!(create_event(flags).err(), Some(E::hipErrorInvalidValue), "flags {flags:#x}");
        }
        assert_eq!(status!((api().hipEventCreateWithFlags)(null_mut(), 0)), E::hipErrorInvalidValue);
    });
}

#[test]
fn unrecorded_and_untimed_events() {
    isolated(|| {
        let a = create_event(0).unwrap();
        let b = create_event(0).unwrap();
        ok!((api().hipEventQuery)(a));
        ok!((api().hipEventSynchronize)(a));
        let mut ms = 0f32;
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, a, b)), E::hipErrorInvalidHandle);
        ok!((api().hipEventRecord)(a, null_mut()));
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, a, b)), E::hipErrorInvalidHandle);
        ok!((api().hipEventRecord)(b, null_mut()));
        ok!((api().hipEventSynchronize)(b));
        ok!((api().hipEventElapsedTime)(&mut ms, a, b));
        ok!((api().hipEventElapsedTime)(&mut ms, a, a));
        assert_eq!(ms, 0.0);
        let untimed = create_event(hip_sys::hipEventDisableTiming).unwrap();
        ok!((api().hipEventRecord)(untimed, null_mut()));
        ok!((api().hipEventSynchronize)(untimed));
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, a, untimed)), E::hipErrorInvalidHandle);
        assert_eq!(status!((api().hipEventElapsedTime)(null_mut(), a, b)), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipEventElapsedTime)(&mut ms, null_mut(), b)), E::hipErrorInvalidHandle);
        for e in [a, b, untimed] {
            ok!((api().hipEventDestroy)(e));
        }
        assert_eq!(status!((api().hipEventDestroy)(null_mut())), E::hipErrorInvalidHandle);
        assert_eq!(status!((api().hipEventDestroy)(a)), E::hipErrorContextIsDestroyed);
        assert_eq!(status!((api().hipEventRecord)(null_mut(), null_mut())), E::hipErrorInvalidHandle);
    });
}

// ---- 8. invalid arguments ---------------------------------------------------

#[test]
fn invalid_arguments_give_hips_codes() {
    isolated(|| {
        let image = sim::code_object(&["fill_f32"]);
        let mut m = null_mut();
        ok!((api().hipModuleLoadData)(&mut m, image.as_ptr().cast()));
        let mut f = null_mut();
        assert_eq!(status!((api().hipModuleGetFunction)(&mut f, m, c"nope".as_ptr())), E::hipErrorNotFound);
        assert_eq!(status!((api().hipModuleGetFunction)(&mut f, m, c"".as_ptr())), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipModuleGetFunction)(&mut f, m, std::ptr::null())), E::hipErrorInvalidValue);
        assert_eq!(status!((api().hipModuleGetFunction)(null_mut(), m, c"fill_f32".as_ptr())), E::hipErrorInvalidValue);
        assert_eq!(
            status!((api().hipModuleGetFunction)(&mut f, null_mut(), c"fill_f32".as_ptr())),
            E::hipErrorInvalidResourceHandle
        );
        // A null function is an invalid image (ihipLaunchKernel_validate).
        assert_eq!(
            status!((api().hipModuleLaunchKernel)(null_mut(), 1, 1, 1, 1, 1, 1, 0, null_mut(), null_mut(), null_mut())),
            E::hipErrorInvalidImage
        );
        assert_eq!(status!((api().hipModuleUnload)(null_mut())), E::hipErrorInvalidResourceHandle);
        ok!((api().hipModuleUnload)(m));
        assert_eq!(status!((api().hipModuleUnload)(m)), E::hipErrorNotFound);
        assert_eq!(status!((api().hipStreamDestroy)(null_mut())), E::hipErrorInvalidHandle);
        assert_eq!(status!((api().hipMalloc)(null_mut(), 16)), E::hipErrorInvalidValue);
        let mut p = malloc(1);
        assert!(!p.is_null());
        ok!((api().hipFree)(p));
        ok!((api().hipMalloc)(&mut p, 0));
        assert!(p.is_null());
        ok!((api().hipFree)(null_mut()));
        // Size 0 copies succeed before any validation.
        ok!((api().hipMemcpy)(null_mut(), std::ptr::null(), 0, hipMemcpyKind::hipMemcpyDefault));
        let q = malloc(16);
        let mut host = [0u8; 16];
        assert_eq!(
            status!((api().hipMemcpy)(host.as_mut_ptr().cast(), q, 16, hipMemcpyKind(5))),
            E::hipErrorInvalidMemcpyDirection
        );
        // hipMemcpyDeviceToDeviceNoCU (1024) exists from 6.2 on.
        let no_cu = if hip_major() >= 7 { E::hipSuccess } else { E::hipErrorInvalidMemcpyDirection };
        assert_eq!(status!((api().hipMemcpy)(q, q.cast_const(), 16, hipMemcpyKind(1024))), no_cu);
        assert_eq!(
            status!((api().hipMemcpy)(null_mut(), q, 16, hipMemcpyKind::hipMemcpyDefault)),
            E::hipErrorInvalidValue
        );
        assert_eq!(
            status!((api().hipMemcpy)(host.as_mut_ptr().cast(), q, 17, hipMemcpyKind::hipMemcpyDefault)),
            E::hipErrorInvalidValue
        );
        ok!((api().hipFree)(q));
        assert_eq!(status!((api().hipSetDevice)(-1)), E::hipErrorInvalidDevice);
        assert_eq!(status!((api().hipSetDevice)(64)), E::hipErrorInvalidDevice);
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
        ok!((api().hipStreamCreateWithFlags)(&mut s1, hip_sys::hipStreamNonBlocking));
        ok!((api().hipStreamCreateWithFlags)(&mut s2, hip_sys::hipStreamNonBlocking));
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
