//! The HIP entry points served by the CUDA runtime API: devices by
//! ordinal, streams, events, memory, copies, stream-ordered allocation and
//! memory pools, peers and versions.
//!
//! Most are one call with the status translated. The exceptions:
//! `hipHostMalloc` drops AMD-only flags, `hipMemcpy*` translate HIP 6's
//! `hipMemcpyDeviceToDeviceNoCU`, `hipPointerGetAttributes` renumbers the
//! memory type, `hipMemPoolCreate` converts the properties struct, and
//! `hipSetDevice`/`hipDeviceReset` keep the driver calls' context
//! bookkeeping (see `driver.rs`) up to date.

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::call::{entry, non_null, rt};
use super::driver::{context_bound, device_reset};
use super::objects::{create_in, event_of, stream_of, EVENTS, STREAMS};
use super::types::{
    host_malloc_flags_to_cuda, memcpy_kind_to_cuda, memory_type_from_cuda, pool_props_to_cuda, CudaPointerAttributes,
};
use crate::bindings::hip::{
    hipError_t, hipEvent_t, hipIpcEventHandle_t, hipIpcMemHandle_t, hipMemPoolAttr, hipMemPoolProps, hipMemPool_t,
    hipMemcpyKind, hipPointerAttribute_t, hipStream_t,
};

/// Declares entry points that are a single runtime call with the same
/// arguments (pointers and handles cast to CUDA's opaque types).
macro_rules! pass_through {
    ($(
        $hip:ident($($arg:ident: $ty:ty),*) => $cuda:ident($($expr:expr),*);
    )*) => {$(
        pub(super) unsafe extern "C" fn $hip($($arg: $ty),*) -> hipError_t {
            entry(|f| {
                // SAFETY: the arguments are passed on as the caller gave
                // them, with the C types of the CUDA function, which
                // checks them as HIP would (null out-pointers included).
                rt(unsafe { (f.rt.$cuda)($($expr),*) })
            })
        }
    )*};
}

pass_through! {
    hipDriverGetVersion(v: *mut c_int) => cudaDriverGetVersion(v);
    hipRuntimeGetVersion(v: *mut c_int) => cudaRuntimeGetVersion(v);
    hipGetDeviceCount(count: *mut c_int) => cudaGetDeviceCount(count);
    hipGetDevice(device: *mut c_int) => cudaGetDevice(device);
    hipDeviceSynchronize() => cudaDeviceSynchronize();
    hipDeviceGetPCIBusId(bus_id: *mut c_char, len: c_int, device: c_int)
        => cudaDeviceGetPCIBusId(bus_id, len, device);
    hipDeviceGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int)
        => cudaDeviceGetStreamPriorityRange(least, greatest);
    hipDeviceCanAccessPeer(can: *mut c_int, device: c_int, peer: c_int)
        => cudaDeviceCanAccessPeer(can, device, peer);
    hipDeviceEnablePeerAccess(peer: c_int, flags: c_uint) => cudaDeviceEnablePeerAccess(peer, flags);
    hipDeviceDisablePeerAccess(peer: c_int) => cudaDeviceDisablePeerAccess(peer);
    hipStreamSynchronize(stream: hipStream_t) => cudaStreamSynchronize(stream_of(stream)?);
    hipStreamQuery(stream: hipStream_t) => cudaStreamQuery(stream_of(stream)?);
    hipStreamWaitEvent(stream: hipStream_t, event: hipEvent_t, flags: c_uint)
        => cudaStreamWaitEvent(stream_of(stream)?, event_of(event).map_err(|_| hipError_t::hipErrorInvalidHandle)?, flags);
    hipStreamGetPriority(stream: hipStream_t, priority: *mut c_int)
        => cudaStreamGetPriority(stream_of(stream)?, priority);
    hipStreamGetFlags(stream: hipStream_t, flags: *mut c_uint)
        => cudaStreamGetFlags(stream_of(stream)?, flags);
    hipEventRecord(event: hipEvent_t, stream: hipStream_t)
        => cudaEventRecord(event_of(event)?, stream_of(stream)?);
    hipEventSynchronize(event: hipEvent_t) => cudaEventSynchronize(event_of(event)?);
    hipEventQuery(event: hipEvent_t) => cudaEventQuery(event_of(event)?);
    hipEventElapsedTime(ms: *mut f32, start: hipEvent_t, stop: hipEvent_t)
        => cudaEventElapsedTime(ms, event_of(start)?, event_of(stop)?);
    hipMalloc(ptr: *mut *mut c_void, size: usize) => cudaMalloc(ptr, size);
    hipFree(ptr: *mut c_void) => cudaFree(ptr);
    hipHostFree(ptr: *mut c_void) => cudaFreeHost(ptr);
    // hipHostRegister's flags (Portable 1, Mapped 2, IoMemory 4, ReadOnly 8)
    // are cudaHostRegister's.
    hipHostRegister(ptr: *mut c_void, size: usize, flags: c_uint) => cudaHostRegister(ptr, size, flags);
    hipHostUnregister(ptr: *mut c_void) => cudaHostUnregister(ptr);
    // cudaHostFn_t is `void (*)(void*)`, as hipHostFn_t.
    hipLaunchHostFunc(stream: hipStream_t, function: crate::bindings::hip::hipHostFn_t, user_data: *mut c_void)
        => cudaLaunchHostFunc(stream_of(stream)?, function, user_data);
    hipMemGetInfo(free: *mut usize, total: *mut usize) => cudaMemGetInfo(free, total);
    // The handles are 64 bytes on both; HIP's flag on NVIDIA is
    // cudaIpcMemLazyEnablePeerAccess (1).
    hipIpcGetMemHandle(handle: *mut hipIpcMemHandle_t, ptr: *mut c_void) => cudaIpcGetMemHandle(handle, ptr);
    hipIpcOpenMemHandle(ptr: *mut *mut c_void, handle: hipIpcMemHandle_t, flags: c_uint)
        => cudaIpcOpenMemHandle(ptr, handle, flags);
    hipIpcCloseMemHandle(ptr: *mut c_void) => cudaIpcCloseMemHandle(ptr);
    hipIpcGetEventHandle(handle: *mut hipIpcEventHandle_t, event: hipEvent_t)
        => cudaIpcGetEventHandle(handle, event_of(event).map_err(|_| hipError_t::hipErrorInvalidValue)?);
    hipMemcpy(dst: *mut c_void, src: *const c_void, size: usize, kind: hipMemcpyKind)
        => cudaMemcpy(dst, src, size, memcpy_kind_to_cuda(kind));
    hipMemcpyAsync(dst: *mut c_void, src: *const c_void, size: usize, kind: hipMemcpyKind, stream: hipStream_t)
        => cudaMemcpyAsync(dst, src, size, memcpy_kind_to_cuda(kind), stream_of(stream)?);
    hipMemcpyPeer(dst: *mut c_void, dst_device: c_int, src: *const c_void, src_device: c_int, size: usize)
        => cudaMemcpyPeer(dst, dst_device, src, src_device, size);
    hipMemcpyPeerAsync(dst: *mut c_void, dst_device: c_int, src: *const c_void, src_device: c_int, size: usize, stream: hipStream_t)
        => cudaMemcpyPeerAsync(dst, dst_device, src, src_device, size, stream_of(stream)?);
    hipMemset(dst: *mut c_void, value: c_int, size: usize) => cudaMemset(dst, value, size);
    hipMemsetAsync(dst: *mut c_void, value: c_int, size: usize, stream: hipStream_t)
        => cudaMemsetAsync(dst, value, size, stream_of(stream)?);
    hipMallocAsync(ptr: *mut *mut c_void, size: usize, stream: hipStream_t)
        => cudaMallocAsync(ptr, size, stream_of(stream)?);
    hipFreeAsync(ptr: *mut c_void, stream: hipStream_t) => cudaFreeAsync(ptr, stream_of(stream)?);
    hipMallocFromPoolAsync(ptr: *mut *mut c_void, size: usize, pool: hipMemPool_t, stream: hipStream_t)
        => cudaMallocFromPoolAsync(ptr, size, pool.cast(), stream_of(stream)?);
    hipMemPoolDestroy(pool: hipMemPool_t) => cudaMemPoolDestroy(pool.cast());
    hipMemPoolTrimTo(pool: hipMemPool_t, keep: usize) => cudaMemPoolTrimTo(pool.cast(), keep);
    hipMemPoolSetAttribute(pool: hipMemPool_t, attr: hipMemPoolAttr, value: *mut c_void)
        => cudaMemPoolSetAttribute(pool.cast(), attr.0 as c_int, value);
    hipMemPoolGetAttribute(pool: hipMemPool_t, attr: hipMemPoolAttr, value: *mut c_void)
        => cudaMemPoolGetAttribute(pool.cast(), attr.0 as c_int, value);
    hipDeviceGetDefaultMemPool(pool: *mut hipMemPool_t, device: c_int)
        => cudaDeviceGetDefaultMemPool(pool.cast(), device);
    hipDeviceGetMemPool(pool: *mut hipMemPool_t, device: c_int)
        => cudaDeviceGetMemPool(pool.cast(), device);
    hipDeviceSetMemPool(device: c_int, pool: hipMemPool_t) => cudaDeviceSetMemPool(device, pool.cast());
}

pub(super) unsafe extern "C" fn hipStreamCreate(stream: *mut hipStream_t) -> hipError_t {
    // SAFETY: flags 0 and the default priority, as cudaStreamCreate.
    unsafe { hipStreamCreateWithPriority(stream, 0, 0) }
}

pub(super) unsafe extern "C" fn hipStreamCreateWithFlags(stream: *mut hipStream_t, flags: c_uint) -> hipError_t {
    // SAFETY: the default priority, as cudaStreamCreateWithFlags.
    unsafe { hipStreamCreateWithPriority(stream, flags, 0) }
}

pub(super) unsafe extern "C" fn hipStreamCreateWithPriority(
    stream: *mut hipStream_t,
    flags: c_uint,
    priority: c_int,
) -> hipError_t {
    entry(|f| {
        create_in(
            &STREAMS,
            stream.cast(),
            // SAFETY: a valid out-pointer for the new stream.
            |raw| rt(unsafe { (f.rt.cudaStreamCreateWithPriority)(raw.cast(), flags, priority) }),
            |raw| {
                // SAFETY: the stream just made, destroyed once.
                let _ = unsafe { (f.rt.cudaStreamDestroy)(raw.cast()) };
            },
        )
    })
}

pub(super) unsafe extern "C" fn hipStreamDestroy(stream: hipStream_t) -> hipError_t {
    entry(|f| {
        // clr: the null stream is hipErrorInvalidHandle, hipStreamPerThread
        // hipErrorInvalidResourceHandle (the same code), a destroyed or
        // unknown stream hipErrorContextIsDestroyed.
        if (stream as usize) <= 2 {
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        let raw = STREAMS.remove(stream.cast()).map_err(|_| hipError_t::hipErrorContextIsDestroyed)?;
        // SAFETY: the live stream the handle named, destroyed once: the
        // handle no longer resolves.
        rt(unsafe { (f.rt.cudaStreamDestroy)(raw.cast()) })
    })
}

/// Every event flag clr's `hipEventCreateWithFlags` accepts: Default 0,
/// BlockingSync 1, DisableTiming 2, Interprocess 4, and AMD's release
/// flags (DisableSystemFence, ReleaseToDevice, ReleaseToSystem), of which
/// at most one.
const EVENT_FLAGS: c_uint = 0x7 | AMD_RELEASE_FLAGS;
/// AMD's release and fence flags, which HIP's NVIDIA platform defines as 0.
const AMD_RELEASE_FLAGS: c_uint = crate::bindings::newer::hipEventDisableSystemFence
    | crate::bindings::newer::hipEventReleaseToDevice
    | crate::bindings::newer::hipEventReleaseToSystem;

/// `flags` as CUDA's event flags, or `hipErrorInvalidValue` where clr
/// refuses them: an unknown flag, two release flags, Interprocess without
/// DisableTiming.
fn event_flags_to_cuda(flags: c_uint) -> Result<c_uint, hipError_t> {
    let interprocess = flags & 0x4 != 0;
    if flags & !EVENT_FLAGS != 0 || (flags & AMD_RELEASE_FLAGS).count_ones() > 1 || (interprocess && flags & 0x2 == 0) {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    Ok(flags & !AMD_RELEASE_FLAGS)
}

pub(super) unsafe extern "C" fn hipEventCreate(event: *mut hipEvent_t) -> hipError_t {
    // SAFETY: the default flags, as cudaEventCreate.
    unsafe { hipEventCreateWithFlags(event, 0) }
}

pub(super) unsafe extern "C" fn hipEventCreateWithFlags(event: *mut hipEvent_t, flags: c_uint) -> hipError_t {
    entry(|f| {
        let cuda_flags = event_flags_to_cuda(flags)?;
        create_in(
            &EVENTS,
            event.cast(),
            // SAFETY: a valid out-pointer for the new event.
            |raw| rt(unsafe { (f.rt.cudaEventCreateWithFlags)(raw.cast(), cuda_flags) }),
            |raw| {
                // SAFETY: the event just made, destroyed once.
                let _ = unsafe { (f.rt.cudaEventDestroy)(raw.cast()) };
            },
        )
    })
}

/// `hipIpcOpenEventHandle`: CUDA's event of the handle, behind a new
/// handle of this backend.
pub(super) unsafe extern "C" fn hipIpcOpenEventHandle(
    event: *mut hipEvent_t,
    handle: hipIpcEventHandle_t,
) -> hipError_t {
    entry(|f| {
        create_in(
            &EVENTS,
            event.cast(),
            // SAFETY: a valid out-pointer for the opened event.
            |raw| rt(unsafe { (f.rt.cudaIpcOpenEventHandle)(raw.cast(), handle) }),
            |raw| {
                // SAFETY: the event just opened, destroyed once.
                let _ = unsafe { (f.rt.cudaEventDestroy)(raw.cast()) };
            },
        )
    })
}

pub(super) unsafe extern "C" fn hipEventDestroy(event: hipEvent_t) -> hipError_t {
    entry(|f| {
        if event.is_null() {
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        let raw = EVENTS.remove(event.cast()).map_err(|_| hipError_t::hipErrorContextIsDestroyed)?;
        // SAFETY: the live event the handle named, destroyed once.
        rt(unsafe { (f.rt.cudaEventDestroy)(raw.cast()) })
    })
}

pub(super) unsafe extern "C" fn hipHostMalloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> hipError_t {
    entry(|f| {
        // clr refuses Coherent together with NonCoherent.
        if flags & HOST_MALLOC_COHERENCE == HOST_MALLOC_COHERENCE {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: the caller's out-pointer and size; CUDA checks both.
        rt(unsafe { (f.rt.cudaHostAlloc)(ptr, size, host_malloc_flags_to_cuda(flags)) })
    })
}

/// `hipHostMallocCoherent | hipHostMallocNonCoherent`.
const HOST_MALLOC_COHERENCE: c_uint = 0x4000_0000 | 0x8000_0000;

pub(super) unsafe extern "C" fn hipSetDevice(device: c_int) -> hipError_t {
    entry(|f| {
        // SAFETY: takes no pointers.
        rt(unsafe { (f.rt.cudaSetDevice)(device) })?;
        // CUDA 12 and later bind the device's primary context right away.
        context_bound();
        Ok(())
    })
}

pub(super) unsafe extern "C" fn hipDeviceReset() -> hipError_t {
    entry(|f| {
        // SAFETY: takes no pointers.
        let status = rt(unsafe { (f.rt.cudaDeviceReset)() });
        device_reset();
        status
    })
}

pub(super) unsafe extern "C" fn hipPointerGetAttributes(
    attributes: *mut hipPointerAttribute_t,
    ptr: *const c_void,
) -> hipError_t {
    entry(|f| {
        non_null(attributes)?;
        let mut cuda = CudaPointerAttributes::default();
        // SAFETY: `cuda` is a valid `cudaPointerAttributes` to write.
        rt(unsafe { (f.rt.cudaPointerGetAttributes)(&mut cuda, ptr) })?;
        let memory_type = memory_type_from_cuda(cuda.type_).ok_or(hipError_t::hipErrorInvalidValue)?;
        let mut out = hipPointerAttribute_t {
            device: cuda.device,
            devicePointer: cuda.device_pointer,
            hostPointer: cuda.host_pointer,
            isManaged: c_int::from(memory_type == crate::bindings::hip::hipMemoryType::hipMemoryTypeManaged),
            allocationFlags: 0,
            ..hipPointerAttribute_t::default()
        };
        out.__bindgen_anon_1.type_ = memory_type;
        // SAFETY: `attributes` is non-null and valid for a write (caller).
        unsafe { attributes.write(out) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn hipMemPoolCreate(pool: *mut hipMemPool_t, props: *const hipMemPoolProps) -> hipError_t {
    entry(|f| {
        non_null(pool)?;
        // SAFETY: `props` is null or points to a valid `hipMemPoolProps`
        // (caller).
        let props = unsafe { props.as_ref() }.ok_or(hipError_t::hipErrorInvalidValue)?;
        let cuda = pool_props_to_cuda(props);
        // SAFETY: `pool` is non-null and valid for a write; `cuda` is a
        // complete `cudaMemPoolProps`.
        rt(unsafe { (f.rt.cudaMemPoolCreate)(pool.cast(), &cuda) })
    })
}

#[cfg(test)]
mod flag_tests {
    use super::*;

    #[test]
    fn event_flags_follow_clr() {
        assert_eq!(event_flags_to_cuda(0), Ok(0));
        assert_eq!(event_flags_to_cuda(1 | 2), Ok(3));
        assert_eq!(event_flags_to_cuda(2 | 4), Ok(6), "interprocess with disable-timing");
        assert_eq!(event_flags_to_cuda(4), Err(hipError_t::hipErrorInvalidValue), "interprocess alone");
        assert_eq!(event_flags_to_cuda(0x8000), Err(hipError_t::hipErrorInvalidValue), "unknown");
        assert_eq!(
            event_flags_to_cuda(crate::bindings::newer::hipEventReleaseToSystem),
            Ok(0),
            "AMD-only flags are 0 on NVIDIA"
        );
        let two = crate::bindings::newer::hipEventReleaseToDevice | crate::bindings::newer::hipEventReleaseToSystem;
        assert_eq!(event_flags_to_cuda(two), Err(hipError_t::hipErrorInvalidValue), "two release flags");
    }
}
