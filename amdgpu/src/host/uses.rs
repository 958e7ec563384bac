//! A host buffer's pending copies, as events: what host access and later
//! copies on other streams must wait for.
//!
//! Each copy that touches a host buffer records, once enqueued, an event
//! on its stream, with the bytes it touched and whether it wrote them.
//! Before a copy on stream `S`, `S` waits on the GPU for the entries of
//! other streams that conflict with it (overlapping bytes, one of the two
//! writing). Host access waits on the host: a read for the writes, a write
//! for everything. If a copy's event cannot be recorded, the stream is
//! synchronized instead; if even that fails the buffer is *lost*: host
//! access is refused and the memory is never freed, rather than risk a
//! copy writing into freed memory.
//!
//! Inside a stream capture a copy records no event: it is a hold of the
//! graph (as a device buffer's use is in the pool), which prepares and
//! records the copy's bytes on each replay's stream, so that host access
//! and later copies wait for replays; while a hold lives the memory is not
//! freed (a dropped buffer leaves its release to the last hold).

use crate::{Error, Result};
use hip_core::capture::{CaptureScope, GraphResource};
use hip_core::{Event, HipError, Stream};
use hip_pool::Access;
use hip_sys::sync::MutexExt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Entries kept before completed ones are looked for and dropped.
const PRUNE_ABOVE: usize = 16;

/// One recorded copy (or several of one stream over the same bytes).
struct Entry {
    /// [`Stream::id`] of the copy's stream.
    stream: u64,
    bytes: Range<usize>,
    access: Access,
    event: Event,
}

fn overlap(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

fn conflict(a: Access, b: Access) -> bool {
    a == Access::Write || b == Access::Write
}

/// The pending copies of one host buffer, shared with the graphs that
/// hold it.
#[derive(Default)]
pub(crate) struct HostUses {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    list: Mutex<Vec<Entry>>,
    lost: AtomicBool,
    held: Mutex<Held>,
}

/// The graphs holding a host buffer, and its release if it was dropped
/// first.
#[derive(Default)]
struct Held {
    holds: usize,
    deferred: Option<Box<dyn FnOnce() + Send>>,
}

/// A graph's hold on one host buffer: the byte ranges its copies touch.
struct CapturedHost {
    shared: Arc<Shared>,
    ranges: Mutex<Vec<(Range<usize>, Access)>>,
}

impl GraphResource for CapturedHost {
    fn before_replay(&self, stream: &Stream) -> std::result::Result<(), HipError> {
        let ranges = self.ranges.lock_unpoisoned().clone();
        ranges.iter().try_for_each(|(bytes, access)| self.shared.order(stream, bytes, *access))
    }

    fn after_replay(&self, stream: &Stream) -> std::result::Result<(), HipError> {
        let ranges = self.ranges.lock_unpoisoned().clone();
        ranges.into_iter().try_for_each(|(bytes, access)| self.shared.note(stream, bytes, access))
    }
}

impl Drop for CapturedHost {
    fn drop(&mut self) {
        let release = {
            let mut held = self.shared.held.lock_unpoisoned();
            held.holds -= 1;
            if held.holds == 0 {
                held.deferred.take()
            } else {
                None
            }
        };
        if let Some(release) = release {
            release();
        }
    }
}

impl Shared {
    /// Order a copy on `stream` after the conflicting ones of other
    /// streams (GPU waits).
    fn order(&self, stream: &Stream, bytes: &Range<usize>, access: Access) -> std::result::Result<(), HipError> {
        let list = self.list.lock_unpoisoned();
        for entry in list.iter() {
            if entry.stream != stream.id() && overlap(&entry.bytes, bytes) && conflict(entry.access, access) {
                stream.wait(&entry.event)?;
            }
        }
        Ok(())
    }

    /// Record a copy just enqueued on `stream`.
    fn note(&self, stream: &Stream, bytes: Range<usize>, access: Access) -> std::result::Result<(), HipError> {
        let mut list = self.list.lock_unpoisoned();
        // Pruning queries events, which a capture underway forbids (CUDA).
        if list.len() > PRUNE_ABOVE && !hip_core::capture::underway() {
            list.retain(|entry| !entry.event.query().unwrap_or(false));
        }
        match list.iter_mut().find(|e| e.stream == stream.id() && e.bytes == bytes) {
            Some(entry) => entry.event.record(stream).map(|()| {
                if access == Access::Write {
                    entry.access = Access::Write;
                }
            }),
            None => Event::untimed_on(stream.device()).and_then(|event| {
                event.record(stream)?;
                list.push(Entry { stream: stream.id(), bytes, access, event });
                Ok(())
            }),
        }
    }
}

impl HostUses {
    fn lock(&self) -> MutexGuard<'_, Vec<Entry>> {
        self.shared.list.lock_unpoisoned()
    }

    /// A copy of `bytes` with `access` in the capture `scope` records: the
    /// graph holds the buffer (no HIP call).
    fn hold(&self, scope: &CaptureScope, bytes: &Range<usize>, access: Access) {
        let key = Arc::as_ptr(&self.shared) as usize;
        let kept = scope.keep(key, || {
            self.shared.held.lock_unpoisoned().holds += 1;
            CapturedHost { shared: self.shared.clone(), ranges: Mutex::new(Vec::new()) }
        });
        let mut ranges = kept.ranges.lock_unpoisoned();
        match ranges.iter_mut().find(|(b, _)| b == bytes) {
            Some((_, a)) if access == Access::Write => *a = Access::Write,
            Some(_) => {}
            None => ranges.push((bytes.clone(), access)),
        }
    }

    /// Another handle to the same uses (for a release kept by the holds).
    pub fn shared_handle(&self) -> HostUses {
        HostUses { shared: self.shared.clone() }
    }

    /// Whether a graph holds the buffer.
    pub fn is_held(&self) -> bool {
        self.shared.held.lock_unpoisoned().holds != 0
    }

    /// The buffer is dropped while a graph holds it: keep `release` for
    /// the last hold, or run it now if the holds went meanwhile.
    pub fn release_after_holds(&self, release: impl FnOnce() + Send + 'static) {
        let mut held = self.shared.held.lock_unpoisoned();
        if held.holds == 0 {
            drop(held);
            release();
        } else {
            held.deferred = Some(Box::new(release));
        }
    }

    /// Whether a copy could not be tracked (see the module docs).
    pub fn is_lost(&self) -> bool {
        self.shared.lost.load(Ordering::Acquire)
    }

    /// Refuse host access and never free the memory from now on: a copy
    /// may still be using it and nothing can wait for it.
    pub fn mark_lost(&self) {
        self.shared.lost.store(true, Ordering::Release);
    }

    /// Whether no copy is recorded.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Order a copy on `stream` touching `bytes` with `access` after the
    /// conflicting copies of other streams (GPU waits only).
    pub fn prepare(&self, stream: &Stream, bytes: &Range<usize>, access: Access) -> Result<()> {
        if self.is_lost() {
            return Err(Error::HostBufferLost);
        }
        if let Some(scope) = hip_core::capture::of(stream)? {
            self.hold(&scope, bytes, access);
            return Ok(());
        }
        Ok(self.shared.order(stream, bytes, access)?)
    }

    /// Note a copy just enqueued on `stream`: an event recorded after it.
    /// When that fails the stream is synchronized; when that fails too the
    /// buffer is lost and the error returned.
    pub fn record(&self, stream: &Stream, bytes: Range<usize>, access: Access) -> Result<()> {
        if hip_core::capture::underway() && hip_core::capture::of(stream)?.is_some() {
            // Its hold was noted by `prepare`; replays record on their own.
            return Ok(());
        }
        match self.shared.note(stream, bytes, access) {
            Ok(()) => Ok(()),
            Err(error) => {
                if stream.synchronize().is_err() {
                    self.shared.lost.store(true, Ordering::Release);
                }
                Err(error.into())
            }
        }
    }

    /// Wait on the host for the copies that a host access with `access`
    /// conflicts with: writes for a read, everything for a write.
    pub fn wait_host(&self, access: Access) -> Result<()> {
        if self.is_lost() {
            return Err(Error::HostBufferLost);
        }
        let mut list = self.lock();
        let mut k = 0;
        while k < list.len() {
            if conflict(list[k].access, access) {
                list[k].event.synchronize()?;
                list.swap_remove(k);
            } else {
                k += 1;
            }
        }
        Ok(())
    }

    /// Wait for every pending copy, for a drop: whether the memory may be
    /// freed (false when the buffer is lost or a wait failed). Event waits
    /// run under each event's device and touch no thread state.
    pub fn settle_for_drop(&mut self) -> bool {
        let mut settled = !self.is_lost();
        let mut list = self.lock();
        for entry in list.drain(..) {
            if let Err(error) = entry.event.synchronize() {
                log::error!("waiting for a copy using a dropped host buffer: {error}");
                settled = false;
            }
        }
        settled
    }
}
