//! Device memory: allocation, copies and fills.
//!
//! # References
//! HIP's [memory management](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory.html)
//! and [peer-to-peer](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html)
//! reference.

use hip_sys::{hipMemcpyKind, hipStream_t};
use std::ffi::c_void;

use super::{api, on_device, run_on};
use crate::{check, Device, Result};

/// `hipMalloc`: `bytes` of device memory on `device`, whatever the
/// thread's device is (bound through [`on_device`]).
///
/// # Errors
/// HIP's status: `hipErrorOutOfMemory` where the device has no room
/// ([`HipError::is_out_of_memory`](crate::HipError::is_out_of_memory));
/// a caller that recovers from it should
/// [`forget_expected_failure`](super::forget_expected_failure).
#[doc(alias = "hipMalloc")]
pub fn malloc(device: Device, bytes: usize) -> Result<*mut c_void> {
    let api = api()?;
    let mut ptr: *mut c_void = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    on_device(device, || check(unsafe { (api.hipMalloc)(&mut ptr, bytes) }, "hipMalloc"))??;
    Ok(ptr)
}

/// `hipFree`: give back memory of `device` from [`malloc`] (bound through
/// [`on_device`], so a drop may call it on any thread).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `ptr` came from [`malloc`] on `device`, is freed once, and no queued
/// work still uses it (HIP's `hipFree` synchronizes the device, but not
/// other devices' work on it).
#[doc(alias = "hipFree")]
pub unsafe fn free(device: Device, ptr: *mut c_void) -> Result<()> {
    let api = api()?;
    // SAFETY: as the caller guarantees.
    on_device(device, || check(unsafe { (api.hipFree)(ptr) }, "hipFree"))?
}

/// `hipMemGetAddressRange`: the base and size of the device allocation
/// holding `ptr`, under `device`.
///
/// # Errors
/// HIP's status (`hipErrorNotFound` for an address of no allocation).
#[doc(alias = "hipMemGetAddressRange")]
pub fn address_range(device: Device, ptr: *const c_void) -> Result<(*mut c_void, usize)> {
    let api = api()?;
    let (mut base, mut size): (*mut c_void, usize) = (std::ptr::null_mut(), 0);
    on_device(device, || {
        // SAFETY: valid out-pointers; the runtime only looks the address up.
        check(unsafe { (api.hipMemGetAddressRange)(&mut base, &mut size, ptr.cast_mut()) }, "hipMemGetAddressRange")
    })??;
    Ok((base, size))
}

/// `hipMemcpy`: copy `bytes` from `src` to `dst`, the direction taken from
/// the pointers, under `device` through [`on_device`]. Synchronous where
/// one side is host memory; see [`copy_after`](crate::copy_after).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// Both ranges are valid for `bytes` until the call returns.
#[doc(alias = "hipMemcpy")]
pub unsafe fn copy(device: Device, dst: *mut c_void, src: *const c_void, bytes: usize) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: the caller guarantees both ranges; hipMemcpy is synchronous.
        check(unsafe { (api.hipMemcpy)(dst, src, bytes, hipMemcpyKind::hipMemcpyDefault) }, "hipMemcpy")
    })?
}

/// `hipMemcpyAsync`: queue a copy of `bytes` from `src` to `dst` of
/// `kind` on `stream`, a stream of `device` (bound through [`run_on`]:
/// copies are hot and never made by drops).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `stream` is a live stream of `device`, and both ranges are valid for
/// `bytes`, of the kind `kind` says, until the copy has run.
#[doc(alias = "hipMemcpyAsync")]
pub unsafe fn copy_async(
    device: Device,
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: hipMemcpyKind,
    stream: hipStream_t,
) -> Result<()> {
    let api = api()?;
    run_on(device, || {
        // SAFETY: as the caller guarantees.
        check(unsafe { (api.hipMemcpyAsync)(dst, src, bytes, kind, stream) }, "hipMemcpyAsync")
    })?
}

/// `hipMemcpyPeerAsync`: queue a copy of `bytes` from `src` on device
/// `from` to `dst` on device `to`, on `stream`, a stream of `device`
/// (bound through [`run_on`]).
///
/// # Errors
/// HIP's status: where the two devices have no path,
/// `hipErrorPeerAccessUnsupported`, `hipErrorNotSupported`,
/// `hipErrorPeerAccessNotEnabled` or `hipErrorInvalidDevice`.
///
/// # Safety
/// `stream` is a live stream of `device`; `src` is memory of `from` and
/// `dst` of `to`, both valid for `bytes` until the copy has run.
#[doc(alias = "hipMemcpyPeerAsync")]
pub unsafe fn copy_peer_async(
    device: Device,
    (dst, to): (*mut c_void, Device),
    (src, from): (*const c_void, Device),
    bytes: usize,
    stream: hipStream_t,
) -> Result<()> {
    let api = api()?;
    let (to, from) = (to.ordinal() as i32, from.ordinal() as i32);
    run_on(device, || {
        // SAFETY: as the caller guarantees.
        check(unsafe { (api.hipMemcpyPeerAsync)(dst, to, src, from, bytes, stream) }, "hipMemcpyPeerAsync")
    })?
}

/// `hipMemsetAsync`: queue setting `bytes` bytes at `dst` to `byte` on
/// `stream`, a stream of `device` (bound through [`run_on`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `stream` is a live stream of `device`, and `dst` is device memory valid
/// for `bytes` until the fill has run.
#[doc(alias = "hipMemsetAsync")]
pub unsafe fn fill_async(device: Device, dst: *mut c_void, byte: u8, bytes: usize, stream: hipStream_t) -> Result<()> {
    let api = api()?;
    run_on(device, || {
        // SAFETY: as the caller guarantees.
        check(unsafe { (api.hipMemsetAsync)(dst, i32::from(byte), bytes, stream) }, "hipMemsetAsync")
    })?
}
