//! Copies of memory.

use hip_sys::{hipMemcpyKind, hipStream_t};
use std::ffi::c_void;

use super::{api, on_device};
use crate::{check, Device, Result};

/// Copy `bytes` from `src` to `dst`, the direction taken from the
/// pointers (`hipMemcpy`, under `device` through [`on_device`]).
/// Synchronous where one side is host memory; see `crate::copy_after`.
///
/// # Safety
/// Both ranges are valid for `bytes` until the call returns.
pub(crate) unsafe fn copy(device: Device, dst: *mut c_void, src: *const c_void, bytes: usize) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: the caller guarantees both ranges; hipMemcpy is synchronous.
        check(unsafe { (api.hipMemcpy)(dst, src, bytes, hipMemcpyKind::hipMemcpyDefault) }, "hipMemcpy")
    })?
}

/// Queue a copy of `bytes` from device memory at `src` to device memory
/// at `dst` on `stream` (`hipMemcpyAsync`, device to device, under
/// `device` through [`on_device`]).
///
/// # Safety
/// `stream` is a live stream of `device` (or null), and both ranges are
/// device memory valid for `bytes` until the copy has run.
pub(crate) unsafe fn copy_device_async(
    device: Device,
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    stream: hipStream_t,
) -> Result<()> {
    let api = api()?;
    let kind = hipMemcpyKind::hipMemcpyDeviceToDevice;
    on_device(device, || {
        // SAFETY: the caller guarantees both device ranges; the stream is live.
        check(unsafe { (api.hipMemcpyAsync)(dst, src, bytes, kind, stream) }, "hipMemcpyAsync")
    })?
}
