//! Events of uses still pending on free blocks (cached strategy).
//!
//! A buffer dropped while uses on other streams may still run hands their
//! events to its pool, with its block's address range. A block handed out
//! later waits (on the allocating stream, on the GPU) for every entry its
//! range overlaps; an entry inside the block is then removed, as the new
//! owner's stream now orders everything after it. Entries that only
//! overlap stay for the rest of their range, until their event has
//! completed (checked when the list grows) or until a reclaim, which
//! synchronizes them before the driver frees anything.
//!
//! Blocks with pending entries bypass the per-thread caches: they go to
//! the pool, where every allocation sees the entries.

use hip_core::Event;
use std::sync::Arc;

/// Entries beyond which an allocation drops the completed ones.
const PRUNE_ABOVE: usize = 64;

/// One pending use: `[start, end)` is unsafe to reuse before `event`.
pub(crate) struct Entry {
    pub start: usize,
    pub end: usize,
    pub event: Arc<Event>,
}

/// What an allocation must wait for.
pub(crate) struct Waits {
    /// Entries inside the block, removed from the list: restore them if
    /// the waits fail.
    pub removed: Vec<Entry>,
    /// Events of entries that stay.
    pub shared: Vec<Arc<Event>>,
}

impl Waits {
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.shared.is_empty()
    }

    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.removed.iter().map(|e| &*e.event).chain(self.shared.iter().map(|e| &**e))
    }
}

/// The pool's pending entries.
#[derive(Default)]
pub(crate) struct Pending {
    entries: Vec<Entry>,
}

impl Pending {
    /// Keep `events` for the block `[ptr, ptr + size)` (no HIP call).
    pub fn add(&mut self, ptr: usize, size: usize, events: Vec<Event>) {
        self.entries.extend(events.into_iter().map(|e| Entry { start: ptr, end: ptr + size, event: Arc::new(e) }));
    }

    /// Put back entries whose waits failed.
    pub fn restore(&mut self, entries: Vec<Entry>) {
        self.entries.extend(entries);
    }

    /// The entries the block `[ptr, ptr + size)` must wait for. Cheap when
    /// there are none.
    pub fn overlapping(&mut self, ptr: usize, size: usize) -> Waits {
        let mut waits = Waits { removed: Vec::new(), shared: Vec::new() };
        if self.entries.is_empty() {
            return waits;
        }
        // Pruning queries events, which a capture underway forbids (CUDA).
        if self.entries.len() > PRUNE_ABOVE && !hip_core::capture::underway() {
            self.prune();
        }
        let end = ptr + size;
        let mut i = 0;
        while i < self.entries.len() {
            let entry = &self.entries[i];
            if entry.end <= ptr || entry.start >= end {
                i += 1;
            } else if entry.start >= ptr && entry.end <= end {
                waits.removed.push(self.entries.swap_remove(i));
            } else {
                waits.shared.push(entry.event.clone());
                i += 1;
            }
        }
        waits
    }

    /// Drop the entries whose events have completed.
    fn prune(&mut self) {
        let mut i = 0;
        while i < self.entries.len() {
            if self.entries[i].event.query().unwrap_or(false) {
                release(self.entries.swap_remove(i).event);
            } else {
                i += 1;
            }
        }
    }

    /// Every entry, for a reclaim.
    pub fn take_all(&mut self) -> Vec<Entry> {
        std::mem::take(&mut self.entries)
    }
}

/// Return an entry's event to the free list once nobody else holds it.
pub(crate) fn release(event: Arc<Event>) {
    // `into_inner`, not `try_unwrap`: of two holders letting go at once,
    // exactly one gets the event.
    if let Some(event) = Arc::into_inner(event) {
        crate::driver::events::give(event);
    }
}
