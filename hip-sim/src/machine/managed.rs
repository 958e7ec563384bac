//! Managed memory (`hipMallocManaged`): memory the host and every device
//! reach at one address. On AMD it is system memory the GPUs page through
//! the kernel's heterogeneous memory management, so its address is a real
//! host address here too: the host reads and writes it directly, and
//! copies, fills and kernels of any device reach it through its
//! allocation, as device memory.
//!
//! Each allocation keeps what `hipMemPrefetchAsync` and `hipMemAdvise` last
//! said of it (as ROCr's SVM attributes: the whole allocation, not page by
//! page), for `hipMemRangeGetAttribute`.

use super::addresses::holding;
use super::lock::lock;
use super::memory::{Allocation, Bytes};
use super::pages::{Mirror, HOST_PAGE};
use super::races::RaceLog;
use crate::bindings::hip::hipError_t;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

/// `hipCpuDeviceId`: the host, as a location.
pub(crate) const CPU: i32 = -1;
/// `hipInvalidDeviceId`: no location.
pub(crate) const NONE: i32 = -2;

/// What the advice and prefetches said of one allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Advice {
    pub read_mostly: bool,
    /// The preferred location: a device, [`CPU`] or [`NONE`].
    pub preferred: i32,
    /// The devices (or [`CPU`]) given `SetAccessedBy`, in order.
    pub accessed_by: Vec<i32>,
    /// Where the last prefetch went: a device, [`CPU`] or [`NONE`].
    pub last_prefetch: i32,
    /// `hipMemAdviseSetCoarseGrain` (AMD's coherence advice).
    pub coarse_grain: bool,
}

impl Default for Advice {
    fn default() -> Self {
        Advice {
            read_mostly: false,
            preferred: NONE,
            accessed_by: Vec::new(),
            last_prefetch: NONE,
            coarse_grain: false,
        }
    }
}

/// One managed allocation.
pub(crate) struct Managed {
    pub allocation: Arc<Allocation>,
    pub advice: Mutex<Advice>,
}

/// Live managed allocations by (host) address.
static MANAGED: Mutex<BTreeMap<usize, Arc<Managed>>> = Mutex::new(BTreeMap::new());

/// `size` bytes of zeroed, page-aligned host memory, recorded for `device`
/// (the current one, as clr records it).
pub(crate) fn allocate(device: usize, size: usize) -> Result<Arc<Managed>, hipError_t> {
    let len = size.checked_next_multiple_of(HOST_PAGE).ok_or(hipError_t::hipErrorOutOfMemory)?;
    let mirror = Arc::new(Mirror::new(len).map_err(|_| hipError_t::hipErrorOutOfMemory)?);
    let base = mirror.ptr() as usize;
    let allocation = Arc::new(Allocation {
        base,
        size: len,
        requested: AtomicUsize::new(size),
        device,
        charged: false,
        imported: false,
        virtual_range: false,
        managed: true,
        data: Mutex::new(Bytes::Mirror(mirror)),
        races: RaceLog::new(base, Some(device)),
        pooled: std::sync::atomic::AtomicBool::new(false),
    });
    let managed = Arc::new(Managed { allocation, advice: Mutex::new(Advice::default()) });
    lock(&MANAGED).insert(base, managed.clone());
    Ok(managed)
}

/// The managed allocation holding `address`, and the offset into it.
pub(crate) fn containing(address: usize) -> Option<(Arc<Managed>, usize)> {
    let managed = lock(&MANAGED);
    let (base, entry) = holding(&managed, address, |m| m.allocation.size)?;
    Some((entry.clone(), address - base))
}

/// Forget the managed allocation at exactly `base`.
pub(crate) fn release(base: usize) -> Option<Arc<Managed>> {
    lock(&MANAGED).remove(&base)
}
