//! Events: create and destroy one, record it on a stream, wait for it, and
//! time between two.
//!
//! # References
//! HIP's [event management](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___event.html) reference.

use hip_sys::{hipError_t, hipEvent_t, hipStream_t};

use super::{api, on_device, run_on};
use crate::{check, Device, Result};

/// `hipEventCreate`: a new event on `device`, with timing (under `device`
/// through [`on_device`]).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipEventCreate")]
pub fn create(device: Device) -> Result<hipEvent_t> {
    let api = api()?;
    let mut handle: hipEvent_t = std::ptr::null_mut();
    on_device(device, || {
        check(
            // SAFETY: a valid out-pointer.
            unsafe { (api.hipEventCreate)(&mut handle) },
            "hipEventCreate",
        )
    })??;
    Ok(handle)
}

/// `hipEventCreateWithFlags`: a new event on `device` without timing
/// (`hipEventDisableTiming`, under `device` through [`on_device`]).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipEventCreateWithFlags")]
pub fn create_untimed(device: Device) -> Result<hipEvent_t> {
    let api = api()?;
    let mut handle: hipEvent_t = std::ptr::null_mut();
    on_device(device, || {
        check(
            // SAFETY: a valid out-pointer and a flag HIP knows.
            unsafe { (api.hipEventCreateWithFlags)(&mut handle, hip_sys::hipEventDisableTiming) },
            "hipEventCreateWithFlags",
        )
    })??;
    Ok(handle)
}

/// `hipEventCreateWithFlags(hipEventInterprocess | hipEventDisableTiming)`:
/// an event another process can open (`raw::ipc::event_handle`), on
/// `device` (bound through [`on_device`]).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipEventCreateWithFlags")]
pub fn create_interprocess(device: Device) -> Result<hipEvent_t> {
    let api = api()?;
    let mut handle: hipEvent_t = std::ptr::null_mut();
    let flags = hip_sys::hipEventInterprocess | hip_sys::hipEventDisableTiming;
    on_device(device, || {
        // SAFETY: a valid out-pointer and flags HIP accepts together.
        check(unsafe { (api.hipEventCreateWithFlags)(&mut handle, flags) }, "hipEventCreateWithFlags")
    })??;
    Ok(handle)
}

/// `hipEventDestroy`: destroy `event` (under `device` through
/// [`on_device`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `event` is a live event of `device`, not used again.
#[doc(alias = "hipEventDestroy")]
pub unsafe fn destroy(device: Device, event: hipEvent_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        check(
            // SAFETY: the caller's live event, destroyed once.
            unsafe { (api.hipEventDestroy)(event) },
            "hipEventDestroy",
        )
    })?
}

/// `hipEventRecord`: record `event` on `stream` (under `device` through
/// [`run_on`]: a hot call).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `event` is a live event of `device`, and `stream` a live stream of
/// `device` (or null).
#[inline]
#[doc(alias = "hipEventRecord")]
pub unsafe fn record(device: Device, event: hipEvent_t, stream: hipStream_t) -> Result<()> {
    let api = api()?;
    run_on(device, || {
        check(
            // SAFETY: both handles are live and on one device.
            unsafe { (api.hipEventRecord)(event, stream) },
            "hipEventRecord",
        )
    })?
}

/// `hipEventSynchronize`: wait for `event`'s last recording to complete
/// (under `device` through [`on_device`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `event` is a live event of `device`.
#[doc(alias = "hipEventSynchronize")]
pub unsafe fn synchronize(device: Device, event: hipEvent_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        check(
            // SAFETY: a live event.
            unsafe { (api.hipEventSynchronize)(event) },
            "hipEventSynchronize",
        )
    })?
}

/// `hipEventQuery`: whether `event`'s last recording has completed (under
/// `device` through [`on_device`]): `false` for `hipErrorNotReady`.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `event` is a live event of `device`.
#[doc(alias = "hipEventQuery")]
pub unsafe fn query(device: Device, event: hipEvent_t) -> Result<bool> {
    let api = api()?;
    // SAFETY: a live event.
    let status = on_device(device, || unsafe { (api.hipEventQuery)(event) })?;
    if status == hipError_t::hipErrorNotReady {
        return Ok(false);
    }
    check(status, "hipEventQuery").map(|()| true)
}

/// `hipEventElapsedTime`: milliseconds from `start` to `end` (under
/// `device` through [`on_device`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `start` and `end` are live events of `device`.
#[doc(alias = "hipEventElapsedTime")]
pub unsafe fn elapsed(device: Device, start: hipEvent_t, end: hipEvent_t) -> Result<f32> {
    let api = api()?;
    let mut ms = 0f32;
    on_device(device, || {
        // SAFETY: live events and a valid out-pointer.
        check(unsafe { (api.hipEventElapsedTime)(&mut ms, start, end) }, "hipEventElapsedTime")
    })??;
    Ok(ms)
}
