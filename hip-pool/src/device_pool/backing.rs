//! Where a pool's memory comes from: its strategy as one value that holds
//! what the strategy needs. The `async` backing owns its stream-ordered
//! pool and the `expandable` one what it learned of the device's virtual
//! memory (its growth is `expand`'s), so a pool of either without them
//! cannot exist.

use super::fences::Fences;
use crate::driver::{self, AsyncPool, Driver};
use crate::error::PoolError;
use crate::strategy::expandable::{self, LARGE_CHUNK};
use crate::strategy::{cached, GrowthWaits, Strategy};
use hip_core::raw::vmm;
use hip_core::{Device, HipError, Stream};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

/// A pool's backing.
pub(crate) enum Backing {
    /// Segments from `hipMalloc`, split into blocks and kept by the pool
    /// (`strategy::cached`): a free makes no HIP call.
    Cached,
    /// HIP's stream-ordered pool, made for this pool.
    Async(AsyncPool),
    /// `hipMalloc` and `hipFree` for every block.
    None,
    /// Reserved address ranges with chunks mapped on demand
    /// (`strategy::expandable`), split into blocks kept by the pool as the
    /// cached backing keeps its own; it grows through `expand`, and by
    /// [`Backing::malloc`]'s segments only while a capture is underway.
    Expandable(Expandable),
}

impl Backing {
    /// The backing of `strategy` on `device` (the `async` one makes its
    /// stream-ordered pool).
    ///
    /// # Errors
    /// HIP's status of the calls that make the `async` pool or look at
    /// the device's virtual memory; [`PoolError::Config`] for `expandable`
    /// where the device has no virtual memory.
    pub fn new(device: Device, strategy: Strategy) -> Result<Backing, PoolError> {
        Ok(match strategy {
            Strategy::Cached => Backing::Cached,
            Strategy::Async => Backing::Async(AsyncPool::create(device)?),
            Strategy::None => Backing::None,
            Strategy::Expandable => Backing::Expandable(Expandable::new(device)?),
        })
    }

    /// Whether the backing keeps freed blocks (cached and expandable): a
    /// free makes no HIP call, and blocks may wait in the thread caches.
    #[inline(always)]
    pub fn keeps_blocks(&self) -> bool {
        matches!(self, Backing::Cached | Backing::Expandable(_))
    }

    /// The strategy this backing serves.
    pub fn strategy(&self) -> Strategy {
        match self {
            Backing::Cached => Strategy::Cached,
            Backing::Async(_) => Strategy::Async,
            Backing::None => Strategy::None,
            Backing::Expandable(_) => Strategy::Expandable,
        }
    }

    /// The bytes to ask the driver for to hand out a block of `size`: a
    /// whole segment for the cached backing, the block itself otherwise;
    /// `None` if that does not fit in an address.
    pub fn driver_size(&self, size: usize) -> Option<usize> {
        match self {
            Backing::Cached | Backing::Expandable(_) => cached::segment_size(size),
            Backing::Async(_) | Backing::None => Some(size),
        }
    }

    /// Ask the driver for `bytes` on `device`, for use on `stream`.
    pub fn malloc(&self, device: Device, bytes: usize, stream: &Stream) -> Driver {
        match self {
            Backing::Async(pool) => pool.malloc(device, bytes, stream),
            Backing::Cached | Backing::None | Backing::Expandable(_) => driver::malloc(device, bytes),
        }
    }

    /// Give `ptr` back to the driver (in `stream`'s order for the `async`
    /// backing).
    pub fn free(&self, device: Device, ptr: usize, stream: &Stream) -> Result<(), HipError> {
        match self {
            Backing::Async(pool) => pool.free(device, ptr, stream),
            Backing::Cached | Backing::None | Backing::Expandable(_) => driver::free(device, ptr),
        }
    }
}

/// What the expandable backing needs of its device.
pub(crate) struct Expandable {
    /// The allocation granularity (chunks are whole granules).
    pub(super) granularity: usize,
    /// The devices given access to each mapped chunk: the pool's, then
    /// each peer that can reach it. The driver's peer enabling does not
    /// cover virtual memory: access is set here, explicitly.
    pub(super) devices: Vec<Device>,
    /// Bytes of addresses reserved for each segment: an eighth more than
    /// the device's memory (as PyTorch), in whole large chunks, so that a
    /// segment's gaps rarely leave too little room for what the device
    /// still has.
    pub(super) addresses: usize,
    /// Held while growing or unmapping, with the fences that tell a
    /// growth which free blocks of a busy stream have finished their work.
    pub(super) growing: Mutex<Fences>,
    /// Whether a growth on a busy stream waits for it (a [`GrowthWaits`]).
    waits: AtomicU8,
}

impl Expandable {
    /// The chunk sizes of its segments of small and large blocks.
    pub fn chunk_sizes(&self) -> [usize; 2] {
        [expandable::chunk_size(cached::SMALL, self.granularity), expandable::chunk_size(1, self.granularity)]
    }

    /// The backing for `device`.
    ///
    /// # Errors
    /// [`PoolError::Config`] where the device has no virtual memory;
    /// HIP's status of the attribute, granularity and peer queries.
    pub fn new(device: Device) -> Result<Expandable, PoolError> {
        if !vmm::supported(device)? {
            return Err(PoolError::Config(format!(
                "the expandable pool strategy needs HIP's virtual memory, which {device} does not have \
                 (hipDeviceAttributeVirtualMemoryManagementSupported is 0: ROCm before 7.0, or the \
                 simulator as HIP 5 or 6); use the cached strategy"
            )));
        }
        let granularity = vmm::granularity(device, false)?.max(1);
        let large = expandable::chunk_size(1, granularity).max(LARGE_CHUNK);
        let total = device.total_memory()?.max(1);
        let addresses = total
            .saturating_add(total / 8)
            .checked_next_multiple_of(large)
            .ok_or_else(|| PoolError::Config(format!("{device}'s memory size does not fit in an address range")))?;
        let mut devices = vec![device];
        for peer in Device::all()? {
            if peer != device && peer.can_access_peer(device)? {
                devices.push(peer);
            }
        }
        let waits = AtomicU8::new(GrowthWaits::WhereFree as u8);
        Ok(Expandable { granularity, devices, addresses, growing: Mutex::new(Fences::default()), waits })
    }

    /// Set whether a growth on a busy stream waits for it.
    pub fn set_growth_waits(&self, waits: GrowthWaits) {
        self.waits.store(waits as u8, Ordering::Relaxed);
    }

    /// Whether a growth on `stream`, busy, waits for its work.
    pub fn growth_waits(&self, stream: &Stream) -> bool {
        match self.waits.load(Ordering::Relaxed) {
            w if w == GrowthWaits::Always as u8 => true,
            w if w == GrowthWaits::Never as u8 => false,
            // The runtime's own mapping waits for blocking streams (see
            // `GrowthWaits::WhereFree`).
            _ => hip_sys::backend() != hip_sys::Backend::Nvidia && !stream.is_foreign(),
        }
    }
}
