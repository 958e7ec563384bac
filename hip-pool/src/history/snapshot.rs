//! The memory history as PyTorch's memory snapshot.

use super::pickle::{self, Value};
use super::{history, MemoryEvent, MemoryEventKind, Waits};
use std::collections::BTreeMap;

/// The events as PyTorch's memory snapshot (`torch.cuda.memory._snapshot`,
/// pickled as `_dump_snapshot` does), which `pytorch.org/memory_viz` and
/// `torch.cuda._memory_viz` read: `device_traces`, one list a device of
/// `alloc`, `free_requested` and `free_completed`, `segment_alloc`,
/// `segment_free` and `oom` entries (address, size, stream, time in
/// microseconds, no frames); and `segments`, the segments live at the end
/// of the history with their blocks (what is in a buffer, what was given
/// back but still waits, and the gaps). A block given back while it still
/// waits (on other streams' uses, or a graph) is `free_requested` then,
/// and `free_completed` when its address is handed out again or its
/// segment released.
pub fn memory_viz_snapshot() -> Vec<u8> {
    pickle::dumps(&snapshot_value(&history()))
}

/// A block of the replay: its size, stream, and whether it was given
/// back while it still waited.
#[derive(Clone, Copy)]
struct LiveBlock {
    bytes: usize,
    stream: u64,
    pending_free: bool,
}

fn entry(action: &str, address: usize, bytes: usize, stream: Option<u64>, time_us: i128) -> Value {
    Value::Dict(vec![
        ("action", Value::Str(action.to_owned())),
        ("addr", Value::Int(address as i128)),
        ("size", Value::Int(bytes as i128)),
        ("stream", Value::Int(stream.map_or(0, i128::from))),
        ("time_us", Value::Int(time_us)),
        ("frames", Value::List(Vec::new())),
    ])
}

/// `entry` with the frames of `backtrace`, if any.
fn entry_with_frames(action: &str, event: &MemoryEvent, time_us: i128, frames: &mut BTreeMap<usize, Value>) -> Value {
    let mut value = entry(action, event.address, event.bytes, event.stream, time_us);
    if let (Some(backtrace), Value::Dict(fields)) = (&event.backtrace, &mut value) {
        let list = frames_of(&backtrace.to_string());
        frames.insert(event.address, list.clone());
        if let Some(slot) = fields.iter_mut().find(|(k, _)| *k == "frames") {
            slot.1 = list;
        }
    }
    value
}

/// The frames of a backtrace as PyTorch's snapshot lists them
/// (`name`, `filename`, `line`), from `std`'s text (`N: name` lines, each
/// followed by an `at file:line:column` line where the location is known).
fn frames_of(text: &str) -> Value {
    let mut frames: Vec<(String, String, i128)> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(location) = line.strip_prefix("at ") {
            let mut parts = location.rsplitn(3, ':');
            let (_column, line, file) = (parts.next(), parts.next(), parts.next());
            if let (Some(last), Some(file), Some(Ok(line))) = (frames.last_mut(), file, line.map(str::parse)) {
                (last.1, last.2) = (file.to_owned(), line);
            }
        } else if let Some((index, name)) = line.split_once(": ") {
            if index.chars().all(|c| c.is_ascii_digit()) {
                frames.push((name.to_owned(), "??".to_owned(), 0));
            }
        }
    }
    Value::List(
        frames
            .into_iter()
            .map(|(name, filename, line)| {
                Value::Dict(vec![
                    ("name", Value::Str(name)),
                    ("filename", Value::Str(filename)),
                    ("line", Value::Int(line)),
                ])
            })
            .collect(),
    )
}

fn snapshot_value(events: &[MemoryEvent]) -> Value {
    let first = events.first().map(|e| e.at);
    let devices = events.iter().map(|e| e.device + 1).max().unwrap_or(0);
    let mut traces: Vec<Vec<Value>> = vec![Vec::new(); devices];
    // Per device: live segments (address -> size, stream), live blocks.
    let mut segments: Vec<BTreeMap<usize, (usize, u64)>> = vec![BTreeMap::new(); devices];
    let mut blocks: Vec<BTreeMap<usize, LiveBlock>> = vec![BTreeMap::new(); devices];
    // Per device: the frames of each live block's allocation.
    let mut frames: Vec<BTreeMap<usize, Value>> = vec![BTreeMap::new(); devices];
    for event in events {
        let d = event.device;
        let time = first.map_or(0, |f| event.at.duration_since(f).as_micros() as i128);
        let (address, bytes, stream) = (event.address, event.bytes, event.stream);
        let trace = &mut traces[d];
        // A block still waiting at this address completes its free first.
        let complete = |blocks: &mut BTreeMap<usize, LiveBlock>, trace: &mut Vec<Value>, at: usize| {
            if let Some(block) = blocks.get(&at).copied().filter(|b| b.pending_free) {
                trace.push(entry("free_completed", at, block.bytes, Some(block.stream), time));
                blocks.remove(&at);
            }
        };
        match event.kind {
            MemoryEventKind::Alloc => {
                complete(&mut blocks[d], trace, address);
                let live = LiveBlock { bytes, stream: stream.unwrap_or(0), pending_free: false };
                blocks[d].insert(address, live);
                trace.push(entry_with_frames("alloc", event, time, &mut frames[d]));
            }
            MemoryEventKind::Free(waits) => {
                trace.push(entry("free_requested", address, bytes, stream, time));
                if waits == Waits::Nothing {
                    trace.push(entry("free_completed", address, bytes, stream, time));
                    blocks[d].remove(&address);
                } else if let Some(block) = blocks[d].get_mut(&address) {
                    block.pending_free = true;
                }
            }
            MemoryEventKind::Segment => {
                segments[d].insert(address, (bytes, stream.unwrap_or(0)));
                trace.push(entry("segment_alloc", address, bytes, stream, time));
            }
            MemoryEventKind::SegmentFree => {
                let inside: Vec<usize> = blocks[d].range(address..address + bytes).map(|(a, _)| *a).collect();
                for at in inside {
                    complete(&mut blocks[d], trace, at);
                }
                segments[d].remove(&address);
                trace.push(entry("segment_free", address, bytes, stream, time));
            }
            MemoryEventKind::OutOfMemory(0) => {
                let mut oom = entry("oom", 0, bytes, stream, time);
                if let Value::Dict(fields) = &mut oom {
                    fields.push(("device_free", Value::Int(0)));
                }
                trace.push(oom);
            }
            MemoryEventKind::OutOfMemory(_) => {}
        }
    }
    let live_segments = segments_value(&segments, &blocks, &frames);
    Value::Dict(vec![
        ("segments", Value::List(live_segments)),
        ("device_traces", Value::List(traces.into_iter().map(Value::List).collect())),
    ])
}

/// The segments live at the end of the history, each with its blocks
/// tiling it: in a buffer, given back but still waiting, or a gap.
fn segments_value(
    segments: &[BTreeMap<usize, (usize, u64)>],
    blocks: &[BTreeMap<usize, LiveBlock>],
    frames: &[BTreeMap<usize, Value>],
) -> Vec<Value> {
    let mut live_segments = Vec::new();
    for (d, device_segments) in segments.iter().enumerate() {
        for (&base, &(total, stream)) in device_segments {
            let mut parts = Vec::new();
            let (mut at, mut allocated, mut active) = (base, 0usize, 0usize);
            let block = |address: usize, bytes: usize, state: &str| {
                let frames = match state {
                    "inactive" => None,
                    _ => frames[d].get(&address).cloned(),
                };
                Value::Dict(vec![
                    ("address", Value::Int(address as i128)),
                    ("size", Value::Int(bytes as i128)),
                    ("requested_size", Value::Int(bytes as i128)),
                    ("state", Value::Str(state.to_owned())),
                    ("frames", frames.unwrap_or_else(|| Value::List(Vec::new()))),
                ])
            };
            for (&address, live) in blocks[d].range(base..base + total) {
                if address > at {
                    parts.push(block(at, address - at, "inactive"));
                }
                let state = if live.pending_free { "active_pending_free" } else { "active_allocated" };
                parts.push(block(address, live.bytes, state));
                active += live.bytes;
                allocated += if live.pending_free { 0 } else { live.bytes };
                at = address + live.bytes;
            }
            if at < base + total {
                parts.push(block(at, base + total - at, "inactive"));
            }
            live_segments.push(Value::Dict(vec![
                ("device", Value::Int(d as i128)),
                ("address", Value::Int(base as i128)),
                ("total_size", Value::Int(total as i128)),
                ("stream", Value::Int(i128::from(stream))),
                ("segment_type", Value::Str("large".to_owned())),
                ("allocated_size", Value::Int(allocated as i128)),
                ("active_size", Value::Int(active as i128)),
                ("requested_size", Value::Int(allocated as i128)),
                ("blocks", Value::List(parts)),
            ]));
        }
    }
    live_segments
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn event(at: Instant, address: usize, bytes: usize, kind: MemoryEventKind) -> MemoryEvent {
        MemoryEvent { at, device: 0, stream: Some(7), address, bytes, kind, backtrace: None }
    }

    fn field<'a>(value: &'a Value, key: &str) -> &'a Value {
        match value {
            Value::Dict(fields) => &fields.iter().find(|(k, _)| *k == key).expect(key).1,
            _ => panic!("not a dict: {value:?}"),
        }
    }

    #[test]
    fn the_snapshot_has_pytorchs_shape_and_completes_waiting_frees() {
        let t = Instant::now();
        let ms = |n: u64| t + Duration::from_millis(n);
        let events = [
            event(ms(0), 0x1000, 1 << 20, MemoryEventKind::Segment),
            event(ms(1), 0x1000, 100, MemoryEventKind::Alloc),
            event(ms(2), 0x2000, 200, MemoryEventKind::Alloc),
            event(ms(3), 0x1000, 100, MemoryEventKind::Free(Waits::Streams { stream: 9, events: 1 })),
            event(ms(4), 0x2000, 200, MemoryEventKind::Free(Waits::Nothing)),
            event(ms(5), 0x1000, 50, MemoryEventKind::Alloc),
            event(ms(6), 0x3000, 300, MemoryEventKind::Alloc),
            event(ms(7), 0x3000, 300, MemoryEventKind::Free(Waits::Graphs { capture: 3, graphs: 1 })),
            event(ms(8), 0, 1 << 30, MemoryEventKind::OutOfMemory(0)),
        ];
        let value = snapshot_value(&events);
        assert_eq!(pickle::loads(&pickle::dumps(&value)).unwrap(), value, "the pickle reads back");
        let Value::List(traces) = field(&value, "device_traces") else { panic!() };
        let Value::List(trace) = &traces[0] else { panic!() };
        let actions: Vec<&str> = trace
            .iter()
            .map(|e| match field(e, "action") {
                Value::Str(s) => s.as_str(),
                _ => panic!(),
            })
            .collect();
        assert_eq!(
            actions,
            [
                "segment_alloc",
                "alloc",
                "alloc",
                "free_requested",
                "free_requested",
                "free_completed",
                "free_completed", // the waiting block at 0x1000, when it is handed out again
                "alloc",
                "alloc",
                "free_requested",
                "oom"
            ]
        );
        assert_eq!(field(&trace[6], "addr"), &Value::Int(0x1000));
        assert_eq!(field(&trace[3], "time_us"), &Value::Int(3000));
        // The one segment: 0x1000 in a buffer, 0x3000 still waiting on a
        // graph, the gaps inactive, tiling it.
        let Value::List(segments) = field(&value, "segments") else { panic!() };
        let Value::List(blocks) = field(&segments[0], "blocks") else { panic!() };
        let states: Vec<(&Value, &Value)> = blocks.iter().map(|b| (field(b, "address"), field(b, "state"))).collect();
        assert_eq!(states[0], (&Value::Int(0x1000), &Value::Str("active_allocated".into())));
        assert!(states.contains(&(&Value::Int(0x3000), &Value::Str("active_pending_free".into()))));
        let total: i128 = blocks.iter().map(|b| if let Value::Int(n) = field(b, "size") { *n } else { 0 }).sum();
        assert_eq!(total, 1 << 20, "the blocks tile the segment");
        assert_eq!(field(&segments[0], "allocated_size"), &Value::Int(50));
        assert_eq!(field(&segments[0], "active_size"), &Value::Int(350));
    }

    #[test]
    fn frames_are_read_from_a_backtrace_with_and_without_locations() {
        let text = "   0: hip_pool::history::record\n             at ./hip-pool/src/history/mod.rs:140:50\n   1: \
                    main\n   2: <unknown>\n";
        let Value::List(frames) = frames_of(text) else { panic!() };
        assert_eq!(frames.len(), 3);
        assert_eq!(field(&frames[0], "name"), &Value::Str("hip_pool::history::record".into()));
        assert_eq!(field(&frames[0], "filename"), &Value::Str("./hip-pool/src/history/mod.rs".into()));
        assert_eq!(field(&frames[0], "line"), &Value::Int(140));
        assert_eq!(field(&frames[1], "filename"), &Value::Str("??".into()), "no location");
        // A real one names this test, where the binary has its symbols (a
        // stripped one names nothing).
        let captured = std::backtrace::Backtrace::force_capture().to_string();
        if captured.contains("hip_pool") {
            let Value::List(real) = frames_of(&captured) else { panic!() };
            assert!(real.iter().any(|f| matches!(field(f, "name"), Value::Str(n) if n.contains("frames_are_read"))));
        }
    }
}
