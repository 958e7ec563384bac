//! A memory history in a few lines: per device, the peaks, what is held
//! at the end, what frees waited for and the out-of-memory failures.

use super::levels::Levels;
use super::{MemoryEvent, MemoryEventKind, Waits};
use std::fmt;
use std::time::Duration;

/// The summary of a memory history ([`Summary::of`]); its `Display` is
/// the text `amdgpu-info memory` prints.
///
/// ```
/// use hip_pool::history::{self, Summary};
///
/// history::record_history(true);
/// drop(hip_pool::alloc(1 << 20)?);
/// history::record_history(false);
/// let summary = Summary::of(&history::history());
/// assert!(summary.devices[0].allocations >= 1);
/// println!("{summary}");
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Summary {
    /// How many events.
    pub events: usize,
    /// From the first event to the last.
    pub span: Duration,
    /// Each device with events, by ordinal.
    pub devices: Vec<DeviceSummary>,
}

/// One device's part of a [`Summary`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceSummary {
    /// The device's ordinal.
    pub device: usize,
    /// The most bytes in buffers at once, and when (since the history's
    /// first event).
    pub peak_in_buffers: (usize, Duration),
    /// The most bytes in segments at once.
    pub peak_in_segments: usize,
    /// Bytes in buffers after the last event.
    pub in_buffers_at_end: usize,
    /// Bytes in segments after the last event.
    pub in_segments_at_end: usize,
    /// Buffers handed out, and the largest.
    pub allocations: usize,
    /// The largest buffer handed out.
    pub largest_allocation: usize,
    /// Buffers given back.
    pub frees: usize,
    /// Of those, the ones that waited for other streams' work.
    pub frees_waiting_on_streams: usize,
    /// Of those, the ones a graph still held.
    pub frees_waiting_on_graphs: usize,
    /// Of those, the ones shared with other processes.
    pub frees_waiting_on_processes: usize,
    /// Each allocation that failed after the whole out-of-memory ladder:
    /// the bytes asked for, and when.
    pub out_of_memory: Vec<(usize, Duration)>,
    /// The most bytes in buffers at once of each stream (`Stream::id`), in
    /// the order the streams first allocated.
    pub peak_by_stream: Vec<(u64, usize)>,
}

impl Summary {
    /// Summarize `events` (a whole history, oldest first, as
    /// [`history`](super::history) returns it or
    /// [`read_json_lines`](super::read_json_lines) reads it).
    pub fn of(events: &[MemoryEvent]) -> Summary {
        let Some(first) = events.first().map(|e| e.at) else { return Summary::default() };
        let since = |e: &MemoryEvent| e.at.saturating_duration_since(first);
        let mut devices: Vec<(DeviceSummary, Levels)> = Vec::new();
        for event in events {
            let index = match devices.iter().position(|(d, _)| d.device == event.device) {
                Some(index) => index,
                None => {
                    let summary = DeviceSummary { device: event.device, ..DeviceSummary::default() };
                    devices.push((summary, Levels::default()));
                    devices.len() - 1
                }
            };
            let (d, levels) = &mut devices[index];
            let lane = levels.apply(event);
            d.in_buffers_at_end = levels.in_buffers();
            d.in_segments_at_end = levels.in_segments;
            if let Some(lane) = lane {
                let (stream, now) = levels.by_stream[lane];
                match d.peak_by_stream.get_mut(lane) {
                    Some(peak) => peak.1 = peak.1.max(now),
                    None => d.peak_by_stream.push((stream, now)),
                }
            }
            match event.kind {
                MemoryEventKind::Alloc => {
                    d.allocations += 1;
                    d.largest_allocation = d.largest_allocation.max(event.bytes);
                    if d.in_buffers_at_end > d.peak_in_buffers.0 {
                        d.peak_in_buffers = (d.in_buffers_at_end, since(event));
                    }
                }
                MemoryEventKind::Free(waits) => {
                    d.frees += 1;
                    match waits {
                        Waits::Nothing => {}
                        Waits::Streams { .. } => d.frees_waiting_on_streams += 1,
                        Waits::Graphs { .. } => d.frees_waiting_on_graphs += 1,
                        Waits::Processes { .. } => d.frees_waiting_on_processes += 1,
                    }
                }
                MemoryEventKind::Segment => d.peak_in_segments = d.peak_in_segments.max(d.in_segments_at_end),
                MemoryEventKind::SegmentFree => {}
                MemoryEventKind::OutOfMemory(0) => d.out_of_memory.push((event.bytes, since(event))),
                MemoryEventKind::OutOfMemory(_) => {}
            }
        }
        let mut devices: Vec<DeviceSummary> = devices.into_iter().map(|(d, _)| d).collect();
        devices.sort_by_key(|d| d.device);
        let span = events.last().map_or(Duration::ZERO, since);
        Summary { events: events.len(), span, devices }
    }
}

/// Milliseconds, for the text.
fn ms(at: Duration) -> String {
    format!("{:.3} ms", at.as_secs_f64() * 1e3)
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.events == 0 {
            return writeln!(f, "memory history: no events");
        }
        writeln!(f, "memory history: {} events over {}", self.events, ms(self.span))?;
        for d in &self.devices {
            let bytes = super::bytes_text;
            writeln!(
                f,
                "device {}: peak {} in buffers (at {}), {} in segments; at the end {} in buffers, {} in segments",
                d.device,
                bytes(d.peak_in_buffers.0),
                ms(d.peak_in_buffers.1),
                bytes(d.peak_in_segments),
                bytes(d.in_buffers_at_end),
                bytes(d.in_segments_at_end)
            )?;
            writeln!(
                f,
                "  {} buffers handed out (largest {}), {} given back: {} waited for other streams' work, {} were \
                 held by graphs, {} shared with other processes",
                d.allocations,
                bytes(d.largest_allocation),
                d.frees,
                d.frees_waiting_on_streams,
                d.frees_waiting_on_graphs,
                d.frees_waiting_on_processes
            )?;
            for (asked, at) in &d.out_of_memory {
                writeln!(f, "  out of memory at {} asking for {}", ms(*at), bytes(*asked))?;
            }
            if !d.peak_by_stream.is_empty() {
                let streams: Vec<String> =
                    d.peak_by_stream.iter().map(|(s, peak)| format!("stream {s}: {}", bytes(*peak))).collect();
                writeln!(f, "  peak in buffers by stream: {}", streams.join(", "))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn peaks_ends_waits_and_failures_are_counted_per_device() {
        let t = Instant::now();
        let event = |ms: u64, device: usize, stream: u64, bytes: usize, kind: MemoryEventKind| MemoryEvent {
            at: t + Duration::from_millis(ms),
            device,
            stream: Some(stream),
            address: 0,
            bytes,
            kind,
            backtrace: None,
        };
        let events = [
            event(0, 1, 5, 8 << 20, MemoryEventKind::Segment),
            event(1, 1, 5, 1 << 20, MemoryEventKind::Alloc),
            event(2, 1, 6, 3 << 20, MemoryEventKind::Alloc),
            event(3, 1, 5, 1 << 20, MemoryEventKind::Free(Waits::Streams { stream: 6, events: 1 })),
            event(4, 0, 9, 100, MemoryEventKind::Alloc),
            event(5, 1, 6, 3 << 20, MemoryEventKind::Free(Waits::Graphs { capture: 2, graphs: 1 })),
            event(6, 1, 6, 64 << 20, MemoryEventKind::OutOfMemory(2)),
            event(7, 1, 6, 64 << 20, MemoryEventKind::OutOfMemory(0)),
        ];
        let summary = Summary::of(&events);
        assert_eq!((summary.events, summary.span), (8, Duration::from_millis(7)));
        assert_eq!(summary.devices.iter().map(|d| d.device).collect::<Vec<_>>(), [0, 1]);
        let d = &summary.devices[1];
        assert_eq!(d.peak_in_buffers, (4 << 20, Duration::from_millis(2)));
        assert_eq!((d.peak_in_segments, d.in_buffers_at_end, d.in_segments_at_end), (8 << 20, 0, 8 << 20));
        assert_eq!((d.allocations, d.largest_allocation, d.frees), (2, 3 << 20, 2));
        assert_eq!((d.frees_waiting_on_streams, d.frees_waiting_on_graphs), (1, 1));
        assert_eq!(d.out_of_memory, [(64 << 20, Duration::from_millis(7))], "the failure, not the ladder's steps");
        assert_eq!(d.peak_by_stream, [(5, 1 << 20), (6, 3 << 20)]);
        let text = summary.to_string();
        assert!(text.contains("device 1: peak 4.0 MiB in buffers (at 2.000 ms), 8.0 MiB in segments"), "{text}");
        assert!(text.contains("out of memory at 7.000 ms asking for 64.0 MiB"), "{text}");
        assert_eq!(Summary::of(&[]).to_string(), "memory history: no events\n");
    }
}
