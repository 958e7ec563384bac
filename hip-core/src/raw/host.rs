//! Pinned host memory: allocated by HIP, or a caller's memory registered
//! with it.
//!
//! # References
//! HIP's [memory management](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory.html)
//! reference.

use std::ffi::c_void;

use super::{api, on_device};
use crate::{check, Device, Result};

/// `hipHostMallocPortable`: the memory is pinned for every device, not
/// only the one current when it was made.
const PORTABLE: u32 = 1;

/// `hipHostMalloc(hipHostMallocPortable)`: `bytes` of pinned host memory
/// usable by every device, made under `device` (bound through
/// [`on_device`]). Null only where HIP returned success and no memory.
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipHostMalloc")]
pub fn malloc(device: Device, bytes: usize) -> Result<*mut c_void> {
    let api = api()?;
    let mut ptr: *mut c_void = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a valid out-pointer; the flag is one HIP knows.
        check(unsafe { (api.hipHostMalloc)(&mut ptr, bytes, PORTABLE) }, "hipHostMalloc")
    })??;
    Ok(ptr)
}

/// `hipHostFree`: give back memory from [`malloc`], under `device`
/// (bound through [`on_device`], so a drop may call it on any thread).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `ptr` came from [`malloc`], is freed once, and no queued copy still
/// uses it.
#[doc(alias = "hipHostFree")]
pub unsafe fn free(device: Device, ptr: *mut c_void) -> Result<()> {
    let api = api()?;
    // SAFETY: as the caller guarantees.
    on_device(device, || check(unsafe { (api.hipHostFree)(ptr) }, "hipHostFree"))?
}

/// `hipHostRegister(hipHostRegisterPortable)`: pin `bytes` of the caller's
/// memory at `ptr` for every device, under `device`.
///
/// # Errors
/// HIP's status (`hipErrorHostMemoryAlreadyRegistered` where part of the
/// range already is).
///
/// # Safety
/// `ptr` is valid for `bytes` and stays allocated until [`unregister`].
#[doc(alias = "hipHostRegister")]
pub unsafe fn register(device: Device, ptr: *mut c_void, bytes: usize) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: as the caller guarantees.
        check(unsafe { (api.hipHostRegister)(ptr, bytes, hip_sys::hipHostRegisterPortable) }, "hipHostRegister")
    })?
}

/// `hipHostUnregister`: unpin memory pinned by [`register`], under
/// `device`.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `ptr` was registered by [`register`], is unregistered once, and no
/// queued copy still uses it.
#[doc(alias = "hipHostUnregister")]
pub unsafe fn unregister(device: Device, ptr: *mut c_void) -> Result<()> {
    let api = api()?;
    // SAFETY: as the caller guarantees.
    on_device(device, || check(unsafe { (api.hipHostUnregister)(ptr) }, "hipHostUnregister"))?
}
