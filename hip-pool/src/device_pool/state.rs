//! One device's pool: its backing, its lock, limits and statistics.

use super::backing::Backing;
use super::pending::Pending;
use crate::error::PoolError;
use crate::limits::{Limit, Limits};
use crate::stats::PoolStats;
use crate::strategy::cached::Cache;
use crate::strategy::expandable::Segments;
use crate::strategy::Strategy;
use hip_core::Device;
use hip_sys::sync::MutexExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// What the pool's lock guards.
pub(super) struct State {
    /// The blocks of the cached and expandable backings, and the cached
    /// backing's segments (empty for the others).
    pub cache: Cache,
    /// The expandable backing's reserved ranges and mapped chunks (empty
    /// for the others).
    pub segments: Segments,
    pub stats: PoolStats,
    pub limits: Limits,
    /// Blocks whose driver free failed (`none` and `async`), retried by
    /// the next reclaim so that a failing free leaks nothing.
    pub failed_frees: Vec<(usize, usize)>,
    /// Events of uses that may still run on free blocks.
    pub pending: Pending,
}

/// The memory of one device: where it comes from, the blocks it keeps,
/// its limits and statistics, under one lock. It knows nothing of buffers
/// or of the per-thread caches in front of it; what those must do during
/// an allocation or a reclaim (give their blocks back) the caller hands in.
pub(crate) struct DevicePool {
    pub device: Device,
    pub backing: Backing,
    state: Mutex<State>,
    /// Set on every allocation and free; the cleanup thread clears it.
    used: AtomicBool,
    total_memory: usize,
}

impl DevicePool {
    /// A pool for `device` with `strategy`, without limits.
    ///
    /// # Errors
    /// As [`Backing::new`], and HIP's status of `hipDeviceTotalMem`.
    pub fn new(device: Device, strategy: Strategy) -> Result<DevicePool, PoolError> {
        let backing = Backing::new(device, strategy)?;
        let total_memory = device.total_memory()?;
        let mut cache = Cache::default();
        if let Backing::Expandable(expandable) = &backing {
            cache.keep_stamps(expandable.chunk_sizes());
        }
        Ok(DevicePool {
            device,
            backing,
            state: Mutex::new(State {
                cache,
                segments: Segments::default(),
                stats: PoolStats::default(),
                limits: Limits::default(),
                failed_frees: Vec::new(),
                pending: Pending::default(),
            }),
            used: AtomicBool::new(false),
            total_memory,
        })
    }

    /// The pool's lock, counted in its statistics.
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        let mut state = self.state.lock_unpoisoned();
        state.stats.lock_acquisitions += 1;
        state
    }

    /// Whether the backing keeps freed blocks (cached and expandable): a
    /// free makes no HIP call.
    #[inline(always)]
    pub fn keeps_blocks(&self) -> bool {
        self.backing.keeps_blocks()
    }

    /// Note activity for the idle cleanup; a read first, so busy threads
    /// do not keep writing one shared cache line.
    #[inline(always)]
    pub fn mark_used(&self) {
        if !self.used.load(Ordering::Relaxed) {
            self.used.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the pool was used since the last call (for the idle
    /// cleanup); clears the mark.
    pub fn take_used(&self) -> bool {
        self.used.swap(false, Ordering::Relaxed)
    }

    /// Set whether a growth of the expandable backing on a busy stream
    /// waits for it; `false` for the other backings, which do not grow so.
    pub fn set_growth_waits(&self, waits: crate::GrowthWaits) -> bool {
        match &self.backing {
            Backing::Expandable(expandable) => {
                expandable.set_growth_waits(waits);
                true
            }
            _ => false,
        }
    }

    /// Set the hard limit (a percentage of the device's memory resolved).
    pub fn set_hard_limit(&self, limit: Limit) {
        let bytes = limit.bytes(self.total_memory);
        self.lock().limits.hard = bytes;
    }

    /// Set the soft limit (a percentage of the device's memory resolved).
    pub fn set_soft_limit(&self, limit: Limit) {
        let bytes = limit.bytes(self.total_memory);
        self.lock().limits.soft = bytes;
    }

    /// The hard limit in bytes, if any.
    pub fn hard_limit(&self) -> Option<usize> {
        self.lock().limits.hard
    }

    /// The pool's own statistics: blocks kept in front of it count as
    /// allocated.
    pub fn stats(&self) -> PoolStats {
        self.lock().stats
    }

    /// The start of the cached backing's segment (one driver allocation)
    /// holding the block at `ptr`; `None` for a block of no segment here.
    pub fn segment_of(&self, ptr: usize) -> Option<usize> {
        match self.backing {
            Backing::Cached => self.lock().cache.segment_of(ptr),
            _ => None,
        }
    }

    /// The cached backing's handed-out blocks as (address, size).
    pub fn live_blocks(&self) -> Vec<(usize, usize)> {
        self.lock().cache.live_blocks()
    }

    /// Count cache hits served by a thread's cache that is going away.
    pub fn add_hits(&self, hits: u64) {
        self.lock().stats.hits += hits;
    }

    pub fn count_oom_retry(&self) {
        self.lock().stats.oom_retries += 1;
    }

    /// The error of an allocation inside a capture that does not fit.
    pub fn out_of_memory_in_capture(&self, requested: usize) -> PoolError {
        let mut state = self.lock();
        state.stats.ooms += 1;
        PoolError::OutOfMemoryInCapture {
            device: self.device,
            requested,
            reserved: state.stats.reserved,
            limit: state.limits.hard,
        }
    }

    pub fn out_of_memory(&self, requested: usize) -> PoolError {
        let free = self.device.mem_info().map(|(free, _)| free).unwrap_or(0);
        let mut state = self.lock();
        state.stats.ooms += 1;
        PoolError::OutOfMemory {
            device: self.device,
            requested,
            allocated: state.stats.allocated,
            reserved: state.stats.reserved,
            free,
            limit: state.limits.hard,
        }
    }
}

pub(super) fn account_alloc(stats: &mut PoolStats, size: usize) {
    stats.allocated += size;
    stats.allocated_peak = stats.allocated_peak.max(stats.allocated);
    stats.live_buffers += 1;
}

/// Memory given back to the driver.
pub(super) fn account_release(stats: &mut PoolStats, size: usize) {
    stats.reserved -= size;
    stats.driver_frees += 1;
}

pub(super) fn account_free(stats: &mut PoolStats, size: usize) {
    stats.allocated -= size;
    stats.live_buffers -= 1;
}
