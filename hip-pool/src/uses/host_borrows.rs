//! Host borrows of memory that graphs hold: the host's views and the
//! replays that would touch the memory under them, kept apart.
//!
//! Copies enqueued directly need a borrow of the host memory (`&` to read
//! it, `&mut` to write it), so the borrow checker keeps them away from
//! host views. A graph replay does not: it runs captured copies with no
//! borrow at all. So each host view counts itself here while it lives,
//! and each replay of a graph holding the memory counts itself from its
//! [`before_replay`](hip_core::capture::GraphResource::before_replay)
//! to its `after_replay`, when its event is noted:
//!
//! - a replay that writes the memory is refused while a host view reads
//!   it; a replay that touches it at all is refused while a host view
//!   writes it ([`HipError::HostBorrowed`]);
//! - a host view made while a replay is between its two hooks waits until
//!   the replay has noted its event, then waits for that event as for any
//!   copy.
//!
//! Both sides count first and look at the other side second, with
//! sequentially consistent operations, so at least one of two racing
//! sides sees the other (the replay then backs off, or the view waits).
//!
//! A view forgotten with `std::mem::forget` is never uncounted: replays
//! that conflict with it stay refused for the memory's life. That is a
//! failure, never a race.

use super::Access;
use hip_core::HipError;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// The counts, kept by a [`UseList`](super::UseList).
#[derive(Debug, Default)]
pub(crate) struct HostBorrows {
    /// Live host views that read, and that write.
    views: [AtomicUsize; 2],
    /// Replays between their hooks that read, and that write.
    replays: [AtomicUsize; 2],
    /// Device memory the host also views in place (managed memory): set
    /// once, before any use, so that every replay of it is counted.
    viewable: std::sync::atomic::AtomicBool,
}

fn slot(access: Access) -> usize {
    match access {
        Access::Read => 0,
        Access::Write => 1,
    }
}

/// Whether a host view with `view` and a replay with `replay` may not
/// overlap: one of them writes.
fn conflict(view: Access, replay: Access) -> bool {
    view == Access::Write || replay == Access::Write
}

impl HostBorrows {
    /// Count the replays of this device memory against host views.
    pub fn allow_views(&self) {
        self.viewable.store(true, SeqCst);
    }

    /// Whether [`HostBorrows::allow_views`] was called.
    pub fn viewable(&self) -> bool {
        self.viewable.load(SeqCst)
    }

    /// Count a host view with `access`; then wait (yielding) until no
    /// replay that conflicts with it is between its hooks, so that every
    /// such replay's event is noted when this returns.
    ///
    /// # Errors
    /// [`HipError::HostBorrowed`] when `isize::MAX` views with `access`
    /// are counted already (views forgotten in a loop): nothing counted.
    pub fn begin_view(&self, access: Access) -> Result<(), HipError> {
        let views = &self.views[slot(access)];
        if views.fetch_update(SeqCst, SeqCst, |n| (n < isize::MAX as usize).then_some(n + 1)).is_err() {
            return Err(HipError::HostBorrowed {
                operation: "a host view",
                why: "isize::MAX views of this memory are counted (forgotten with std::mem::forget)",
            });
        }
        while [Access::Read, Access::Write]
            .into_iter()
            .any(|replay| conflict(access, replay) && self.replays[slot(replay)].load(SeqCst) != 0)
        {
            std::thread::yield_now();
        }
        Ok(())
    }

    /// Uncount a host view made by [`HostBorrows::begin_view`].
    pub fn end_view(&self, access: Access) {
        self.views[slot(access)].fetch_sub(1, SeqCst);
    }

    /// Count a replay with `access`, unless a host view conflicts with it.
    ///
    /// # Errors
    /// [`HipError::HostBorrowed`] when a live host view conflicts: nothing
    /// counted.
    pub fn begin_replay(&self, access: Access) -> Result<(), HipError> {
        let replays = &self.replays[slot(access)];
        replays.fetch_add(1, SeqCst);
        let viewed = [Access::Read, Access::Write]
            .into_iter()
            .any(|view| conflict(view, access) && self.views[slot(view)].load(SeqCst) != 0);
        if viewed {
            replays.fetch_sub(1, SeqCst);
            return Err(HipError::HostBorrowed {
                operation: "GraphExec::launch",
                why: if access == Access::Write {
                    "the graph copies into pinned host memory that the host is viewing (a live as_slice or \
                     as_mut_slice guard, or one forgotten with std::mem::forget)"
                } else {
                    "the graph copies out of pinned host memory that the host is writing (a live as_mut_slice \
                     guard, or one forgotten with std::mem::forget)"
                },
            });
        }
        Ok(())
    }

    /// Uncount a replay counted by [`HostBorrows::begin_replay`], once its
    /// use is noted (or the stream synchronized).
    pub fn end_replay(&self, access: Access) {
        self.replays[slot(access)].fetch_sub(1, SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_and_replays_conflict_as_reads_and_writes_do() {
        let borrows = HostBorrows::default();
        borrows.begin_view(Access::Read).unwrap();
        assert!(borrows.begin_replay(Access::Read).is_ok(), "two reads");
        borrows.end_replay(Access::Read);
        let refused = borrows.begin_replay(Access::Write).unwrap_err();
        assert!(matches!(refused, HipError::HostBorrowed { operation: "GraphExec::launch", .. }), "{refused}");
        borrows.end_view(Access::Read);
        borrows.begin_view(Access::Write).unwrap();
        assert!(borrows.begin_replay(Access::Read).is_err(), "a read under a host write");
        borrows.end_view(Access::Write);
        assert!(borrows.begin_replay(Access::Write).is_ok(), "no view left");
        borrows.end_replay(Access::Write);
    }

    #[test]
    fn a_view_waits_for_a_replay_between_its_hooks() {
        let borrows = std::sync::Arc::new(HostBorrows::default());
        borrows.begin_replay(Access::Write).unwrap();
        let ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (b, e) = (borrows.clone(), ended.clone());
        let replay = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            e.store(true, SeqCst);
            b.end_replay(Access::Write);
        });
        borrows.begin_view(Access::Read).unwrap();
        assert!(ended.load(SeqCst), "the view waited for the replay's end");
        replay.join().unwrap();
    }

    #[test]
    fn a_saturated_count_is_refused_not_wrapped() {
        let borrows = HostBorrows::default();
        borrows.views[slot(Access::Read)].store(isize::MAX as usize, SeqCst);
        assert!(borrows.begin_view(Access::Read).is_err());
        assert_eq!(borrows.views[slot(Access::Read)].load(SeqCst), isize::MAX as usize);
    }
}
