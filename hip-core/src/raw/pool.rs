//! HIP's stream-ordered allocator: explicit pools, allocation and free in
//! a stream's order, and trimming.
//!
//! # References
//! HIP's [stream ordered memory allocator](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___stream_o.html)
//! reference.

use hip_sys::{hipMemPoolAttr, hipMemPool_t, hipStream_t};
use std::ffi::c_void;

use super::{api, on_device};
use crate::{check, Device, Result};

/// `hipMemPoolCreate`: a new pool of pinned device memory on `device`
/// (bound through [`on_device`]).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipMemPoolCreate")]
pub fn create(device: Device) -> Result<hipMemPool_t> {
    let api = api()?;
    // SAFETY: the props struct is plain data; zero is its documented default.
    let mut props: hip_sys::hipMemPoolProps = unsafe { std::mem::zeroed() };
    props.allocType = hip_sys::hipMemAllocationType::hipMemAllocationTypePinned;
    props.location.type_ = hip_sys::hipMemLocationType::hipMemLocationTypeDevice;
    props.location.id = device.ordinal() as i32;
    let mut pool: hipMemPool_t = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: valid pointers to the props and the out-handle.
        check(unsafe { (api.hipMemPoolCreate)(&mut pool, &props) }, "hipMemPoolCreate")
    })??;
    Ok(pool)
}

/// `hipMemPoolSetAttribute` for an attribute whose value is a `uint64_t`
/// (the release threshold, the high-water marks' reset), under `device`.
///
/// # Errors
/// HIP's status; `hipErrorInvalidValue` for an attribute that is not one.
///
/// # Safety
/// `pool` is a live pool of `device`, and `attribute` takes a `uint64_t`.
#[doc(alias = "hipMemPoolSetAttribute")]
pub unsafe fn set_u64(device: Device, pool: hipMemPool_t, attribute: hipMemPoolAttr, value: u64) -> Result<()> {
    let api = api()?;
    let mut value = value;
    on_device(device, || {
        // SAFETY: as the caller guarantees; the value is a live uint64_t.
        let status = unsafe { (api.hipMemPoolSetAttribute)(pool, attribute, (&mut value as *mut u64).cast()) };
        check(status, "hipMemPoolSetAttribute")
    })?
}

/// `hipMemPoolGetAttribute` for an attribute whose value is a `uint64_t`
/// (reserved and used memory, their high-water marks, the release
/// threshold), under `device`.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `pool` is a live pool of `device`, and `attribute` is a `uint64_t`.
#[doc(alias = "hipMemPoolGetAttribute")]
pub unsafe fn get_u64(device: Device, pool: hipMemPool_t, attribute: hipMemPoolAttr) -> Result<u64> {
    let api = api()?;
    let mut value = 0u64;
    on_device(device, || {
        // SAFETY: as the caller guarantees; a valid out-pointer to a uint64_t.
        let status = unsafe { (api.hipMemPoolGetAttribute)(pool, attribute, (&mut value as *mut u64).cast()) };
        check(status, "hipMemPoolGetAttribute")
    })??;
    Ok(value)
}

/// `hipMallocFromPoolAsync`: `bytes` from `pool`, usable in `stream`'s
/// order, under `device` through [`on_device`].
///
/// # Errors
/// HIP's status: `hipErrorOutOfMemory` where the pool cannot grow
/// ([`HipError::is_out_of_memory`](crate::HipError::is_out_of_memory)).
///
/// # Safety
/// `pool` is a live pool of `device` and `stream` a live stream of it.
#[doc(alias = "hipMallocFromPoolAsync")]
pub unsafe fn malloc_async(
    device: Device,
    pool: hipMemPool_t,
    bytes: usize,
    stream: hipStream_t,
) -> Result<*mut c_void> {
    let api = api()?;
    let mut ptr: *mut c_void = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: as the caller guarantees; a valid out-pointer.
        check(unsafe { (api.hipMallocFromPoolAsync)(&mut ptr, bytes, pool, stream) }, "hipMallocFromPoolAsync")
    })??;
    Ok(ptr)
}

/// `hipFreeAsync`: give `ptr` back to its pool in `stream`'s order, under
/// `device` through [`on_device`] (a drop may call it on any thread).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `ptr` came from a pool of `device`, is freed once, and `stream` is a
/// live stream of `device` whose order comes after every use of `ptr`.
#[doc(alias = "hipFreeAsync")]
pub unsafe fn free_async(device: Device, ptr: *mut c_void, stream: hipStream_t) -> Result<()> {
    let api = api()?;
    // SAFETY: as the caller guarantees.
    on_device(device, || check(unsafe { (api.hipFreeAsync)(ptr, stream) }, "hipFreeAsync"))?
}

/// `hipMemPoolTrimTo`: release what `pool` holds beyond live allocations
/// and `keep` bytes, under `device`.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `pool` is a live pool of `device`.
#[doc(alias = "hipMemPoolTrimTo")]
pub unsafe fn trim_to(device: Device, pool: hipMemPool_t, keep: usize) -> Result<()> {
    let api = api()?;
    // SAFETY: as the caller guarantees.
    on_device(device, || check(unsafe { (api.hipMemPoolTrimTo)(pool, keep) }, "hipMemPoolTrimTo"))?
}
