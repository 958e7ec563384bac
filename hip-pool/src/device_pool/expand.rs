//! The expandable backing's growth and shrinking: how it grows (chunks
//! mapped into a stream's segment, where `strategy::expandable` plans)
//! and how it shrinks (the whole chunks of free blocks unmapped on
//! reclaim). Growth and unmapping take one lock of their own, so a plan of
//! where to map stays true until the mapping is noted, and a gap being
//! unmapped is never mapped meanwhile.

use super::alloc::{Attempt, Reserve};
use super::backing::Expandable;
use super::fences::Fences;
use super::pending;
use super::state::{account_release, DevicePool};
use crate::driver::{virtual_memory, Driver};
use crate::error::Result;
use crate::history::{self, MemoryEventKind};
use crate::strategy::cached::{self, Class};
use crate::strategy::expandable::{self, Chunks, Plan, Segment};
use hip_core::Stream;
use hip_sys::sync::MutexExt;

/// Rounds of growth one request tries: each maps memory, and another
/// thread may take the block grown for this one before it does.
const ROUNDS: usize = 4;

impl DevicePool {
    /// Grow the expandable backing for a block of `size` on `stream` and
    /// hand the block out: plan where in the stream's segment (reserving
    /// the segment first if it has none), check the limits (going above
    /// the soft one runs `reclaim` first and plans again), map the chunks,
    /// and take the block from the free blocks they extend.
    pub(super) fn expand(
        &self,
        backing: &Expandable,
        size: usize,
        stream: &Stream,
        reclaim: impl FnOnce() -> Result<usize>,
    ) -> Attempt {
        let class = cached::class_of(size);
        let chunk = expandable::chunk_size(class, backing.granularity);
        let mut reclaim = Some(reclaim);
        let (mut rounds, mut moved) = (0, false);
        while rounds < ROUNDS {
            let mut growing = backing.growing.lock_unpoisoned();
            let plan = {
                let state = self.lock();
                let base = state.segments.of(stream, class);
                base.map(|base| state.segments.plan(base, size, &state.cache, stream))
            };
            let plan = match plan {
                Some(Some(plan)) => plan,
                // The segment's addresses are spent.
                Some(None) => return Attempt::OutOfMemory,
                None => match virtual_memory::reserve(self.device, backing.addresses) {
                    Driver::Ok(base) => {
                        let segment = Segment::new(base, backing.addresses, chunk, class);
                        self.lock().segments.insert(stream, segment);
                        continue;
                    }
                    Driver::OutOfMemory => return Attempt::OutOfMemory,
                    Driver::Failed(error) => return Attempt::Failed(error.into()),
                },
            };
            // Whole free chunks elsewhere in the segment whose work is done
            // go where it grows first: the peak reserved stays where it
            // is. Once a request; the rest is new memory.
            let mut plan = plan;
            if !moved {
                moved = true;
                let bytes = self.move_finished_chunks(backing, &mut growing, plan, (chunk, class), stream);
                plan.at += bytes;
                plan.bytes -= bytes;
            }
            if plan.bytes > 0 {
                let admitted = match self.reserve(plan.bytes, true) {
                    // A reclaim synchronizes the device, which would break a
                    // capture: the soft limit waits until none is underway.
                    Reserve::OverSoft if hip_core::capture::underway() => self.reserve(plan.bytes, false),
                    Reserve::OverSoft => match reclaim.take() {
                        Some(reclaim) => {
                            // The reclaim unmaps, under the growth lock.
                            drop(growing);
                            if let Err(error) = reclaim() {
                                return Attempt::Failed(error);
                            }
                            continue;
                        }
                        None => self.reserve(plan.bytes, false),
                    },
                    other => other,
                };
                if admitted != Reserve::Done {
                    return Attempt::OutOfMemory;
                }
                #[cfg(feature = "tracing")]
                tracing::debug!(bytes = plan.bytes, device = ?self.device, stream = ?stream.id(), "expandable pool maps");
                // SAFETY: the plan's range is a gap of a live reservation of
                // this device, in whole chunks of whole granules, and the
                // growth lock keeps every other mapping out of it.
                let mapped =
                    unsafe { virtual_memory::map(self.device, plan.at, chunk, plan.bytes / chunk, &backing.devices) };
                match mapped {
                    Driver::Ok(handles) => {
                        let mut state = self.lock();
                        Self::got(&mut state);
                        state.stats.driver_allocations += 1;
                        state.segments.mapped(plan.segment, plan.at, &handles);
                        state.cache.add_free(plan.at, plan.bytes, plan.segment, class, stream.clone());
                        history::record(self.device, Some(stream.id()), plan.at, plan.bytes, MemoryEventKind::Segment);
                    }
                    Driver::OutOfMemory => {
                        self.unreserve(plan.bytes);
                        return Attempt::OutOfMemory;
                    }
                    Driver::Failed(error) => {
                        self.unreserve(plan.bytes);
                        return Attempt::Failed(error.into());
                    }
                }
            }
            drop(growing);
            if let Some(attempt) = self.take_block(size, stream, Vec::new, false) {
                self.lock().stats.misses += 1;
                return attempt;
            }
            // Another thread took the grown block first: it stays mapped,
            // free, and this request grows again.
            rounds += 1;
        }
        Attempt::OutOfMemory
    }

    /// Move whole chunks of `stream`'s free blocks in the plan's segment
    /// (up to what the plan maps; not the block it extends) to the plan's
    /// place: unmapped there and mapped here, the same physical memory,
    /// so the pool's reserved bytes stay. Only chunks of blocks whose work
    /// is finished: every free block where a query finds `stream` idle or
    /// the growth waits for it (`GrowthWaits`), else those freed before
    /// the mark of the segment's fence, where that is done (`fences`; a
    /// busy stream gets a new one for the next growth). Never while a
    /// capture is underway.
    /// The bytes moved, mapped from the plan's start.
    /// A chunk whose unmapping fails stays where it was; chunks unmapped
    /// that cannot be mapped again are released.
    fn move_finished_chunks(
        &self,
        backing: &Expandable,
        fences: &mut Fences,
        plan: Plan,
        (chunk, class): (usize, Class),
        stream: &Stream,
    ) -> usize {
        if hip_core::capture::underway() {
            return 0;
        }
        // Finished without a wait where the stream is idle; after one where
        // the growth waits (`GrowthWaits`), unless a collective of this
        // process waits for a rank (the wait could deadlock it). A failed
        // wait falls back on the fences; the growth's mapping reports the
        // fault.
        let waits = || {
            backing.growth_waits(stream) && !crate::collective_gate::waits(self.device) && stream.synchronize().is_ok()
        };
        let finished = if matches!(stream.query(), Ok(true)) || waits() {
            self.lock().cache.mark()
        } else {
            match fences.finished(plan.segment, stream, || self.lock().cache.mark()) {
                Some(mark) => mark,
                None => return 0,
            }
        };
        let runs = {
            let mut state = self.lock();
            let state = &mut *state;
            let place = (plan.segment, plan.bytes / chunk, plan.at);
            state.segments.take_finished_chunks(place, &mut state.cache, stream, finished)
        };
        let mut handles = Vec::new();
        for run in runs {
            // SAFETY: chunks the pool mapped, inside free blocks of
            // `stream` taken out of the pool, freed before a mark after
            // which the stream was found idle or was waited for, or a fence
            // recorded on it was found done: the stream has finished the work queued before their
            // release, the only work that used them since (other streams'
            // uses keep a block pending, not free), and the growth lock
            // keeps their gap from being mapped.
            let unmapped = unsafe { virtual_memory::unmap_keeping(self.device, run.at, run.chunk, run.handles.len()) };
            let kept = unmapped.err().map(|(error, kept)| {
                log::error!("pool of {}: unmapping a free chunk at {:#x} to move it: {error}", self.device, run.at);
                kept
            });
            let kept = kept.unwrap_or_default();
            let mut state = self.lock();
            let state = &mut *state;
            state.segments.restore(&run, &kept, &mut state.cache, stream);
            for (i, &handle) in run.handles.iter().enumerate().filter(|(i, _)| !kept.contains(i)) {
                history::record(self.device, None, run.at + i * run.chunk, run.chunk, MemoryEventKind::SegmentFree);
                handles.push(handle);
            }
        }
        if handles.is_empty() {
            return 0;
        }
        // SAFETY: the plan's gap, whole chunks of a live reservation with
        // nothing mapped (the growth lock keeps it so), and live handles
        // mapped nowhere since the unmapping above.
        let mapped = unsafe { virtual_memory::map_handles(self.device, plan.at, chunk, &handles, &backing.devices) };
        let mut state = self.lock();
        let state = &mut *state;
        match mapped {
            Ok(()) => {
                state.segments.mapped(plan.segment, plan.at, &handles);
                let bytes = handles.len() * chunk;
                state.cache.add_free(plan.at, bytes, plan.segment, class, stream.clone());
                history::record(self.device, Some(stream.id()), plan.at, bytes, MemoryEventKind::Segment);
                state.stats.moved_chunks += handles.len() as u64;
                bytes
            }
            Err(error) => {
                log::error!("pool of {}: mapping moved chunks at {:#x}: {error}", self.device, plan.at);
                // SAFETY: the handles unmapped above, mapped nowhere, released once.
                unsafe { virtual_memory::release(self.device, &handles) };
                for _ in &handles {
                    account_release(&mut state.stats, chunk);
                }
                0
            }
        }
    }

    /// The chunks under a block of the expandable backing, for another
    /// process to map (`ipc`): `None` for memory of no segment (grown by
    /// `hipMalloc` during a capture).
    pub(crate) fn chunks_under(&self, ptr: usize, len: usize) -> Option<Chunks> {
        self.lock().segments.chunks_under(ptr, len)
    }

    /// The expandable backing's reclaim, after the device's synchronize
    /// and with the thread caches given back: unmap the whole chunks of
    /// every free block, then give back the reservations of segments left
    /// with nothing mapped; the bytes released. Uses still pending on free
    /// blocks (on other devices' streams) are synchronized first; if that
    /// fails, nothing is unmapped.
    pub(super) fn reclaim_expandable(&self, backing: &Expandable) -> Result<usize> {
        let mut growing = backing.growing.lock_unpoisoned();
        let null = Stream::null(self.device);
        let (runs, pending) = {
            let mut state = self.lock();
            state.cache.flush_recent();
            let state = &mut *state;
            (state.segments.take_free_chunks(&mut state.cache, &null), state.pending.take_all())
        };
        if let Err(error) = pending.iter().try_for_each(|entry| entry.event.synchronize()) {
            let mut state = self.lock();
            let state = &mut *state;
            for run in &runs {
                let all: Vec<usize> = (0..run.handles.len()).collect();
                state.segments.restore(run, &all, &mut state.cache, &null);
            }
            state.pending.restore(pending);
            return Err(error.into());
        }
        for entry in pending {
            pending::release(entry.event);
        }
        let mut released = 0;
        let mut first_error = None;
        for run in runs {
            crate::collective_gate::before_driver_sync(self.device);
            // SAFETY: chunks the pool mapped with these handles, inside
            // free blocks taken out of the pool; the device and every
            // pending use were synchronized, and the growth lock keeps
            // the gap from being mapped again meanwhile.
            let unmapped = unsafe { virtual_memory::unmap(self.device, run.at, run.chunk, &run.handles) };
            let kept = match unmapped {
                Ok(()) => Vec::new(),
                Err((error, kept)) => {
                    log::error!("pool of {}: unmapping at {:#x}: {error}", self.device, run.at);
                    first_error.get_or_insert(error);
                    kept
                }
            };
            let bytes = (run.handles.len() - kept.len()) * run.chunk;
            let mut state = self.lock();
            let state = &mut *state;
            state.segments.restore(&run, &kept, &mut state.cache, &null);
            if bytes > 0 {
                released += bytes;
                history::record(self.device, None, run.at, bytes, MemoryEventKind::SegmentFree);
                account_release(&mut state.stats, bytes);
            }
        }
        let empty = self.lock().segments.take_empty();
        let mut gone = Vec::new();
        for segment in empty {
            // SAFETY: a reservation of this pool with nothing mapped (its
            // last chunks were just unmapped), removed from the segments.
            let freed = unsafe { virtual_memory::free_reservation(self.device, segment.base, segment.size) };
            match freed {
                Ok(()) => gone.push((segment.base, segment.size)),
                Err(error) => {
                    log::error!("pool of {}: giving back the addresses at {:#x}: {error}", self.device, segment.base);
                    first_error.get_or_insert(error);
                    self.lock().segments.keep_empty(segment);
                }
            }
        }
        // A later reservation may come at the same addresses.
        growing.retain(|base| gone.iter().all(|&(gone, _)| gone != base));
        let mut state = self.lock();
        for (base, size) in gone {
            state.cache.forget_stamps(base, base + size);
        }
        drop(state);
        match first_error {
            Some(error) => Err(error.into()),
            None => Ok(released),
        }
    }
}
