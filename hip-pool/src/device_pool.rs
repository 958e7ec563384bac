//! One device's pool: the strategy, its lock, limits and statistics.

use crate::driver::{self, events, AsyncPool, Driver};
use crate::limits::Limits;
use crate::pending::{self, Pending, Waits};
use crate::strategy::cached::{self, Cache};
use crate::{Buffer, Limit, PoolError, PoolStats, Result, Strategy};
use hip_core::{Device, Event, HipError, Stream};
use hip_sys::sync::MutexExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

struct State {
    cache: Cache,
    stats: PoolStats,
    limits: Limits,
    /// Blocks whose driver free failed (`none` and `async`), retried by
    /// the next reclaim so that a failing free leaks nothing.
    failed_frees: Vec<(usize, usize)>,
    /// Events of uses that may still run on free blocks.
    pending: Pending,
}

/// A memory pool for one device. The process has one per device
/// ([`crate::pool`]); more can be made with [`Pool::new`] (for example to
/// compare strategies). A pool lives for the rest of the process (its
/// unused memory goes back with [`Pool::reclaim`]), so buffers refer to it
/// without reference counting: make few. `Pool` is a cheap, `Copy` handle.
#[derive(Clone, Copy)]
pub struct Pool(pub(crate) &'static PoolInner);

pub(crate) struct PoolInner {
    /// Small and unique in the process: the index of the pool's slot in
    /// each thread's caches.
    pub id: usize,
    pub device: Device,
    pub strategy: Strategy,
    state: Mutex<State>,
    /// Set on every allocation and free; the cleanup thread clears it.
    pub used: AtomicBool,
    async_pool: Option<AsyncPool>,
    total_memory: usize,
    /// The per-thread caches of this pool, for reclaim and statistics.
    pub thread_caches: Mutex<Vec<crate::thread_cache::Shared>>,
}

/// Every pool made, for the life of the process (pools are never freed:
/// listing them keeps them reachable, as they are).
static ALL_POOLS: Mutex<Vec<&'static PoolInner>> = Mutex::new(Vec::new());

/// What one allocation attempt answered.
pub(crate) enum Attempt {
    Done(Buffer),
    OutOfMemory,
    Failed(PoolError),
}

impl Pool {
    /// A new pool for `device` with `strategy`, without limits.
    pub fn new(device: Device, strategy: Strategy) -> Result<Pool> {
        let async_pool = match strategy {
            Strategy::Async => Some(AsyncPool::create(device)?),
            _ => None,
        };
        let total_memory = device.total_memory()?;
        let mut all = ALL_POOLS.lock_unpoisoned();
        let inner: &'static PoolInner = Box::leak(Box::new(PoolInner {
            id: all.len(),
            device,
            strategy,
            state: Mutex::new(State {
                cache: Cache::default(),
                stats: PoolStats::default(),
                limits: Limits::default(),
                failed_frees: Vec::new(),
                pending: Pending::default(),
            }),
            used: AtomicBool::new(false),
            async_pool,
            total_memory,
            thread_caches: Mutex::new(Vec::new()),
        }));
        all.push(inner);
        Ok(Pool(inner))
    }

    /// The pool's device.
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// The pool's strategy.
    pub fn strategy(&self) -> Strategy {
        self.0.strategy
    }

    /// A buffer of `bytes` for use on `stream` (which must be on the
    /// pool's device), through the out-of-memory ladder.
    #[inline(always)]
    pub fn alloc(&self, bytes: usize, stream: &Stream) -> Result<Buffer> {
        match self.0.take_parked(bytes, stream) {
            Some((ptr, size, stream)) => Ok(Buffer::new(*self, ptr, bytes, size, stream)),
            None => self.alloc_slow(bytes, stream),
        }
    }

    #[inline(never)]
    fn alloc_slow(&self, bytes: usize, stream: &Stream) -> Result<Buffer> {
        stream.expect_device(self.0.device, "Pool::alloc").map_err(PoolError::from)?;
        crate::oom::allocate(self, bytes, stream)
    }

    /// Synchronize the device and release every unused cached block.
    /// Returns the bytes given back to the driver.
    pub fn reclaim(&self) -> Result<usize> {
        self.0.reclaim()
    }

    /// This pool's statistics. Current values are exact; `allocated_peak`
    /// counts blocks parked in per-thread caches as allocated, so it is an
    /// upper bound of the peak in buffers.
    pub fn stats(&self) -> PoolStats {
        crate::thread_cache::with_totals(self.0, |parked| {
            let mut stats = self.0.lock().stats;
            // Every parked block is counted as allocated, and none moves
            // while the caches are locked: these never go below zero.
            stats.allocated = stats.allocated.saturating_sub(parked.bytes);
            stats.live_buffers = stats.live_buffers.saturating_sub(parked.blocks);
            stats.hits += parked.hits;
            stats
        })
    }

    /// Set the hard limit: requests that would take the pool's reserved
    /// memory above it fail before the driver is asked.
    pub fn set_hard_limit(&self, limit: Limit) {
        let bytes = limit.bytes(self.0.total_memory);
        self.0.lock().limits.hard = bytes;
    }

    /// Set the soft limit: going above it first releases cached memory.
    pub fn set_soft_limit(&self, limit: Limit) {
        let bytes = limit.bytes(self.0.total_memory);
        self.0.lock().limits.soft = bytes;
    }

    /// The hard limit in bytes, if any.
    pub fn hard_limit(&self) -> Option<usize> {
        self.0.lock().limits.hard
    }

    /// Live blocks as (address, size), for tests of the cached strategy.
    pub fn live_blocks(&self) -> Vec<(usize, usize)> {
        let parked = crate::thread_cache::parked_addresses(self.0);
        self.0.lock().cache.live_blocks().into_iter().filter(|(p, _)| !parked.contains(p)).collect()
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({:?} on {})", self.0.strategy, self.0.device)
    }
}

impl PoolInner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock_unpoisoned()
    }

    /// Note activity for the idle cleanup; a read first, so busy threads
    /// do not keep writing one shared cache line.
    #[inline(always)]
    fn mark_used(&self) {
        if !self.used.load(Ordering::Relaxed) {
            self.used.store(true, Ordering::Relaxed);
        }
    }

    /// Whether reserving `more` bytes would go above the soft limit.
    fn over_soft_limit(&self, more: usize) -> bool {
        let state = self.lock();
        state.limits.soft.is_some_and(|s| state.stats.reserved.saturating_add(more) > s)
    }

    /// The fast path of the cached strategy: a block this thread parked,
    /// of the right size, on `stream`.
    #[inline(always)]
    fn take_parked(&'static self, bytes: usize, stream: &Stream) -> Option<(usize, usize, Stream)> {
        if self.strategy != Strategy::Cached || bytes == 0 || stream.device() != self.device {
            return None;
        }
        let size = cached::block_size(bytes)?;
        let (ptr, stream) = crate::thread_cache::take(self, size, stream)?;
        self.mark_used();
        Some((ptr, size, stream))
    }

    /// One attempt to allocate, without retries.
    pub fn attempt(&'static self, bytes: usize, stream: &Stream) -> Attempt {
        self.mark_used();
        let Some(size) = cached::block_size(bytes) else {
            return Attempt::OutOfMemory;
        };
        match self.strategy {
            Strategy::Cached => self.attempt_cached(bytes, size, stream),
            Strategy::None => self.attempt_driver(bytes, size, stream, |d| driver::malloc(d, size)),
            Strategy::Async => {
                let Some(pool) = &self.async_pool else {
                    return Attempt::Failed(PoolError::Config("async pool missing".into()));
                };
                self.attempt_driver(bytes, size, stream, |d| pool.malloc(d, size, stream))
            }
        }
    }

    fn attempt_cached(&'static self, bytes: usize, size: usize, stream: &Stream) -> Attempt {
        if let Some((ptr, stream)) = crate::thread_cache::take(self, size, stream) {
            return Attempt::Done(Buffer::new(Pool(self), ptr, bytes, size, stream));
        }
        let taken = {
            let mut state = self.lock();
            let mut taken = state.cache.take(size, stream);
            if taken.is_none() {
                // Before going to the driver, give back what this thread
                // keeps and merge the exact-fit lists.
                drop(state);
                crate::thread_cache::flush_own(self);
                state = self.lock();
                state.cache.flush_recent();
                taken = state.cache.take(size, stream);
            }
            taken.map(|t| {
                state.stats.hits += 1;
                account_alloc(&mut state.stats, t.size);
                let waits = state.pending.overlapping(t.ptr, t.size);
                (t, waits)
            })
        };
        if let Some((mut taken, waits)) = taken {
            let ordered = match &taken.other_stream {
                Some(previous) => events::order_after(previous, stream),
                None => Ok(()),
            };
            if let Err(error) = ordered.and_then(|()| self.wait_pending(&waits, stream)) {
                self.lock().pending.restore(waits.removed);
                self.give_back(taken.ptr, taken.size, stream.clone(), Vec::new());
                return Attempt::Failed(error.into());
            }
            release_waits(waits);
            let stream = taken.same_stream.take().unwrap_or_else(|| stream.clone());
            return Attempt::Done(Buffer::new(Pool(self), taken.ptr, bytes, taken.size, stream));
        }
        let Some(segment) = cached::segment_size(size) else {
            return Attempt::OutOfMemory;
        };
        if self.over_soft_limit(segment) {
            if let Err(error) = self.reclaim() {
                return Attempt::Failed(error);
            }
        }
        if !self.reserve(segment) {
            return Attempt::OutOfMemory;
        }
        match driver::malloc(self.device, segment) {
            Driver::Ok(base) => {
                let mut state = self.lock();
                state.stats.misses += 1;
                state.stats.driver_allocations += 1;
                let taken = state.cache.add_segment(base, segment, size, stream);
                account_alloc(&mut state.stats, taken.size);
                drop(state);
                Attempt::Done(Buffer::new(Pool(self), taken.ptr, bytes, taken.size, stream.clone()))
            }
            Driver::OutOfMemory => {
                self.unreserve(segment);
                Attempt::OutOfMemory
            }
            Driver::Failed(e) => {
                self.unreserve(segment);
                Attempt::Failed(e.into())
            }
        }
    }

    /// The `none` and `async` strategies: every allocation goes to HIP.
    fn attempt_driver(
        &'static self,
        bytes: usize,
        size: usize,
        stream: &Stream,
        malloc: impl FnOnce(Device) -> Driver,
    ) -> Attempt {
        if self.over_soft_limit(size) {
            if let Err(error) = self.reclaim() {
                return Attempt::Failed(error);
            }
        }
        if !self.reserve(size) {
            return Attempt::OutOfMemory;
        }
        match malloc(self.device) {
            Driver::Ok(ptr) => {
                let mut state = self.lock();
                state.stats.misses += 1;
                state.stats.driver_allocations += 1;
                account_alloc(&mut state.stats, size);
                drop(state);
                Attempt::Done(Buffer::new(Pool(self), ptr, bytes, size, stream.clone()))
            }
            Driver::OutOfMemory => {
                self.unreserve(size);
                Attempt::OutOfMemory
            }
            Driver::Failed(e) => {
                self.unreserve(size);
                Attempt::Failed(e.into())
            }
        }
    }

    /// Count `bytes` as reserved if the hard limit allows it.
    fn reserve(&self, bytes: usize) -> bool {
        let mut state = self.lock();
        let after = state.stats.reserved.saturating_add(bytes);
        if state.limits.hard.is_some_and(|h| after > h) {
            return false;
        }
        state.stats.reserved = after;
        state.stats.reserved_peak = state.stats.reserved_peak.max(after);
        true
    }

    fn unreserve(&self, bytes: usize) {
        let mut state = self.lock();
        state.stats.reserved -= bytes;
    }

    /// Make `stream` wait for the pending uses of a block it is given.
    fn wait_pending(&self, waits: &Waits, stream: &Stream) -> Result<(), HipError> {
        if waits.is_empty() {
            return Ok(());
        }
        waits.events().try_for_each(|event| stream.wait(event))
    }

    /// Return a block (from a buffer's drop or free) with the events of
    /// its uses that may still run. The cached strategy makes no HIP call
    /// here; a block with pending events goes to the pool, not to the
    /// thread's cache, so that every allocation sees them.
    #[inline]
    pub fn give_back(&'static self, ptr: usize, size: usize, stream: Stream, pending: Vec<Event>) {
        if !pending.is_empty() {
            self.mark_used();
            return self.give_back_to_pool_with(ptr, size, stream, pending);
        }
        self.park(ptr, size, stream);
    }

    /// Give back a block with no pending uses: into this thread's cache,
    /// else the pool.
    #[inline(always)]
    pub fn park(&'static self, ptr: usize, size: usize, stream: Stream) {
        self.mark_used();
        if let Err(stream) = crate::thread_cache::give(self, ptr, size, stream) {
            self.give_back_to_pool(ptr, size, stream);
        }
    }

    /// Return a block to the pool itself (not a thread's cache).
    pub fn give_back_to_pool(&self, ptr: usize, size: usize, stream: Stream) {
        self.give_back_to_pool_with(ptr, size, stream, Vec::new())
    }

    /// Return a block to the pool with its pending events.
    fn give_back_to_pool_with(&self, ptr: usize, size: usize, stream: Stream, pending: Vec<Event>) {
        let mut state = self.lock();
        if !pending.is_empty() {
            state.pending.add(ptr, size, pending);
        }
        let stream = match state.cache.give_back_recent(ptr, size, stream) {
            Ok(()) => {
                account_free(&mut state.stats, size);
                return;
            }
            Err(stream) => stream,
        };
        if let Some(size) = state.cache.give_back(ptr, stream) {
            account_free(&mut state.stats, size);
        } else {
            log::error!("pool of {}: a block at {ptr:#x} was returned twice or is unknown", self.device);
        }
    }

    /// Free a block of the `none` or `async` strategy with HIP, after its
    /// pending uses (synchronized first).
    pub fn driver_free(&self, ptr: usize, size: usize, stream: &Stream, pending: Vec<Event>) -> Result<(), HipError> {
        self.mark_used();
        let synchronized = pending.iter().try_for_each(Event::synchronize);
        for event in pending {
            events::give(event);
        }
        let result = synchronized.and_then(|()| match (&self.async_pool, self.strategy) {
            (Some(pool), Strategy::Async) => pool.free(self.device, ptr, stream),
            _ => driver::free(self.device, ptr),
        });
        let mut state = self.lock();
        account_free(&mut state.stats, size);
        match &result {
            Ok(()) => account_release(&mut state.stats, size),
            // Still held by HIP: the next reclaim tries again.
            Err(_) => state.failed_frees.push((ptr, size)),
        }
        result
    }

    /// Retry the frees that failed; the bytes released, or the first error.
    /// After a synchronize, a plain hipFree serves both strategies.
    fn retry_failed_frees(&self) -> Result<usize> {
        let failed = std::mem::take(&mut self.lock().failed_frees);
        self.free_blocks(failed, |state, ptr, size| state.failed_frees.push((ptr, size)))
    }

    /// `hipFree` each of `blocks` (address, size); a block HIP refuses is
    /// handed to `keep`, under the lock, so that nothing leaks and the
    /// next reclaim tries again. The bytes released, or the first error.
    fn free_blocks(&self, blocks: Vec<(usize, usize)>, keep: impl Fn(&mut State, usize, usize)) -> Result<usize> {
        let mut released = 0;
        let mut first_error = None;
        for (ptr, size) in blocks {
            let result = driver::free(self.device, ptr);
            let mut state = self.lock();
            match result {
                Ok(()) => {
                    released += size;
                    account_release(&mut state.stats, size);
                }
                Err(e) => {
                    log::error!("pool of {}: freeing {size} bytes at {ptr:#x}: {e}", self.device);
                    keep(&mut state, ptr, size);
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(released), |e| Err(e.into()))
    }

    /// Synchronize the device and release unused memory; the bytes released.
    pub fn reclaim(&'static self) -> Result<usize> {
        self.device.synchronize()?;
        self.lock().stats.reclaims += 1;
        match self.strategy {
            Strategy::None => self.retry_failed_frees(),
            Strategy::Async => {
                let retried = self.retry_failed_frees()?;
                let Some(pool) = &self.async_pool else {
                    return Ok(retried);
                };
                let before = pool.reserved(self.device)?;
                pool.trim(self.device)?;
                Ok(retried + before.saturating_sub(pool.reserved(self.device)?))
            }
            Strategy::Cached => {
                crate::thread_cache::flush_all(self);
                let (unused, pending) = {
                    let mut state = self.lock();
                    (state.cache.remove_unused_segments(), state.pending.take_all())
                };
                // Uses on other devices' streams are not covered by this
                // device's synchronize.
                let synchronized = pending.iter().try_for_each(|entry| entry.event.synchronize());
                if let Err(error) = synchronized {
                    let device = self.device;
                    let mut state = self.lock();
                    for (base, size) in unused {
                        state.cache.restore_segment(base, size, hip_core::Stream::null(device));
                    }
                    state.pending.restore(pending);
                    return Err(error.into());
                }
                for entry in pending {
                    pending::release(entry.event);
                }
                let device = self.device;
                // A segment HIP refuses stays cached, free.
                self.free_blocks(unused, |state, base, size| {
                    state.cache.restore_segment(base, size, hip_core::Stream::null(device))
                })
            }
        }
    }

    /// Count cache hits served by a thread's cache that is going away.
    pub fn add_hits(&self, hits: u64) {
        self.lock().stats.hits += hits;
    }

    pub fn count_oom_retry(&self) {
        self.lock().stats.oom_retries += 1;
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

/// Return the events an allocation waited for and no longer needs.
fn release_waits(waits: Waits) {
    for entry in waits.removed {
        pending::release(entry.event);
    }
    for event in waits.shared {
        pending::release(event);
    }
}

fn account_alloc(stats: &mut PoolStats, size: usize) {
    stats.allocated += size;
    stats.allocated_peak = stats.allocated_peak.max(stats.allocated);
    stats.live_buffers += 1;
}

/// Memory given back to the driver.
fn account_release(stats: &mut PoolStats, size: usize) {
    stats.reserved -= size;
    stats.driver_frees += 1;
}

fn account_free(stats: &mut PoolStats, size: usize) {
    stats.allocated -= size;
    stats.live_buffers -= 1;
}
