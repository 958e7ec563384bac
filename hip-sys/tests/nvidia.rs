//! The nvidia backend on a real NVIDIA GPU.
//!
//! Every test returns early, printing "skipped: set AMDGPU_BACKEND=nvidia",
//! unless `AMDGPU_BACKEND=nvidia` is set; then the backend must load and
//! every test must pass:
//!
//! ```sh
//! AMDGPU_BACKEND=nvidia cargo test -p hip-sys --test nvidia -- --nocapture
//! ```

use std::ffi::{c_int, c_uint, c_void, CStr};
use std::ptr::null_mut;

use hip_sys::bindings::hip::{
    hipCtx_t, hipDeviceAttribute_t as Attr, hipError_t as E, hipEvent_t, hipFunction_t, hipMemPool_t, hipMemcpyKind,
    hipMemoryType, hipModule_t, hipPointerAttribute_t, hipStream_t, HipApi,
};

mod nvidia_common;
use nvidia_common::{api, device_alloc, device_count, ok, to_device, to_host};

/// The PTX of `hip-sys/kernels/test_kernels.cu`.
const PTX: &str = include_str!("../kernels/test_kernels.ptx");

/// Load the test kernels' PTX as a module (NUL-terminated, as
/// `cuModuleLoadData` requires for PTX).
fn load_test_kernels(api: &HipApi) -> hipModule_t {
    let image = format!("{PTX}\0");
    let mut module: hipModule_t = null_mut();
    ok!((api.hipModuleLoadData)(&mut module, image.as_ptr().cast()));
    assert!(!module.is_null());
    module
}

fn function(api: &HipApi, module: hipModule_t, name: &CStr) -> hipFunction_t {
    let mut f: hipFunction_t = null_mut();
    ok!((api.hipModuleGetFunction)(&mut f, module, name.as_ptr()));
    assert!(!f.is_null());
    f
}

/// Launch `f` over `n` threads in blocks of 256 on `stream`.
fn launch(api: &HipApi, f: hipFunction_t, n: u32, stream: hipStream_t, args: &mut [*mut c_void]) {
    let blocks = n.div_ceil(256);
    ok!((api.hipModuleLaunchKernel)(f, blocks, 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), null_mut()));
}

#[test]
fn at_least_one_device() {
    let Some(api) = api() else { return };
    assert!(device_count(api) >= 1);
    let mut name = [0 as std::ffi::c_char; 256];
    ok!((api.hipDeviceGetName)(name.as_mut_ptr(), 256, 0));
    // SAFETY: the driver wrote a NUL-terminated name.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) };
    println!("device 0: {}", name.to_string_lossy());
    assert!(!name.is_empty());
}

#[test]
fn versions_are_cudas() {
    let Some(api) = api() else { return };
    let (mut driver, mut runtime) = (0, 0);
    ok!((api.hipDriverGetVersion)(&mut driver));
    ok!((api.hipRuntimeGetVersion)(&mut runtime));
    println!("CUDA driver {driver}, runtime {runtime}");
    // 1000 * major + 10 * minor: CUDA 12.0 is 12000.
    assert!((12_000..100_000).contains(&runtime), "{runtime}");
    assert!(driver >= runtime, "driver {driver} older than runtime {runtime}");
    assert_eq!(runtime % 10, 0);
}

#[test]
fn malloc_memcpy_round_trip() {
    let Some(api) = api() else { return };
    let values: Vec<u32> = (0..1 << 16).collect();
    let d = to_device(api, &values);
    let d2 = device_alloc::<u32>(api, values.len());
    ok!((api.hipMemcpy)(d2.cast(), d.cast(), values.len() * 4, hipMemcpyKind::hipMemcpyDefault));
    assert_eq!(to_host(api, d2, values.len()), values);
    let (mut free, mut total) = (0, 0);
    ok!((api.hipMemGetInfo)(&mut free, &mut total));
    assert!(free > 0 && free <= total);
    ok!((api.hipFree)(d.cast()));
    ok!((api.hipFree)(d2.cast()));
    ok!((api.hipFree)(null_mut()));
}

#[test]
fn memset_and_memset_d32() {
    let Some(api) = api() else { return };
    let n = 4096;
    let d = device_alloc::<u32>(api, n);
    ok!((api.hipMemset)(d.cast(), 0xAB, n * 4));
    assert!(to_host(api, d, n).iter().all(|&v| v == 0xABAB_ABAB));
    ok!((api.hipMemsetD32)(d.cast(), 0x1234_5678, n));
    assert!(to_host(api, d, n).iter().all(|&v| v == 0x1234_5678));
    let mut stream: hipStream_t = null_mut();
    ok!((api.hipStreamCreate)(&mut stream));
    ok!((api.hipMemsetD32Async)(d.cast(), 7, n, stream));
    ok!((api.hipMemsetAsync)(d.cast(), 0, 4, stream));
    ok!((api.hipStreamSynchronize)(stream));
    let host = to_host(api, d, n);
    assert_eq!(host[0], 0);
    assert!(host[1..].iter().all(|&v| v == 7));
    ok!((api.hipStreamDestroy)(stream));
    ok!((api.hipFree)(d.cast()));
}

#[test]
fn events_time_real_work_on_a_stream() {
    let Some(api) = api() else { return };
    let n = 64 << 20; // 64 Mi floats: 256 MiB each way
    let host = vec![1.0f32; n];
    let d = device_alloc::<f32>(api, n);
    let mut stream: hipStream_t = null_mut();
    ok!((api.hipStreamCreateWithFlags)(&mut stream, hip_sys::bindings::hip::hipStreamNonBlocking));
    let mut flags: c_uint = 99;
    ok!((api.hipStreamGetFlags)(stream, &mut flags));
    assert_eq!(flags, hip_sys::bindings::hip::hipStreamNonBlocking);
    let (mut start, mut stop): (hipEvent_t, hipEvent_t) = (null_mut(), null_mut());
    ok!((api.hipEventCreate)(&mut start));
    ok!((api.hipEventCreateWithFlags)(&mut stop, hip_sys::bindings::hip::hipEventDefault));
    ok!((api.hipEventRecord)(start, stream));
    ok!((api.hipMemcpyAsync)(d.cast(), host.as_ptr().cast(), n * 4, hipMemcpyKind::hipMemcpyHostToDevice, stream));
    ok!((api.hipEventRecord)(stop, stream));
    ok!((api.hipEventSynchronize)(stop));
    ok!((api.hipEventQuery)(stop));
    ok!((api.hipStreamQuery)(stream));
    let mut ms = 0.0f32;
    ok!((api.hipEventElapsedTime)(&mut ms, start, stop));
    println!("256 MiB host to device: {ms} ms");
    assert!(ms > 0.0 && ms < 10_000.0, "{ms}");
    ok!((api.hipEventDestroy)(start));
    ok!((api.hipEventDestroy)(stop));
    ok!((api.hipStreamDestroy)(stream));
    ok!((api.hipFree)(d.cast()));
}

#[test]
fn malloc_async_on_one_stream_free_async_on_another() {
    let Some(api) = api() else { return };
    let (mut s1, mut s2): (hipStream_t, hipStream_t) = (null_mut(), null_mut());
    ok!((api.hipStreamCreate)(&mut s1));
    ok!((api.hipStreamCreate)(&mut s2));
    let mut p: *mut c_void = null_mut();
    ok!((api.hipMallocAsync)(&mut p, 1 << 20, s1));
    assert!(!p.is_null());
    ok!((api.hipMemsetAsync)(p, 0, 1 << 20, s1));
    let mut done: hipEvent_t = null_mut();
    ok!((api.hipEventCreateWithFlags)(&mut done, hip_sys::bindings::hip::hipEventDisableTiming));
    ok!((api.hipEventRecord)(done, s1));
    ok!((api.hipStreamWaitEvent)(s2, done, 0));
    ok!((api.hipFreeAsync)(p, s2));
    ok!((api.hipStreamSynchronize)(s2));

    let mut pool: hipMemPool_t = null_mut();
    ok!((api.hipDeviceGetDefaultMemPool)(&mut pool, 0));
    let mut threshold = u64::MAX;
    ok!((api.hipMemPoolSetAttribute)(
        pool,
        hip_sys::bindings::hip::hipMemPoolAttr::hipMemPoolAttrReleaseThreshold,
        (&mut threshold as *mut u64).cast()
    ));
    let mut read = 0u64;
    ok!((api.hipMemPoolGetAttribute)(
        pool,
        hip_sys::bindings::hip::hipMemPoolAttr::hipMemPoolAttrReleaseThreshold,
        (&mut read as *mut u64).cast()
    ));
    assert_eq!(read, u64::MAX);
    ok!((api.hipMemPoolTrimTo)(pool, 0));

    let props = hip_sys::bindings::hip::hipMemPoolProps {
        allocType: hip_sys::bindings::hip::hipMemAllocationType::hipMemAllocationTypePinned,
        location: hip_sys::bindings::hip::hipMemLocation {
            type_: hip_sys::bindings::hip::hipMemLocationType::hipMemLocationTypeDevice,
            id: 0,
        },
        ..Default::default()
    };
    let mut own: hipMemPool_t = null_mut();
    ok!((api.hipMemPoolCreate)(&mut own, &props));
    let mut q: *mut c_void = null_mut();
    ok!((api.hipMallocFromPoolAsync)(&mut q, 4096, own, s1));
    ok!((api.hipFreeAsync)(q, s1));
    ok!((api.hipStreamSynchronize)(s1));
    ok!((api.hipMemPoolDestroy)(own));

    ok!((api.hipEventDestroy)(done));
    ok!((api.hipStreamDestroy)(s1));
    ok!((api.hipStreamDestroy)(s2));
}

#[test]
fn pointer_attributes_translate_the_memory_type() {
    let Some(api) = api() else { return };
    let d = device_alloc::<u8>(api, 256);
    let mut attrs = hipPointerAttribute_t::default();
    ok!((api.hipPointerGetAttributes)(&mut attrs, d.cast()));
    // SAFETY: both union members are the same enum.
    let memory_type = unsafe { attrs.__bindgen_anon_1.type_ };
    assert_eq!(memory_type, hipMemoryType::hipMemoryTypeDevice);
    assert_eq!(attrs.device, 0);
    assert_eq!(attrs.devicePointer, d.cast());
    assert_eq!(attrs.isManaged, 0);

    let mut h: *mut c_void = null_mut();
    ok!((api.hipHostMalloc)(&mut h, 256, 0));
    ok!((api.hipPointerGetAttributes)(&mut attrs, h));
    // SAFETY: as above.
    let memory_type = unsafe { attrs.__bindgen_anon_1.type_ };
    assert_eq!(memory_type, hipMemoryType::hipMemoryTypeHost);
    ok!((api.hipHostFree)(h));

    let plain = [0u8; 16];
    // SAFETY: valid pointers.
    let status = unsafe { (api.hipPointerGetAttributes)(&mut attrs, plain.as_ptr().cast()) };
    assert_eq!(status, E::hipErrorInvalidValue, "unregistered host memory");
    ok!((api.hipFree)(d.cast()));
}

#[test]
fn out_of_range_device_is_invalid_device() {
    let Some(api) = api() else { return };
    let count = device_count(api);
    // SAFETY: no pointers.
    let status = unsafe { (api.hipSetDevice)(count) };
    assert_eq!(status, E::hipErrorInvalidDevice);
    let mut v = 0;
    // SAFETY: valid out-pointer.
    let status = unsafe { (api.hipDeviceGetAttribute)(&mut v, Attr::hipDeviceAttributeWarpSize, count) };
    assert_eq!(status, E::hipErrorInvalidDevice);
    // SAFETY: valid out-pointer.
    let status = unsafe { (api.hipDeviceGetAttribute)(&mut v, Attr::hipDeviceAttributeGcnArch, count) };
    assert_eq!(status, E::hipErrorInvalidDevice);
    let mut dev = 0;
    // SAFETY: valid out-pointer.
    let status = unsafe { (api.hipDeviceGet)(&mut dev, count) };
    assert_eq!(status, E::hipErrorInvalidDevice);
    // SAFETY: no pointers.
    assert_eq!(unsafe { (api.hipGetLastError)() }, E::hipErrorInvalidDevice);
    // SAFETY: no pointers.
    assert_eq!(unsafe { (api.hipGetLastError)() }, E::hipSuccess);
}

#[test]
fn attributes_map_to_cuda() {
    let Some(api) = api() else { return };
    let get = |attr| {
        let mut v = -1;
        ok!((api.hipDeviceGetAttribute)(&mut v, attr, 0));
        v
    };
    assert_eq!(get(Attr::hipDeviceAttributeWarpSize), 32);
    assert!(get(Attr::hipDeviceAttributeComputeCapabilityMajor) >= 7);
    assert!(get(Attr::hipDeviceAttributeMultiprocessorCount) >= 1);
    assert_eq!(get(Attr::hipDeviceAttributeMaxThreadsPerBlock), 1024);
    assert_eq!(get(Attr::hipDeviceAttributeMemoryPoolsSupported), 1);
    let mut total = 0usize;
    ok!((api.hipDeviceTotalMem)(&mut total, 0));
    let expected = c_int::try_from(total).unwrap_or(c_int::MAX);
    assert_eq!(get(Attr::hipDeviceAttributeTotalGlobalMem), expected);
    let mut v = 0;
    // SAFETY: valid out-pointer.
    let status = unsafe { (api.hipDeviceGetAttribute)(&mut v, Attr::hipDeviceAttributeGcnArch, 0) };
    assert_eq!(status, E::hipErrorInvalidValue, "an attribute CUDA lacks is an invalid value, as on AMD");
    let (mut least, mut greatest) = (0, 0);
    ok!((api.hipDeviceGetStreamPriorityRange)(&mut least, &mut greatest));
    assert!(greatest <= least);
    let mut bus = [0 as std::ffi::c_char; 32];
    ok!((api.hipDeviceGetPCIBusId)(bus.as_mut_ptr(), 32, 0));
}

#[test]
fn contexts_on_a_fresh_thread() {
    let Some(api) = api() else { return };
    std::thread::spawn(move || {
        let mut ctx: hipCtx_t = null_mut();
        ok!((api.hipCtxGetCurrent)(&mut ctx));
        assert!(!ctx.is_null(), "a fresh thread gets the primary context");
        let mut dev = -1;
        ok!((api.hipCtxGetDevice)(&mut dev));
        assert_eq!(dev, 0);
        let mut primary: hipCtx_t = null_mut();
        ok!((api.hipDevicePrimaryCtxRetain)(&mut primary, 0));
        assert_eq!(primary, ctx);
        let (mut flags, mut active) = (0, 0);
        ok!((api.hipDevicePrimaryCtxGetState)(0, &mut flags, &mut active));
        assert_eq!(active, 1);
        ok!((api.hipCtxPushCurrent)(primary));
        let mut popped: hipCtx_t = null_mut();
        ok!((api.hipCtxPopCurrent)(&mut popped));
        assert_eq!(popped, primary);
        ok!((api.hipCtxSetCurrent)(primary));
        ok!((api.hipDevicePrimaryCtxRelease)(0));
    })
    .join()
    .expect("thread");
}

#[test]
fn last_error_after_a_failed_driver_call() {
    let Some(api) = api() else { return };
    // SAFETY: no pointers.
    let _ = unsafe { (api.hipGetLastError)() };
    let module = load_test_kernels(api);
    let mut f: hipFunction_t = null_mut();
    // SAFETY: valid out-pointer, NUL-terminated name.
    let status = unsafe { (api.hipModuleGetFunction)(&mut f, module, c"no_such_kernel".as_ptr()) };
    assert_eq!(status, E::hipErrorNotFound);
    // A later success does not clear it (CUDA and ROCm 7 semantics).
    let mut count = 0;
    ok!((api.hipGetDeviceCount)(&mut count));
    // SAFETY: no pointers.
    assert_eq!(unsafe { (api.hipPeekAtLastError)() }, E::hipErrorNotFound);
    // SAFETY: no pointers.
    assert_eq!(unsafe { (api.hipGetLastError)() }, E::hipErrorNotFound);
    // SAFETY: no pointers.
    assert_eq!(unsafe { (api.hipGetLastError)() }, E::hipSuccess);
    // SAFETY: the returned name is a static C string.
    let name = unsafe { CStr::from_ptr((api.hipGetErrorName)(E::hipErrorNotFound)) };
    assert_eq!(name, c"hipErrorNotFound");
    ok!((api.hipModuleUnload)(module));
}

#[test]
fn kernel_launch_from_ptx() {
    let Some(api) = api() else { return };
    let n: u32 = 10_000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let (da, db) = (to_device(api, &a), to_device(api, &b));
    let dc = device_alloc::<f32>(api, n as usize);
    let module = load_test_kernels(api);

    let add = function(api, module, c"vector_add_f32");
    let (mut pa, mut pb, mut pc, mut pn) = (da, db, dc, n);
    let mut args: [*mut c_void; 4] = [
        (&mut pa as *mut *mut f32).cast(),
        (&mut pb as *mut *mut f32).cast(),
        (&mut pc as *mut *mut f32).cast(),
        (&mut pn as *mut u32).cast(),
    ];
    launch(api, add, n, null_mut(), &mut args);
    ok!((api.hipDeviceSynchronize)());
    let c = to_host(api, dc, n as usize);
    for i in 0..n as usize {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }

    let fill = function(api, module, c"fill_f32");
    let (mut out, mut value, mut count) = (dc, 1.5f32, n);
    let mut args: [*mut c_void; 3] =
        [(&mut out as *mut *mut f32).cast(), (&mut value as *mut f32).cast(), (&mut count as *mut u32).cast()];
    let mut stream: hipStream_t = null_mut();
    ok!((api.hipStreamCreate)(&mut stream));
    launch(api, fill, n, stream, &mut args);
    ok!((api.hipStreamSynchronize)(stream));
    assert!(to_host(api, dc, n as usize).iter().all(|&v| v == 1.5));

    let axpy = function(api, module, c"axpy_f32");
    let (mut alpha, mut x, mut y, mut count) = (2.0f32, da, dc, n);
    let mut args: [*mut c_void; 4] = [
        (&mut alpha as *mut f32).cast(),
        (&mut x as *mut *mut f32).cast(),
        (&mut y as *mut *mut f32).cast(),
        (&mut count as *mut u32).cast(),
    ];
    launch(api, axpy, n, stream, &mut args);
    ok!((api.hipStreamSynchronize)(stream));
    let y = to_host(api, dc, n as usize);
    for i in 0..n as usize {
        assert_eq!(y[i], 2.0 * a[i] + 1.5, "element {i}");
    }

    for name in [c"fill_u32", c"vector_add_f64", c"axpy_f64"] {
        function(api, module, name);
    }
    ok!((api.hipStreamDestroy)(stream));
    ok!((api.hipModuleUnload)(module));
    for p in [da, db, dc] {
        ok!((api.hipFree)(p.cast()));
    }
}
