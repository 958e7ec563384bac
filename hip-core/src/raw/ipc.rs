//! Memory and events shared with other processes: a 64-byte handle one
//! process makes and another opens.
//!
//! An opened memory handle is the exported *allocation's* base on both
//! AMD and NVIDIA, whatever pointer inside it was exported: the caller
//! adds its offset. `hipIpcMemLazyEnablePeerAccess`, the one flag an open
//! takes, is 0 in HIP 5 and 1 from HIP 6 (and on NVIDIA); [`open_memory`]
//! passes the runtime's.
//!
//! # References
//! HIP's [IPC API](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html)
//! reference; CUDA's `cudaIpc*` documentation.

use std::ffi::c_void;

use super::{api, on_device};
use crate::{check, Device, Result};
use hip_sys::bindings::hip::{hipEvent_t, hipIpcEventHandle_t, hipIpcMemHandle_t};

/// The value of `hipIpcMemLazyEnablePeerAccess` the loaded runtime takes.
fn lazy_enable_peer_access() -> Result<u32> {
    if hip_sys::backend() == hip_sys::Backend::Nvidia {
        return Ok(1);
    }
    // HIP's versions are major * 10^7 + minor * 10^5 + patch.
    let major = u32::try_from(super::runtime::version()? / 10_000_000).unwrap_or(0);
    Ok(hip_sys::shared::ipc::lazy_enable_peer_access(major))
}

/// `hipIpcGetMemHandle`: a handle for the allocation holding `ptr`, under
/// `device` (bound through [`on_device`]).
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for memory that is no plain
/// device allocation: host memory, a stream-ordered pool's).
///
/// # Safety
/// `ptr` is device memory of `device`.
#[doc(alias = "hipIpcGetMemHandle")]
pub unsafe fn memory_handle(device: Device, ptr: *mut c_void) -> Result<hipIpcMemHandle_t> {
    let api = api()?;
    let mut handle = hipIpcMemHandle_t::default();
    on_device(device, || {
        // SAFETY: a valid out-pointer; `ptr` as the caller guarantees.
        check(unsafe { (api.hipIpcGetMemHandle)(&mut handle, ptr) }, "hipIpcGetMemHandle")
    })??;
    Ok(handle)
}

/// `hipIpcOpenMemHandle(hipIpcMemLazyEnablePeerAccess)`: another
/// process's allocation in this one, on `device`: its base.
///
/// # Errors
/// HIP's status: `hipErrorInvalidContext` for a handle of this process,
/// `hipErrorInvalidDevicePointer` for one that cannot be attached (freed
/// memory, a gone process, a device with no path to the exporter's).
#[doc(alias = "hipIpcOpenMemHandle")]
pub fn open_memory(device: Device, handle: hipIpcMemHandle_t) -> Result<*mut c_void> {
    let api = api()?;
    let flags = lazy_enable_peer_access()?;
    let mut ptr: *mut c_void = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a valid out-pointer; any handle's bytes are checked by
        // the runtime.
        check(unsafe { (api.hipIpcOpenMemHandle)(&mut ptr, handle, flags) }, "hipIpcOpenMemHandle")
    })??;
    Ok(ptr)
}

/// `hipIpcCloseMemHandle`: close one open of memory [`open_memory`] gave
/// (the runtime first waits for the device's streams), under `device`.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for a pointer no open gave).
///
/// # Safety
/// `ptr` came from [`open_memory`] and is closed once for that open; no
/// work of this process uses it any more.
#[doc(alias = "hipIpcCloseMemHandle")]
pub unsafe fn close_memory(device: Device, ptr: *mut c_void) -> Result<()> {
    let api = api()?;
    // SAFETY: as the caller guarantees.
    on_device(device, || check(unsafe { (api.hipIpcCloseMemHandle)(ptr) }, "hipIpcCloseMemHandle"))?
}

/// `hipIpcGetEventHandle`: a handle for an event made with
/// `hipEventInterprocess | hipEventDisableTiming`.
///
/// # Errors
/// HIP's status (`hipErrorInvalidConfiguration` for another event).
///
/// # Safety
/// `event` is a live event.
#[doc(alias = "hipIpcGetEventHandle")]
pub unsafe fn event_handle(event: hipEvent_t) -> Result<hipIpcEventHandle_t> {
    let api = api()?;
    let mut handle = hipIpcEventHandle_t::default();
    // SAFETY: a valid out-pointer; the event as the caller guarantees.
    check(unsafe { (api.hipIpcGetEventHandle)(&mut handle, event) }, "hipIpcGetEventHandle")?;
    Ok(handle)
}

/// `hipIpcOpenEventHandle`: another process's event in this one, made
/// under `device`; destroy it with `hipEventDestroy`.
///
/// # Errors
/// HIP's status (`hipErrorInvalidContext` for a handle of this process,
/// `hipErrorInvalidValue` for one whose event is gone).
#[doc(alias = "hipIpcOpenEventHandle")]
pub fn open_event(device: Device, handle: hipIpcEventHandle_t) -> Result<hipEvent_t> {
    let api = api()?;
    let mut event: hipEvent_t = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a valid out-pointer; the handle's bytes are checked by
        // the runtime.
        check(unsafe { (api.hipIpcOpenEventHandle)(&mut event, handle) }, "hipIpcOpenEventHandle")
    })??;
    Ok(event)
}
