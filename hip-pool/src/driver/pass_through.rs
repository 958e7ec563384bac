//! `hipMalloc` and `hipFree` under the pool's device: where the cached
//! backing gets its segments and the `none` backing each block.

use hip_core::raw::{api, on_device};
use hip_core::{check, Device, HipError};
use std::ffi::c_void;

/// What a driver allocation can answer.
pub(crate) enum Driver {
    Ok(usize),
    OutOfMemory,
    Failed(HipError),
}

/// `hipMalloc(bytes)` on `device`, whatever the thread's device is.
pub(crate) fn malloc(device: Device, bytes: usize) -> Driver {
    let api = match api() {
        Ok(api) => api,
        Err(e) => return Driver::Failed(e),
    };
    let mut ptr: *mut c_void = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let status = on_device(device, || unsafe { (api.hipMalloc)(&mut ptr, bytes) });
    match status {
        Ok(s) if s == hip_sys::hipError_t::hipErrorOutOfMemory => {
            // The pool's ladder handles it; it is not the caller's error.
            hip_core::raw::forget_expected_failure(s);
            Driver::OutOfMemory
        }
        Ok(s) => match check(s, "hipMalloc") {
            Ok(()) => Driver::Ok(ptr as usize),
            Err(e) => Driver::Failed(e),
        },
        Err(e) => Driver::Failed(e),
    }
}

/// `hipFree(ptr)` on `device`.
pub(crate) fn free(device: Device, ptr: usize) -> Result<(), HipError> {
    let api = api()?;
    // SAFETY: `ptr` came from hipMalloc on this device and is freed once.
    on_device(device, || check(unsafe { (api.hipFree)(ptr as *mut c_void) }, "hipFree"))?
}
