//! A host buffer's pending copies: the pool's use tracker
//! ([`hip_pool::UseList`]), with no own stream, and what a copy that
//! cannot be tracked does to the buffer.
//!
//! Each copy that touches a host buffer is prepared (its stream waits on
//! the GPU for the conflicting copies of other streams: overlapping bytes,
//! one of the two writing) and recorded (an event on its stream, with the
//! bytes and whether it wrote them), as a device buffer's use on another
//! stream is. Host access waits on the host: a read for the writes, a
//! write for everything. If a copy's event cannot be recorded, the stream
//! is synchronized instead; if even that fails the buffer is *lost*: host
//! access is refused and the memory is never freed, rather than risk a
//! copy writing into freed memory.
//!
//! Inside a stream capture a copy records no event: it is a hold of the
//! graph (as a device buffer's use is), which prepares and records the
//! copy's bytes on each replay's stream; while a hold lives the memory is
//! not freed (a dropped buffer leaves its release to the last hold).
//! Replays need no borrow of the buffer, so host access is a *view*
//! counted on the tracker while it lives ([`UseList::begin_host_view`]):
//! replays that conflict with a live view are refused.

use crate::{Error, Result};
use hip_core::Stream;
use hip_pool::{Access, UseList};
use std::ops::Range;
use std::sync::Arc;

/// The pending copies of one host buffer, shared with the graphs that
/// hold it.
#[derive(Default)]
pub(crate) struct HostUses {
    list: Arc<UseList>,
}

impl HostUses {
    /// The tracker itself, for a release kept by the holds.
    pub fn list(&self) -> Arc<UseList> {
        self.list.clone()
    }

    /// Whether a graph holds the buffer.
    pub fn is_held(&self) -> bool {
        self.list.is_held()
    }

    /// Whether a copy could not be tracked (see the module docs).
    pub fn is_lost(&self) -> bool {
        self.list.is_lost()
    }

    /// Refuse host access and never free the memory from now on: a copy
    /// may still be using it and nothing can wait for it.
    pub fn mark_lost(&self) {
        self.list.mark_lost();
    }

    /// Whether no copy is recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Order a copy on `stream` touching `bytes` with `access` after the
    /// conflicting copies of other streams (GPU waits only).
    pub fn prepare(&self, stream: &Stream, bytes: &Range<usize>, access: Access) -> Result<()> {
        if self.is_lost() {
            return Err(Error::HostBufferLost);
        }
        Ok(self.list.prepare(stream, bytes.clone(), access)?)
    }

    /// Note a copy just enqueued on `stream`: an event recorded after it.
    /// When that fails the stream is synchronized; when that fails too the
    /// buffer is lost and the error returned.
    pub fn record(&self, stream: &Stream, bytes: Range<usize>, access: Access) -> Result<()> {
        match self.list.record(stream, bytes, access) {
            Ok(()) => Ok(()),
            Err(error) => {
                // Lost only when the stream cannot be drained at all (not
                // when another thread's capture makes the wait wait).
                if hip_core::capture::synchronize_after_captures(stream).is_err() {
                    self.mark_lost();
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
        Ok(self.list.wait_host(access)?)
    }

    /// Begin a host view with `access`: wait as [`HostUses::wait_host`]
    /// (for a replay being launched too), and refuse conflicting replays
    /// until the guard made with it drops (`HostRef`, `HostRefMut`).
    pub fn begin_view(&self, access: Access) -> Result<()> {
        if self.is_lost() {
            return Err(Error::HostBufferLost);
        }
        self.list.begin_host_view(access)?;
        if self.is_lost() {
            // A replay it waited for could be neither noted nor drained.
            self.list.end_host_view(access);
            return Err(Error::HostBufferLost);
        }
        Ok(())
    }

    /// Wait for every pending copy, for a drop: whether the memory may be
    /// freed (false when the buffer is lost or a wait failed). Event waits
    /// run under each event's device and touch no thread state.
    pub fn settle_for_drop(&mut self) -> bool {
        let settled = !self.is_lost();
        match self.list.wait_all() {
            Ok(()) => settled,
            Err(error) => {
                log::error!("waiting for a copy using a dropped host buffer: {error}");
                false
            }
        }
    }
}
