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

use hip_core::Device;
use hip_sys::sync::MutexExt;
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
