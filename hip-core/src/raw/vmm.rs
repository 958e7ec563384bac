//! Virtual memory management: address ranges reserved with no memory
//! behind them, physical allocations made with no address, mappings
//! between the two, and each device's access to a mapping.
//!
//! What differs between runtimes, which callers must respect:
//! - **Support.** [`supported`] asks
//!   `hipDeviceAttributeVirtualMemoryManagementSupported`. ROCm before 6.1
//!   has none on Linux (the calls succeed and do nothing); 6.1 to 6.4
//!   leak or corrupt their counts on some unmaps. Use the calls only where
//!   [`supported`] says so.
//! - **Granularity.** Sizes and mapped addresses are multiples of
//!   [`granularity`]: the 4 KiB page on ROCm up to 7.2 (for both options),
//!   2 MiB on NVIDIA.
//! - **Access.** A new mapping has no access for any device until
//!   [`set_access`]; peer access does not cover it. ROCm 7.2 matches
//!   `set_access`'s size against the reservation's mappings' sizes summed
//!   in the order they were mapped: set access over everything mapped
//!   from the reservation's start.
//! - **Ordering.** ROCm maps and unmaps on the null stream of the memory's
//!   device and waits: that waits for the device's blocking streams, and
//!   for nothing on non-blocking ones. Unmap only memory no queued work
//!   uses.
//! - **Sharing.** [`export_fd`] gives a descriptor that [`import_fd`] takes
//!   by value (CUDA's convention and ROCm 7.2's).
//!
//! # References
//! HIP's [virtual memory management](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___virtual.html)
//! reference; CUDA's `cuMem*` documentation.

use std::ffi::c_void;
use std::os::fd::{FromRawFd, OwnedFd};

use super::{api, on_device};
use crate::{check, Device, Result};
use hip_sys::bindings::hip::{
    hipDeviceAttribute_t, hipMemAccessDesc, hipMemAccessFlags, hipMemAllocationGranularity_flags,
    hipMemAllocationHandleType, hipMemAllocationProp, hipMemAllocationType, hipMemGenericAllocationHandle_t,
    hipMemLocation, hipMemLocationType,
};

/// What a device may do with mapped memory (`hipMemAccessFlags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Nothing (`hipMemAccessFlagsProtNone`).
    None,
    /// Read (`hipMemAccessFlagsProtRead`).
    Read,
    /// Read and write (`hipMemAccessFlagsProtReadWrite`).
    ReadWrite,
}

impl Access {
    fn flags(self) -> hipMemAccessFlags {
        match self {
            Access::None => hipMemAccessFlags::hipMemAccessFlagsProtNone,
            Access::Read => hipMemAccessFlags::hipMemAccessFlagsProtRead,
            Access::ReadWrite => hipMemAccessFlags::hipMemAccessFlagsProtReadWrite,
        }
    }
}

/// The properties of pinned memory of `device`, shareable by descriptor
/// (`shareable`) or not.
fn device_memory(device: Device, shareable: bool) -> hipMemAllocationProp {
    hipMemAllocationProp {
        type_: hipMemAllocationType::hipMemAllocationTypePinned,
        requestedHandleType: if shareable {
            hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor
        } else {
            hipMemAllocationHandleType::hipMemHandleTypeNone
        },
        location: location(device),
        ..Default::default()
    }
}

fn location(device: Device) -> hipMemLocation {
    hipMemLocation { type_: hipMemLocationType::hipMemLocationTypeDevice, id: device.ordinal() as i32 }
}

/// `hipDeviceGetAttribute(hipDeviceAttributeVirtualMemoryManagementSupported)`:
/// whether the runtime manages virtual memory on `device`.
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceAttributeVirtualMemoryManagementSupported")]
pub fn supported(device: Device) -> Result<bool> {
    let attribute = hipDeviceAttribute_t::hipDeviceAttributeVirtualMemoryManagementSupported;
    Ok(super::device::attribute(device, attribute)? != 0)
}

/// `hipMemGetAllocationGranularity`: the unit of sizes and mapped
/// addresses for `device`'s memory (`recommended`: the recommended one,
/// else the minimum).
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` where the runtime has no virtual
/// memory for the device).
#[doc(alias = "hipMemGetAllocationGranularity")]
pub fn granularity(device: Device, recommended: bool) -> Result<usize> {
    let api = api()?;
    let prop = device_memory(device, false);
    let option = if recommended {
        hipMemAllocationGranularity_flags::hipMemAllocationGranularityRecommended
    } else {
        hipMemAllocationGranularity_flags::hipMemAllocationGranularityMinimum
    };
    let mut value = 0usize;
    on_device(device, || {
        // SAFETY: valid out-pointer and properties.
        check(
            unsafe { (api.hipMemGetAllocationGranularity)(&mut value, &prop, option) },
            "hipMemGetAllocationGranularity",
        )
    })??;
    Ok(value)
}

/// `hipMemAddressReserve`: `size` bytes of addresses (a multiple of the
/// granularity) with nothing behind them, bound to `device` for the call.
/// ROCm passes no alignment on: expect the page, whatever is asked.
///
/// # Errors
/// HIP's status: `hipErrorInvalidValue` (ROCm 7) or
/// `hipErrorMemoryAllocation` (ROCm 6) for a size that is no multiple of
/// the granularity; `hipErrorOutOfMemory` when no range is left.
#[doc(alias = "hipMemAddressReserve")]
pub fn reserve(device: Device, size: usize) -> Result<*mut c_void> {
    let api = api()?;
    let mut ptr = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a valid out-pointer; no hint, no flags.
        check(unsafe { (api.hipMemAddressReserve)(&mut ptr, size, 0, std::ptr::null_mut(), 0) }, "hipMemAddressReserve")
    })??;
    Ok(ptr)
}

/// `hipMemAddressFree`: give back a reservation [`reserve`] made.
///
/// # Errors
/// HIP's status (`hipErrorUnknown` on ROCm while anything is mapped there).
///
/// # Safety
/// `ptr` and `size` are a live reservation's; nothing is mapped there.
#[doc(alias = "hipMemAddressFree")]
pub unsafe fn free_reservation(device: Device, ptr: *mut c_void, size: usize) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: a live reservation, as the caller guarantees.
        check(unsafe { (api.hipMemAddressFree)(ptr, size) }, "hipMemAddressFree")
    })?
}

/// `hipMemCreate`: `size` bytes (a multiple of the granularity) of
/// `device`'s memory with no address, shareable by descriptor if
/// `shareable`. ROCm 7.2 takes the memory from the current device, which
/// this binds to `device`.
///
/// # Errors
/// HIP's status: `hipErrorOutOfMemory` beyond the device's memory (and on
/// ROCm for a size of no whole pages), `hipErrorInvalidValue` for a size
/// of no whole 2 KiB.
#[doc(alias = "hipMemCreate")]
pub fn create(device: Device, size: usize, shareable: bool) -> Result<hipMemGenericAllocationHandle_t> {
    let api = api()?;
    let prop = device_memory(device, shareable);
    let mut handle = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a valid out-pointer and properties; no flags.
        check(unsafe { (api.hipMemCreate)(&mut handle, size, &prop, 0) }, "hipMemCreate")
    })??;
    Ok(handle)
}

/// `hipMemRelease`: give up a handle [`create`] or [`import_fd`] made;
/// the memory goes once nothing maps it.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `handle` is live and released once.
#[doc(alias = "hipMemRelease")]
pub unsafe fn release(device: Device, handle: hipMemGenericAllocationHandle_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: a live handle, as the caller guarantees.
        check(unsafe { (api.hipMemRelease)(handle) }, "hipMemRelease")
    })?
}

/// `hipMemMap`: the first `size` bytes of `handle`'s memory at `ptr`
/// (offset 0 and no flags, the only ones HIP takes), with no access yet.
///
/// # Errors
/// HIP's status (on NVIDIA and in the simulator, `hipErrorInvalidValue`
/// for a range outside the reservation, over a mapping, or of no whole
/// granules; ROCm answers success there having mapped nothing).
///
/// # Safety
/// `ptr..ptr + size` lies in a live reservation with nothing mapped;
/// `handle` is live.
#[doc(alias = "hipMemMap")]
pub unsafe fn map(
    device: Device,
    ptr: *mut c_void,
    size: usize,
    handle: hipMemGenericAllocationHandle_t,
) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: as the caller guarantees.
        check(unsafe { (api.hipMemMap)(ptr, size, 0, handle, 0) }, "hipMemMap")
    })?
}

/// `hipMemUnmap`: unmap the whole mappings that make up `ptr..ptr + size`.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for a range that is not whole
/// mappings).
///
/// # Safety
/// No queued or running work uses the memory (ROCm waits only for the
/// device's blocking streams), and no host reference into it is live.
#[doc(alias = "hipMemUnmap")]
pub unsafe fn unmap(device: Device, ptr: *mut c_void, size: usize) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: as the caller guarantees.
        check(unsafe { (api.hipMemUnmap)(ptr, size) }, "hipMemUnmap")
    })?
}

/// `hipMemSetAccess`: give each `(device, access)` of `access` that access
/// to the mappings from `ptr` over `size` bytes (from a mapping's start;
/// on ROCm 7.2, from the reservation's first mapping over all of them).
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for a range that does not start a
/// mapping, or a device that does not exist).
///
/// # Safety
/// `ptr..ptr + size` is mapped; taking access away from a device leaves
/// no queued work of it on the memory.
#[doc(alias = "hipMemSetAccess")]
pub unsafe fn set_access(device: Device, ptr: *mut c_void, size: usize, access: &[(Device, Access)]) -> Result<()> {
    let api = api()?;
    let descs: Vec<hipMemAccessDesc> =
        access.iter().map(|(d, a)| hipMemAccessDesc { location: location(*d), flags: a.flags() }).collect();
    on_device(device, || {
        // SAFETY: `descs.len()` valid descriptors; the range as the caller
        // guarantees.
        check(unsafe { (api.hipMemSetAccess)(ptr, size, descs.as_ptr(), descs.len()) }, "hipMemSetAccess")
    })?
}

/// `hipMemGetAccess`: what `of` may do with the mapping holding `ptr`.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` where nothing is mapped).
#[doc(alias = "hipMemGetAccess")]
pub fn access(device: Device, ptr: *const c_void, of: Device) -> Result<Access> {
    let api = api()?;
    let place = location(of);
    let mut flags = 0u64;
    on_device(device, || {
        // SAFETY: valid out-pointer and location; the runtime checks the address.
        check(unsafe { (api.hipMemGetAccess)(&mut flags, &place, ptr.cast_mut()) }, "hipMemGetAccess")
    })??;
    Ok(match flags {
        3 => Access::ReadWrite,
        1 => Access::Read,
        _ => Access::None,
    })
}

/// `hipMemExportToShareableHandle(hipMemHandleTypePosixFileDescriptor)`: a
/// descriptor of `handle`'s memory for another process, owned by the
/// caller.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for memory not made shareable,
/// `hipErrorNotSupported` where the runtime cannot share).
///
/// # Safety
/// `handle` is live.
#[doc(alias = "hipMemExportToShareableHandle")]
pub unsafe fn export_fd(device: Device, handle: hipMemGenericAllocationHandle_t) -> Result<OwnedFd> {
    let api = api()?;
    let mut fd: i32 = -1;
    let kind = hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor;
    on_device(device, || {
        // SAFETY: an `int` out-value for a descriptor; a live handle, as
        // the caller guarantees.
        check(
            unsafe { (api.hipMemExportToShareableHandle)((&mut fd as *mut i32).cast(), handle, kind, 0) },
            "hipMemExportToShareableHandle",
        )
    })??;
    // SAFETY: a descriptor the runtime just opened for this caller.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `hipMemImportFromShareableHandle(hipMemHandleTypePosixFileDescriptor)`:
/// a handle of the memory behind `fd` (made by [`export_fd`], here or in
/// another process), on `device`; the descriptor stays the caller's.
///
/// # Errors
/// HIP's status (`hipErrorInvalidValue` for a descriptor of no such memory).
#[doc(alias = "hipMemImportFromShareableHandle")]
pub fn import_fd(device: Device, fd: &OwnedFd) -> Result<hipMemGenericAllocationHandle_t> {
    use std::os::fd::AsRawFd;
    let api = api()?;
    let mut handle = std::ptr::null_mut();
    let kind = hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor;
    // The descriptor's value in the pointer, as CUDA and ROCm 7.2 take it.
    let os_handle = fd.as_raw_fd() as usize as *mut c_void;
    on_device(device, || {
        // SAFETY: a valid out-pointer; the runtime checks the descriptor.
        check(
            unsafe { (api.hipMemImportFromShareableHandle)(&mut handle, os_handle, kind) },
            "hipMemImportFromShareableHandle",
        )
    })??;
    Ok(handle)
}
