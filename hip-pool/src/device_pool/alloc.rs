//! Handing out blocks: a free one of the cached backing's, or new memory
//! from the driver through the one grow path that every backing shares
//! (the limits, the driver call, the accounting).

use super::backing::Backing;
use super::pending::{self, Waits};
use super::state::{account_alloc, DevicePool, State};
use crate::driver::{self, events, Driver};
use crate::error::{PoolError, Result};
use crate::history::{self, MemoryEventKind};
use hip_core::{HipError, Stream};

/// A block handed out: its address, its size (the request rounded up) and
/// the stream it is handed out for.
pub(crate) struct Block {
    pub ptr: usize,
    pub size: usize,
    pub stream: Stream,
}

/// A block a thread gives back from its cache: address, block size and
/// the stream it was last used on.
pub(crate) type Returned = (usize, usize, Stream);

/// What [`DevicePool::reserve`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reserve {
    Done,
    OverSoft,
    OverHard,
}

/// What one allocation attempt answered.
pub(crate) enum Attempt {
    Done(Block),
    OutOfMemory,
    Failed(PoolError),
}

impl DevicePool {
    /// A free block of `size` (a block size) of the cached backing for
    /// `stream`, counted as a hit and ordered after its earlier uses: the
    /// work of the stream it was last used on and the pending uses of its
    /// range, all as GPU waits. When none fits, the exact-fit lists are
    /// merged and the pool looks again; then `own_blocks` runs (it takes
    /// out the blocks this thread keeps in front of the pool) and, if it
    /// gave any, they come back under a second taking of the lock and the
    /// pool looks once more. `None`: no free block fits; memory must come
    /// from the driver.
    pub fn take(&self, size: usize, stream: &Stream, own_blocks: impl FnOnce() -> Vec<Returned>) -> Option<Attempt> {
        self.take_block(size, stream, own_blocks, true)
    }

    /// [`take`](Self::take), counted as a hit or not (a block the
    /// expandable backing just grew is a miss, counted where it grew).
    pub(super) fn take_block(
        &self,
        size: usize,
        stream: &Stream,
        own_blocks: impl FnOnce() -> Vec<Returned>,
        hit: bool,
    ) -> Option<Attempt> {
        let (mut taken, waits) = {
            let mut state = self.lock();
            let mut taken = state.cache.take(size, stream);
            if taken.is_none() {
                // Before going to the driver, merge the exact-fit lists;
                // then give back what this thread keeps (taken out without
                // the lock), if anything.
                state.cache.flush_recent();
                taken = state.cache.take(size, stream);
            }
            if taken.is_none() {
                drop(state);
                let own = own_blocks();
                if own.is_empty() {
                    return None;
                }
                state = self.lock();
                for (ptr, size, stream) in own {
                    self.give_back_locked(&mut state, ptr, size, stream);
                }
                state.cache.flush_recent();
                taken = state.cache.take(size, stream);
            }
            let taken = taken?;
            state.stats.hits += u64::from(hit);
            account_alloc(&mut state.stats, taken.size);
            let waits = state.pending.overlapping(taken.ptr, taken.size);
            (taken, waits)
        };
        let ordered = match &taken.other_stream {
            Some(previous) => events::order_after(previous, stream),
            None => Ok(()),
        };
        if let Err(error) = ordered.and_then(|()| wait_pending(&waits, stream)) {
            self.lock().pending.restore(waits.removed);
            // To the pool, not a thread's cache: its range has pending
            // entries again.
            self.give_back_to_pool(taken.ptr, taken.size, stream.clone());
            return Some(Attempt::Failed(error.into()));
        }
        release_waits(waits);
        let stream = taken.same_stream.take().unwrap_or_else(|| stream.clone());
        Some(Attempt::Done(Block { ptr: taken.ptr, size: taken.size, stream }))
    }

    /// New memory from the driver for a block of `size` on `stream`, the
    /// one path of every backing. Going above the soft limit runs
    /// `reclaim` first (the caller's: it also empties the caches in front
    /// of the pool); the hard limit refuses before the driver is asked;
    /// the bytes are counted as reserved before the call and uncounted if
    /// it fails. The cached backing asks for a whole segment and hands out
    /// its first `size` bytes, the others for exactly `size`.
    pub fn grow(&self, size: usize, stream: &Stream, reclaim: impl FnOnce() -> Result<usize>) -> Attempt {
        if let Backing::Expandable(expandable) = &self.backing {
            // Mapping runs on ROCm's null stream, which a capture on a
            // blocking stream refuses (it would synchronize with it): while
            // one is underway, the expandable backing grows by `hipMalloc`
            // segments, as the cached one does (Relaxed, safe for it).
            if !hip_core::capture::underway() {
                return self.expand(expandable, size, stream, reclaim);
            }
        }
        let Some(bytes) = self.backing.driver_size(size) else {
            return Attempt::OutOfMemory;
        };
        let reserved = match self.reserve(bytes, true) {
            // A reclaim synchronizes the device, which would break a
            // capture: the soft limit waits until none is underway.
            Reserve::OverSoft if hip_core::capture::underway() => self.reserve(bytes, false),
            Reserve::OverSoft => match reclaim() {
                Ok(_) => self.reserve(bytes, false),
                Err(error) => return Attempt::Failed(error),
            },
            other => other,
        };
        if reserved != Reserve::Done {
            return Attempt::OutOfMemory;
        }
        #[cfg(feature = "tracing")]
        tracing::debug!(bytes, device = ?self.device, stream = ?stream.id(), "pool grows from the driver");
        match self.backing.malloc(self.device, bytes, stream) {
            Driver::Ok(base) => {
                let mut state = self.lock();
                Self::got(&mut state);
                state.stats.misses += 1;
                state.stats.driver_allocations += 1;
                let (ptr, size) = match self.backing {
                    Backing::Cached | Backing::Expandable(_) => {
                        history::record(self.device, Some(stream.id()), base, bytes, MemoryEventKind::Segment);
                        let taken = state.cache.add_segment(base, bytes, size, stream);
                        (taken.ptr, taken.size)
                    }
                    Backing::Async(_) | Backing::None => (base, size),
                };
                account_alloc(&mut state.stats, size);
                drop(state);
                Attempt::Done(Block { ptr, size, stream: stream.clone() })
            }
            Driver::OutOfMemory => {
                self.unreserve(bytes);
                Attempt::OutOfMemory
            }
            Driver::Failed(e) => {
                self.unreserve(bytes);
                Attempt::Failed(e.into())
            }
        }
    }

    /// New memory from the driver for a capture's private pool: exactly
    /// `size` bytes (a block size), counted as reserved under the hard
    /// limit. Nothing is reclaimed first (that synchronizes, which would
    /// break the capture), so the soft limit is not looked at.
    pub fn grow_private(&self, size: usize) -> Result<usize> {
        if self.reserve(size, false) != Reserve::Done {
            return Err(self.out_of_memory_in_capture(size));
        }
        match driver::malloc(self.device, size) {
            Driver::Ok(base) => {
                let mut state = self.lock();
                Self::got(&mut state);
                state.stats.misses += 1;
                state.stats.driver_allocations += 1;
                Ok(base)
            }
            Driver::OutOfMemory => {
                self.unreserve(size);
                Err(self.out_of_memory_in_capture(size))
            }
            Driver::Failed(e) => {
                self.unreserve(size);
                Err(e.into())
            }
        }
    }

    /// Count `bytes` as reserved if the limits allow it, under one taking
    /// of the lock: above the soft limit (when `soft` says to look) it
    /// reserves nothing and says so, for the caller to reclaim first;
    /// above the hard limit it refuses.
    pub(super) fn reserve(&self, bytes: usize, soft: bool) -> Reserve {
        let mut state = self.lock();
        let after = state.stats.reserved.saturating_add(bytes);
        if soft && state.limits.soft.is_some_and(|s| after > s) {
            return Reserve::OverSoft;
        }
        if state.limits.hard.is_some_and(|h| after > h) {
            return Reserve::OverHard;
        }
        // The peak waits for the driver's answer (`got`): a refused request
        // was never memory.
        state.stats.reserved = after;
        Reserve::Done
    }

    /// The driver gave what was reserved: the peak may rise (to what is
    /// reserved now, which counts only requests not yet refused).
    pub(super) fn got(state: &mut State) {
        state.stats.reserved_peak = state.stats.reserved_peak.max(state.stats.reserved);
    }

    pub(super) fn unreserve(&self, bytes: usize) {
        let mut state = self.lock();
        state.stats.reserved -= bytes;
    }
}

/// Make `stream` wait for the pending uses of a block it is given.
fn wait_pending(waits: &Waits, stream: &Stream) -> Result<(), HipError> {
    if waits.is_empty() {
        return Ok(());
    }
    waits.events().try_for_each(|event| stream.wait(event))
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
