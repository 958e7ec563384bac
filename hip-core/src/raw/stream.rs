//! Streams: create and destroy one, wait for it, order it after an event,
//! and queue a host function on it.
//!
//! A null `stream` handle names the device's null stream wherever HIP
//! takes one.
//!
//! # References
//! HIP's [stream management](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___stream.html) reference.

use hip_sys::{hipError_t, hipEvent_t, hipStream_t};
use std::ffi::c_void;

use super::{api, on_device, run_on};
use crate::{check, Device, Result};

/// `hipStreamCreateWithPriority`: a new stream on `device` with
/// `priority` (under `device` through [`on_device`]).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipStreamCreateWithPriority")]
pub fn create(device: Device, priority: i32) -> Result<hipStream_t> {
    let api = api()?;
    let mut handle: hipStream_t = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a valid out-pointer.
        check(unsafe { (api.hipStreamCreateWithPriority)(&mut handle, 0, priority) }, "hipStreamCreateWithPriority")
    })??;
    Ok(handle)
}

/// The loaded runtime's own stream behind `stream`, a handle of the HIP
/// table: what a framework takes for a stream (`torch.cuda.ExternalStream`,
/// `cupy.cuda.ExternalStream`) and what [`Stream::from_raw`] takes back.
/// The handle itself on AMD and in the simulator, its `cudaStream_t` on
/// NVIDIA; null for the null stream. No HIP call.
///
/// # Errors
/// [`HipError::Call`](crate::HipError::Call) with
/// `hipErrorContextIsDestroyed` for a handle that names no stream
/// (NVIDIA).
///
/// [`Stream::from_raw`]: crate::Stream::from_raw
pub fn native(stream: hipStream_t) -> Result<*mut std::ffi::c_void> {
    hip_sys::backend::native_stream(stream)
        .map_err(|code| crate::HipError::Call { code, operation: "the runtime's own stream of a handle" })
}

/// `hipStreamGetPriority`: the priority HIP gave `stream` (binds no
/// device).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `stream` is a live stream (or null).
#[doc(alias = "hipStreamGetPriority")]
pub unsafe fn priority(stream: hipStream_t) -> Result<i32> {
    let api = api()?;
    let mut priority = 0;
    // SAFETY: the caller's live stream; a valid out-pointer.
    check(unsafe { (api.hipStreamGetPriority)(stream, &mut priority) }, "hipStreamGetPriority")?;
    Ok(priority)
}

/// `hipStreamDestroy`: destroy `stream` (under `device` through
/// [`on_device`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `stream` is a live stream of `device`, not used again.
#[doc(alias = "hipStreamDestroy")]
pub unsafe fn destroy(device: Device, stream: hipStream_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        check(
            // SAFETY: the caller's live stream, destroyed once.
            unsafe { (api.hipStreamDestroy)(stream) },
            "hipStreamDestroy",
        )
    })?
}

/// `hipStreamSynchronize`: wait until the work queued on `stream` has
/// finished (under `device` through [`on_device`]: a null stream is that
/// device's).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `stream` is a live stream of `device`, or null.
#[doc(alias = "hipStreamSynchronize")]
pub unsafe fn synchronize(device: Device, stream: hipStream_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        check(
            // SAFETY: a live stream (or null, meaning the device's null stream, hence on_device).
            unsafe { (api.hipStreamSynchronize)(stream) },
            "hipStreamSynchronize",
        )
    })?
}

/// `hipStreamQuery`: whether the work queued on `stream` has finished
/// (under `device` through [`on_device`]): `false` for `hipErrorNotReady`.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// As for [`synchronize`].
#[doc(alias = "hipStreamQuery")]
pub unsafe fn query(device: Device, stream: hipStream_t) -> Result<bool> {
    let api = api()?;
    // SAFETY: as in synchronize.
    let status = on_device(device, || unsafe { (api.hipStreamQuery)(stream) })?;
    if status == hipError_t::hipErrorNotReady {
        return Ok(false);
    }
    check(status, "hipStreamQuery").map(|()| true)
}

/// `hipStreamWaitEvent`: make later work on `stream` wait for `event`
/// (under `device` through [`run_on`]: a hot call).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `stream` is a live stream of `device` (or null) and `event` a live
/// event (of any device).
#[inline]
#[doc(alias = "hipStreamWaitEvent")]
pub unsafe fn wait_event(device: Device, stream: hipStream_t, event: hipEvent_t) -> Result<()> {
    let api = api()?;
    run_on(device, || {
        check(
            // SAFETY: both handles are live.
            unsafe { (api.hipStreamWaitEvent)(stream, event, 0) },
            "hipStreamWaitEvent",
        )
    })?
}

/// `hipLaunchHostFunc`: queue `function(user_data)` on `stream` after the
/// work queued so far (under `device` through [`on_device`]). The runtime
/// calls it once if, and only if, this returns `Ok`.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `stream` is a live stream of `device` (or null), and `function` may be
/// called with `user_data` once, on a thread of the runtime.
#[doc(alias = "hipLaunchHostFunc")]
pub unsafe fn launch_host_func(
    device: Device,
    stream: hipStream_t,
    function: unsafe extern "C" fn(*mut c_void),
    user_data: *mut c_void,
) -> Result<()> {
    let api = api()?;
    let status = on_device(device, || {
        // SAFETY: the caller's live stream, and a function the caller lets
        // the runtime call once with `user_data`.
        unsafe { (api.hipLaunchHostFunc)(stream, Some(function), user_data) }
    });
    status.and_then(|status| check(status, "hipLaunchHostFunc"))
}
