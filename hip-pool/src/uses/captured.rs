//! Memory in stream captures: the operand protocol while a capture
//! records, and the hold a graph keeps on every buffer (and pinned host
//! buffer) its work uses.
//!
//! Captured work runs at each replay, on the stream the replay is
//! launched on, not where and when it was captured. So a use inside a
//! capture records no event and waits for none (an event recorded there
//! would record into the graph, and querying one breaks the capture with
//! `hipErrorCapturedEvent`). It becomes a [`CapturedUse`] kept by the
//! capture ([`CaptureScope::keep`], once per buffer and capture), which the
//! graph and every executable graph made of it keep in turn:
//!
//! - before each replay on a stream `R`, it prepares the buffer's use on
//!   `R` as any operation would: `R` waits (on the GPU) for the buffer's
//!   own stream and for the conflicting uses recorded so far;
//! - after it, it records the use on `R`, so that later work on the buffer
//!   (and its next owner) waits for the replay;
//! - while it lives the buffer's block is not reused: a buffer dropped
//!   meanwhile leaves its release to the last hold (`uses::List`).

use super::{Access, UseList};
use hip_core::capture::{CaptureScope, GraphResource};
use hip_core::{HipError, Stream};
use hip_sys::sync::MutexExt;
use std::ops::Range;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

/// A graph's hold on some memory: its uses' list, its own stream (if it
/// has one), and the bytes the captured work touches, each with whether it
/// writes them.
pub(crate) struct CapturedUse {
    list: Arc<UseList>,
    own: Option<Stream>,
    /// [`Stream::id`] of `own` (`u64::MAX` for none, which no stream
    /// has), read at every launch without going through the stream.
    own_id: u64,
    capture: u64,
    ranges: Mutex<Vec<(Range<usize>, Access)>>,
}

impl CapturedUse {
    fn ranges(&self) -> Vec<(Range<usize>, Access)> {
        self.ranges.lock_unpoisoned().clone()
    }

    /// How the captured work uses the memory, all ranges together.
    fn access(&self) -> Access {
        let writes = self.ranges.lock_unpoisoned().iter().any(|(_, a)| *a == Access::Write);
        if writes {
            Access::Write
        } else {
            Access::Read
        }
    }

    /// Whether this is host memory, which host views may borrow
    /// (`host_borrows`): memory with no own stream.
    fn is_host(&self) -> bool {
        self.own.is_none() || self.list.host_viewable()
    }
}

impl GraphResource for CapturedUse {
    fn before_replay(&self, stream: &Stream) -> Result<(), HipError> {
        // A replay on the memory's own stream with no use recorded on
        // another has nothing to wait for (what `order` finds too, here
        // without copying the ranges): the common case, on every launch.
        let host = self.is_host();
        if !host && self.own_id == stream.id() && self.list.is_empty() {
            return Ok(());
        }
        let host = host.then(|| self.access());
        if let Some(access) = host {
            // Refused under a host view; counted until `after_replay`.
            self.list.host.begin_replay(access)?;
        }
        let ordered = self
            .ranges()
            .iter()
            .try_for_each(|(bytes, access)| self.list.order(self.own.as_ref(), stream, bytes, *access));
        if let (Err(_), Some(access)) = (&ordered, host) {
            self.list.host.end_replay(access);
        }
        ordered
    }

    fn quiet_on(&self) -> Option<(u64, &AtomicUsize)> {
        // On the memory's own stream, with no use recorded elsewhere, both
        // hooks return at once (see them); not for memory the host views
        // in place, whose replays are counted against its views.
        self.own.as_ref().filter(|_| !self.list.host_viewable()).map(|_| (self.own_id, self.list.pending()))
    }

    fn after_replay(&self, stream: &Stream) -> Result<(), HipError> {
        if self.own_id == stream.id() {
            // A view that begins after this waits for the own stream.
            if self.is_host() {
                self.list.host.end_replay(self.access());
            }
            return Ok(());
        }
        let noted = self.ranges().into_iter().try_for_each(|(bytes, access)| self.list.note(stream, bytes, access));
        if self.is_host() {
            // A host view waiting for this replay reads the list as soon as
            // it is uncounted: with no event noted, the stream must be
            // drained first, or the memory is lost for good.
            if noted.is_err() && hip_core::capture::synchronize_after_captures(stream).is_err() {
                self.list.mark_lost();
            }
            self.list.host.end_replay(self.access());
        }
        noted
    }
}

impl Drop for CapturedUse {
    fn drop(&mut self) {
        if let Some(release) = self.list.unhold(self.capture) {
            release();
        }
    }
}

/// Note a use of `bytes` with `access`, on `stream`, of the memory with
/// the uses `list` and own stream `own` (none for host memory), in the
/// capture `scope` records: no HIP call.
pub(crate) fn use_in_capture(
    list: &Arc<UseList>,
    own: Option<&Stream>,
    stream: &Stream,
    bytes: Range<usize>,
    access: Access,
    scope: &CaptureScope,
) {
    let foreign = own.is_none_or(|own| own.id() != stream.id());
    let key = Arc::as_ptr(list) as usize;
    let kept = scope.keep(key, || {
        list.hold(scope.id(), foreign);
        CapturedUse {
            list: list.clone(),
            own: own.cloned(),
            own_id: own.map_or(u64::MAX, Stream::id),
            capture: scope.id(),
            ranges: Mutex::new(Vec::new()),
        }
    });
    {
        let mut ranges = kept.ranges.lock_unpoisoned();
        match ranges.iter_mut().find(|(b, _)| *b == bytes) {
            Some((_, a)) if access == Access::Write => *a = Access::Write,
            Some(_) => {}
            None => ranges.push((bytes, access)),
        }
    }
    if foreign {
        kept.list.mark_foreign();
    }
}
