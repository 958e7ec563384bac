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
/// physical allocation of its own on `device` that another process can
/// map too (by descriptor: `ipc` shares them), and give `devices` (the
/// device first, then its peers) read-write access to them; the chunks'
/// handles, in address order. All or nothing: a failure unmaps and
/// releases what it had made. Out of memory is the pool's to handle.
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
    let created = hip_core::capture::relaxed(|| {
        for _ in 0..count {
            handles.push(vmm::create(device, chunk, true)? as usize);
        }
        Ok(())
    })
    .and_then(|result| result)
    // SAFETY: the caller's promise, and the handles just made.
    .and_then(|()| unsafe { map_handles(device, at, chunk, &handles, devices) });
    match created {
        Ok(()) => Driver::Ok(handles),
        Err(error) => {
            // SAFETY: the handles this call made; `map_handles` unmapped
            // what it had mapped of them.
            unsafe { release(device, &handles) };
            Driver::of(Err(error))
        }
    }
}

/// Map `handles` (physical allocations of `chunk` bytes each, of this
/// process or imported from another) at `at`, one after another, and give
/// `devices` read-write access to them. All or nothing: a failure unmaps
/// what it mapped; the handles stay the caller's.
///
/// # Safety
/// `at..at + handles.len() * chunk` lies in a live reservation of
/// `device` with nothing mapped there, `chunk` is a multiple of the
/// allocation granularity, the handles are live, and no other thread maps
/// there meanwhile.
pub(crate) unsafe fn map_handles(
    device: Device,
    at: usize,
    chunk: usize,
    handles: &[usize],
    devices: &[Device],
) -> Result<(), HipError> {
    let mut mapped = 0;
    let done = hip_core::capture::relaxed(|| {
        for &handle in handles {
            // SAFETY: the caller's promise: this chunk of the reservation
            // has nothing mapped; the handle is live.
            unsafe { vmm::map(device, ptr(at + mapped * chunk), chunk, handle as hipMemGenericAllocationHandle_t) }?;
            mapped += 1;
        }
        let access: Vec<(Device, Access)> = devices.iter().map(|d| (*d, Access::ReadWrite)).collect();
        // SAFETY: the range is mapped, chunk after chunk, by the loop above.
        unsafe { vmm::set_access(device, ptr(at), handles.len() * chunk, &access) }
    })
    .and_then(|result| result);
    if done.is_err() {
        for i in 0..mapped {
            // SAFETY: a chunk this call mapped, unmapped once; nothing used it.
            if let Err(undo) = unsafe { vmm::unmap(device, ptr(at + i * chunk), chunk) } {
                log::error!("pool of {device}: undoing a failed mapping at {:#x}: {undo}", at + i * chunk);
            }
        }
    }
    done
}

/// Release physical allocations mapped nowhere.
///
/// # Safety
/// The handles are live, the caller's, mapped nowhere, and released once.
pub(crate) unsafe fn release(device: Device, handles: &[usize]) {
    for &handle in handles {
        // SAFETY: the caller's promise.
        if let Err(error) = unsafe { vmm::release(device, handle as hipMemGenericAllocationHandle_t) } {
            log::error!("pool of {device}: releasing a chunk never mapped: {error}");
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
    // SAFETY: the caller's promise.
    let unmapped = unsafe { unmap_keeping(device, at, chunk, handles.len()) };
    let kept = unmapped.as_ref().err().map_or(&[][..], |(_, kept)| kept.as_slice());
    for (i, &handle) in handles.iter().enumerate().filter(|(i, _)| !kept.contains(i)) {
        // SAFETY: the handle of a chunk just unmapped, released once. A
        // refusal leaves the physical memory to the runtime: the chunk is
        // unmapped, so the pool no longer has it either way.
        if let Err(error) = unsafe { vmm::release(device, handle as hipMemGenericAllocationHandle_t) } {
            log::error!("pool of {device}: releasing the chunk unmapped at {:#x}: {error}", at + i * chunk);
        }
    }
    unmapped
}

/// Unmap `count` chunks of `chunk` bytes at `at`, one after another,
/// keeping their physical allocations (to be mapped elsewhere, or
/// released). Every chunk is tried. On a failure, the first error and the
/// indices of the chunks that stay mapped.
///
/// # Safety
/// The chunks are whole mappings there, and no work queued or to come
/// uses them (their stream finished its work since their last use).
pub(crate) unsafe fn unmap_keeping(
    device: Device,
    at: usize,
    chunk: usize,
    count: usize,
) -> Result<(), (HipError, Vec<usize>)> {
    let mut first = None;
    let mut kept = Vec::new();
    for i in 0..count {
        // SAFETY: the caller's promise: a whole mapping nothing uses.
        if let Err(error) = unsafe { vmm::unmap(device, ptr(at + i * chunk), chunk) } {
            first.get_or_insert(error);
            kept.push(i);
        }
    }
    first.map_or(Ok(()), |error| Err((error, kept)))
}
