//! Managed memory over CUDA: `cudaMallocManaged`, and the driver's
//! location-taking `cuMemPrefetchAsync_v2` and `cuMemAdvise_v2` (one
//! symbol and signature on CUDA 12.2 and later and on 13, where the
//! runtime's `cudaMemPrefetchAsync` changed its arguments), with HIP's
//! device ordinal as CUDA's location (`hipCpuDeviceId`, -1, is the host);
//! `cuMemRangeGetAttribute`. Advice and range attributes have CUDA's
//! numbers (AMD's coarse-grain advice and coherency mode, 100 and up,
//! are CUDA's to refuse).

use std::ffi::{c_int, c_void};

use super::call::{cu, entry, rt};
use super::cuda::CudaFns;
use super::driver::{device_ptr, ensure_context};
use super::objects::stream_of;
use super::types::CudaMemLocation;
use crate::bindings::hip::{hipError_t, hipMemRangeAttribute, hipMemoryAdvise, hipStream_t};

/// `CU_MEM_LOCATION_TYPE_DEVICE` and `CU_MEM_LOCATION_TYPE_HOST`.
const LOCATION_DEVICE: c_int = 1;
const LOCATION_HOST: c_int = 2;

/// HIP's device ordinal (or -1, the host) as a CUDA location.
fn location(device: c_int) -> CudaMemLocation {
    if device == -1 {
        CudaMemLocation { type_: LOCATION_HOST, id: 0 }
    } else {
        CudaMemLocation { type_: LOCATION_DEVICE, id: device }
    }
}

/// An address as a `CUdeviceptr`.
fn address(ptr: *const c_void) -> super::CuDevicePtr {
    device_ptr(ptr.cast_mut())
}

/// clr refuses a range that runs past the end of the managed allocation
/// holding it (`hipErrorInvalidValue`); the driver accepts one that stays
/// in the allocation's last page. The same refusal here, before the
/// driver; memory the driver does not know (system memory, which clr
/// passes on too) goes on to it.
fn within_allocation(f: &CudaFns, ptr: *const c_void, count: usize) -> Result<(), hipError_t> {
    let (mut base, mut size): (super::CuDevicePtr, usize) = (0, 0);
    // SAFETY: out-pointers to locals; any address may be asked about.
    if cu(unsafe { (f.drv.cuMemGetAddressRange)(&mut base, &mut size, address(ptr)) }).is_err() {
        return Ok(());
    }
    let left = (base + size as super::CuDevicePtr).saturating_sub(address(ptr));
    if count as super::CuDevicePtr > left {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    Ok(())
}

pub(super) unsafe extern "C" fn hipMallocManaged(ptr: *mut *mut c_void, size: usize, flags: u32) -> hipError_t {
    entry(|f| {
        // clr refuses no bytes (CUDA answers success with no memory).
        if size == 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: passed through; the runtime checks the out-pointer,
        // size and flags (HIP's attach flags are CUDA's).
        rt(unsafe { (f.rt.cudaMallocManaged)(ptr, size, flags) })
    })
}

pub(super) unsafe extern "C" fn hipMemPrefetchAsync(
    ptr: *const c_void,
    count: usize,
    device: c_int,
    stream: hipStream_t,
) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        let stream = stream_of(stream)?;
        within_allocation(f, ptr, count)?;
        // SAFETY: values passed through, checked by the driver; a live stream.
        cu(unsafe { (f.drv.cuMemPrefetchAsync)(address(ptr), count, location(device), 0, stream) })
    })
}

pub(super) unsafe extern "C" fn hipMemAdvise(
    ptr: *const c_void,
    count: usize,
    advice: hipMemoryAdvise,
    device: c_int,
) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        within_allocation(f, ptr, count)?;
        // SAFETY: values passed through, checked by the driver.
        cu(unsafe { (f.drv.cuMemAdvise)(address(ptr), count, advice.0 as c_int, location(device)) })
    })
}

pub(super) unsafe extern "C" fn hipMemRangeGetAttribute(
    data: *mut c_void,
    data_size: usize,
    attribute: hipMemRangeAttribute,
    ptr: *const c_void,
    count: usize,
) -> hipError_t {
    entry(|f| {
        if data.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        ensure_context(f)?;
        within_allocation(f, ptr, count)?;
        // SAFETY: `data_size` bytes at `data`, as the caller passes; the
        // range is checked by the driver.
        cu(unsafe { (f.drv.cuMemRangeGetAttribute)(data, data_size, attribute.0 as c_int, address(ptr), count) })
    })
}
