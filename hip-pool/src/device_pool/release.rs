//! Giving memory back: blocks to the pool, driver frees of the `none` and
//! `async` backings, and the release of unused memory to the driver.

use super::backing::Backing;
use super::pending;
use super::state::{account_free, account_release, DevicePool, State};
use crate::driver::{self, events};
use crate::error::Result;
use crate::history::{self, MemoryEventKind};
use hip_core::{Event, HipError, Stream};

impl DevicePool {
    /// Return a block to the pool itself (not a thread's cache). Not
    /// inlined: it takes the pool's lock, and the hot paths that may end
    /// here (a drop whose thread cache is full) stay small without it.
    #[inline(never)]
    pub fn give_back_to_pool(&self, ptr: usize, size: usize, stream: Stream) {
        self.give_back_to_pool_with(ptr, size, stream, Vec::new())
    }

    /// Return a block to the pool with the events of its uses that may
    /// still run (no HIP call).
    pub fn give_back_to_pool_with(&self, ptr: usize, size: usize, stream: Stream, pending: Vec<Event>) {
        let mut state = self.lock();
        if !pending.is_empty() {
            state.pending.add(ptr, size, pending);
        }
        self.give_back_locked(&mut state, ptr, size, stream);
    }

    /// Return blocks with no pending uses (a thread's cache emptied) under
    /// one taking of the lock.
    pub fn give_back_all(&self, blocks: impl IntoIterator<Item = (usize, usize, Stream)>) {
        let mut blocks = blocks.into_iter().peekable();
        if blocks.peek().is_none() {
            return;
        }
        let mut state = self.lock();
        for (ptr, size, stream) in blocks {
            self.give_back_locked(&mut state, ptr, size, stream);
        }
    }

    /// Return a block, the lock held.
    pub(super) fn give_back_locked(&self, state: &mut State, ptr: usize, size: usize, stream: Stream) {
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

    /// Take in the memory of a capture's private pool, whose graphs are
    /// gone: each block (address, size, the stream it was last used on,
    /// the events of its uses that may still run) becomes a free segment
    /// of the cached or expandable backing, with no HIP call (the next
    /// reclaim frees it); for the other backings it
    /// is freed after its pending uses, once no capture is underway (the
    /// waits and the free would break one).
    pub fn adopt(&'static self, blocks: Vec<(usize, usize, Stream, Vec<Event>)>) {
        if blocks.is_empty() {
            return;
        }
        self.mark_used();
        if self.keeps_blocks() {
            let mut state = self.lock();
            for (ptr, size, stream, pending) in blocks {
                state.pending.add(ptr, size, pending);
                state.cache.restore_segment(ptr, size, stream);
            }
            return;
        }
        if hip_core::capture::underway() {
            return hip_core::capture::after_captures(move || self.adopt(blocks));
        }
        for (ptr, size, _, pending) in blocks {
            let freed = pending.iter().try_for_each(Event::synchronize).and_then(|()| driver::free(self.device, ptr));
            for event in pending {
                events::give(event);
            }
            let mut state = self.lock();
            match freed {
                Ok(()) => {
                    history::record(self.device, None, ptr, size, MemoryEventKind::SegmentFree);
                    account_release(&mut state.stats, size)
                }
                // The next reclaim tries again.
                Err(_) => state.failed_frees.push((ptr, size)),
            }
        }
    }

    /// Free a block of the `none` or `async` backing with HIP, after its
    /// pending uses (synchronized first). While a stream capture is
    /// underway (the waits and the free would break it) both run when the
    /// captures have ended, and this returns at once.
    pub fn driver_free(
        &'static self,
        ptr: usize,
        size: usize,
        stream: Stream,
        pending: Vec<Event>,
    ) -> Result<(), HipError> {
        if hip_core::capture::underway() {
            hip_core::capture::after_captures(move || {
                if let Err(error) = self.driver_free(ptr, size, stream, pending) {
                    log::error!(
                        "pool of {}: freeing {size} bytes at {ptr:#x} after the captures: {error}",
                        self.device
                    );
                }
            });
            return Ok(());
        }
        self.mark_used();
        let synchronized = pending.iter().try_for_each(Event::synchronize);
        for event in pending {
            events::give(event);
        }
        let result = synchronized.and_then(|()| self.backing.free(self.device, ptr, &stream));
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
    /// After a synchronize, a plain hipFree serves both backings.
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
                    history::record(self.device, None, ptr, size, MemoryEventKind::SegmentFree);
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

    /// Synchronize the device and release unused memory; the bytes
    /// released. For the cached backing, `give_back_front` runs after the
    /// synchronize: it returns every block kept in front of the pool (the
    /// thread caches), so that their segments can go too.
    pub fn reclaim(&self, give_back_front: impl FnOnce()) -> Result<usize> {
        crate::collective_gate::before_driver_sync(self.device);
        self.device.synchronize()?;
        self.lock().stats.reclaims += 1;
        match &self.backing {
            Backing::None => self.retry_failed_frees(),
            Backing::Async(pool) => {
                let retried = self.retry_failed_frees()?;
                let before = pool.reserved(self.device)?;
                pool.trim(self.device)?;
                Ok(retried + before.saturating_sub(pool.reserved(self.device)?))
            }
            Backing::Cached => {
                give_back_front();
                self.release_unused_segments()
            }
            Backing::Expandable(expandable) => {
                give_back_front();
                // Blocks of capture pools taken in, and segments taken while
                // a capture was underway, are `hipMalloc`'s: they go as the
                // cached backing's do; then the mapped chunks.
                let retried = self.retry_failed_frees()?;
                let segments = self.release_unused_segments()?;
                Ok(retried + segments + self.reclaim_expandable(expandable)?)
            }
        }
    }

    /// Give the driver the segments (`hipMalloc`'s) whose blocks are all
    /// free, after synchronizing the uses still pending on free blocks
    /// (those on other devices' streams are not covered by the device's
    /// synchronize); the bytes released. Call after the device's
    /// synchronize, with the thread caches given back.
    fn release_unused_segments(&self) -> Result<usize> {
        let (unused, pending) = {
            let mut state = self.lock();
            (state.cache.remove_unused_segments(), state.pending.take_all())
        };
        let synchronized = pending.iter().try_for_each(|entry| entry.event.synchronize());
        if let Err(error) = synchronized {
            let device = self.device;
            let mut state = self.lock();
            for (base, size) in unused {
                state.cache.restore_segment(base, size, Stream::null(device));
            }
            state.pending.restore(pending);
            return Err(error.into());
        }
        for entry in pending {
            pending::release(entry.event);
        }
        let device = self.device;
        // A segment HIP refuses stays cached, free.
        self.free_blocks(unused, |state, base, size| state.cache.restore_segment(base, size, Stream::null(device)))
    }
}
