//! Virtual memory: address ranges reserved with no memory behind them,
//! physical allocations made with no address, and the mappings between
//! them with each device's access (what `hipMemAddressReserve`,
//! `hipMemCreate`, `hipMemMap` and `hipMemSetAccess` build; the calls'
//! rules per HIP version are `hip::vmm`'s).
//!
//! A reservation is an allocation of the reserving device's address range
//! (clr reserves one range for every device; here a pointer names a
//! device, as everywhere, and operations name the device of the physical
//! memory mapped at it) that charges nothing, whose bytes
//! are a [`Mirror`]: mapping a physical allocation puts its [`Pages`]
//! there. Every access to a reservation is checked here first
//! ([`check`]): bytes with nothing mapped are no memory at all, and a
//! device reaches mapped bytes only with the access `hipMemSetAccess`
//! gave it. A physical allocation lives while its handle or a mapping
//! holds it (clr's `GenericAllocation` count, ROCr's deferred release).

use super::addresses::holding;
use super::lock::lock;
use super::memory::{Allocation, Bytes};
use super::pages::{Mirror, Pages, HOST_PAGE};
use super::sim;
use crate::bindings::hip::{hipError_t, hipMemAllocationProp};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// `hipMemAccessFlagsProtRead`: a device may read.
pub(crate) const ACCESS_READ: u32 = 1;
/// `hipMemAccessFlagsProtReadWrite`: a device may read and write.
pub(crate) const ACCESS_READ_WRITE: u32 = 3;

/// One physical allocation.
pub(crate) struct Physical {
    /// The handle value the caller holds.
    pub handle: usize,
    /// The device whose memory it is (charged there unless imported).
    pub device: usize,
    /// The properties it was made with (`hipMemGetAllocationPropertiesFromHandle`).
    pub prop: Prop,
    pub pages: Pages,
    /// Charged to `device` (memory made here, not opened from a handle).
    charged: bool,
}

/// Allocation properties as the caller gave them.
#[derive(Clone, Copy)]
pub(crate) struct Prop(pub hipMemAllocationProp);

// SAFETY: the one pointer (`win32HandleMetaData`) is a value kept to be
// handed back, never dereferenced.
unsafe impl Send for Prop {}
// SAFETY: as for `Send`.
unsafe impl Sync for Prop {}

impl Physical {
    /// Its size in bytes.
    pub fn size(&self) -> usize {
        self.pages.len()
    }
}

impl Drop for Physical {
    fn drop(&mut self) {
        if self.charged {
            if let Some(d) = sim().device(self.device) {
                d.memory.charge_physical(self.pages.len(), false).ok();
            }
        }
    }
}

/// One mapping inside a reservation.
pub(crate) struct Mapping {
    pub size: usize,
    pub physical: Arc<Physical>,
    /// Each device's `hipMemAccessFlags` (0 until set).
    pub access: Vec<u32>,
    /// When it was mapped, among the reservation's mappings.
    pub order: u64,
}

/// One reserved address range.
pub(crate) struct Reservation {
    pub base: usize,
    pub size: usize,
    /// Its place in the reserving device's address range.
    pub allocation: Arc<Allocation>,
    mirror: Arc<Mirror>,
    /// Its mappings by offset.
    mappings: Mutex<BTreeMap<usize, Mapping>>,
}

/// What a mapping, an unmapping or an access found wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A range not within the reservation.
    OutOfRange,
    /// An address or size that is no multiple of the page.
    Unaligned,
    /// A range that overlaps a mapping (map).
    Overlap,
    /// More bytes than the physical allocation has (map).
    TooLong,
    /// Bytes with nothing mapped.
    Unmapped,
    /// A range that is not whole mappings, one after another (unmap).
    NotWholeMappings,
    /// Mapped bytes the device has no access to (or only read access, for
    /// a write).
    NoAccess,
}

/// Live physical allocations by handle (a released handle is gone from
/// here even while a mapping still holds its memory).
static PHYSICAL: Mutex<BTreeMap<usize, Arc<Physical>>> = Mutex::new(BTreeMap::new());
/// Live reservations by base address.
static RESERVED: Mutex<BTreeMap<usize, Arc<Reservation>>> = Mutex::new(BTreeMap::new());
/// The order of mappings.
static MAPPED: AtomicU64 = AtomicU64::new(0);

/// Make a physical allocation of `size` bytes (a multiple of the page) of
/// `device`'s memory, charged there; `hipErrorOutOfMemory` beyond its
/// capacity.
pub(crate) fn create(device: usize, size: usize, prop: hipMemAllocationProp) -> Result<Arc<Physical>, hipError_t> {
    let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    d.memory.charge_physical(size, true)?;
    let pages = match Pages::new(size) {
        Ok(pages) => pages,
        Err(_) => {
            d.memory.charge_physical(size, false).ok();
            return Err(hipError_t::hipErrorOutOfMemory);
        }
    };
    Ok(register(Physical { handle: super::handles::new_handle(), device, prop: Prop(prop), pages, charged: true }))
}

/// A physical allocation of pages opened from another allocation's
/// descriptor, on `device`, charged nowhere (its maker's device holds it).
pub(crate) fn adopt(device: usize, pages: Pages, prop: hipMemAllocationProp) -> Arc<Physical> {
    register(Physical { handle: super::handles::new_handle(), device, prop: Prop(prop), pages, charged: false })
}

fn register(physical: Physical) -> Arc<Physical> {
    let physical = Arc::new(physical);
    lock(&PHYSICAL).insert(physical.handle, physical.clone());
    physical
}

/// The live physical allocation of `handle`.
pub(crate) fn physical(handle: usize) -> Option<Arc<Physical>> {
    lock(&PHYSICAL).get(&handle).cloned()
}

/// Give up `handle`: its memory goes once no mapping holds it. `None` for
/// a handle that is not live.
pub(crate) fn release(handle: usize) -> Option<()> {
    lock(&PHYSICAL).remove(&handle).map(drop)
}

/// Reserve `size` bytes (a multiple of the page) of addresses, aligned to
/// the page and, on purpose, to nothing larger: clr passes no alignment
/// on, so a caller relying on more than the page breaks here as it may on
/// a GPU.
pub(crate) fn reserve(size: usize) -> Result<Arc<Reservation>, hipError_t> {
    let mirror = Arc::new(Mirror::new(size).map_err(|_| hipError_t::hipErrorOutOfMemory)?);
    // clr reserves the addresses for every device; here they lie in the
    // reserving (current) device's range, so that a pointer names a device
    // as everywhere else: the one whose memory is normally mapped there.
    let d = sim().device(crate::machine::thread::current_device()).ok_or(hipError_t::hipErrorInvalidDevice)?;
    let allocation = d.memory.reserve_virtual(size, HOST_PAGE, Bytes::Mirror(mirror.clone()))?;
    let reservation = Arc::new(Reservation {
        base: allocation.base,
        size,
        allocation,
        mirror,
        mappings: Mutex::new(BTreeMap::new()),
    });
    lock(&RESERVED).insert(reservation.base, reservation.clone());
    Ok(reservation)
}

/// The reservation holding `address`.
pub(crate) fn containing(address: usize) -> Option<Arc<Reservation>> {
    let reserved = lock(&RESERVED);
    holding(&reserved, address, |r| r.size).map(|(_, reservation)| reservation.clone())
}

/// Give back the reservation at `base`'s addresses; `false` while
/// anything is mapped there.
pub(crate) fn free(reservation: &Reservation) -> bool {
    if !lock(&reservation.mappings).is_empty() {
        return false;
    }
    lock(&RESERVED).remove(&reservation.base);
    if let Some(d) = sim().device(reservation.allocation.device) {
        d.memory.release(reservation.base).ok();
    }
    true
}

/// The device of the physical memory mapped at `offset` of the
/// reservation at `base`, if any is.
pub(crate) fn device_at(base: usize, offset: usize) -> Option<usize> {
    let reservation = lock(&RESERVED).get(&base).cloned()?;
    reservation.physical_at(offset).map(|physical| physical.device)
}

/// Whether `len` bytes at `offset` of the reservation at `base` are all
/// mapped and, for `device` (`None`: any device, or none yet), accessible
/// (`write`: for writing).
pub(crate) fn check(base: usize, offset: usize, len: usize, device: Option<usize>, write: bool) -> Result<(), Refusal> {
    let Some(reservation) = lock(&RESERVED).get(&base).cloned() else { return Err(Refusal::Unmapped) };
    let mappings = lock(&reservation.mappings);
    let end = offset.checked_add(len).ok_or(Refusal::OutOfRange)?;
    let mut at = offset;
    while at < end {
        let (start, mapping) = holding(&mappings, at, |m| m.size).ok_or(Refusal::Unmapped)?;
        if let Some(device) = device {
            let flags = mapping.access.get(device).copied().unwrap_or(0);
            let allowed = if write { flags == ACCESS_READ_WRITE } else { flags & ACCESS_READ != 0 };
            if !allowed {
                return Err(Refusal::NoAccess);
            }
        }
        at = start + mapping.size;
    }
    Ok(())
}

/// The run of adjacent mappings around `offset` of the reservation at
/// `base` that `device` may read and write, as (start, length) within the
/// reservation; `None` where nothing it may write is mapped at `offset`.
pub(crate) fn writable_run(base: usize, offset: usize, device: usize) -> Option<(usize, usize)> {
    let reservation = lock(&RESERVED).get(&base).cloned()?;
    let mappings = lock(&reservation.mappings);
    let writable = |m: &Mapping| m.access.get(device).copied().unwrap_or(0) == ACCESS_READ_WRITE;
    let (start, mapping) = holding(&mappings, offset, |m| m.size).filter(|(_, m)| writable(m))?;
    let mut end = start + mapping.size;
    let mut first = start;
    while let Some((&before, m)) = mappings.range(..first).next_back() {
        if before + m.size != first || !writable(m) {
            break;
        }
        first = before;
    }
    for (&at, m) in mappings.range(end..) {
        if at != end || !writable(m) {
            break;
        }
        end = at + m.size;
    }
    Some((first, end - first))
}

impl Reservation {
    /// Map the first `size` bytes of `physical` at `offset`.
    pub fn map(&self, offset: usize, size: usize, physical: Arc<Physical>) -> Result<(), Refusal> {
        if offset.checked_add(size).is_none_or(|end| end > self.size) {
            return Err(Refusal::OutOfRange);
        }
        if offset % HOST_PAGE != 0 || size % HOST_PAGE != 0 {
            return Err(Refusal::Unaligned);
        }
        if size > physical.size() {
            return Err(Refusal::TooLong);
        }
        // The data lock first: no access to the bytes while they change.
        let _bytes = lock(&self.allocation.data);
        let mut mappings = lock(&self.mappings);
        let before = mappings.range(..offset + size).next_back();
        if before.is_some_and(|(&start, m)| start + m.size > offset) {
            return Err(Refusal::Overlap);
        }
        // SAFETY: page-multiple bounds inside the mirror, checked above,
        // and at most the physical allocation's size; the data lock is
        // held, so no borrow of the bytes is live.
        unsafe { self.mirror.map(offset, size, &physical.pages) }.map_err(|_| Refusal::Unmapped)?;
        let devices = sim().devices.len();
        let order = MAPPED.fetch_add(1, Ordering::Relaxed);
        mappings.insert(offset, Mapping { size, physical, access: vec![0; devices], order });
        Ok(())
    }

    /// The starts of the mappings that run one after another from one
    /// starting at `offset` until they cover `offset..offset + size`, and
    /// where the last ends (at or past that end).
    fn consecutive(
        mappings: &BTreeMap<usize, Mapping>,
        offset: usize,
        size: usize,
    ) -> Result<(Vec<usize>, usize), Refusal> {
        let end = offset.checked_add(size).ok_or(Refusal::OutOfRange)?;
        let mut starts = Vec::new();
        let mut at = offset;
        while at < end {
            let mapping = mappings.get(&at).ok_or(Refusal::NotWholeMappings)?;
            starts.push(at);
            at += mapping.size;
        }
        Ok((starts, at))
    }

    /// The mappings that make up exactly `offset..offset + size`.
    fn whole_mappings(mappings: &BTreeMap<usize, Mapping>, offset: usize, size: usize) -> Result<Vec<usize>, Refusal> {
        match Self::consecutive(mappings, offset, size)? {
            (starts, end) if end == offset + size => Ok(starts),
            _ => Err(Refusal::NotWholeMappings),
        }
    }

    /// Whether `offset..offset + size` is exactly whole mappings.
    pub fn is_whole_mappings(&self, offset: usize, size: usize) -> bool {
        Self::whole_mappings(&lock(&self.mappings), offset, size).is_ok()
    }

    /// Unmap the whole mappings that make up `offset..offset + size`.
    pub fn unmap(&self, offset: usize, size: usize) -> Result<(), Refusal> {
        let _bytes = lock(&self.allocation.data);
        let mut mappings = lock(&self.mappings);
        let starts = Self::whole_mappings(&mappings, offset, size)?;
        for start in starts {
            if let Some(mapping) = mappings.remove(&start) {
                // SAFETY: a mapping's own page-multiple bounds inside the
                // mirror; the data lock is held.
                unsafe { self.mirror.unmap(start, mapping.size) }.map_err(|_| Refusal::Unmapped)?;
            }
        }
        Ok(())
    }

    /// The sizes of the mappings in the order they were mapped (clr 7.2
    /// matches `hipMemSetAccess`'s size against their running sum).
    pub fn sizes_in_map_order(&self) -> Vec<usize> {
        let mappings = lock(&self.mappings);
        let mut all: Vec<(u64, usize)> = mappings.values().map(|m| (m.order, m.size)).collect();
        all.sort_unstable();
        all.into_iter().map(|(_, size)| size).collect()
    }

    /// Give `device` access `flags` to `offset..offset + size`, which must
    /// start at a mapping and run through mappings one after another (the
    /// last may reach past its end), as ROCr's `hsa_amd_vmem_set_access`
    /// requires.
    pub fn set_access(&self, offset: usize, size: usize, device: usize, flags: u32) -> Result<(), Refusal> {
        let mut mappings = lock(&self.mappings);
        let (starts, _) = Self::consecutive(&mappings, offset, size)?;
        for start in starts {
            if let Some(slot) = mappings.get_mut(&start).and_then(|m| m.access.get_mut(device)) {
                *slot = flags;
            }
        }
        Ok(())
    }

    /// `device`'s access to the mapping holding `offset`; `None` where
    /// nothing is mapped.
    pub fn access(&self, offset: usize, device: usize) -> Option<u32> {
        let mappings = lock(&self.mappings);
        let (_, mapping) = holding(&mappings, offset, |m| m.size)?;
        Some(mapping.access.get(device).copied().unwrap_or(0))
    }

    /// The physical allocation mapped at `offset`.
    pub fn physical_at(&self, offset: usize) -> Option<Arc<Physical>> {
        let mappings = lock(&self.mappings);
        holding(&mappings, offset, |m| m.size).map(|(_, mapping)| mapping.physical.clone())
    }
}
