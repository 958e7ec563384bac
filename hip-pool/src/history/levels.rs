//! The bytes a history shows at each moment on one device: in buffers, by
//! the stream each was handed out for, and in segments. The one running
//! count that [`memory_over_time`](super::memory_over_time), the page
//! and the [`Summary`](super::Summary) all read, so they cannot disagree.

use super::{MemoryEvent, MemoryEventKind};

/// One device's levels after the events applied so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Levels {
    /// Bytes in buffers of each stream (`Stream::id`), in the order the
    /// streams first allocated.
    pub by_stream: Vec<(u64, usize)>,
    /// Bytes in buffers handed out for no stream (or given back by a
    /// stream that never allocated in the history: its buffers were
    /// counted here).
    pub unstreamed: usize,
    /// Bytes in segments.
    pub in_segments: usize,
}

impl Levels {
    /// Apply `event` (of this device); the lane of its stream in
    /// [`by_stream`](Self::by_stream), if it has one.
    pub fn apply(&mut self, event: &MemoryEvent) -> Option<usize> {
        let mut lane = event.stream.and_then(|s| self.by_stream.iter().position(|(x, _)| *x == s));
        match event.kind {
            MemoryEventKind::Alloc => match (event.stream, lane) {
                (Some(stream), None) => {
                    self.by_stream.push((stream, event.bytes));
                    lane = Some(self.by_stream.len() - 1);
                }
                (_, Some(l)) => self.by_stream[l].1 += event.bytes,
                (None, None) => self.unstreamed += event.bytes,
            },
            MemoryEventKind::Free(_) => match lane {
                Some(l) => self.by_stream[l].1 = self.by_stream[l].1.saturating_sub(event.bytes),
                None => self.unstreamed = self.unstreamed.saturating_sub(event.bytes),
            },
            MemoryEventKind::Segment => self.in_segments += event.bytes,
            MemoryEventKind::SegmentFree => self.in_segments = self.in_segments.saturating_sub(event.bytes),
            MemoryEventKind::OutOfMemory(_) => {}
        }
        lane
    }

    /// Bytes in buffers, of every stream and none.
    pub fn in_buffers(&self) -> usize {
        self.unstreamed + self.by_stream.iter().map(|(_, b)| b).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Waits;
    use std::time::Instant;

    fn event(stream: Option<u64>, bytes: usize, kind: MemoryEventKind) -> MemoryEvent {
        MemoryEvent { at: Instant::now(), device: 0, stream, address: 0x1000, bytes, kind, backtrace: None }
    }

    #[test]
    fn buffers_count_by_stream_and_without_one_and_segments_apart() {
        let mut levels = Levels::default();
        assert_eq!(levels.apply(&event(None, 4 << 20, MemoryEventKind::Segment)), None);
        assert_eq!(levels.apply(&event(Some(7), 100, MemoryEventKind::Alloc)), Some(0));
        assert_eq!(levels.apply(&event(Some(9), 50, MemoryEventKind::Alloc)), Some(1));
        assert_eq!(levels.apply(&event(None, 30, MemoryEventKind::Alloc)), None);
        assert_eq!(levels.apply(&event(Some(7), 20, MemoryEventKind::Alloc)), Some(0));
        assert_eq!(
            (levels.by_stream.clone(), levels.unstreamed, levels.in_buffers()),
            (vec![(7, 120), (9, 50)], 30, 200)
        );
        // A stream that never allocated gives back what was counted unstreamed.
        levels.apply(&event(Some(11), 30, MemoryEventKind::Free(Waits::Nothing)));
        levels.apply(&event(Some(9), 80, MemoryEventKind::Free(Waits::Nothing)));
        assert_eq!((levels.by_stream.clone(), levels.unstreamed), (vec![(7, 120), (9, 0)], 0), "never below 0");
        levels.apply(&event(None, 4 << 20, MemoryEventKind::SegmentFree));
        levels.apply(&event(None, 1, MemoryEventKind::OutOfMemory(0)));
        assert_eq!((levels.in_segments, levels.in_buffers()), (0, 120));
    }
}
