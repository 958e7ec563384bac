//! Pinned host memory: `hipHostMalloc` allocations and memory made pinned
//! by `hipHostRegister`, by base address.

use super::lock::lock;
use super::memory::ALIGN;
use super::races::RaceLog;
use crate::bindings::hip::hipError_t;
use std::alloc::Layout;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// A `hipHostMalloc` allocation, or memory made pinned by `hipHostRegister`.
#[derive(Clone)]
pub(crate) struct HostAllocation {
    /// How `hipHostMalloc` allocated it; `None` for registered memory,
    /// which is the caller's.
    layout: Option<Layout>,
    /// The size asked for (the layout's is at least 1).
    pub size: usize,
    /// The device current at allocation (or registration): the one
    /// `hipHostFree` (or `hipHostUnregister`) syncs.
    pub device: usize,
    /// The `hipHostMalloc` or `hipHostRegister` flags.
    pub flags: u32,
    /// Which operations on which streams touched it (the race detector).
    pub races: Arc<RaceLog>,
}

impl HostAllocation {
    /// Whether `hipHostRegister` made it (rather than `hipHostMalloc`).
    pub fn is_registered(&self) -> bool {
        self.layout.is_none()
    }
}

/// Pinned host allocations by base address.
static HOST_ALLOCATIONS: Mutex<BTreeMap<usize, HostAllocation>> = Mutex::new(BTreeMap::new());

/// Add `size` bytes at `base`, which the caller owns, as registered
/// pinned memory; `hipErrorHostMemoryAlreadyRegistered` if any of them is
/// pinned already (registered or from `hipHostMalloc`).
pub(crate) fn register_host(base: usize, size: usize, device: usize, flags: u32) -> Result<(), hipError_t> {
    let mut map = lock(&HOST_ALLOCATIONS);
    let end = base.checked_add(size).ok_or(hipError_t::hipErrorInvalidValue)?;
    let before = map.range(..end).next_back();
    if before.is_some_and(|(&b, h)| b + h.size > base) {
        return Err(hipError_t::hipErrorHostMemoryAlreadyRegistered);
    }
    let races = RaceLog::new(base, None);
    map.insert(base, HostAllocation { layout: None, size, device, flags, races });
    Ok(())
}

/// Remove the registration that starts at `base`;
/// `hipErrorHostMemoryNotRegistered` for any other address (also for
/// `hipHostMalloc` memory).
pub(crate) fn unregister_host(base: usize) -> Result<HostAllocation, hipError_t> {
    let mut map = lock(&HOST_ALLOCATIONS);
    match map.get(&base) {
        Some(host) if host.is_registered() => map.remove(&base).ok_or(hipError_t::hipErrorHostMemoryNotRegistered),
        _ => Err(hipError_t::hipErrorHostMemoryNotRegistered),
    }
}

/// Allocate `size` zeroed bytes (`size` > 0) of pinned memory for
/// `device` with the `hipHostMalloc` `flags`; returns its address.
pub(crate) fn allocate(size: usize, device: usize, flags: u32) -> Result<*mut u8, hipError_t> {
    let layout = Layout::from_size_align(size, ALIGN).map_err(|_| hipError_t::hipErrorOutOfMemory)?;
    // SAFETY: the layout has a non-zero size.
    let memory = unsafe { std::alloc::alloc_zeroed(layout) };
    if memory.is_null() {
        return Err(hipError_t::hipErrorOutOfMemory);
    }
    let races = RaceLog::new(memory as usize, None);
    let host = HostAllocation { layout: Some(layout), size, device, flags, races };
    lock(&HOST_ALLOCATIONS).insert(memory as usize, host);
    Ok(memory)
}

/// Remove the `hipHostMalloc` allocation that starts at `base`; `None` for
/// any other address, registered memory included (it is the caller's:
/// `hipHostUnregister` it).
pub(crate) fn take_allocated(base: usize) -> Option<HostAllocation> {
    let mut map = lock(&HOST_ALLOCATIONS);
    match map.get(&base) {
        Some(host) if !host.is_registered() => map.remove(&base),
        _ => None,
    }
}

impl HostAllocation {
    /// Give back the memory of a `hipHostMalloc` allocation at `base`, taken
    /// out of the map with [`take_allocated`]; registered memory is the
    /// caller's and stays.
    ///
    /// # Safety
    /// `base` is this allocation's address, and no pending work of its
    /// device uses the memory any more.
    pub(crate) unsafe fn free(self, base: *mut u8) {
        if let Some(layout) = self.layout {
            // SAFETY: allocated by hipHostMalloc with this layout and removed
            // from the map once; the allocating device's work has finished.
            unsafe { std::alloc::dealloc(base, layout) };
        }
    }
}

/// The pinned allocation containing `address`, with its base.
pub(crate) fn pinned_containing(address: usize) -> Option<(usize, HostAllocation)> {
    let map = lock(&HOST_ALLOCATIONS);
    let (base, host) = super::addresses::holding(&map, address, |h| h.size)?;
    Some((base, host.clone()))
}
