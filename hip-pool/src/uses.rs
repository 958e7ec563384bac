//! A buffer's uses on streams other than its own, as events.
//!
//! Work on a buffer's own stream ([`Buffer::stream`](crate::Buffer::stream))
//! is ordered by the stream itself. A use on another stream `S` is
//! recorded, once enqueued, as an event on `S` marked [`Access::Read`] or
//! [`Access::Write`] (one entry per stream: a later use on `S` records the
//! entry's event again). Before a use on `S`:
//!
//! - if `S` is not the own stream, `S` waits on the GPU for the work
//!   queued so far on the own stream (an event recorded there);
//! - `S` waits for the entries that conflict with the use: writes before
//!   a read, and every use before a write (entries of `S` itself are in
//!   `S`'s order already). An entry whose event has completed is dropped
//!   instead, its event returned to the free list.
//!
//! After a write, every entry but `S`'s is ordered before `S`'s later
//! work, so those entries go. Nothing here blocks the host.
//!
//! The same-stream case costs a stream comparison and one atomic load
//! while no entry exists: no lock, no allocation. The list lives in a box
//! made on the first recorded use, so a buffer that never has one carries
//! a single null pointer (buffers stay small and cheap to move).
//!
//! # Graphs
//!
//! Inside a stream capture nothing here records or queries an event: the
//! captured work runs only at a replay, on whichever stream the replay is
//! launched. A use in a capture is a *hold* instead ([`List::hold`]): the
//! graph keeps the list (shared, reference-counted) and applies the same
//! two steps around each replay, on the replay's stream. While any hold
//! lives, the buffer's block must not be reused (the graph baked its
//! address), so a buffer dropped meanwhile leaves its release with the
//! list ([`List::release_or_defer`]); the last hold to go runs it.

use crate::driver::events;
use hip_core::{Event, HipError, Stream};
use hip_sys::sync::MutexExt;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// How an operation uses a buffer's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// The operation only reads: reads on different streams may overlap.
    Read,
    /// The operation writes (and may read): it must not overlap any other
    /// use.
    Write,
}

/// One stream's recorded use.
pub(crate) struct Use {
    /// [`Stream::id`] of the stream the event was recorded on.
    stream: u64,
    access: Access,
    pub(crate) event: Event,
}

/// The recorded uses, once there has been one, and the graphs that hold
/// the buffer.
#[derive(Default)]
pub(crate) struct List {
    /// The list's length, read without the lock.
    count: AtomicUsize,
    list: Mutex<Vec<Use>>,
    /// How many holds live (`held.holders.len()`), read without the lock.
    holds: AtomicUsize,
    held: Mutex<Held>,
}

/// The graphs holding a buffer, and its release if it was dropped first.
#[derive(Default)]
struct Held {
    /// The ids of the captures (and then graphs) holding it, one each.
    holders: Vec<u64>,
    /// Whether a capture used it on another stream than its own.
    foreign: bool,
    /// The dropped buffer's release, run when the last hold goes.
    deferred: Option<Box<dyn FnOnce() + Send>>,
}

impl List {
    /// Note that the capture `capture` uses the buffer (on its own stream
    /// unless `foreign`); once per capture (the caller dedupes).
    pub fn hold(&self, capture: u64, foreign: bool) {
        let mut held = self.held.lock_unpoisoned();
        if !held.holders.contains(&capture) {
            held.holders.push(capture);
        }
        held.foreign |= foreign;
        self.holds.store(held.holders.len(), Ordering::Release);
    }

    /// Note another use on a stream other than the buffer's own.
    pub fn mark_foreign(&self) {
        self.held.lock_unpoisoned().foreign = true;
    }

    /// Let go of the hold of `capture`; the deferred release, if this was
    /// the last hold and the buffer is gone (for the caller to run).
    #[must_use]
    pub fn unhold(&self, capture: u64) -> Option<Box<dyn FnOnce() + Send>> {
        let mut held = self.held.lock_unpoisoned();
        held.holders.retain(|h| *h != capture);
        self.holds.store(held.holders.len(), Ordering::Release);
        if held.holders.is_empty() {
            held.foreign = false;
            held.deferred.take()
        } else {
            None
        }
    }

    /// A buffer with this list is being dropped: run its `release` now if
    /// no graph holds it, or if every hold is of a capture for which
    /// `reusable` says yes and the captures used it only on its own stream
    /// (a capture's private pool: the block then serves that pool's later
    /// allocations, in capture order); else keep `release` for the last
    /// hold to run.
    pub fn release_or_defer(&self, reusable: impl Fn(u64) -> bool, release: impl FnOnce() + Send + 'static) {
        let mut held = self.held.lock_unpoisoned();
        let now = held.holders.is_empty() || (!held.foreign && held.holders.iter().all(|h| reusable(*h)));
        if now {
            drop(held);
            release();
        } else {
            held.deferred = Some(Box::new(release));
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Use>> {
        self.list.lock_unpoisoned()
    }

    fn store_count(&self, list: &[Use]) {
        self.count.store(list.len(), Ordering::Release);
    }
}

/// The uses of one buffer on streams other than its own: null until the
/// first use is recorded (or the first hold), then a [`List`] made by
/// `Arc::into_raw`, set once (compare-exchange); `Drop` lets go of it
/// (holds keep it alive longer).
#[derive(Default)]
pub(crate) struct Uses {
    list: AtomicPtr<List>,
}

impl Drop for Uses {
    #[inline]
    fn drop(&mut self) {
        let list = *self.list.get_mut();
        if !list.is_null() {
            free_list(list);
        }
    }
}

/// Free a buffer's list of uses (out of line: most buffers never have
/// one, and their drop stays small).
#[cold]
#[inline(never)]
fn free_list(list: *mut List) {
    // SAFETY: made by `Arc::into_raw` in `list_or_make`; this is the
    // owner's one reference, let go once (it had `&mut` of the owner).
    drop(unsafe { Arc::from_raw(list) });
}

impl Uses {
    /// The list, if a use was ever recorded.
    #[inline]
    fn list(&self) -> Option<&List> {
        let list = self.list.load(Ordering::Acquire);
        // SAFETY: null, or a list set once whose owner's reference is let
        // go only when `self` drops, which the borrow of `self` rules out.
        unsafe { list.as_ref() }
    }

    fn list_or_make(&self) -> &List {
        if let Some(list) = self.list() {
            return list;
        }
        let made = Arc::into_raw(Arc::<List>::default()).cast_mut();
        match self.list.compare_exchange(std::ptr::null_mut(), made, Ordering::AcqRel, Ordering::Acquire) {
            // SAFETY: the list just made, now owned by `self` (as in `list`).
            Ok(_) => unsafe { &*made },
            Err(existing) => {
                // SAFETY: `made` was never shared; `existing` as in `list`.
                unsafe {
                    drop(Arc::from_raw(made));
                    &*existing
                }
            }
        }
    }

    /// A reference of its own to the list (made if need be), for a hold.
    pub fn shared(&self) -> Arc<List> {
        let list: *const List = self.list_or_make();
        // SAFETY: a live list made by `Arc::into_raw` (the owner's reference
        // keeps it alive through this call); the count gains the new one.
        unsafe {
            Arc::increment_strong_count(list);
            Arc::from_raw(list)
        }
    }

    #[inline]
    fn boxed_mut(&mut self) -> Option<&List> {
        // SAFETY: as in `list`; shared with holds, so only `&`.
        unsafe { self.list.get_mut().as_ref() }
    }

    /// Whether no use is recorded (one atomic load).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list().is_none_or(|list| list.count.load(Ordering::Acquire) == 0)
    }

    /// The list, when a graph holds the buffer.
    #[inline]
    pub fn held(&mut self) -> Option<&List> {
        self.boxed_mut().filter(|list| list.holds.load(Ordering::Acquire) != 0)
    }

    /// Order a use with `access` on `stream` after the buffer's earlier
    /// conflicting uses (`own` is the buffer's stream). GPU waits only.
    pub fn prepare(&self, own: &Stream, stream: &Stream, access: Access) -> Result<(), HipError> {
        let same = own.id() == stream.id();
        if same && self.is_empty() {
            return Ok(());
        }
        match self.list() {
            Some(list) => list.prepare(own, stream, access),
            None => events::order_after(own, stream),
        }
    }

    /// Note a use with `access` just enqueued on `stream` (`own` is the
    /// buffer's stream): an event recorded on `stream` after it.
    pub fn record(&self, own: &Stream, stream: &Stream, access: Access) -> Result<(), HipError> {
        if own.id() == stream.id() {
            return Ok(());
        }
        self.list_or_make().record(stream, access)
    }
}

impl List {
    /// [`Uses::prepare`] on this list.
    pub fn prepare(&self, own: &Stream, stream: &Stream, access: Access) -> Result<(), HipError> {
        let same = own.id() == stream.id();
        if !same {
            events::order_after(own, stream)?;
        }
        if self.count.load(Ordering::Acquire) == 0 {
            return Ok(());
        }
        let uses = self;
        let mut list = uses.lock();
        let mut i = 0;
        while i < list.len() {
            let entry = &list[i];
            let conflict = access == Access::Write || entry.access == Access::Write;
            if entry.stream == stream.id() || !conflict {
                i += 1;
                continue;
            }
            // No query while a capture is underway (CUDA refuses it and
            // breaks the capture): the entry is waited for instead.
            if !hip_core::capture::underway() && entry.event.query()? {
                events::give(list.swap_remove(i).event);
                continue;
            }
            stream.wait(&entry.event)?;
            i += 1;
        }
        if access == Access::Write {
            // Every other entry is now before `stream`'s later work.
            let mut k = 0;
            while k < list.len() {
                if list[k].stream == stream.id() {
                    k += 1;
                } else {
                    events::give(list.swap_remove(k).event);
                }
            }
        }
        uses.store_count(&list);
        Ok(())
    }

    /// Note a use with `access` just enqueued on `stream`, not the
    /// buffer's own: an event recorded on `stream` after it.
    pub fn record(&self, stream: &Stream, access: Access) -> Result<(), HipError> {
        let uses = self;
        let mut list = uses.lock();
        if let Some(entry) = list.iter_mut().find(|u| u.stream == stream.id()) {
            entry.event.record(stream)?;
            if access == Access::Write {
                entry.access = Access::Write;
            }
            return Ok(());
        }
        let event = events::take(stream.device())?;
        if let Err(error) = event.record(stream) {
            events::give(event);
            return Err(error);
        }
        list.push(Use { stream: stream.id(), access, event });
        uses.store_count(&list);
        Ok(())
    }
}

impl Uses {
    /// The buffer moves to `new` (its new own stream), after `own`'s
    /// queued work; uses recorded on `new` are in its order from now on.
    pub fn move_to(&mut self, own: &Stream, new: &Stream) -> Result<(), HipError> {
        if own.id() == new.id() {
            return Ok(());
        }
        events::order_after(own, new)?;
        let Some(uses) = self.boxed_mut() else {
            return Ok(());
        };
        let mut list = uses.lock();
        let mut k = 0;
        while k < list.len() {
            if list[k].stream == new.id() {
                events::give(list.swap_remove(k).event);
            } else {
                k += 1;
            }
        }
        uses.count.store(list.len(), Ordering::Release);
        Ok(())
    }

    /// Whether [`Uses::take_events`] would return nothing and no graph
    /// holds the buffer, without making the vector.
    #[inline]
    pub fn is_empty_mut(&mut self) -> bool {
        self.boxed_mut()
            .is_none_or(|list| list.count.load(Ordering::Acquire) == 0 && list.holds.load(Ordering::Acquire) == 0)
    }

    /// The pending events, for the pool (no HIP call, no lock: the buffer
    /// is going away). Allocates only when there are some.
    #[inline]
    pub fn take_events(&mut self) -> Vec<Event> {
        match self.boxed_mut() {
            Some(list) if list.count.load(Ordering::Acquire) != 0 => self.drain_events(),
            _ => Vec::new(),
        }
    }

    #[cold]
    fn drain_events(&mut self) -> Vec<Event> {
        let Some(uses) = self.boxed_mut() else {
            return Vec::new();
        };
        let mut list = uses.lock();
        uses.count.store(0, Ordering::Release);
        list.drain(..).map(|u| u.event).collect()
    }
}
