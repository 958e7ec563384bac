//! The simulator against HIP's documented behaviour
//! (`reference/hip_semantics.md`). Every test holds `sim::exclusive()`:
//! counters, faults and memory are process-wide.

use hip_sys::sim::{self, Fault};
use hip_sys::{hipError_t, hipEvent_t, hipMemcpyKind, hipStream_t, HipApi};
use std::ffi::c_void;
use std::ptr::null_mut;

fn api() -> &'static HipApi {
    sim::api()
}

/// Assert a HIP call succeeded, naming it.
macro_rules! ok {
    ($call:expr) => {{
        // SAFETY: each call site passes valid arguments for the C function.
        let status = unsafe { $call };
        assert_eq!(status, hipError_t::hipSuccess, "{}", stringify!($call));
    }};
}

/// The status of a HIP call.
macro_rules! status {
    ($call:expr) => {{
        // SAFETY: each call site passes arguments the C function accepts.
        unsafe { $call }
    }};
}

fn set_device(d: i32) {
    ok!((api().hipSetDevice)(d));
}

fn get_device() -> i32 {
    let mut d = -1;
    ok!((api().hipGetDevice)(&mut d));
    d
}

fn malloc(bytes: usize) -> *mut c_void {
    let mut p = null_mut();
    ok!((api().hipMalloc)(&mut p, bytes));
    p
}

fn upload(data: &[f32]) -> *mut c_void {
    let p = malloc(std::mem::size_of_val(data));
    ok!((api().hipMemcpy)(p, data.as_ptr().cast(), std::mem::size_of_val(data), hipMemcpyKind::hipMemcpyHostToDevice));
    p
}

fn download(p: *const c_void, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    ok!((api().hipMemcpy)(out.as_mut_ptr().cast(), p, n * 4, hipMemcpyKind::hipMemcpyDeviceToHost));
    out
}

fn stream() -> hipStream_t {
    let mut s = null_mut();
    ok!((api().hipStreamCreate)(&mut s));
    s
}

fn event() -> hipEvent_t {
    let mut e = null_mut();
    ok!((api().hipEventCreate)(&mut e));
    e
}

/// Run `f` on a fresh named thread; returns its result.
fn on_thread<R: Send + 'static>(name: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new().name(name.into()).spawn(f).expect("spawn").join().expect("thread panicked")
}

fn violations_of(thread: &str) -> Vec<sim::Violation> {
    sim::violations().into_iter().filter(|v| v.thread == thread).collect()
}

#[test]
fn device_count_and_bad_ordinals() {
    let _x = sim::exclusive();
    let mut n = 0;
    ok!((api().hipGetDeviceCount)(&mut n));
    assert_eq!(n as usize, sim::configured_devices());
    assert!(n >= 2, "these tests need the default 2 devices");
    assert_eq!(status!((api().hipSetDevice)(n)), hipError_t::hipErrorInvalidDevice);
    assert_eq!(status!((api().hipSetDevice)(-1)), hipError_t::hipErrorInvalidDevice);
    assert_eq!(status!((api().hipGetDevice)(null_mut())), hipError_t::hipErrorInvalidValue);
    let mut name = [0i8; 64];
    ok!((api().hipDeviceGetName)(name.as_mut_ptr(), 64, 1));
    // SAFETY: hipDeviceGetName wrote a NUL-terminated string.
    let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) };
    assert_eq!(name.to_str().unwrap(), "HIP simulator device 1");
    let mut bytes = 0;
    ok!((api().hipDeviceTotalMem)(&mut bytes, 0));
    assert_eq!(bytes, sim::configured_memory());
}

#[test]
fn a_new_thread_starts_on_device_0_and_set_device_is_per_thread() {
    let _x = sim::exclusive();
    on_thread("parent", || {
        set_device(1);
        assert_eq!(get_device(), 1);
        assert_eq!(on_thread("child", get_device), 0, "HIP's lazy default is device 0, not the parent's");
        assert_eq!(get_device(), 1);
    });
}

#[test]
fn ctx_set_current_changes_get_device_and_pop_does_not_restore() {
    let _x = sim::exclusive();
    on_thread("ctx", || {
        let mut ctx1 = null_mut();
        ok!((api().hipDevicePrimaryCtxRetain)(&mut ctx1, 1));
        ok!((api().hipCtxSetCurrent)(ctx1));
        assert_eq!(get_device(), 1);
        let mut current = null_mut();
        ok!((api().hipCtxGetCurrent)(&mut current));
        assert_eq!(current, ctx1);
        let mut ctx0 = null_mut();
        ok!((api().hipDevicePrimaryCtxRetain)(&mut ctx0, 0));
        ok!((api().hipCtxPushCurrent)(ctx0));
        assert_eq!(get_device(), 0);
        let mut popped = null_mut();
        ok!((api().hipCtxPopCurrent)(&mut popped));
        assert_eq!(popped, ctx0);
        assert_eq!(get_device(), 0, "AMD's pop leaves the device as it is");
        ok!((api().hipCtxPopCurrent)(&mut popped));
        assert_eq!(status!((api().hipCtxPopCurrent)(&mut popped)), hipError_t::hipErrorInvalidContext);
        assert_eq!(status!((api().hipCtxSetCurrent)(0x1234 as _)), hipError_t::hipErrorInvalidContext);
    });
}

#[test]
fn memcpy_takes_the_direction_from_the_pointers() {
    let _x = sim::exclusive();
    on_thread("memcpy", || {
        let host = [1.0f32, 2.0, 3.0, 4.0];
        let d0 = malloc(16);
        // A wrong kind is only validated, never obeyed.
        ok!((api().hipMemcpy)(d0, host.as_ptr().cast(), 16, hipMemcpyKind::hipMemcpyHostToHost));
        set_device(1);
        let d1 = malloc(16);
        ok!((api().hipMemcpy)(d1, d0, 16, hipMemcpyKind::hipMemcpyDefault));
        assert_eq!(download(d1, 4), host);
        let bad = hipMemcpyKind(7);
        assert_eq!(status!((api().hipMemcpy)(d1, d0, 16, bad)), hipError_t::hipErrorInvalidMemcpyDirection);
        // Past the end of the allocation (the 16 bytes asked for).
        assert_eq!(
            status!((api().hipMemcpy)(d1, host.as_ptr().cast(), 17, hipMemcpyKind::hipMemcpyDefault)),
            hipError_t::hipErrorInvalidValue
        );
        ok!((api().hipMemset)(d1, 0, 16));
        assert_eq!(download(d1, 4), [0.0; 4]);
        ok!((api().hipFree)(d1));
        set_device(0);
        ok!((api().hipFree)(d0));
    });
}

#[test]
fn out_of_memory_at_capacity_and_recovery_after_free() {
    let _x = sim::exclusive();
    on_thread("oom", || {
        set_device(1);
        let capacity = sim::configured_memory();
        let before = sim::used_bytes(1);
        let big = malloc(capacity / 2 + 4096);
        let mut p = null_mut();
        assert_eq!(status!((api().hipMalloc)(&mut p, capacity / 2 + 4096)), hipError_t::hipErrorOutOfMemory);
        let (mut free, mut total) = (0, 0);
        ok!((api().hipMemGetInfo)(&mut free, &mut total));
        assert_eq!(total, capacity);
        assert!(free < capacity / 2);
        ok!((api().hipFree)(big));
        let again = malloc(capacity / 2 + 4096);
        ok!((api().hipFree)(again));
        assert_eq!(sim::used_bytes(1), before);
        // Zero bytes: null and success.
        ok!((api().hipMalloc)(&mut p, 0));
        assert!(p.is_null());
    });
}

#[test]
fn double_free_and_unknown_pointers_are_invalid_value() {
    let _x = sim::exclusive();
    on_thread("free", || {
        let p = malloc(64);
        ok!((api().hipFree)(p));
        assert_eq!(status!((api().hipFree)(p)), hipError_t::hipErrorInvalidValue);
        let mut local = 0u8;
        assert_eq!(status!((api().hipFree)((&mut local as *mut u8).cast())), hipError_t::hipErrorInvalidValue);
        ok!((api().hipFree)(null_mut()));
        // An interior pointer is not an allocation.
        let q = malloc(1024);
        // SAFETY: pointer arithmetic inside the allocation's range.
        let inner = unsafe { q.cast::<u8>().add(256) };
        assert_eq!(status!((api().hipFree)(inner.cast())), hipError_t::hipErrorInvalidValue);
        ok!((api().hipFree)(q));
    });
}

#[test]
fn event_record_on_another_devices_stream_is_invalid_handle() {
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

/// The simulated HIP major version (`AMDGPU_SIM_HIP_VERSION`, default 7).
fn hip_major() -> i32 {
    let mut v = 0;
    ok!((api().hipRuntimeGetVersion)(&mut v));
    v / 10_000_000
}

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

fn module(kernels: &[&str]) -> hip_sys::hipModule_t {
    let image = sim::code_object(kernels);
    let mut m = null_mut();
    ok!((api().hipModuleLoadData)(&mut m, image.as_ptr().cast()));
    m
}

fn function(m: hip_sys::hipModule_t, name: &str) -> hip_sys::hipFunction_t {
    let name = std::ffi::CString::new(name).unwrap();
    let mut f = null_mut();
    ok!((api().hipModuleGetFunction)(&mut f, m, name.as_ptr()));
    f
}

/// Launch `vector_add_f32` over `grid` × `block` and return c.
fn vector_add(n: usize, grid: [u32; 3], block: [u32; 3]) -> Vec<f32> {
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let (da, db, dc) = (upload(&a), upload(&b), upload(&vec![-1.0; n]));
    let m = module(&["vector_add_f32"]);
    let f = function(m, "vector_add_f32");
    let mut n32 = n as u32;
    let (mut pa, mut pb, mut pc) = (da, db, dc);
    let mut params: [*mut c_void; 4] = [
        (&mut pa as *mut *mut c_void).cast(),
        (&mut pb as *mut *mut c_void).cast(),
        (&mut pc as *mut *mut c_void).cast(),
        (&mut n32 as *mut u32).cast(),
    ];
    let s = stream();
    ok!((api().hipModuleLaunchKernel)(
        f,
        grid[0],
        grid[1],
        grid[2],
        block[0],
        block[1],
        block[2],
        0,
        s,
        params.as_mut_ptr(),
        null_mut()
    ));
    // No synchronize: the legacy null stream of hipMemcpy waits for `s`.
    let c = download(dc, n);
    ok!((api().hipStreamDestroy)(s));
    ok!((api().hipModuleUnload)(m));
    for p in [da, db, dc] {
        ok!((api().hipFree)(p));
    }
    c
}

#[test]
fn kernels_compute_over_several_grid_shapes() {
    let _x = sim::exclusive();
    on_thread("kernels", || {
        let expect = |n: usize, covered: usize| -> Vec<f32> {
            (0..n).map(|i| if i < covered { 3.0 * i as f32 } else { -1.0 }).collect()
        };
        assert_eq!(vector_add(1000, [4, 1, 1], [256, 1, 1]), expect(1000, 1000)); // more threads than n
        assert_eq!(vector_add(1024, [4, 1, 1], [256, 1, 1]), expect(1024, 1024)); // exact
        assert_eq!(vector_add(1000, [2, 1, 1], [256, 1, 1]), expect(1000, 512)); // too few threads
        assert_eq!(vector_add(777, [2, 2, 2], [10, 10, 1]), expect(777, 777)); // 3-D grid, 2-D block
        assert_eq!(vector_add(1, [1, 1, 1], [1, 1, 1]), expect(1, 1));
    });
}

#[test]
fn bad_code_objects_and_launches_are_errors() {
    let _x = sim::exclusive();
    on_thread("bad-launch", || {
        let mut m = null_mut();
        let bad = b"not a code object\0";
        assert_eq!(status!((api().hipModuleLoadData)(&mut m, bad.as_ptr().cast())), hipError_t::hipErrorInvalidImage);
        let unknown = sim::code_object(&["no_such_kernel"]);
        assert_eq!(
            status!((api().hipModuleLoadData)(&mut m, unknown.as_ptr().cast())),
            hipError_t::hipErrorInvalidImage
        );
        let m = module(&["fill_f32"]);
        let mut f = null_mut();
        assert_eq!(
            status!((api().hipModuleGetFunction)(&mut f, m, c"axpy_f32".as_ptr())),
            hipError_t::hipErrorNotFound
        );
        let f = function(m, "fill_f32");
        let p = malloc(64);
        let (mut pp, mut v, mut n) = (p, 1.5f32, 16u32);
        let mut params: [*mut c_void; 3] =
            [(&mut pp as *mut *mut c_void).cast(), (&mut v as *mut f32).cast(), (&mut n as *mut u32).cast()];
        let launch = |g: u32, b: u32, s: hipStream_t, params: *mut *mut c_void| {
            status!((api().hipModuleLaunchKernel)(f, g, 1, 1, b, 1, 1, 0, s, params, null_mut()))
        };
        // Zero dimensions: InvalidValue, except on 6.x (InvalidConfiguration).
        let zero =
            if hip_major() == 6 { hipError_t::hipErrorInvalidConfiguration } else { hipError_t::hipErrorInvalidValue };
        assert_eq!(launch(0, 16, null_mut(), params.as_mut_ptr()), zero);
        assert_eq!(launch(1, 0, null_mut(), params.as_mut_ptr()), zero);
        assert_eq!(launch(1, 2048, null_mut(), params.as_mut_ptr()), hipError_t::hipErrorInvalidValue);
        assert_eq!(launch(1, 16, null_mut(), null_mut()), hipError_t::hipErrorInvalidValue);
        set_device(1);
        let s1 = stream();
        // The module lives on device 0.
        assert_eq!(launch(1, 16, s1, params.as_mut_ptr()), hipError_t::hipErrorInvalidDevice);
        let mut g = null_mut();
        assert_eq!(
            status!((api().hipModuleGetFunction)(&mut g, m, c"fill_f32".as_ptr())),
            hipError_t::hipErrorInvalidDevice
        );
        ok!((api().hipStreamDestroy)(s1));
        set_device(0);
        assert_eq!(launch(1, 16, null_mut(), params.as_mut_ptr()), hipError_t::hipSuccess);
        assert_eq!(download(p, 16), vec![1.5; 16]);
        ok!((api().hipModuleUnload)(m));
        assert_eq!(status!((api().hipModuleUnload)(m)), hipError_t::hipErrorNotFound);
        ok!((api().hipFree)(p));
    });
    let v = violations_of("bad-launch");
    assert!(v.iter().any(|v| v.function == "hipModuleGetFunction"), "{v:?}");
}

#[test]
fn a_kernel_outside_its_memory_is_a_sticky_illegal_address() {
    let _x = sim::exclusive();
    on_thread("fault", || {
        let m = module(&["fill_u32"]);
        let f = function(m, "fill_u32");
        let p = malloc(256);
        let (mut pp, mut v, mut n) = (p, 7u32, 1000u32); // 4000 bytes into 256
        let mut params: [*mut c_void; 3] =
            [(&mut pp as *mut *mut c_void).cast(), (&mut v as *mut u32).cast(), (&mut n as *mut u32).cast()];
        ok!((api().hipModuleLaunchKernel)(f, 4, 1, 1, 256, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()));
        assert_eq!(status!((api().hipDeviceSynchronize)()), hipError_t::hipErrorIllegalAddress);
        assert_eq!(status!((api().hipGetDevice)(&mut 0)), hipError_t::hipErrorIllegalAddress);
        sim::reset_faults();
        ok!((api().hipModuleUnload)(m));
        ok!((api().hipFree)(p));
    });
}

#[test]
fn streams_run_in_order_and_wait_on_events_across_devices() {
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

fn pool_attr(pool: hip_sys::hipMemPool_t, attr: hip_sys::hipMemPoolAttr) -> u64 {
    let mut v = 0u64;
    ok!((api().hipMemPoolGetAttribute)(pool, attr, (&mut v as *mut u64).cast()));
    v
}

#[test]
fn stream_ordered_memory_follows_the_release_threshold() {
    use hip_sys::hipMemPoolAttr as A;
    let _x = sim::exclusive();
    on_thread("async", || {
        set_device(1);
        let s = stream();
        let mut pool = null_mut();
        ok!((api().hipDeviceGetDefaultMemPool)(&mut pool, 1));
        let base = sim::live_allocations(1);
        let mut p = null_mut();
        ok!((api().hipMallocAsync)(&mut p, 1 << 20, s));
        assert_eq!(pool_attr(pool, A::hipMemPoolAttrUsedMemCurrent), 1 << 20);
        ok!((api().hipFreeAsync)(p, s));
        assert_eq!(status!((api().hipFreeAsync)(p, s)), hipError_t::hipErrorInvalidValue);
        // Threshold 0 (the default): released at the next synchronize.
        ok!((api().hipStreamSynchronize)(s));
        assert_eq!(pool_attr(pool, A::hipMemPoolAttrReservedMemCurrent), 0);
        assert_eq!(sim::live_allocations(1), base);
        // Threshold at maximum: kept and reused until trimmed.
        let mut max = u64::MAX;
        ok!((api().hipMemPoolSetAttribute)(pool, A::hipMemPoolAttrReleaseThreshold, (&mut max as *mut u64).cast()));
        ok!((api().hipMallocAsync)(&mut p, 1 << 20, s));
        ok!((api().hipFreeAsync)(p, s));
        ok!((api().hipStreamSynchronize)(s));
        assert_eq!(pool_attr(pool, A::hipMemPoolAttrReservedMemCurrent), 1 << 20);
        assert_eq!(sim::live_allocations(1), base + 1);
        let mut q = null_mut();
        ok!((api().hipMallocAsync)(&mut q, 1 << 20, s));
        assert_eq!(q, p, "the cached block is reused");
        ok!((api().hipFreeAsync)(q, s));
        ok!((api().hipStreamSynchronize)(s));
        ok!((api().hipMemPoolTrimTo)(pool, 0));
        assert_eq!(sim::live_allocations(1), base);
        let mut zero = 0u64;
        ok!((api().hipMemPoolSetAttribute)(pool, A::hipMemPoolAttrReleaseThreshold, (&mut zero as *mut u64).cast()));
        ok!((api().hipStreamDestroy)(s));
    });
    assert!(violations_of("async").is_empty());
}

#[test]
fn many_threads_see_consistent_state() {
    let _x = sim::exclusive();
    let devices = sim::configured_devices();
    let before: Vec<usize> = (0..devices).map(sim::live_allocations).collect();
    let threads: Vec<_> = (0..16)
        .map(|t| {
            std::thread::Builder::new()
                .name(format!("many-{t}"))
                .spawn(move || {
                    for i in 0..50 {
                        let d = (t + i) % devices;
                        set_device(d as i32);
                        let data: Vec<f32> = (0..256).map(|k| (t * 1000 + i * 10 + k) as f32).collect();
                        let p = upload(&data);
                        assert_eq!(get_device(), d as i32);
                        let s = stream();
                        let mut back = vec![0f32; 256];
                        ok!((api().hipMemcpyAsync)(
                            back.as_mut_ptr().cast(),
                            p,
                            1024,
                            hipMemcpyKind::hipMemcpyDeviceToHost,
                            s
                        ));
                        ok!((api().hipStreamSynchronize)(s));
                        assert_eq!(back, data);
                        ok!((api().hipStreamDestroy)(s));
                        ok!((api().hipFree)(p));
                    }
                })
                .expect("spawn")
        })
        .collect();
    for t in threads {
        t.join().expect("worker");
    }
    let after: Vec<usize> = (0..devices).map(sim::live_allocations).collect();
    assert_eq!(after, before);
    assert!(sim::violations().iter().all(|v| !v.thread.starts_with("many-")));
}

#[test]
fn pointer_attributes_and_error_names() {
    let _x = sim::exclusive();
    on_thread("attrs", || {
        set_device(1);
        let p = malloc(64);
        // SAFETY: an all-zero pointer-attribute struct is valid plain data.
        let mut attrs: hip_sys::hipPointerAttribute_t = unsafe { std::mem::zeroed() };
        ok!((api().hipPointerGetAttributes)(&mut attrs, p));
        assert_eq!(attrs.device, 1);
        // SAFETY: reading the union field the simulator wrote.
        let memory_type = unsafe { attrs.__bindgen_anon_1.type_ };
        assert_eq!(memory_type, hip_sys::hipMemoryType::hipMemoryTypeDevice);
        ok!((api().hipFree)(p));
        // SAFETY: hipGetErrorName returns a static NUL-terminated string.
        let name = unsafe { std::ffi::CStr::from_ptr((api().hipGetErrorName)(hipError_t::hipErrorInvalidDevice)) };
        assert_eq!(name.to_str().unwrap(), "hipErrorInvalidDevice");
        // SAFETY: as above.
        let unknown = unsafe { std::ffi::CStr::from_ptr((api().hipGetErrorName)(hipError_t(4242))) };
        assert_eq!(unknown.to_str().unwrap(), "hipErrorUnknown");
    });
}

/// Set in the child process that checks HIP's no-device behaviour.
const NO_DEVICE_CHILD: &str = "HIP_SIM_NO_DEVICE_CHILD";

#[test]
#[ignore = "helper: runs in a child process with AMDGPU_SIM_DEVICES=0"]
fn child_without_devices() {
    if std::env::var_os(NO_DEVICE_CHILD).is_none() {
        return;
    }
    let mut n = -1;
    assert_eq!(status!((api().hipGetDeviceCount)(&mut n)), hipError_t::hipErrorNoDevice);
    assert_eq!(n, 0, "HIP writes 0 and reports hipErrorNoDevice");
    let mut p = null_mut();
    assert_eq!(status!((api().hipMalloc)(&mut p, 64)), hipError_t::hipErrorNoDevice);
    assert_eq!(status!((api().hipSetDevice)(0)), hipError_t::hipErrorNoDevice);
    assert_eq!(status!((api().hipGetDevice)(&mut n)), hipError_t::hipErrorNoDevice);
}

#[test]
fn no_devices_gives_hip_no_device() {
    let exe = std::env::current_exe().expect("test binary");
    let output = std::process::Command::new(exe)
        .args(["--exact", "child_without_devices", "--ignored", "--test-threads=1"])
        .env("AMDGPU_SIM_DEVICES", "0")
        .env(NO_DEVICE_CHILD, "1")
        .output()
        .expect("child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("1 passed"), "{stdout}");
}

// ---- memory fidelity: what waits, what is checked (research: clr 5.7-7.x) ----

/// Whether `f`, run on a fresh thread while `hold` holds a stream, waits
/// for that stream: it has not returned after a while. The hold is then
/// released and `f` finishes either way.
fn waits_for_hold(hold: sim::StreamHold, f: impl FnOnce() + Send + 'static) -> bool {
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("held-call".into())
        .spawn(move || {
            f();
            let _ = done.send(());
        })
        .expect("spawn");
    let waited = finished.recv_timeout(std::time::Duration::from_millis(300)).is_err();
    hold.release();
    worker.join().expect("held call panicked");
    waited
}

/// A stream held still on `device` (a new stream of it, created on this thread).
fn held_stream_on(device: i32) -> (hipStream_t, sim::StreamHold) {
    let previous = get_device();
    set_device(device);
    let s = stream();
    let hold = sim::hold_stream(s).expect("hold");
    set_device(previous);
    (s, hold)
}

fn destroy_stream(s: hipStream_t) {
    ok!((api().hipStreamDestroy)(s));
}

#[test]
fn hip_free_of_pool_memory_waits_only_before_hip_7_and_free_waits_for_its_device_only() {
    let _x = sim::exclusive();
    on_thread("free-sync", || {
        set_device(1);
        let s = stream();
        let mut p = null_mut();
        ok!((api().hipMallocAsync)(&mut p, 4096, s));
        ok!((api().hipStreamSynchronize)(s));
        let (held, hold) = held_stream_on(1);
        let address = p as usize;
        let waited = waits_for_hold(hold, move || {
            set_device(1);
            ok!((api().hipFree)(address as *mut c_void));
        });
        assert_eq!(waited, hip_major() < 7, "hipFree of pool memory syncs the device on HIP 5/6 only");
        destroy_stream(held);
        // Ordinary memory: its own device's streams, not another device's.
        let q = malloc(4096) as usize;
        let (held0, hold0) = held_stream_on(0);
        assert!(!waits_for_hold(hold0, move || {
            set_device(1);
            ok!((api().hipFree)(q as *mut c_void));
        }));
        let r = malloc(4096) as usize;
        let (held1, hold1) = held_stream_on(1);
        assert!(waits_for_hold(hold1, move || {
            set_device(1);
            ok!((api().hipFree)(r as *mut c_void));
        }));
        destroy_stream(held0);
        destroy_stream(held1);
        destroy_stream(s);
    });
}

#[test]
fn host_free_waits_for_the_device_current_at_allocation_only() {
    let _x = sim::exclusive();
    on_thread("host-free", || {
        set_device(1);
        let mut h = null_mut();
        ok!((api().hipHostMalloc)(&mut h, 4096, 0));
        let address = h as usize;
        let (held0, hold0) = held_stream_on(0);
        assert!(!waits_for_hold(hold0, move || ok!((api().hipHostFree)(address as *mut c_void))));
        ok!((api().hipHostMalloc)(&mut h, 4096, 0));
        let address = h as usize;
        let (held1, hold1) = held_stream_on(1);
        // Freed from device 0: still device 1 (the allocating one) is waited for.
        assert!(waits_for_hold(hold1, move || ok!((api().hipHostFree)(address as *mut c_void))));
        destroy_stream(held0);
        destroy_stream(held1);
    });
}

#[test]
fn same_device_copies_and_fills_from_the_base_return_before_they_run() {
    let _x = sim::exclusive();
    on_thread("async-memops", || {
        let n = 256;
        let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let a = upload(&data) as usize;
        let b = malloc(n * 4) as usize;
        // The null stream of device 0, held: calls that wait for it do not return.
        let hold = || sim::hold_stream(null_mut()).expect("hold the null stream");
        let d2d = move || ok!((api().hipMemcpy)(b as _, a as _, n * 4, hipMemcpyKind::hipMemcpyDeviceToDevice));
        assert!(!waits_for_hold(hold(), d2d), "same-device D2D hipMemcpy is host-asynchronous");
        ok!((api().hipDeviceSynchronize)());
        assert_eq!(download(b as _, n), data);
        let base_fill = move || ok!((api().hipMemset)(b as _, 0, n * 4));
        assert!(!waits_for_hold(hold(), base_fill), "hipMemset at the base is host-asynchronous");
        let base_fill32 = move || ok!((api().hipMemsetD32)(b as _, 7, n));
        assert!(!waits_for_hold(hold(), base_fill32), "hipMemsetD32 at the base is host-asynchronous");
        // Inside b's 1024 bytes.
        let inner = b + 512;
        let inner_fill = move || ok!((api().hipMemset)(inner as _, 1, 256));
        assert!(waits_for_hold(hold(), inner_fill), "hipMemset of an interior pointer blocks");
        let mut words = vec![0u32; n];
        ok!((api().hipMemcpy)(words.as_mut_ptr().cast(), b as _, n * 4, hipMemcpyKind::hipMemcpyDeviceToHost));
        let expected: Vec<u32> = (0..n).map(|i| if (128..192).contains(&i) { 0x0101_0101 } else { 7 }).collect();
        assert_eq!(words, expected);
        // Pinned host memory can be filled, and the fill blocks.
        let mut h = null_mut();
        ok!((api().hipHostMalloc)(&mut h, 64, 0));
        let host = h as usize;
        assert!(waits_for_hold(hold(), move || ok!((api().hipMemset)(host as _, 0xab, 64))));
        // SAFETY: h is 64 live bytes of pinned memory, filled and synchronized.
        assert!(unsafe { std::slice::from_raw_parts(h as *const u8, 64) }.iter().all(|b| *b == 0xab));
        ok!((api().hipHostFree)(h));
        // Host to device, and device to device across devices: they wait.
        let h2d = move || {
            let src = [1.0f32; 4];
            ok!((api().hipMemcpy)(b as _, src.as_ptr().cast(), 16, hipMemcpyKind::hipMemcpyHostToDevice));
        };
        assert!(waits_for_hold(hold(), h2d));
        set_device(1);
        let c = malloc(n * 4) as usize;
        set_device(0);
        let across = move || ok!((api().hipMemcpy)(b as _, c as _, n * 4, hipMemcpyKind::hipMemcpyDefault));
        assert!(waits_for_hold(hold(), across));
        ok!((api().hipFree)(a as _));
        ok!((api().hipFree)(b as _));
        set_device(1);
        ok!((api().hipFree)(c as _));
    });
}

#[test]
fn copy_bounds_are_the_requested_size_not_the_rounded_one() {
    let _x = sim::exclusive();
    on_thread("bounds", || {
        let p = malloc(16);
        let host = [0u8; 64];
        let kind = hipMemcpyKind::hipMemcpyDefault;
        ok!((api().hipMemcpy)(p, host.as_ptr().cast(), 16, kind));
        assert_eq!(status!((api().hipMemcpy)(p, host.as_ptr().cast(), 17, kind)), hipError_t::hipErrorInvalidValue);
        assert_eq!(status!((api().hipMemset)(p, 0, 17)), hipError_t::hipErrorInvalidValue);
        // SAFETY: address arithmetic, 8 bytes into the allocation.
        let inner = unsafe { p.cast::<u8>().add(8) };
        assert_eq!(status!((api().hipMemset)(inner.cast(), 0, 9)), hipError_t::hipErrorInvalidValue);
        ok!((api().hipMemset)(inner.cast(), 0, 8));
        let mut h = null_mut();
        ok!((api().hipHostMalloc)(&mut h, 16, 0));
        assert_eq!(status!((api().hipMemset)(h, 0, 17)), hipError_t::hipErrorInvalidValue);
        ok!((api().hipHostFree)(h));
        // A pool block reused for a smaller request takes that request's size.
        let s = stream();
        let mut pool = null_mut();
        ok!((api().hipDeviceGetDefaultMemPool)(&mut pool, 0));
        let mut max = u64::MAX;
        let threshold = hip_sys::hipMemPoolAttr::hipMemPoolAttrReleaseThreshold;
        ok!((api().hipMemPoolSetAttribute)(pool, threshold, (&mut max as *mut u64).cast()));
        let (mut a, mut b) = (null_mut(), null_mut());
        ok!((api().hipMallocAsync)(&mut a, 64, s));
        ok!((api().hipFreeAsync)(a, s));
        ok!((api().hipStreamSynchronize)(s));
        ok!((api().hipMallocAsync)(&mut b, 16, s));
        assert_eq!(a, b, "the block is reused");
        assert_eq!(status!((api().hipMemcpy)(b, host.as_ptr().cast(), 17, kind)), hipError_t::hipErrorInvalidValue);
        ok!((api().hipFreeAsync)(b, s));
        ok!((api().hipStreamSynchronize)(s));
        ok!((api().hipMemPoolTrimTo)(pool, 0));
        let mut zero = 0u64;
        ok!((api().hipMemPoolSetAttribute)(pool, threshold, (&mut zero as *mut u64).cast()));
        destroy_stream(s);
        ok!((api().hipFree)(p));
    });
}

fn pointer_attributes(p: *const c_void) -> Result<hip_sys::hipPointerAttribute_t, hipError_t> {
    // SAFETY: an all-zero pointer-attribute struct is valid plain data.
    let mut attrs: hip_sys::hipPointerAttribute_t = unsafe { std::mem::zeroed() };
    match status!((api().hipPointerGetAttributes)(&mut attrs, p)) {
        hipError_t::hipSuccess => Ok(attrs),
        error => Err(error),
    }
}

#[test]
fn pointer_attributes_of_interior_pointers_and_unknown_ones() {
    use hip_sys::hipMemoryType as T;
    let _x = sim::exclusive();
    on_thread("interior", || {
        set_device(1);
        let p = malloc(1024);
        // SAFETY: address arithmetic inside the allocation.
        let inner = unsafe { p.cast::<u8>().add(100) }.cast::<c_void>();
        let attrs = pointer_attributes(inner).expect("an interior device pointer is known");
        // SAFETY: the union field the simulator writes.
        assert_eq!(unsafe { attrs.__bindgen_anon_1.type_ }, T::hipMemoryTypeDevice);
        assert_eq!((attrs.device, attrs.devicePointer, attrs.hostPointer), (1, inner, null_mut()));
        let flags = 0x1 | 0x2; // Portable | Mapped
        let mut h = null_mut();
        ok!((api().hipHostMalloc)(&mut h, 1024, flags));
        set_device(0);
        // SAFETY: address arithmetic inside the allocation.
        let inner = unsafe { h.cast::<u8>().add(100) }.cast::<c_void>();
        let attrs = pointer_attributes(inner).expect("an interior pinned pointer is known");
        // SAFETY: the union field the simulator writes.
        assert_eq!(unsafe { attrs.__bindgen_anon_1.type_ }, T::hipMemoryTypeHost);
        assert_eq!(attrs.device, 1, "the device current at hipHostMalloc, not now");
        assert_eq!((attrs.devicePointer, attrs.hostPointer), (inner, inner));
        assert_eq!(attrs.allocationFlags, flags);
        ok!((api().hipHostFree)(h));
        let local = 0u64;
        let unknown = pointer_attributes((&local as *const u64).cast());
        if hip_major() < 6 {
            assert_eq!(unknown.err(), Some(hipError_t::hipErrorInvalidValue));
        } else {
            let attrs = unknown.expect("HIP 6 answers unknown pointers with success");
            assert_eq!((attrs.device, attrs.devicePointer, attrs.hostPointer), (-2, null_mut(), null_mut()));
            // SAFETY: the union field the simulator writes.
            assert_eq!(unsafe { attrs.__bindgen_anon_1.type_ }.0, 0, "HIP 6's hipMemoryTypeUnregistered");
        }
        set_device(1);
        ok!((api().hipFree)(p));
    });
}

#[test]
fn host_malloc_rejects_coherent_with_non_coherent_and_accepts_unknown_bits() {
    const COHERENT: u32 = 0x4000_0000;
    const NON_COHERENT: u32 = 0x8000_0000;
    const UNCACHED: u32 = 0x1000_0000;
    let _x = sim::exclusive();
    on_thread("host-flags", || {
        let mut h = null_mut();
        assert_eq!(
            status!((api().hipHostMalloc)(&mut h, 64, COHERENT | NON_COHERENT)),
            hipError_t::hipErrorInvalidValue
        );
        ok!((api().hipHostMalloc)(&mut h, 64, 0x100));
        assert!(!h.is_null());
        ok!((api().hipHostFree)(h));
        ok!((api().hipHostMalloc)(&mut h, 0, 0));
        assert!(h.is_null());
        // Size 0 with bad flags: 5.7 checks the flags first, 6.3 and later the size.
        let zero_bad = status!((api().hipHostMalloc)(&mut h, 0, COHERENT | NON_COHERENT));
        let expected = if hip_major() < 6 { hipError_t::hipErrorInvalidValue } else { hipError_t::hipSuccess };
        assert_eq!(zero_bad, expected);
        let uncached = status!((api().hipHostMalloc)(&mut h, 64, UNCACHED | COHERENT));
        if hip_major() >= 7 {
            assert_eq!(uncached, hipError_t::hipErrorInvalidValue);
        } else {
            assert_eq!(uncached, hipError_t::hipSuccess);
            ok!((api().hipHostFree)(h));
        }
        assert_eq!(status!((api().hipHostMalloc)(null_mut(), 64, 0)), hipError_t::hipErrorInvalidValue);
    });
}

/// Launch `fill_u32(p, value, n)` on the current device's null stream and synchronize.
fn fill_u32_on_null_stream(p: *mut c_void, value: u32, n: u32) -> hipError_t {
    let m = module(&["fill_u32"]);
    let f = function(m, "fill_u32");
    let (mut pp, mut v, mut nn) = (p, value, n);
    let mut params: [*mut c_void; 3] =
        [(&mut pp as *mut *mut c_void).cast(), (&mut v as *mut u32).cast(), (&mut nn as *mut u32).cast()];
    ok!((api().hipModuleLaunchKernel)(f, 1, 1, 1, 64, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()));
    let status = status!((api().hipDeviceSynchronize)());
    sim::reset_faults();
    ok!((api().hipModuleUnload)(m));
    status
}

#[test]
fn a_kernel_touching_another_devices_memory_needs_peer_access() {
    let _x = sim::exclusive();
    on_thread("peer", || {
        set_device(1);
        let remote = malloc(256);
        set_device(0);
        let mut can = 0;
        ok!((api().hipDeviceCanAccessPeer)(&mut can, 0, 1));
        assert_eq!(can, 1);
        assert_eq!(fill_u32_on_null_stream(remote, 5, 64), hipError_t::hipErrorIllegalAddress);
        let found = violations_of("peer");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, sim::ViolationKind::PeerAccess);
        assert_eq!((found[0].object_device, found[0].current_device), (1, 0));
        ok!((api().hipDeviceEnablePeerAccess)(1, 0));
        assert_eq!(status!((api().hipDeviceEnablePeerAccess)(1, 0)), hipError_t::hipErrorPeerAccessAlreadyEnabled);
        assert_eq!(fill_u32_on_null_stream(remote, 5, 64), hipError_t::hipSuccess);
        let mut out = vec![0u32; 64];
        set_device(1);
        ok!((api().hipMemcpy)(out.as_mut_ptr().cast(), remote, 256, hipMemcpyKind::hipMemcpyDeviceToHost));
        set_device(0);
        assert_eq!(out, vec![5; 64]);
        ok!((api().hipDeviceDisablePeerAccess)(1));
        assert_eq!(status!((api().hipDeviceDisablePeerAccess)(1)), hipError_t::hipErrorPeerAccessNotEnabled);
        assert_eq!(fill_u32_on_null_stream(remote, 6, 64), hipError_t::hipErrorIllegalAddress);
        let peer_faults = violations_of("peer").iter().filter(|v| v.kind == sim::ViolationKind::PeerAccess).count();
        assert_eq!(peer_faults, 2);
        set_device(1);
        ok!((api().hipFree)(remote));
    });
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
