//! Memory as copies, fills, kernels and libraries see it: an address
//! resolved to device memory (an allocation and an offset) or host memory,
//! and the copies and fills between places.

use super::machine::sim;
use crate::bindings::hip::hipError_t;
use crate::machine::addresses::device_of;
use crate::machine::capture;
use crate::machine::graph_memory;
use crate::machine::lock::lock;
use crate::machine::memory::Allocation;
use crate::machine::pinned::pinned_containing;
use crate::machine::races::{self, Access};
use crate::machine::violations::AccessKind;
use crate::machine::vmm::{self, Refusal};
use std::sync::Arc;

/// A resolved operand of a copy or fill.
#[derive(Clone)]
pub(crate) enum Place {
    /// Host memory the caller vouches for (pinned or not).
    Host(usize),
    /// Bytes of a device allocation, at an offset.
    Device(Arc<Allocation>, usize),
}

impl Place {
    /// The device whose memory this is: for reserved addresses, which
    /// clr reserves for every device, the device of the physical memory
    /// mapped there.
    pub fn device(&self) -> Option<usize> {
        match self {
            Place::Host(_) => None,
            Place::Device(a, offset) => Some(memory_device(a, *offset)),
        }
    }

    /// The race detector's view of `len` bytes here: device memory and
    /// pinned host memory are tracked, other host memory is not.
    pub fn access(&self, len: usize, kind: AccessKind) -> Option<Access> {
        if !races::race_check_enabled() {
            return None;
        }
        match self {
            Place::Device(a, offset) => Some(Access::new(&a.races, *offset, len, kind)),
            Place::Host(address) => {
                let (base, host) = pinned_containing(*address)?;
                Some(Access::new(&host.races, address - base, len, kind))
            }
        }
    }
}

/// The device whose memory `offset` of `allocation` is: the allocation's,
/// or for reserved addresses (which clr reserves for every device) the
/// device of the physical memory mapped there.
pub(crate) fn memory_device(allocation: &Allocation, offset: usize) -> usize {
    if allocation.virtual_range {
        vmm::device_at(allocation.base, offset).unwrap_or(allocation.device)
    } else {
        allocation.device
    }
}

/// Resolve `len` bytes at `ptr`. Device memory must lie inside one live
/// allocation, within the size that was asked for (else
/// `hipErrorInvalidValue`); so must a range that starts in pinned host
/// memory; any other address is host memory the caller vouches for.
pub(crate) fn resolve(ptr: usize, len: usize) -> Result<Place, hipError_t> {
    if ptr == 0 {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let Some(device) = device_of(ptr) else {
        if let Some((managed, offset)) = crate::machine::managed::containing(ptr) {
            // Managed memory: a host address every device reaches.
            if len > managed.allocation.requested().saturating_sub(offset) {
                return Err(hipError_t::hipErrorInvalidValue);
            }
            return Ok(Place::Device(managed.allocation.clone(), offset));
        }
        if let Some((base, host)) = pinned_containing(ptr) {
            if len > host.size - (ptr - base) {
                return Err(hipError_t::hipErrorInvalidValue);
            }
        }
        return Ok(Place::Host(ptr));
    };
    let memory = &sim().device(device).ok_or(hipError_t::hipErrorInvalidValue)?.memory;
    let (allocation, offset) = memory.find(ptr).ok_or(hipError_t::hipErrorInvalidValue)?;
    if len > allocation.requested().saturating_sub(offset) {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    if allocation.virtual_range {
        // Reserved addresses are memory only where something is mapped.
        vmm::check(allocation.base, offset, len, None, false).map_err(|_| hipError_t::hipErrorInvalidValue)?;
    }
    Ok(Place::Device(allocation, offset))
}

/// Whether `device` may touch `len` bytes at `place` (`write`: write
/// them): always, but for mapped virtual memory, which a device reaches
/// only with the access `hipMemSetAccess` gave it (a GPU page fault
/// otherwise).
pub(crate) fn reachable(place: &Place, len: usize, device: usize, write: bool) -> bool {
    match place {
        Place::Device(allocation, offset) if allocation.virtual_range => {
            vmm::check(allocation.base, *offset, len, Some(device), write) != Err(Refusal::NoAccess)
        }
        _ => true,
    }
}

/// Whether `address` lies in a device allocation that is no reserved
/// range (`hipMalloc`'s, a pool's, an opened handle's).
pub(crate) fn is_allocation(address: usize) -> bool {
    device_of(address)
        .and_then(|device| sim().device(device))
        .and_then(|d| d.memory.find(address))
        .is_some_and(|(allocation, _)| !allocation.virtual_range)
}

/// As [`resolve`], for a copy or fill through the API: a device range must
/// lie within the bytes the allocation was asked for, else
/// `hipErrorInvalidValue` (clr: `sizeBytes > getSize() - offset`).
///
/// A graph allocation with no memory behind it is refused too, as CUDA
/// refuses it, unless a capture is underway: a capture may name memory
/// that its graph, or an earlier one, allocates (`graph_memory.rs`).
pub(crate) fn resolve_api(ptr: usize, len: usize) -> Result<Place, hipError_t> {
    let place = resolve(ptr, len)?;
    if let Place::Device(allocation, offset) = &place {
        let requested = allocation.requested.load(std::sync::atomic::Ordering::Relaxed);
        if *offset > requested || len > requested - offset {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if !allocation.charged && graph_memory::unmapped(allocation.base) && !capture::any_underway() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let device = crate::machine::thread::current_device();
        if !reachable(&place, len, device, false) {
            // The copy engine's kernel would fault on the GPU.
            crate::machine::violations::record_virtual_memory(
                "a copy or fill",
                crate::machine::violations::thread_name(),
                device,
                "a copy or fill touched mapped memory the current device was given no access to (hipMemSetAccess)",
            );
            return Err(hipError_t::hipErrorIllegalAddress);
        }
    }
    Ok(place)
}

/// Copy `len` bytes. Host places are raw addresses that the C caller
/// guarantees valid until the copy has run (HIP's contract).
pub(crate) fn copy(dst: &Place, src: &Place, len: usize) {
    if len == 0 {
        return;
    }
    match (dst, src) {
        (Place::Host(d), Place::Host(s)) => {
            // SAFETY: both are host ranges of `len` bytes the caller vouches for; `copy` allows overlap.
            unsafe { std::ptr::copy(*s as *const u8, *d as *mut u8, len) }
        }
        (Place::Device(a, off), Place::Host(s)) => {
            let mut data = lock(&a.data);
            // SAFETY: the source is a host range of `len` bytes the caller vouches for.
            let source = unsafe { std::slice::from_raw_parts(*s as *const u8, len) };
            data[*off..*off + len].copy_from_slice(source);
        }
        (Place::Host(d), Place::Device(a, off)) => {
            let data = lock(&a.data);
            // SAFETY: the destination is a host range of `len` bytes the caller vouches for.
            let dest = unsafe { std::slice::from_raw_parts_mut(*d as *mut u8, len) };
            dest.copy_from_slice(&data[*off..*off + len]);
        }
        (Place::Device(da, doff), Place::Device(sa, soff)) => {
            if Arc::ptr_eq(da, sa) {
                lock(&da.data).copy_within(*soff..*soff + len, *doff);
            } else {
                // Lock in address order so two opposite copies cannot deadlock.
                let (first, second) = if da.base < sa.base { (da, sa) } else { (sa, da) };
                let g1 = lock(&first.data);
                let g2 = lock(&second.data);
                let (dst_data, src_data) = if da.base < sa.base { (g1, g2) } else { (g2, g1) };
                let mut dst_data = dst_data;
                dst_data[*doff..*doff + len].copy_from_slice(&src_data[*soff..*soff + len]);
            }
        }
    }
}

/// Fill `count` elements of `pattern` (1 or 4 bytes) at a device place, or
/// at pinned host memory (the caller checked that it is pinned and in bounds).
pub(crate) fn fill(place: &Place, pattern: &[u8], count: usize) -> Result<(), hipError_t> {
    let bytes = count * pattern.len();
    match place {
        Place::Device(a, off) => {
            let mut data = lock(&a.data);
            for chunk in data[*off..*off + bytes].chunks_exact_mut(pattern.len()) {
                chunk.copy_from_slice(pattern);
            }
        }
        Place::Host(address) => {
            // SAFETY: a range of `bytes` inside a live hipHostMalloc
            // allocation (checked by the caller), which hipHostFree does not
            // release before the device's pending work has run.
            let dest = unsafe { std::slice::from_raw_parts_mut(*address as *mut u8, bytes) };
            for chunk in dest.chunks_exact_mut(pattern.len()) {
                chunk.copy_from_slice(pattern);
            }
        }
    }
    Ok(())
}
