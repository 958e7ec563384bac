//! Which free blocks of a busy stream have finished their work, known
//! without a wait: the expandable backing's growth moves only chunks of
//! those (`expand`). A growth that finds its stream busy marks the
//! cache's frees ([`Cache::mark`](crate::strategy::cached::Cache::mark))
//! and records an event on the stream after the mark, a *fence*; a later
//! growth that finds the fence done knows that every block freed before
//! the mark has no work left (each use was queued on the stream before
//! its free; uses on other streams keep a block pending, not free). One
//! fence per segment, kept until it is done, so a stream that is never
//! idle still has one that finishes.

use crate::driver::events;
use hip_core::{Event, Stream};
use std::collections::HashMap;

/// An event recorded on a segment's stream after the cache's mark `mark`.
struct Fence {
    event: Event,
    mark: u64,
}

/// The fences of the expandable backing's segments, by segment base; kept
/// under the growth lock.
#[derive(Default)]
pub(crate) struct Fences {
    by_segment: HashMap<usize, Fence>,
}

impl Fences {
    /// The mark before which the free blocks of the segment at `segment`
    /// have finished their work, by its fence: `None` while the fence is
    /// not done (or the segment has none). Then, unless a fence is still
    /// pending, a new one on `stream` after the mark `mark` makes; a fence
    /// that cannot be recorded is logged and not kept. Never during a
    /// capture (the recording would be captured).
    pub fn finished(&mut self, segment: usize, stream: &Stream, mark: impl FnOnce() -> u64) -> Option<u64> {
        let done = self.by_segment.get(&segment).map(|f| (f.event.query().unwrap_or(false), f.mark));
        if matches!(done, Some((false, _))) {
            return None;
        }
        let event = match self.by_segment.remove(&segment) {
            Some(fence) => fence.event,
            None => match events::take(stream.device()) {
                Ok(event) => event,
                Err(error) => {
                    log::warn!("pool of {}: no event for a growth's fence: {error}", stream.device());
                    return done.map(|(_, mark)| mark);
                }
            },
        };
        let mark = mark();
        match event.record(stream) {
            Ok(()) => {
                self.by_segment.insert(segment, Fence { event, mark });
            }
            Err(error) => {
                log::warn!("pool of {}: recording a growth's fence: {error}", stream.device());
                events::give(event);
            }
        }
        done.map(|(_, mark)| mark)
    }

    /// Forget the fences of segments not in `live` (their reservations
    /// were given back).
    pub fn retain(&mut self, live: impl Fn(usize) -> bool) {
        let gone: Vec<usize> = self.by_segment.keys().copied().filter(|&base| !live(base)).collect();
        for base in gone {
            if let Some(fence) = self.by_segment.remove(&base) {
                events::give(fence.event);
            }
        }
    }
}
