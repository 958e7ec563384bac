//! Managed memory: one address the host and every device reach, which the
//! runtime pages to where it is used, or to where a prefetch or advice
//! says.
//!
//! What differs between runtimes:
//! - **Support.** [`supported`] asks `hipDeviceAttributeManagedMemory`;
//!   on ROCm that is the kernel's heterogeneous memory management (not
//!   XNACK), on NVIDIA every current GPU. Without it ROCm still allocates
//!   (system memory) and prefetches and advice do nothing.
//! - **Host access.** The host reads and writes the memory directly, but
//!   only where no queued work of any device uses it: this layer orders
//!   nothing.
//! - **Locations** are device ordinals, or [`Location::Host`]
//!   (`hipCpuDeviceId`, -1).
//!
//! # References
//! HIP's [managed memory](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html)
//! reference; CUDA's unified memory documentation.

use std::ffi::c_void;

use super::{api, on_device, run_on};
use crate::{check, Device, Result};
use hip_sys::bindings::hip::{
    hipDeviceAttribute_t, hipMemAttachGlobal, hipMemRangeAttribute, hipMemoryAdvise, hipStream_t,
};

/// Where managed memory lives or is advised to live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Location {
    /// The host (`hipCpuDeviceId`).
    Host,
    /// A device.
    Device(Device),
}

impl Location {
    fn id(self) -> i32 {
        match self {
            Location::Host => -1,
            Location::Device(device) => device.ordinal() as i32,
        }
    }

    /// The location a range attribute names (`None` for
    /// `hipInvalidDeviceId`, no location).
    fn from_id(id: i32) -> Option<Location> {
        match id {
            -1 => Some(Location::Host),
            id => usize::try_from(id).ok().and_then(|ordinal| Device::new(ordinal).ok()).map(Location::Device),
        }
    }
}

/// What [`advise`] says of a range (`hipMemoryAdvise`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Advice {
    /// Mostly read: devices may keep read-only copies
    /// (`hipMemAdviseSetReadMostly`), or no longer (`…Unset…`).
    ReadMostly(bool),
    /// Prefer to keep it at this location (`hipMemAdviseSetPreferredLocation`).
    PreferredLocation(Location),
    /// No preferred location (`hipMemAdviseUnsetPreferredLocation`).
    NoPreferredLocation,
    /// This location will access it: map it there
    /// (`hipMemAdviseSetAccessedBy`), or no longer (`…Unset…`).
    AccessedBy(Location, bool),
}

/// `hipDeviceGetAttribute(hipDeviceAttributeManagedMemory)`: whether
/// `device` pages managed memory.
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceAttributeManagedMemory")]
pub fn supported(device: Device) -> Result<bool> {
    Ok(super::device::attribute(device, hipDeviceAttribute_t::hipDeviceAttributeManagedMemory)? != 0)
}

/// `hipMallocManaged(hipMemAttachGlobal)`: `bytes` of managed memory,
/// recorded for `device`.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for 0 bytes, `hipErrorOutOfMemory`).
#[doc(alias = "hipMallocManaged")]
pub fn malloc(device: Device, bytes: usize) -> Result<*mut c_void> {
    let api = api()?;
    let mut ptr = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a valid out-pointer.
        check(unsafe { (api.hipMallocManaged)(&mut ptr, bytes, hipMemAttachGlobal) }, "hipMallocManaged")
    })??;
    Ok(ptr)
}

/// `hipMemPrefetchAsync`: move `bytes` at `ptr` to `to` when `stream`
/// (of `device`) gets there.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for a range past its allocation's
/// end, `hipErrorInvalidDevice` for a device that does not exist).
///
/// # Safety
/// `ptr..ptr + bytes` is managed memory that stays allocated until the
/// stream has passed the prefetch; `stream` is a live stream of `device`.
#[doc(alias = "hipMemPrefetchAsync")]
pub unsafe fn prefetch_async(
    device: Device,
    ptr: *const c_void,
    bytes: usize,
    to: Location,
    stream: hipStream_t,
) -> Result<()> {
    let api = api()?;
    run_on(device, || {
        // SAFETY: as the caller guarantees.
        check(unsafe { (api.hipMemPrefetchAsync)(ptr, bytes, to.id(), stream) }, "hipMemPrefetchAsync")
    })?
}

/// `hipMemAdvise`: say `advice` of `bytes` at `ptr`.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for a range past its allocation's
/// end, `hipErrorInvalidDevice` for a device that does not exist).
#[doc(alias = "hipMemAdvise")]
pub fn advise(device: Device, ptr: *const c_void, bytes: usize, advice: Advice) -> Result<()> {
    let api = api()?;
    let (value, location) = match advice {
        Advice::ReadMostly(on) => (if on { 1 } else { 2 }, Location::Host),
        Advice::PreferredLocation(at) => (3, at),
        Advice::NoPreferredLocation => (4, Location::Host),
        Advice::AccessedBy(at, on) => (if on { 5 } else { 6 }, at),
    };
    on_device(device, || {
        // SAFETY: plain values; the runtime looks the address up and never
        // reads or writes the memory for advice.
        check(unsafe { (api.hipMemAdvise)(ptr.cast(), bytes, hipMemoryAdvise(value), location.id()) }, "hipMemAdvise")
    })?
}

/// One `int` range attribute of `bytes` at `ptr`.
fn int_attribute(device: Device, ptr: *const c_void, bytes: usize, attribute: u32) -> Result<i32> {
    let api = api()?;
    let mut value = 0i32;
    on_device(device, || {
        // SAFETY: 4 valid bytes out; the runtime looks the address up.
        check(
            unsafe {
                (api.hipMemRangeGetAttribute)(
                    (&mut value as *mut i32).cast(),
                    4,
                    hipMemRangeAttribute(attribute),
                    ptr,
                    bytes,
                )
            },
            "hipMemRangeGetAttribute",
        )
    })??;
    Ok(value)
}

/// `hipMemRangeGetAttribute(hipMemRangeAttributeLastPrefetchLocation)`:
/// where the last prefetch of the range went (`None`: never prefetched).
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for memory that is not managed).
#[doc(alias = "hipMemRangeGetAttribute")]
pub fn last_prefetch_location(device: Device, ptr: *const c_void, bytes: usize) -> Result<Option<Location>> {
    Ok(Location::from_id(int_attribute(device, ptr, bytes, 4)?))
}

/// `hipMemRangeGetAttribute(hipMemRangeAttributePreferredLocation)`: the
/// range's preferred location (`None`: none).
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for memory that is not managed).
#[doc(alias = "hipMemRangeGetAttribute")]
pub fn preferred_location(device: Device, ptr: *const c_void, bytes: usize) -> Result<Option<Location>> {
    Ok(Location::from_id(int_attribute(device, ptr, bytes, 2)?))
}

/// `hipMemRangeGetAttribute(hipMemRangeAttributeReadMostly)`.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for memory that is not managed).
#[doc(alias = "hipMemRangeGetAttribute")]
pub fn read_mostly(device: Device, ptr: *const c_void, bytes: usize) -> Result<bool> {
    Ok(int_attribute(device, ptr, bytes, 1)? != 0)
}
