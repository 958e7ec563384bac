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

use crate::driver::events;
use hip_core::{Event, HipError, Stream};
use hip_sys::sync::MutexExt;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

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

/// The recorded uses, once there has been one.
#[derive(Default)]
struct List {
    /// The list's length, read without the lock.
    count: AtomicUsize,
    list: Mutex<Vec<Use>>,
}

impl List {
    fn lock(&self) -> MutexGuard<'_, Vec<Use>> {
        self.list.lock_unpoisoned()
    }

    fn store_count(&self, list: &[Use]) {
        self.count.store(list.len(), Ordering::Release);
    }
}

/// The uses of one buffer on streams other than its own: null until the
/// first use is recorded, then a [`List`] made by `Box::into_raw`, set
/// once (compare-exchange) and freed only by `Drop`.
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
    // SAFETY: made by `Box::into_raw` in `list_or_make`, freed only by
    // `Uses::drop`, once (it had `&mut` of the owner).
    drop(unsafe { Box::from_raw(list) });
}

impl Uses {
    /// The list, if a use was ever recorded.
    #[inline]
    fn list(&self) -> Option<&List> {
        let list = self.list.load(Ordering::Acquire);
        // SAFETY: null, or a box set once and freed only when `self` drops,
        // which the borrow of `self` rules out.
        unsafe { list.as_ref() }
    }

    fn list_or_make(&self) -> &List {
        if let Some(list) = self.list() {
            return list;
        }
        let made = Box::into_raw(Box::<List>::default());
        match self.list.compare_exchange(std::ptr::null_mut(), made, Ordering::AcqRel, Ordering::Acquire) {
            // SAFETY: the box just made, now owned by `self` (as in `list`).
            Ok(_) => unsafe { &*made },
            Err(existing) => {
                // SAFETY: `made` was never shared; `existing` as in `list`.
                unsafe {
                    drop(Box::from_raw(made));
                    &*existing
                }
            }
        }
    }

    #[inline]
    fn boxed_mut(&mut self) -> Option<&mut List> {
        // SAFETY: as in `list`, and `&mut self` makes it exclusive.
        unsafe { self.list.get_mut().as_mut() }
    }

    #[inline]
    fn list_mut(&mut self) -> Option<&mut Vec<Use>> {
        let list = self.boxed_mut()?;
        Some(list.list.get_mut_unpoisoned())
    }

    /// Whether no use is recorded (one atomic load).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list().is_none_or(|list| list.count.load(Ordering::Acquire) == 0)
    }

    /// Order a use with `access` on `stream` after the buffer's earlier
    /// conflicting uses (`own` is the buffer's stream). GPU waits only.
    pub fn prepare(&self, own: &Stream, stream: &Stream, access: Access) -> Result<(), HipError> {
        let same = own.id() == stream.id();
        if same && self.is_empty() {
            return Ok(());
        }
        if !same {
            events::order_after(own, stream)?;
            if self.is_empty() {
                return Ok(());
            }
        }
        let Some(uses) = self.list() else {
            return Ok(());
        };
        let mut list = uses.lock();
        let mut i = 0;
        while i < list.len() {
            let entry = &list[i];
            let conflict = access == Access::Write || entry.access == Access::Write;
            if entry.stream == stream.id() || !conflict {
                i += 1;
                continue;
            }
            if entry.event.query()? {
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

    /// Note a use with `access` just enqueued on `stream` (`own` is the
    /// buffer's stream): an event recorded on `stream` after it.
    pub fn record(&self, own: &Stream, stream: &Stream, access: Access) -> Result<(), HipError> {
        if own.id() == stream.id() {
            return Ok(());
        }
        let uses = self.list_or_make();
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
        let list = uses.list.get_mut_unpoisoned();
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

    /// Whether [`Uses::take_events`] would return nothing, without
    /// making the vector.
    #[inline]
    pub fn is_empty_mut(&mut self) -> bool {
        self.list_mut().is_none_or(|list| list.is_empty())
    }

    /// The pending events, for the pool (no HIP call, no lock: the buffer
    /// is going away). Allocates only when there are some.
    #[inline]
    pub fn take_events(&mut self) -> Vec<Event> {
        match self.list_mut() {
            Some(list) if !list.is_empty() => self.drain_events(),
            _ => Vec::new(),
        }
    }

    #[cold]
    fn drain_events(&mut self) -> Vec<Event> {
        let Some(uses) = self.boxed_mut() else {
            return Vec::new();
        };
        uses.count.store(0, Ordering::Release);
        let list = uses.list.get_mut_unpoisoned();
        list.drain(..).map(|u| u.event).collect()
    }
}
