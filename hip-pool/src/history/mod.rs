//! The pool's memory history, when asked for ([`record_history`], or
//! `AMDGPU_MEMORY_HISTORY=1` at the first pool): every block handed out
//! and given back, with its device, stream, address and size, and for a
//! block given back what it still waits for; every segment taken from the
//! driver and released; every step of the out-of-memory ladder. From it,
//! [`history_html`] draws memory over time, per device, with the
//! out-of-memory moments marked.
//!
//! Off (the default), a block's allocation and its release each cost one
//! atomic load here. The history keeps the last [`MAX_HISTORY`] events.

mod pickle;

use hip_core::Device;
use hip_sys::sync::MutexExt;
use pickle::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The most events the history keeps (the oldest go first).
pub const MAX_HISTORY: usize = 1 << 20;

/// What a block given back still waits for before its next owner can
/// have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waits {
    /// Nothing: it can be reused at once.
    Nothing,
    /// The events of its uses on other streams (how many), which the next
    /// owner's stream waits for on the GPU.
    Streams(usize),
    /// A graph (or an executable graph made of one) that uses it: it goes
    /// back to the pool when the last of them goes.
    Graphs,
}

/// One event of the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryEventKind {
    /// A block handed out as a buffer of `bytes` (its block may be larger).
    Alloc,
    /// A buffer's block given back, and what it still waits for.
    Free(Waits),
    /// A segment taken from the driver.
    Segment,
    /// A segment released to the driver.
    SegmentFree,
    /// A step of the out-of-memory ladder (1: the stream synchronized, 2:
    /// the device, 3: a reclaim, 4: the reclaim hooks), or the ladder's
    /// end with nothing found (0).
    OutOfMemory(usize),
}

/// One event of the pool's memory history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryEvent {
    /// When it happened.
    pub at: Instant,
    /// Its device.
    pub device: Device,
    /// The stream (`Stream::id`) of the buffer or the allocation, if any.
    pub stream: Option<u64>,
    /// The address of the block or segment (0 for the ladder).
    pub address: usize,
    /// The bytes of the buffer, segment or request.
    pub bytes: usize,
    /// What happened.
    pub kind: MemoryEventKind,
}

static ON: AtomicBool = AtomicBool::new(false);
static EVENTS: Mutex<VecDeque<MemoryEvent>> = Mutex::new(VecDeque::new());

/// Start (or stop) recording the memory history of every pool. What was
/// recorded stays until [`clear_history`].
pub fn record_history(on: bool) {
    ON.store(on, Ordering::Release);
}

/// Read `AMDGPU_MEMORY_HISTORY` once: `1` starts recording.
pub(crate) fn from_env() {
    static READ: std::sync::Once = std::sync::Once::new();
    READ.call_once(|| {
        if std::env::var("AMDGPU_MEMORY_HISTORY").is_ok_and(|v| v.trim() == "1") {
            record_history(true);
        }
    });
}

/// Whether the history is being recorded (one atomic load).
#[inline(always)]
pub(crate) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Record one event (only while recording; check [`on`] first on hot
/// paths).
pub(crate) fn record(device: Device, stream: Option<u64>, address: usize, bytes: usize, kind: MemoryEventKind) {
    if !on() {
        return;
    }
    let event = MemoryEvent { at: Instant::now(), device, stream, address, bytes, kind };
    let mut events = EVENTS.lock_unpoisoned();
    if events.len() == MAX_HISTORY {
        events.pop_front();
    }
    events.push_back(event);
}

/// The recorded events, oldest first.
pub fn history() -> Vec<MemoryEvent> {
    EVENTS.lock_unpoisoned().iter().copied().collect()
}

/// Forget the recorded events.
pub fn clear_history() {
    EVENTS.lock_unpoisoned().clear();
}

/// The bytes in buffers and in segments on `device` after each event of
/// `events` (each with its time), counting only what `events` shows.
pub fn memory_over_time(events: &[MemoryEvent], device: Device) -> Vec<(Instant, usize, usize)> {
    let (mut allocated, mut reserved) = (0usize, 0usize);
    let mut out = Vec::new();
    for event in events.iter().filter(|e| e.device == device) {
        match event.kind {
            MemoryEventKind::Alloc => allocated += event.bytes,
            MemoryEventKind::Free(_) => allocated = allocated.saturating_sub(event.bytes),
            MemoryEventKind::Segment => reserved += event.bytes,
            MemoryEventKind::SegmentFree => reserved = reserved.saturating_sub(event.bytes),
            MemoryEventKind::OutOfMemory(_) => {}
        }
        out.push((event.at, allocated, reserved));
    }
    out
}

/// The recorded history as a self-contained HTML page (one SVG a device,
/// no script): the bytes in buffers (blue) and in segments (grey) over
/// time, out-of-memory steps as red lines; tooltips give the values.
pub fn history_html() -> String {
    let events = history();
    let Some(first) = events.first().map(|e| e.at) else {
        return "<!DOCTYPE html>\n<html><body><p>No memory history was recorded: call \
                hip_pool::record_history(true) or set AMDGPU_MEMORY_HISTORY=1.</p></body></html>\n"
            .to_owned();
    };
    let span = events.last().map_or(0.0, |e| e.at.duration_since(first).as_secs_f64() * 1e3).max(1e-3);
    let mut devices: Vec<Device> = events.iter().map(|e| e.device).collect();
    devices.sort_by_key(|d| d.ordinal());
    devices.dedup();
    let (width, height, left) = (1000.0f64, 180.0f64, 80.0f64);
    let mut body = String::new();
    for device in devices {
        let series = memory_over_time(&events, device);
        let top = series.iter().map(|(_, a, r)| (*a).max(*r)).max().unwrap_or(0).max(1) as f64;
        let x = |at: Instant| left + at.duration_since(first).as_secs_f64() * 1e3 / span * (width - left - 20.0);
        let y = |bytes: usize| 20.0 + (1.0 - bytes as f64 / top) * (height - 40.0);
        // A step line: level until each event, then the event's level.
        let line = |pick: fn(&(Instant, usize, usize)) -> usize| {
            let (mut points, mut level) = (format!("{left:.1},{:.1}", y(0)), 0);
            for point in &series {
                let px = x(point.0);
                points.push_str(&format!(" {px:.1},{:.1} {px:.1},{:.1}", y(level), y(pick(point))));
                level = pick(point);
            }
            points
        };
        let allocated = line(|p| p.1);
        let reserved = line(|p| p.2);
        let mut svg = format!(
            r##"<h4 style="margin:8px 0 0">{device}</h4><svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11"><text x="6" y="{:.1}">{}</text><text x="6" y="{:.1}">0</text><polyline points="{reserved}" fill="none" stroke="#888" stroke-width="2"><title>bytes in segments</title></polyline><polyline points="{allocated}" fill="none" stroke="#4e79a7" stroke-width="2"><title>bytes in buffers</title></polyline>"##,
            y(top as usize) + 4.0,
            bytes_text(top as usize),
            y(0) + 4.0
        );
        for event in events.iter().filter(|e| e.device == device) {
            if let MemoryEventKind::OutOfMemory(step) = event.kind {
                let ex = x(event.at);
                svg.push_str(&format!(
                    r##"<line x1="{ex:.1}" y1="20" x2="{ex:.1}" y2="{:.1}" stroke="#d00" stroke-width="2"><title>out of memory asking for {}: ladder step {step}</title></line>"##,
                    height - 20.0,
                    bytes_text(event.bytes)
                ));
            }
        }
        svg.push_str(&format!(
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{span:.2} ms</text></svg>"#,
            width - 20.0,
            height - 4.0
        ));
        body.push_str(&svg);
        body.push('\n');
    }
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Memory history</title></head>\n\
         <body style=\"margin:12px;font-family:sans-serif\">\n<h3 style=\"margin:0 0 8px\">Memory over time: \
         <span style=\"color:#4e79a7\">in buffers</span>, <span style=\"color:#888\">in segments</span>, \
         <span style=\"color:#d00\">out of memory</span> ({} events)</h3>\n{body}</body></html>\n",
        events.len()
    )
}

/// `bytes` in the largest unit that keeps a whole number above 1.
fn bytes_text(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30)),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20)),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

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

fn snapshot_value(events: &[MemoryEvent]) -> Value {
    use std::collections::BTreeMap;
    let first = events.first().map(|e| e.at);
    let devices = events.iter().map(|e| e.device.ordinal() + 1).max().unwrap_or(0);
    let mut traces: Vec<Vec<Value>> = vec![Vec::new(); devices];
    // Per device: live segments (address -> size, stream), live blocks.
    let mut segments: Vec<BTreeMap<usize, (usize, u64)>> = vec![BTreeMap::new(); devices];
    let mut blocks: Vec<BTreeMap<usize, LiveBlock>> = vec![BTreeMap::new(); devices];
    for event in events {
        let d = event.device.ordinal();
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
                trace.push(entry("alloc", address, bytes, stream, time));
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
    let live_segments = segments_value(&segments, &blocks);
    Value::Dict(vec![
        ("segments", Value::List(live_segments)),
        ("device_traces", Value::List(traces.into_iter().map(Value::List).collect())),
    ])
}

/// The segments live at the end of the history, each with its blocks
/// tiling it: in a buffer, given back but still waiting, or a gap.
fn segments_value(
    segments: &[std::collections::BTreeMap<usize, (usize, u64)>],
    blocks: &[std::collections::BTreeMap<usize, LiveBlock>],
) -> Vec<Value> {
    let mut live_segments = Vec::new();
    for (d, device_segments) in segments.iter().enumerate() {
        for (&base, &(total, stream)) in device_segments {
            let mut parts = Vec::new();
            let (mut at, mut allocated, mut active) = (base, 0usize, 0usize);
            let block = |address: usize, bytes: usize, state: &str| {
                Value::Dict(vec![
                    ("address", Value::Int(address as i128)),
                    ("size", Value::Int(bytes as i128)),
                    ("requested_size", Value::Int(bytes as i128)),
                    ("state", Value::Str(state.to_owned())),
                    ("frames", Value::List(Vec::new())),
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
    use std::time::Duration;

    fn event(at: Instant, address: usize, bytes: usize, kind: MemoryEventKind) -> MemoryEvent {
        MemoryEvent { at, device: Device::new(0).expect("a device"), stream: Some(7), address, bytes, kind }
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
            event(ms(3), 0x1000, 100, MemoryEventKind::Free(Waits::Streams(1))),
            event(ms(4), 0x2000, 200, MemoryEventKind::Free(Waits::Nothing)),
            event(ms(5), 0x1000, 50, MemoryEventKind::Alloc),
            event(ms(6), 0x3000, 300, MemoryEventKind::Alloc),
            event(ms(7), 0x3000, 300, MemoryEventKind::Free(Waits::Graphs)),
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
}
