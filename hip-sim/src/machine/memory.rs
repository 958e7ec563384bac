//! Device memory: each device's allocations in its own address range.

use super::addresses::{holding, BASE, DEVICE_SPAN};
use super::lock::lock;
use super::pages::Mirror;
use super::races::RaceLog;
use super::shared::SharedFile;
use crate::bindings::hip::hipError_t;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Allocation granularity and alignment, as HIP's 256-byte minimum.
pub(crate) const ALIGN: usize = 256;

/// ROCr's page: an allocation takes whole 4 KiB pages of device memory.
const PAGE: usize = 4 << 10;
/// The kernel driver's block: ROCr sub-allocates allocations below it
/// from 2 MiB blocks, and the driver charges device memory by the block,
/// so the first one-byte `hipMalloc` takes 2 MiB of what `hipMemGetInfo`
/// reports free, and the next ones in that block take nothing more.
const BLOCK: usize = 2 << 20;

/// `value` rounded up to a multiple of `unit` (a power of two), or `None`
/// past `usize::MAX`.
fn round_up(value: usize, unit: usize) -> Option<usize> {
    value.checked_add(unit - 1).map(|v| v & !(unit - 1))
}

/// What live allocations charge the device, as ROCr and the driver count
/// it: allocations below a block, in pages, packed into shared blocks;
/// the others each in whole blocks. (Fragmentation of the shared blocks
/// is not modelled: it only makes real devices fill sooner.)
#[derive(Clone, Copy, Default)]
struct Charge {
    /// Pages of allocations smaller than a block.
    small: usize,
    /// Blocks (in bytes) of the other allocations.
    large: usize,
}

impl Charge {
    /// The bytes charged: the large allocations' blocks and the blocks the
    /// small ones fill.
    fn bytes(self) -> usize {
        self.large.saturating_add(round_up(self.small, BLOCK).unwrap_or(usize::MAX))
    }

    /// With an allocation of `size` bytes added (`add`) or taken away.
    fn with(self, size: usize, add: bool) -> Option<Charge> {
        let pages = round_up(size, PAGE)?;
        let apply =
            |total: usize, amount: usize| if add { total.checked_add(amount) } else { total.checked_sub(amount) };
        Some(if pages < BLOCK {
            Charge { small: apply(self.small, pages)?, ..self }
        } else {
            Charge { large: apply(self.large, round_up(size, BLOCK)?)?, ..self }
        })
    }
}

/// One device allocation; its bytes are zeroed pages taken lazily.
pub(crate) struct Allocation {
    pub base: usize,
    /// The rounded size: the block's extent in the address range.
    pub size: usize,
    /// The size the caller asked for, which copies and fills are checked
    /// against (HIP's `ihipMemcpy_validate` uses it, not the rounded size).
    /// A pool block reused for a request of another size takes that size.
    pub requested: AtomicUsize,
    pub device: usize,
    /// Whether it is charged to the device: false for a graph
    /// allocation's reserved range, whose memory the device's graph
    /// memory pool charges while a launch maps it (`graph_memory.rs`).
    pub charged: bool,
    pub data: Mutex<Bytes>,
    /// Memory another process exported, opened here with
    /// `hipIpcOpenMemHandle` (closed with `hipIpcCloseMemHandle`, never
    /// freed).
    pub imported: bool,
    /// A reserved range of virtual addresses (`hipMemAddressReserve`):
    /// its bytes are what is mapped there, each access checked by
    /// `machine::vmm` (freed with `hipMemAddressFree`, never `hipFree`).
    pub virtual_range: bool,
    /// Managed memory (`hipMallocManaged`): its base is a host address,
    /// and every device reaches it (`machine::managed`).
    pub managed: bool,
    /// Which operations on which streams touched it (the race detector).
    pub races: Arc<RaceLog>,
    /// A pool above the runtime hands out blocks of it (`machine::blocks`):
    /// its bytes outside the blocks handed out are held free.
    pub pooled: std::sync::atomic::AtomicBool,
}

/// An allocation's bytes: its own, or a shared-memory file's once it is
/// exported to (or opened from) another process.
pub(crate) enum Bytes {
    /// The process's own memory, and how many times it was borrowed to
    /// write ([`Bytes::writes`]).
    Owned(Vec<u8>, u64),
    /// `len` bytes from the start of a file other processes map too.
    Shared(Arc<SharedFile>, usize),
    /// A reserved range's mirror, where physical allocations are mapped.
    Mirror(Arc<Mirror>),
}

impl Bytes {
    /// How many times the bytes were borrowed to write, where nothing but
    /// such a borrow changes them (the process's own memory): a copy made
    /// of them is still theirs while this has not changed. None where a
    /// write may come another way: another process's (a shared file), or
    /// another range's mapping of the same memory (a mirror).
    pub fn writes(&self) -> Option<u64> {
        match self {
            Bytes::Owned(_, writes) => Some(*writes),
            Bytes::Shared(..) | Bytes::Mirror(_) => None,
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(bytes, _) => bytes,
            // SAFETY: the file maps at least `len` bytes for as long as it
            // lives (it is held here). Another process writes them only
            // where the simulated program orders it after this one's
            // accesses (IPC events), as on a GPU; an unordered write is a
            // race of that program.
            Bytes::Shared(file, len) => unsafe { std::slice::from_raw_parts(file.ptr(), *len) },
            // SAFETY: the mirror maps all its bytes for as long as it
            // lives (held here), zero pages where nothing is mapped; what
            // is mapped there changes only under the allocation's lock,
            // held by whoever holds this `Bytes`. Another mapping of the
            // same physical memory is reached under its own reservation's
            // lock: the simulated program orders those accesses (unordered
            // ones race on a GPU too).
            Bytes::Mirror(mirror) => unsafe { std::slice::from_raw_parts(mirror.ptr(), mirror.len()) },
        }
    }
}

impl std::ops::DerefMut for Bytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Bytes::Owned(bytes, writes) => {
                *writes = writes.wrapping_add(1);
                bytes
            }
            // SAFETY: as in `deref`; this process's accesses to the bytes
            // all go through the allocation's lock, held for this borrow.
            Bytes::Shared(file, len) => unsafe { std::slice::from_raw_parts_mut(file.ptr(), *len) },
            // SAFETY: as in `deref`, under the allocation's lock.
            Bytes::Mirror(mirror) => unsafe { std::slice::from_raw_parts_mut(mirror.ptr(), mirror.len()) },
        }
    }
}

impl Allocation {
    pub fn requested(&self) -> usize {
        self.requested.load(Ordering::Relaxed)
    }
}

/// What an allocation's bytes are.
enum Kind {
    /// Its own zeroed bytes.
    Own,
    /// Another process's exported bytes.
    Imported(Bytes),
    /// A reserved range (aligned to the first value) over a mirror.
    Virtual(usize, Bytes),
}

struct MemoryState {
    next: usize,
    charge: Charge,
    live: BTreeMap<usize, Arc<Allocation>>,
}

/// The memory of one device.
pub(crate) struct DeviceMemory {
    ordinal: usize,
    /// Whether anything was ever allocated (HIP's primary context "active").
    ever: std::sync::atomic::AtomicBool,
    capacity: usize,
    state: Mutex<MemoryState>,
}

impl DeviceMemory {
    pub fn new(ordinal: usize, capacity: usize) -> DeviceMemory {
        DeviceMemory {
            ordinal,
            ever: std::sync::atomic::AtomicBool::new(false),
            capacity,
            state: Mutex::new(MemoryState {
                next: BASE + ordinal * DEVICE_SPAN,
                charge: Charge::default(),
                live: BTreeMap::new(),
            }),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn ever_allocated(&self) -> bool {
        self.ever.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Bytes of device memory charged to live allocations (pool blocks
    /// included), in ROCr's pages and the driver's blocks ([`Charge`]).
    pub fn used(&self) -> usize {
        lock(&self.state).charge.bytes()
    }

    /// Allocate `size` bytes (its extent rounded up to [`ALIGN`]);
    /// `hipErrorOutOfMemory` where its charge ([`Charge`]) goes beyond
    /// capacity. Addresses are not reused until the device's range is
    /// spent, so a stale pointer is detected.
    pub fn allocate(&self, size: usize) -> Result<Arc<Allocation>, hipError_t> {
        self.take(size, true)
    }

    /// Reserve an address range of `size` bytes (rounded as
    /// [`allocate`](Self::allocate) rounds) that charges the device
    /// nothing: what a graph allocation node reserves at capture.
    pub fn reserve(&self, size: usize) -> Result<Arc<Allocation>, hipError_t> {
        self.take(size, false)
    }

    /// Charge (`add`) or stop charging `bytes` of device memory held
    /// outside any allocation (the graph memory pool's), in whole blocks;
    /// `hipErrorOutOfMemory` beyond capacity.
    pub fn charge(&self, bytes: usize, add: bool) -> Result<(), hipError_t> {
        let blocks = round_up(bytes, BLOCK).ok_or(hipError_t::hipErrorOutOfMemory)?;
        let mut state = lock(&self.state);
        let large = if add { state.charge.large.checked_add(blocks) } else { state.charge.large.checked_sub(blocks) };
        let charge = Charge { large: large.ok_or(hipError_t::hipErrorOutOfMemory)?, ..state.charge };
        if add && charge.bytes() > self.capacity {
            return Err(hipError_t::hipErrorOutOfMemory);
        }
        state.charge = charge;
        Ok(())
    }

    /// Place memory another process exported (`bytes`, of `size` bytes)
    /// in this device's range, charging nothing (its exporter's device
    /// holds it).
    pub fn adopt(&self, size: usize, bytes: Bytes) -> Result<Arc<Allocation>, hipError_t> {
        self.place(size, false, Kind::Imported(bytes))
    }

    /// Reserve `size` bytes of addresses aligned to `align` (a power of
    /// two, at least [`ALIGN`]) but, on purpose, to no more than that,
    /// whose bytes are `mirror`'s, charging nothing.
    pub fn reserve_virtual(&self, size: usize, align: usize, mirror: Bytes) -> Result<Arc<Allocation>, hipError_t> {
        self.place(size, false, Kind::Virtual(align, mirror))
    }

    /// Charge (`add`) or stop charging a physical allocation of `size`
    /// bytes made with no address (`hipMemCreate`), as an allocation of
    /// that size is charged; `hipErrorOutOfMemory` beyond capacity.
    pub fn charge_physical(&self, size: usize, add: bool) -> Result<(), hipError_t> {
        let mut state = lock(&self.state);
        let charge = state.charge.with(size, add).ok_or(hipError_t::hipErrorOutOfMemory)?;
        if add && charge.bytes() > self.capacity {
            return Err(hipError_t::hipErrorOutOfMemory);
        }
        self.ever.store(true, std::sync::atomic::Ordering::Relaxed);
        state.charge = charge;
        Ok(())
    }

    fn take(&self, size: usize, charged: bool) -> Result<Arc<Allocation>, hipError_t> {
        self.place(size, charged, Kind::Own)
    }

    fn place(&self, size: usize, charged: bool, kind: Kind) -> Result<Arc<Allocation>, hipError_t> {
        let align = match kind {
            Kind::Virtual(align, _) => align.max(ALIGN),
            _ => ALIGN,
        };
        let rounded = round_up(size, ALIGN).ok_or(hipError_t::hipErrorOutOfMemory)?;
        let mut state = lock(&self.state);
        let charge = if charged {
            state.charge.with(rounded, true).ok_or(hipError_t::hipErrorOutOfMemory)?
        } else {
            state.charge
        };
        if charge.bytes() > self.capacity {
            return Err(hipError_t::hipErrorOutOfMemory);
        }
        let start = BASE + self.ordinal * DEVICE_SPAN;
        let end = start + DEVICE_SPAN;
        // Room to align the start (and to step off a larger alignment).
        let slack = if align > ALIGN { 2 * align } else { 0 };
        let need = rounded.checked_add(ALIGN + slack).ok_or(hipError_t::hipErrorOutOfMemory)?;
        if need > end - state.next {
            // The range is spent (a terabyte allocated over the process's
            // life): start again at the bottom, in the first gap that fits.
            // Freed addresses are reused only then, so a stale pointer is
            // almost always detected.
            let mut cursor = start;
            for (&base, allocation) in &state.live {
                if base.saturating_sub(cursor) >= need {
                    break;
                }
                cursor = base + allocation.size + ALIGN;
            }
            if need > end - cursor {
                return Err(hipError_t::hipErrorOutOfMemory);
            }
            state.next = cursor;
        }
        let mut base = round_up(state.next, align).ok_or(hipError_t::hipErrorOutOfMemory)?;
        if align > ALIGN && base % (align * 2) == 0 {
            // Aligned to `align` and to nothing larger.
            base += align;
        }
        if rounded + ALIGN > end.saturating_sub(base) {
            return Err(hipError_t::hipErrorOutOfMemory);
        }
        self.ever.store(true, std::sync::atomic::Ordering::Relaxed);
        // Leave a gap after each block so off-by-one accesses hit no allocation.
        state.next = base + rounded + ALIGN;
        state.charge = charge;
        let allocation = Arc::new(Allocation {
            base,
            size: rounded,
            requested: AtomicUsize::new(size),
            device: self.ordinal,
            charged,
            imported: matches!(kind, Kind::Imported(_)),
            virtual_range: matches!(kind, Kind::Virtual(..)),
            managed: false,
            data: Mutex::new(match kind {
                Kind::Own => Bytes::Owned(vec![0u8; rounded], 0),
                Kind::Imported(bytes) | Kind::Virtual(_, bytes) => bytes,
            }),
            races: RaceLog::new(base, Some(self.ordinal)),
            pooled: std::sync::atomic::AtomicBool::new(false),
        });
        state.live.insert(base, allocation.clone());
        Ok(allocation)
    }

    /// Release the allocation that starts exactly at `base`.
    pub fn release(&self, base: usize) -> Result<Arc<Allocation>, hipError_t> {
        let mut state = lock(&self.state);
        let allocation = state.live.remove(&base).ok_or(hipError_t::hipErrorInvalidValue)?;
        if allocation.charged {
            state.charge = state.charge.with(allocation.size, false).unwrap_or_default();
        }
        Ok(allocation)
    }

    /// The allocation containing `address`, and the offset into it.
    pub fn find(&self, address: usize) -> Option<(Arc<Allocation>, usize)> {
        let state = lock(&self.state);
        let (base, allocation) = holding(&state.live, address, |a| a.size)?;
        Some((allocation.clone(), address - base))
    }

    /// A pool block at `base` handed out again for a request of `size` bytes.
    pub fn set_requested(&self, base: usize, size: usize) {
        if let Some(allocation) = lock(&self.state).live.get(&base) {
            allocation.requested.store(size, Ordering::Relaxed);
        }
    }

    pub fn live_count(&self) -> usize {
        lock(&self.state).live.len()
    }
}
