//! The expandable backing's driver calls: an address range reserved for
//! a stream's segment, physical chunks created, mapped into it and made
//! accessible, and unmapped and released again. Each chunk is its own
//! physical allocation, so that any one of them can be unmapped alone
//! (ROCm unmaps only whole mappings).
//!
//! While a stream capture is underway the calls run in the Relaxed
//! capture mode, as `hipMalloc` does: new memory is safe for a capture
//! (nothing captured uses it yet).

use super::pass_through::Driver;
use hip_core::raw::vmm::{self, Access};
use hip_core::{Device, HipError};
use hip_sys::bindings::hip::hipMemGenericAllocationHandle_t;
use std::ffi::c_void;

fn ptr(address: usize) -> *mut c_void {
    address as *mut c_void
}

/// `hipMemAddressReserve(size)` on `device`: the address of a range of
/// `size` bytes with nothing mapped.
pub(crate) fn reserve(device: Device, size: usize) -> Driver {
    hip_core::capture::relaxed(|| Driver::of(vmm::reserve(device, size).map(|p| p as usize)))
        .unwrap_or_else(Driver::Failed)
}

/// `hipMemAddressFree` of a whole reservation.
///
/// # Safety
/// `base` and `size` are a reservation of `device` with nothing mapped,
/// freed once.
pub(crate) unsafe fn free_reservation(device: Device, base: usize, size: usize) -> Result<(), HipError> {
    // SAFETY: the caller's promise.
    unsafe { vmm::free_reservation(device, ptr(base), size) }
}

/// Map `count` chunks of `chunk` bytes at `at`, one after another, each a
/// physical allocation of its own on `device`, and give `devices` (the
/// device first, then its peers) read-write access to them; the chunks'
/// handles, in address order. All or nothing: a failure unmaps and
/// releases what it had mapped. Out of memory is the pool's to handle.
///
/// # Safety
/// `at..at + count * chunk` lies in a live reservation of `device` with
/// nothing mapped there, `chunk` is a multiple of the allocation
/// granularity, and no other thread maps there meanwhile.
pub(crate) unsafe fn map(
    device: Device,
    at: usize,
    chunk: usize,
    count: usize,
    devices: &[Device],
) -> Driver<Vec<usize>> {
    let mut handles = Vec::with_capacity(count);
    let mapped = hip_core::capture::relaxed(|| {
        for i in 0..count {
            let handle = vmm::create(device, chunk, false)?;
            // SAFETY: the caller's promise: this chunk of the reservation
            // has nothing mapped; the handle is live.
            if let Err(error) = unsafe { vmm::map(device, ptr(at + i * chunk), chunk, handle) } {
                // SAFETY: the handle was just made and is mapped nowhere.
                unsafe { vmm::release(device, handle) }.ok();
                return Err(error);
            }
            handles.push(handle as usize);
        }
        let access: Vec<(Device, Access)> = devices.iter().map(|d| (*d, Access::ReadWrite)).collect();
        // SAFETY: the range is mapped, chunk after chunk, by the loop above.
        unsafe { vmm::set_access(device, ptr(at), count * chunk, &access) }
    })
    .and_then(|result| result);
    match mapped {
        Ok(()) => Driver::Ok(handles),
        Err(error) => {
            // SAFETY: the chunks this call mapped, each unmapped and
            // released once; nothing used them yet.
            if let Err((undo, _)) = unsafe { unmap(device, at, chunk, &handles) } {
                log::error!("pool of {device}: undoing a failed mapping at {at:#x}: {undo}");
            }
            Driver::of(Err(error))
        }
    }
}

/// Unmap the chunks of `chunk` bytes at `at`, one after another, and
/// release their physical allocations (`handles`, in address order).
/// Every chunk is tried. On a failure, the first error and the indices of
/// the chunks that stay mapped (to be kept by the pool: nothing is lost).
///
/// # Safety
/// The chunks were mapped there by [`map`] with these handles, and
/// nothing uses them any more (the device was synchronized since their
/// last use).
pub(crate) unsafe fn unmap(
    device: Device,
    at: usize,
    chunk: usize,
    handles: &[usize],
) -> Result<(), (HipError, Vec<usize>)> {
    let mut first = None;
    let mut kept = Vec::new();
    for (i, &handle) in handles.iter().enumerate() {
        // SAFETY: the caller's promise: a whole mapping nothing uses.
        if let Err(error) = unsafe { vmm::unmap(device, ptr(at + i * chunk), chunk) } {
            first.get_or_insert(error);
            kept.push(i);
            continue;
        }
        // SAFETY: the handle of the chunk just unmapped, released once. A
        // refusal leaves the physical memory to the runtime: the chunk is
        // unmapped, so the pool no longer has it either way.
        if let Err(error) = unsafe { vmm::release(device, handle as hipMemGenericAllocationHandle_t) } {
            log::error!("pool of {device}: releasing the chunk unmapped at {:#x}: {error}", at + i * chunk);
        }
    }
    first.map_or(Ok(()), |error| Err((error, kept)))
}
