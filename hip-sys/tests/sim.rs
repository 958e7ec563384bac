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
        // Past the end of the allocation (256-byte rounded).
        assert_eq!(
            status!((api().hipMemcpy)(d1, host.as_ptr().cast(), 257, hipMemcpyKind::hipMemcpyDefault)),
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
