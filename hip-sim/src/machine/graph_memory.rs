//! Graph memory: what `hipMallocAsync` and `hipFreeAsync` make inside a
//! capture (allocation and free nodes), and each device's graph memory
//! pool, as clr (`GraphMemAllocNode`, `GraphMemFreeNode`,
//! `GraphExec::Run`) and CUDA do them.
//!
//! # A graph allocation
//!
//! `hipMallocAsync` on a capturing stream adds an allocation node and
//! returns an address range reserved for it (clr's `ReserveAddress`, with
//! VM): the address is fixed for the life of the graph, and no memory is
//! behind it until a launch runs the node. A free node, from
//! `hipFreeAsync` on a capturing stream, takes the memory away again. The
//! free may be in another graph, or outside graphs (`hipFreeAsync` or
//! `hipFree` of memory a launch left allocated). The memory is *mapped*
//! from an allocation node to the free that follows it.
//!
//! Mapping follows the host's calls, as the race detector does: a launch
//! maps and unmaps when it is enqueued, and so do the frees outside
//! graphs. So every rule below is decided at the call, whatever the
//! streams have run so far.
//!
//! # The rules
//!
//! | call | refused when | code |
//! |---|---|---|
//! | `hipFreeAsync` in a capture | the pointer is not the start of a graph allocation | 1 (CUDA; the capture goes on. clr without VM frees such memory at capture) |
//! | `hipGraphLaunch` | an allocation node's memory is still mapped: a launch left it allocated and nothing freed it, unless the exec was instantiated with AutoFreeOnLaunch, which frees it first | 1 |
//! | `hipGraphLaunch` | a free node's memory is not mapped: freed already, or its allocating graph has not run | 1 (CUDA; clr does not check) |
//! | `hipGraphLaunch` | the device's graph memory pool cannot grow to what the launch maps | 2 |
//! | `hipGraphInstantiate*` | the graph has memory nodes and was instantiated before | 801 (clr: ever before; CUDA: while that exec lives) |
//! | `hipFree`, `hipFreeAsync` outside captures | the graph allocation is not mapped | 1 |
//! | copies and fills through the API | the graph allocation is not mapped and no capture is underway | 1 |
//!
//! Kernels and library calls are not refused at the call (a GPU takes
//! their pointers as values); their accesses to memory that is not mapped
//! are reported by the race detector as uses after free (below).
//!
//! # The graph memory pool
//!
//! Each device has one (clr's `GetGraphMemoryPool`). A mapped allocation
//! counts its size, rounded up to the driver's 2 MiB block, as used. The
//! pool reserves device memory up to the most used at once and keeps it
//! when allocations are unmapped. `hipDeviceGraphMemTrim` gives back what
//! is reserved beyond what is used. `hipDeviceGetGraphMemAttribute` reports
//! the four counters, and `hipDeviceSetGraphMemAttribute` resets the high
//! marks, as the device's stream-ordered pools do. Reserved bytes count as
//! used device memory in `hipMemGetInfo`.
//!
//! # Races
//!
//! A reserved range's access log holds a free from the start. So any work
//! that touches it before a launch maps it is a reported use after free,
//! and so is work after a free node or an outside free. Mapping is an
//! access of its own ([`AccessKind::Allocate`]): it supersedes the
//! accesses ordered before it, and races with the ones that are not, such
//! as a launch on another stream while the last one's work on the same
//! memory may still run.
//!
//! # When a range goes
//!
//! The range stays reserved while a graph or exec holds its nodes, or
//! while it is mapped (memory a launch left allocated outlives its graph,
//! as on CUDA, until it is freed). It is released at the first
//! [`collect`] after neither holds.

use super::lock::lock;
use super::memory::Allocation;
use super::races::{race_check_enabled, Access};
use super::sim;
use super::violations::AccessKind;
use crate::bindings::hip::{hipError_t, hipGraphMemAttributeType};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The driver's block: graph memory is mapped in whole blocks.
const BLOCK: u64 = 2 << 20;

/// What the access log of a range shows before any launch mapped it.
const NOT_MAPPED: &str = "hipMallocAsync in a capture (reserved; no memory until a launch runs the node)";

/// One allocation node's memory.
pub(crate) struct GraphAllocation {
    /// The reserved range (charged to no one; the pool charges it).
    pub allocation: Arc<Allocation>,
    /// The bytes the pool counts while it is mapped (whole blocks).
    blocks: u64,
    mapped: AtomicBool,
}

impl GraphAllocation {
    /// Whether memory is behind it now (as of the calls so far).
    pub fn is_mapped(&self) -> bool {
        self.mapped.load(Ordering::Acquire)
    }

    /// The allocation's address.
    pub fn base(&self) -> usize {
        self.allocation.base
    }

    /// The race detector's view of all of it, with `kind`.
    pub fn access(&self, kind: AccessKind) -> Option<Access> {
        race_check_enabled().then(|| Access::new(&self.allocation.races, 0, self.allocation.size, kind))
    }
}

/// A node's part in graph memory.
#[derive(Clone)]
pub(crate) enum NodeMemory {
    /// An allocation node: maps it.
    Allocate(Arc<GraphAllocation>),
    /// A free node: unmaps it.
    Free(Arc<GraphAllocation>),
}

/// One device's graph memory pool (bytes).
#[derive(Default)]
struct GraphPool {
    used: u64,
    used_high: u64,
    reserved: u64,
    reserved_high: u64,
}

/// Every reserved range, by address; and how many (0: nothing to look up).
static RANGES: Mutex<BTreeMap<usize, Arc<GraphAllocation>>> = Mutex::new(BTreeMap::new());
static RANGE_COUNT: AtomicUsize = AtomicUsize::new(0);
/// The pools, one per device, made at first use.
static POOLS: Mutex<Vec<GraphPool>> = Mutex::new(Vec::new());

fn with_pool<R>(device: usize, f: impl FnOnce(&mut GraphPool) -> R) -> R {
    let mut pools = lock(&POOLS);
    if pools.len() <= device {
        pools.resize_with(device + 1, GraphPool::default);
    }
    f(&mut pools[device])
}

fn device_memory(device: usize) -> Result<&'static super::memory::DeviceMemory, hipError_t> {
    Ok(&sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?.memory)
}

/// Reserve `size` bytes on `device` for an allocation node (at capture).
pub(crate) fn reserve(device: usize, size: usize) -> Result<Arc<GraphAllocation>, hipError_t> {
    collect();
    let allocation = device_memory(device)?.reserve(size)?;
    allocation.races.unmapped(allocation.size, NOT_MAPPED);
    let blocks = (allocation.size as u64).div_ceil(BLOCK) * BLOCK;
    let range = Arc::new(GraphAllocation { allocation, blocks, mapped: AtomicBool::new(false) });
    lock(&RANGES).insert(range.base(), range.clone());
    RANGE_COUNT.fetch_add(1, Ordering::AcqRel);
    Ok(range)
}

/// The graph allocation that starts exactly at `address`, if any.
pub(crate) fn starting_at(address: usize) -> Option<Arc<GraphAllocation>> {
    if RANGE_COUNT.load(Ordering::Acquire) == 0 {
        return None;
    }
    lock(&RANGES).get(&address).cloned()
}

/// Whether the allocation at `base` is a graph allocation with no memory
/// behind it now.
pub(crate) fn unmapped(base: usize) -> bool {
    starting_at(base).is_some_and(|range| !range.is_mapped())
}

/// Release the ranges no graph holds and no launch left mapped.
pub(crate) fn collect() {
    if RANGE_COUNT.load(Ordering::Acquire) == 0 {
        return;
    }
    let mut ranges = lock(&RANGES);
    let gone: Vec<usize> = ranges
        .iter()
        .filter(|(_, range)| Arc::strong_count(range) == 1 && !range.is_mapped())
        .map(|(&base, _)| base)
        .collect();
    for base in gone {
        if let Some(range) = ranges.remove(&base) {
            RANGE_COUNT.fetch_sub(1, Ordering::AcqRel);
            if let Ok(memory) = device_memory(range.allocation.device) {
                let _ = memory.release(base);
            }
        }
    }
}

/// What a launch does to graph memory, worked out before anything of it
/// is enqueued: the allocations `AutoFreeOnLaunch` frees first.
pub(crate) struct LaunchPlan {
    pub free_first: Vec<Arc<GraphAllocation>>,
}

/// Check a launch of the memory nodes `nodes` (in launch order) against
/// the mapping rules, and grow each device's pool to the most the launch
/// maps at once.
pub(crate) fn plan_launch<'a>(
    nodes: impl Iterator<Item = &'a NodeMemory> + Clone,
    auto_free: bool,
) -> Result<LaunchPlan, hipError_t> {
    let mut free_first: Vec<Arc<GraphAllocation>> = Vec::new();
    if auto_free {
        for node in nodes.clone() {
            if let NodeMemory::Allocate(range) = node {
                if range.is_mapped() && !free_first.iter().any(|r| Arc::ptr_eq(r, range)) {
                    free_first.push(range.clone());
                }
            }
        }
    }
    // Walk the launch with a private copy of the mapping, and of each
    // device's used bytes: (used, most used).
    let mut mapped: Vec<(*const GraphAllocation, bool)> = free_first.iter().map(|r| (Arc::as_ptr(r), false)).collect();
    let mut devices: BTreeMap<usize, (u64, u64)> = BTreeMap::new();
    let mut track = |range: &GraphAllocation, grow: bool| {
        let device = range.allocation.device;
        let entry = devices.entry(device).or_insert_with(|| {
            let used = with_pool(device, |pool| pool.used);
            (used, used)
        });
        entry.0 = if grow { entry.0 + range.blocks } else { entry.0.saturating_sub(range.blocks) };
        entry.1 = entry.1.max(entry.0);
    };
    for range in &free_first {
        track(range, false);
    }
    for node in nodes {
        let (range, allocates) = match node {
            NodeMemory::Allocate(range) => (range, true),
            NodeMemory::Free(range) => (range, false),
        };
        let key = Arc::as_ptr(range);
        let now = mapped.iter().rev().find(|(k, _)| *k == key).map_or_else(|| range.is_mapped(), |&(_, on)| on);
        if now == allocates {
            // An allocation still mapped (a repeat launch whose memory
            // nothing freed), or a free of memory not mapped.
            return Err(hipError_t::hipErrorInvalidValue);
        }
        mapped.push((key, allocates));
        track(range, allocates);
    }
    for (device, (_, peak)) in devices {
        let memory = device_memory(device)?;
        with_pool(device, |pool| {
            if peak > pool.reserved {
                let grow = usize::try_from(peak - pool.reserved).map_err(|_| hipError_t::hipErrorOutOfMemory)?;
                memory.charge(grow, true)?;
                pool.reserved = peak;
                pool.reserved_high = pool.reserved_high.max(peak);
            }
            Ok::<(), hipError_t>(())
        })?;
    }
    Ok(LaunchPlan { free_first })
}

/// Put memory behind `range` (its allocation node is being enqueued).
pub(crate) fn map(range: &GraphAllocation) {
    range.mapped.store(true, Ordering::Release);
    // The launch's plan reserved the pool for this (`plan_launch`).
    with_pool(range.allocation.device, |pool| {
        pool.used += range.blocks;
        pool.used_high = pool.used_high.max(pool.used);
    });
}

/// Take the memory away from `range` (a free node or a free outside
/// graphs is being enqueued).
pub(crate) fn unmap(range: &GraphAllocation) {
    if range.mapped.swap(false, Ordering::AcqRel) {
        with_pool(range.allocation.device, |pool| pool.used = pool.used.saturating_sub(range.blocks));
    }
}

/// `hipFree` or `hipFreeAsync`, outside captures, of memory a launch left
/// allocated: refused (1) when nothing is mapped; else `free` makes or
/// enqueues the free, given what the race detector sees of it, and the
/// memory is unmapped, its range released if no graph holds it.
pub(crate) fn free_outside(
    range: Arc<GraphAllocation>,
    free: impl FnOnce(Option<Access>) -> Result<(), hipError_t>,
) -> Result<(), hipError_t> {
    if !range.is_mapped() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    free(range.access(AccessKind::Free))?;
    unmap(&range);
    drop(range);
    collect();
    Ok(())
}

/// `hipDeviceGraphMemTrim`: give back what the pool reserves beyond what
/// is mapped.
pub(crate) fn trim(device: usize) -> Result<(), hipError_t> {
    let memory = device_memory(device)?;
    with_pool(device, |pool| {
        let spare = pool.reserved - pool.used;
        if spare > 0 {
            let _ = memory.charge(usize::try_from(spare).unwrap_or(usize::MAX), false);
            pool.reserved = pool.used;
        }
    });
    Ok(())
}

/// `hipDeviceGetGraphMemAttribute`.
pub(crate) fn attribute(device: usize, attr: hipGraphMemAttributeType) -> Result<u64, hipError_t> {
    device_memory(device)?;
    with_pool(device, |pool| match attr {
        hipGraphMemAttributeType::hipGraphMemAttrUsedMemCurrent => Ok(pool.used),
        hipGraphMemAttributeType::hipGraphMemAttrUsedMemHigh => Ok(pool.used_high),
        hipGraphMemAttributeType::hipGraphMemAttrReservedMemCurrent => Ok(pool.reserved),
        hipGraphMemAttributeType::hipGraphMemAttrReservedMemHigh => Ok(pool.reserved_high),
        _ => Err(hipError_t::hipErrorInvalidValue),
    })
}

/// `hipDeviceSetGraphMemAttribute`: clr passes the two high marks to the
/// pool's `SetAttribute`, so they take only 0 and reset to 0, and in HIP
/// 5 and 6 the reserved mark is refused as the stream-ordered pools refuse
/// it (see `hip/pools.rs`); the current values are read-only.
pub(crate) fn set_attribute(device: usize, attr: hipGraphMemAttributeType, value: u64) -> Result<(), hipError_t> {
    device_memory(device)?;
    let reserved_refused = sim().config.hip_major <= 6;
    with_pool(device, |pool| match attr {
        hipGraphMemAttributeType::hipGraphMemAttrReservedMemHigh if reserved_refused => {
            Err(hipError_t::hipErrorInvalidValue)
        }
        _ if value != 0 => Err(hipError_t::hipErrorInvalidValue),
        hipGraphMemAttributeType::hipGraphMemAttrUsedMemHigh => {
            pool.used_high = 0;
            Ok(())
        }
        hipGraphMemAttributeType::hipGraphMemAttrReservedMemHigh => {
            pool.reserved_high = 0;
            Ok(())
        }
        _ => Err(hipError_t::hipErrorInvalidValue),
    })
}
