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

use crate::{Error, Result};
use hip_core::{Event, Stream};
use hip_pool::Access;
use hip_sys::sync::MutexExt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

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

/// The pending copies of one host buffer.
#[derive(Default)]
pub(crate) struct HostUses {
    list: Mutex<Vec<Entry>>,
    lost: AtomicBool,
}

impl HostUses {
    fn lock(&self) -> MutexGuard<'_, Vec<Entry>> {
        self.list.lock_unpoisoned()
    }

    /// Whether a copy could not be tracked (see the module docs).
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// Refuse host access and never free the memory from now on: a copy
    /// may still be using it and nothing can wait for it.
    pub fn mark_lost(&self) {
        self.lost.store(true, Ordering::Release);
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
        if hip_core::capture::of(stream)?.is_some() {
            // Host memory has no hold of a graph yet: a replay could copy
            // into it after it was freed, and host access would not wait.
            return Err(hip_core::HipError::CaptureUnderway {
                operation: "a copy of pinned host memory",
                why: "host buffers cannot be captured yet (a graph does not keep them alive or order host \
                      access after its replays); copy into a DeviceArray outside the capture",
            }
            .into());
        }
        let list = self.lock();
        for entry in list.iter() {
            if entry.stream != stream.id() && overlap(&entry.bytes, bytes) && conflict(entry.access, access) {
                stream.wait(&entry.event)?;
            }
        }
        Ok(())
    }

    /// Note a copy just enqueued on `stream`: an event recorded after it.
    /// When that fails the stream is synchronized; when that fails too the
    /// buffer is lost and the error returned.
    pub fn record(&self, stream: &Stream, bytes: Range<usize>, access: Access) -> Result<()> {
        let mut list = self.lock();
        // Pruning queries events, which a capture underway forbids (CUDA).
        if list.len() > PRUNE_ABOVE && !hip_core::capture::underway() {
            list.retain(|entry| !entry.event.query().unwrap_or(false));
        }
        let recorded = match list.iter_mut().find(|e| e.stream == stream.id() && e.bytes == bytes) {
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
        };
        match recorded {
            Ok(()) => Ok(()),
            Err(error) => {
                drop(list);
                if stream.synchronize().is_err() {
                    self.lost.store(true, Ordering::Release);
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
        let list = self.list.get_mut_unpoisoned();
        let mut settled = !self.lost.load(Ordering::Acquire);
        for entry in list.drain(..) {
            if let Err(error) = entry.event.synchronize() {
                log::error!("waiting for a copy using a dropped host buffer: {error}");
                settled = false;
            }
        }
        settled
    }
}
