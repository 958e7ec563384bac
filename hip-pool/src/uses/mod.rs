//! Uses of memory on streams, as events: the one tracker of the workspace,
//! for pool buffers and for the facade's pinned host memory.
//!
//! Memory may have an *own stream* (a [`Buffer`](crate::Buffer)'s, see
//! [`Buffer::stream`](crate::Buffer::stream)), whose work is ordered by the
//! stream itself; pinned host memory has none. A use on another stream `S`
//! is recorded, once enqueued, as an event on `S` marked [`Access::Read`]
//! or [`Access::Write`], with the bytes it touched (a buffer's uses touch
//! all of it; host copies touch a range): one entry per stream and range,
//! a later use of the same bytes on `S` records the entry's event again.
//! Before a use on `S`:
//!
//! - if the memory has an own stream and `S` is not it, `S` waits on the
//!   GPU for the work queued so far there (an event recorded there);
//! - `S` waits for the entries that conflict with the use: of overlapping
//!   bytes, writes before a read, and every use before a write (entries of
//!   `S` itself are in `S`'s order already). An entry whose event has
//!   completed is dropped instead, its event returned to the free list.
//!
//! After a write, every entry of another stream whose bytes the write
//! covers is ordered before `S`'s later work (and `S`'s entry, recorded
//! after the write, covers it), so those entries go. Nothing here blocks
//! the host but [`UseList::wait_host`] and [`UseList::wait_all`], which
//! memory the host touches (pinned host memory) calls before it does.
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
//! launched. A use in a capture is a *hold* instead ([`UseList::hold`]): the
//! graph keeps the list (shared, reference-counted) and applies the same
//! two steps around each replay, on the replay's stream. While any hold
//! lives, the buffer's block must not be reused (the graph baked its
//! address), so a buffer dropped meanwhile leaves its release with the
//! list ([`UseList::release_or_defer`]); the last hold to go runs it.

mod captured;
mod host_borrows;

use crate::driver::events;
use crate::history::Waits;
pub(crate) use captured::use_in_capture;
use hip_core::{Event, HipError, Stream};
use hip_sys::sync::MutexExt;
use host_borrows::HostBorrows;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
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

/// The bytes of every use of a pool buffer: all of it.
pub(crate) const WHOLE: Range<usize> = 0..usize::MAX;

/// Holders from here up are shares with other processes (`ipc`), far
/// above the capture ids HIP hands out.
pub(crate) const SHARE_HOLDS: u64 = 1 << 63;

/// Entries kept before completed ones are looked for and dropped.
const PRUNE_ABOVE: usize = 16;

/// One stream's recorded use of some bytes.
pub(crate) struct Use {
    /// [`Stream::id`] of the stream the event was recorded on.
    stream: u64,
    bytes: Range<usize>,
    access: Access,
    pub(crate) event: Event,
}

fn overlap(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

fn covers(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

fn conflict(a: Access, b: Access) -> bool {
    a == Access::Write || b == Access::Write
}

/// The recorded uses of some memory on streams, and the graphs that hold
/// it: what a [`Buffer`](crate::Buffer) keeps of its uses on other streams
/// (made on the first), and what memory with no own stream, such as
/// pinned host memory, keeps of all its uses.
///
/// Memory tracked here follows the operand protocol
/// ([`Operand`](crate::Operand)): [`UseList::prepare`] before each use on
/// a stream, [`UseList::record`] after it. The host waits with
/// [`UseList::wait_host`] before it touches the memory, and
/// [`UseList::wait_all`] before the memory is freed, unless a graph holds
/// it ([`UseList::is_held`], [`UseList::release_after_holds`]).
///
/// # Graphs
///
/// Inside a stream capture nothing here records, queries or waits for an
/// event: a use on a capturing stream is a hold of the capture's graph,
/// which prepares and records the use on each replay's stream.
///
/// # Examples
/// ```
/// use hip_pool::{Access, UseList};
/// use std::sync::Arc;
///
/// let list = Arc::new(UseList::default());
/// let stream = hip_core::Stream::new()?;
/// // A copy that writes bytes 0..64 of host memory, on `stream`:
/// list.prepare(&stream, 0..64, Access::Write)?;
/// // (enqueue the copy here)
/// list.record(&stream, 0..64, Access::Write)?;
/// // The host reads the bytes only after the copy.
/// list.wait_host(Access::Read)?;
/// assert!(list.is_empty());
/// # Ok::<(), hip_core::HipError>(())
/// ```
#[derive(Default)]
pub struct UseList {
    /// The list's length, read without the lock.
    count: AtomicUsize,
    list: Mutex<Vec<Use>>,
    /// How many holds live (`held.holders.len()`), read without the lock.
    holds: AtomicUsize,
    held: Mutex<Held>,
    /// Host views of memory the host touches, and the replays they keep
    /// out (see `host_borrows`).
    host: HostBorrows,
    /// Whether a use could not be tracked nor waited for (see
    /// [`UseList::mark_lost`]).
    lost: AtomicBool,
}

/// The graphs holding the memory, and its release if it was dropped first.
#[derive(Default)]
struct Held {
    /// The ids of the captures (and then graphs) holding it, one each.
    holders: Vec<u64>,
    /// Whether a capture used it on another stream than its own.
    foreign: bool,
    /// The dropped buffer's release, run when the last hold goes.
    deferred: Option<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for UseList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UseList")
            .field("uses", &self.count.load(Ordering::Acquire))
            .field("holds", &self.holds.load(Ordering::Acquire))
            .finish()
    }
}

impl UseList {
    /// Note that the capture `capture` uses the buffer (on its own stream
    /// unless `foreign`); once per capture (the caller dedupes).
    pub(crate) fn hold(&self, capture: u64, foreign: bool) {
        let mut held = self.held.lock_unpoisoned();
        if !held.holders.contains(&capture) {
            held.holders.push(capture);
        }
        held.foreign |= foreign;
        self.holds.store(held.holders.len(), Ordering::Release);
    }

    /// Note another use on a stream other than the buffer's own.
    pub(crate) fn mark_foreign(&self) {
        self.held.lock_unpoisoned().foreign = true;
    }

    /// Let go of the hold of `capture`; the deferred release, if this was
    /// the last hold and the buffer is gone (for the caller to run).
    #[must_use]
    pub(crate) fn unhold(&self, capture: u64) -> Option<Box<dyn FnOnce() + Send>> {
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

    /// Whether another process holds the buffer (a share, `ipc`).
    pub(crate) fn shared_with_processes(&self) -> bool {
        self.held.lock_unpoisoned().holders.iter().any(|h| *h >= SHARE_HOLDS)
    }

    /// Whether the buffer went while held: its release waits in the list.
    pub(crate) fn has_deferred(&self) -> bool {
        self.held.lock_unpoisoned().deferred.is_some()
    }

    /// A buffer with this list is being dropped: run its `release` now if
    /// no graph holds it, or if every hold is of a capture for which
    /// `reusable` says yes and the captures used it only on its own stream
    /// (a capture's private pool: the block then serves that pool's later
    /// allocations, in capture order); else keep `release` for the last
    /// hold to run.
    pub(crate) fn release_or_defer(&self, reusable: impl Fn(u64) -> bool, release: impl FnOnce() + Send + 'static) {
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

    /// The count of recorded uses, for a graph's quick test at each
    /// launch (`GraphResource::quiet_on`).
    pub(crate) fn pending(&self) -> &AtomicUsize {
        &self.count
    }

    fn store_count(&self, list: &[Use]) {
        self.count.store(list.len(), Ordering::Release);
    }
}

/// The uses of one buffer on streams other than its own: null until the
/// first use is recorded (or the first hold), then a [`UseList`] made by
/// `Arc::into_raw`, set once (compare-exchange); `Drop` lets go of it
/// (holds keep it alive longer).
#[derive(Default)]
pub(crate) struct Uses {
    list: AtomicPtr<UseList>,
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
fn free_list(list: *mut UseList) {
    // SAFETY: made by `Arc::into_raw` in `list_or_make`; this is the
    // owner's one reference, let go once (it had `&mut` of the owner).
    drop(unsafe { Arc::from_raw(list) });
}

impl Uses {
    /// The list, if a use was ever recorded.
    #[inline]
    fn list(&self) -> Option<&UseList> {
        let list = self.list.load(Ordering::Acquire);
        // SAFETY: null, or a list set once whose owner's reference is let
        // go only when `self` drops, which the borrow of `self` rules out.
        unsafe { list.as_ref() }
    }

    fn list_or_make(&self) -> &UseList {
        if let Some(list) = self.list() {
            return list;
        }
        let made = Arc::into_raw(Arc::<UseList>::default()).cast_mut();
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
    pub fn shared(&self) -> Arc<UseList> {
        let list: *const UseList = self.list_or_make();
        // SAFETY: a live list made by `Arc::into_raw` (the owner's reference
        // keeps it alive through this call); the count gains the new one.
        unsafe {
            Arc::increment_strong_count(list);
            Arc::from_raw(list)
        }
    }

    #[inline]
    fn boxed_mut(&mut self) -> Option<&UseList> {
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
    pub fn held(&mut self) -> Option<&UseList> {
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
            Some(list) => list.order(Some(own), stream, &WHOLE, access),
            None => events::order_after(own, stream),
        }
    }

    /// Note a use with `access` just enqueued on `stream` (`own` is the
    /// buffer's stream): an event recorded on `stream` after it.
    pub fn record(&self, own: &Stream, stream: &Stream, access: Access) -> Result<(), HipError> {
        if own.id() == stream.id() {
            return Ok(());
        }
        self.list_or_make().note(stream, WHOLE, access)
    }
}

impl UseList {
    /// Order a use of `bytes` with `access` on `stream` after the work
    /// queued so far on `own` (the memory's own stream, if it has one and
    /// `stream` is another) and after the conflicting entries. GPU waits
    /// only.
    pub(crate) fn order(
        &self,
        own: Option<&Stream>,
        stream: &Stream,
        bytes: &Range<usize>,
        access: Access,
    ) -> Result<(), HipError> {
        if let Some(own) = own.filter(|own| own.id() != stream.id()) {
            events::order_after(own, stream)?;
        }
        if self.count.load(Ordering::Acquire) == 0 {
            return Ok(());
        }
        let mut list = self.lock();
        let mut i = 0;
        while i < list.len() {
            let entry = &list[i];
            if entry.stream == stream.id() || !conflict(entry.access, access) || !overlap(&entry.bytes, bytes) {
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
            // Every other stream's entry of bytes the write covers is now
            // before `stream`'s later work.
            let mut k = 0;
            while k < list.len() {
                if list[k].stream == stream.id() || !covers(bytes, &list[k].bytes) {
                    k += 1;
                } else {
                    events::give(list.swap_remove(k).event);
                }
            }
        }
        self.store_count(&list);
        Ok(())
    }

    /// Note a use of `bytes` with `access` just enqueued on `stream`: an
    /// event recorded on `stream` after it (the entry's, if it has one).
    pub(crate) fn note(&self, stream: &Stream, bytes: Range<usize>, access: Access) -> Result<(), HipError> {
        let mut list = self.lock();
        if let Some(entry) = list.iter_mut().find(|u| u.stream == stream.id() && u.bytes == bytes) {
            entry.event.record(stream)?;
            if access == Access::Write {
                entry.access = Access::Write;
            }
            return Ok(());
        }
        // Pruning queries events, which a capture underway forbids (CUDA).
        if list.len() > PRUNE_ABOVE && !hip_core::capture::underway() {
            let mut k = 0;
            while k < list.len() {
                if list[k].event.query().unwrap_or(false) {
                    events::give(list.swap_remove(k).event);
                } else {
                    k += 1;
                }
            }
        }
        let event = events::take(stream.device())?;
        if let Err(error) = event.record(stream) {
            events::give(event);
            return Err(error);
        }
        list.push(Use { stream: stream.id(), bytes, access, event });
        self.store_count(&list);
        Ok(())
    }

    /// Order a use of `bytes` with `access` on `stream` after the
    /// conflicting uses recorded so far (GPU waits only), for memory with
    /// no own stream. Call it before enqueuing the use. On a stream that
    /// captures, the use is a hold of the capture's graph instead (no HIP
    /// call but the capture query).
    ///
    /// # Errors
    /// HIP's status of `hipStreamWaitEvent` or `hipEventQuery`, or of
    /// `hipStreamGetCaptureInfo` while a capture is underway; the use must
    /// then not be enqueued.
    pub fn prepare(self: &Arc<Self>, stream: &Stream, bytes: Range<usize>, access: Access) -> Result<(), HipError> {
        if hip_core::capture::underway() {
            if let Some(scope) = hip_core::capture::of(stream)? {
                use_in_capture(self, None, stream, bytes, access, &scope);
                return Ok(());
            }
        }
        self.order(None, stream, &bytes, access)
    }

    /// Note a use of `bytes` with `access` just enqueued on `stream`: an
    /// event recorded on `stream` after it, which later conflicting uses
    /// and host waits wait for. On a stream that captures, nothing (the
    /// graph's hold, noted by [`UseList::prepare`], records at replays).
    ///
    /// # Errors
    /// HIP's status of `hipEventCreateWithFlags` or `hipEventRecord`: the
    /// use is then not recorded, so the caller must synchronize `stream`
    /// before the host touches or frees the memory (as
    /// [`enqueue`](crate::enqueue) does).
    pub fn record(&self, stream: &Stream, bytes: Range<usize>, access: Access) -> Result<(), HipError> {
        if hip_core::capture::underway() && hip_core::capture::of(stream)?.is_some() {
            return Ok(());
        }
        self.note(stream, bytes, access)
    }

    /// Wait on the host for the uses that a host access with `access`
    /// conflicts with: the writes for a read, every use for a write. They
    /// are over when this returns, and leave the list.
    ///
    /// # Errors
    /// [`HipError::CaptureUnderway`] while a wait would break a capture
    /// (see [`hip_core::Event::synchronize`]); HIP's status of
    /// `hipEventSynchronize`. The entries not waited for stay.
    pub fn wait_host(&self, access: Access) -> Result<(), HipError> {
        let mut list = self.lock();
        let mut k = 0;
        while k < list.len() {
            if conflict(list[k].access, access) {
                list[k].event.synchronize()?;
                events::give(list.swap_remove(k).event);
            } else {
                k += 1;
            }
        }
        self.store_count(&list);
        Ok(())
    }

    /// Wait on the host for every recorded use, before the memory is
    /// freed; all are waited for even when one wait fails. Event waits run
    /// under each event's device and touch no thread state (a drop may call
    /// it).
    ///
    /// # Errors
    /// The first wait's error (`hipEventSynchronize`): the memory must then
    /// not be freed, since a use may still run.
    pub fn wait_all(&self) -> Result<(), HipError> {
        let mut list = self.lock();
        let mut first = Ok(());
        for entry in list.drain(..) {
            match entry.event.synchronize() {
                Ok(()) => events::give(entry.event),
                Err(error) => first = first.and(Err(error)),
            }
        }
        self.store_count(&list);
        first
    }

    /// Whether no use is recorded (one atomic load; uses known to be over
    /// may still be listed).
    pub fn is_empty(&self) -> bool {
        self.count.load(Ordering::Acquire) == 0
    }

    /// Whether a graph holds the memory: it may run on it at any replay.
    pub fn is_held(&self) -> bool {
        self.holds.load(Ordering::Acquire) != 0
    }

    /// The memory is going away: run `release` (which frees it) now if no
    /// graph holds it, else when the last hold goes.
    pub fn release_after_holds(&self, release: impl FnOnce() + Send + 'static) {
        self.release_or_defer(|_| false, release);
    }

    /// Begin a host view of the memory with `access` (a read or write of
    /// it by host code): wait for the uses it conflicts with (as
    /// [`UseList::wait_host`]), including a graph replay being launched
    /// at this moment, and from then on refuse the replays of graphs
    /// holding the memory that conflict with the view, until
    /// [`UseList::end_host_view`] with the same `access`. A view that is
    /// never ended (a guard forgotten with `std::mem::forget`) keeps those
    /// replays refused: never a race.
    ///
    /// # Errors
    /// As [`UseList::wait_host`] (then nothing is begun), and
    /// [`HipError::HostBorrowed`] when `isize::MAX` views are counted.
    pub fn begin_host_view(&self, access: Access) -> Result<(), HipError> {
        self.host.begin_view(access)?;
        self.wait_host(access).inspect_err(|_| self.host.end_view(access))
    }

    /// Mark device memory the host also reads and writes in place
    /// (managed memory): from now on every replay of a graph holding it,
    /// on any stream, is counted against host views. Call it before the
    /// memory's first use.
    pub fn allow_host_views(&self) {
        self.host.allow_views();
    }

    /// Whether [`UseList::allow_host_views`] was called.
    pub fn host_viewable(&self) -> bool {
        self.host.viewable()
    }

    /// End a view begun by [`UseList::begin_host_view`] with `access`.
    pub fn end_host_view(&self, access: Access) {
        self.host.end_view(access);
    }

    /// Mark the memory lost: a use could be neither tracked nor waited for
    /// (its event could not be recorded and its stream not synchronized),
    /// so the host must never touch it again nor free it.
    pub fn mark_lost(&self) {
        self.lost.store(true, Ordering::Release);
    }

    /// Whether [`UseList::mark_lost`] was called.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
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

    /// What a buffer being given back waits for, for the memory history:
    /// the first capture that holds it and how many do, else its shares
    /// with other processes, else the stream of its oldest use with a
    /// pending event and how many there are.
    pub fn waiting(&mut self) -> Waits {
        let Some(list) = self.boxed_mut() else { return Waits::Nothing };
        if list.holds.load(Ordering::Acquire) != 0 {
            let held = list.held.lock_unpoisoned();
            let (shares, graphs): (Vec<u64>, Vec<u64>) = held.holders.iter().partition(|h| **h >= SHARE_HOLDS);
            if let Some(first) = graphs.first() {
                return Waits::Graphs { capture: *first, graphs: graphs.len() };
            }
            if !shares.is_empty() {
                return Waits::Processes { shares: shares.len() };
            }
        }
        let uses = list.lock();
        match uses.first() {
            Some(oldest) => Waits::Streams { stream: oldest.stream, events: uses.len() },
            None => Waits::Nothing,
        }
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
