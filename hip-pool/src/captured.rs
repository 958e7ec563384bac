//! Buffers in stream captures: the operand protocol while a capture
//! records, and the hold a graph keeps on every buffer its work uses.
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

use crate::uses::{Access, List, Uses};
use hip_core::capture::{CaptureScope, GraphResource};
use hip_core::{HipError, Stream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A graph's hold on one buffer: its uses' list, its own stream, whether
/// the captured work writes it.
pub(crate) struct CapturedUse {
    list: Arc<List>,
    own: Stream,
    capture: u64,
    writes: AtomicBool,
}

impl CapturedUse {
    fn access(&self) -> Access {
        if self.writes.load(Ordering::Acquire) {
            Access::Write
        } else {
            Access::Read
        }
    }
}

impl GraphResource for CapturedUse {
    fn before_replay(&self, stream: &Stream) -> Result<(), HipError> {
        self.list.prepare(&self.own, stream, self.access())
    }

    fn after_replay(&self, stream: &Stream) -> Result<(), HipError> {
        if stream.id() == self.own.id() {
            return Ok(());
        }
        self.list.record(stream, self.access())
    }
}

impl Drop for CapturedUse {
    fn drop(&mut self) {
        if let Some(release) = self.list.unhold(self.capture) {
            release();
        }
    }
}

/// Note a use with `access`, on `stream`, of the buffer with `uses` and
/// own stream `own`, in the capture `scope` records: no HIP call.
pub(crate) fn use_in_capture(uses: &Uses, own: &Stream, stream: &Stream, access: Access, scope: &CaptureScope) {
    let list = uses.shared();
    let foreign = own.id() != stream.id();
    let key = Arc::as_ptr(&list) as usize;
    let kept = scope.keep(key, || {
        list.hold(scope.id(), foreign);
        CapturedUse { list: list.clone(), own: own.clone(), capture: scope.id(), writes: AtomicBool::new(false) }
    });
    if access == Access::Write {
        kept.writes.store(true, Ordering::Release);
    }
    if foreign {
        kept.list.mark_foreign();
    }
}
