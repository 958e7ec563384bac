//! The pool's memory history, when asked for: every block handed out
//! and given back, with its device, stream, address and size, and for a
//! block given back what it still waits for (the stream whose work still
//! uses it, or the graph that holds it); every segment taken from the
//! driver and released; every step of the out-of-memory ladder.
//!
//! - Recording: [`record_history`], or `AMDGPU_MEMORY_HISTORY` read at the
//!   first pool: `1` records; a path records and writes the history there
//!   when the process exits, as the file's extension says (`.html`,
//!   `.pickle`, else JSON Lines).
//! - Reading: [`history`] (the events), [`memory_over_time`], and
//!   [`Summary`] (the peaks, the waits, the failures, in a few lines;
//!   `amdgpu-info memory FILE` prints it for a written history).
//! - Pictures and files: [`history_html`] draws memory over time per
//!   device, stacked by stream, with the out-of-memory moments and a
//!   table of the blocks that waited; [`memory_viz_snapshot`] is PyTorch's
//!   memory snapshot (<https://pytorch.org/memory_viz>);
//!   [`history_json_lines`] one JSON object an event, which
//!   [`read_json_lines`] reads back.
//!
//! Off (the default), a block's allocation and its release each cost one
//! atomic load here. On, an event costs one lock and one read of the
//! time-stamp counter where the kernel keeps time with it (its clock
//! source is `tsc`), else of `Instant`; stamps become `Instant`s when the
//! history is read. With [`record_backtraces`], an allocation also costs
//! a backtrace (microseconds). The history keeps the last
//! [`MAX_HISTORY`] events.
//!
//! ```
//! use hip_pool::history;
//!
//! history::record_history(true);
//! let buffer = hip_pool::alloc(4096)?;
//! drop(buffer);
//! history::record_history(false);
//! let text = history::history_json_lines();
//! assert_eq!(history::read_json_lines(&text).unwrap().len(), history::history().len());
//! # Ok::<(), hip_pool::PoolError>(())
//! ```

mod clock;
mod env;
mod html;
mod json;
mod levels;
mod pickle;
mod snapshot;
mod summary;

pub(crate) use env::from_env;
pub use html::history_html;
pub use json::{history_json_lines, read_json_lines, to_json_lines, HistoryFormatError};
pub use snapshot::memory_viz_snapshot;
pub use summary::Summary;

use hip_core::Device;
use hip_sys::sync::MutexExt;
use std::backtrace::Backtrace;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The most events the history keeps (the oldest go first).
pub const MAX_HISTORY: usize = 1 << 20;

/// What a block given back still waits for before its next owner can
/// have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waits {
    /// Nothing: it can be reused at once.
    Nothing,
    /// The events of its uses on other streams, which the next owner's
    /// stream waits for on the GPU.
    Streams {
        /// The stream (`Stream::id`) of the oldest of those uses.
        stream: u64,
        /// How many events, on that stream and others.
        events: usize,
    },
    /// Other processes it is shared with (`hip_pool::ipc`): it goes back
    /// to the pool when no living process has it open.
    Processes {
        /// How many shares of it are not finished.
        shares: usize,
    },
    /// Graphs (or executable graphs made of them) that use it: it goes
    /// back to the pool when the last of them goes.
    Graphs {
        /// The capture (`Capture::id`) of the first graph that holds it.
        capture: u64,
        /// How many graphs hold it.
        graphs: usize,
    },
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
#[derive(Debug, Clone)]
pub struct MemoryEvent {
    /// When it happened.
    pub at: Instant,
    /// Its device's ordinal (`Device::ordinal`): a number rather than a
    /// [`Device`], so that a history read from another machine's file
    /// ([`read_json_lines`]) may name devices this one lacks.
    pub device: usize,
    /// The stream (`Stream::id`) of the buffer or the allocation, if any.
    pub stream: Option<u64>,
    /// The address of the block or segment (0 for the ladder).
    pub address: usize,
    /// The bytes of the buffer, segment or request.
    pub bytes: usize,
    /// What happened.
    pub kind: MemoryEventKind,
    /// For a buffer handed out while [`record_backtraces`] was on, the
    /// backtrace of the call that asked for it (its symbols are resolved
    /// when it is first printed).
    pub backtrace: Option<Arc<Backtrace>>,
}

static ON: AtomicBool = AtomicBool::new(false);
static BACKTRACES: AtomicBool = AtomicBool::new(false);
static EVENTS: Mutex<VecDeque<Recorded>> = Mutex::new(VecDeque::new());

/// An event as recorded: a [`MemoryEvent`] with a stamp of the history's
/// clock for its time.
struct Recorded {
    stamp: u64,
    device: usize,
    stream: Option<u64>,
    address: usize,
    bytes: usize,
    kind: MemoryEventKind,
    backtrace: Option<Arc<Backtrace>>,
}

/// Start (or stop) recording the memory history of every pool. What was
/// recorded stays until [`clear_history`].
pub fn record_history(on: bool) {
    ON.store(on, Ordering::Release);
}

/// Start (or stop) taking the backtrace of every allocation the history
/// records ([`MemoryEvent::backtrace`], and the frames of PyTorch's
/// snapshot). Off by default: a backtrace costs microseconds, against
/// nanoseconds for the rest of an event.
pub fn record_backtraces(on: bool) {
    BACKTRACES.store(on, Ordering::Release);
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
    let backtrace = (kind == MemoryEventKind::Alloc && BACKTRACES.load(Ordering::Relaxed))
        .then(|| Arc::new(Backtrace::force_capture()));
    let device = device.ordinal();
    let mut events = EVENTS.lock_unpoisoned();
    if events.len() == MAX_HISTORY {
        events.pop_front();
    }
    // Stamped under the lock: times rise in the history's order.
    events.push_back(Recorded { stamp: clock::stamp(), device, stream, address, bytes, kind, backtrace });
}

/// The recorded events, oldest first.
pub fn history() -> Vec<MemoryEvent> {
    let events = EVENTS.lock_unpoisoned();
    let clock = clock::Reader::new();
    events
        .iter()
        .map(|e| MemoryEvent {
            at: clock.instant(e.stamp),
            device: e.device,
            stream: e.stream,
            address: e.address,
            bytes: e.bytes,
            kind: e.kind,
            backtrace: e.backtrace.clone(),
        })
        .collect()
}

/// Forget the recorded events.
pub fn clear_history() {
    EVENTS.lock_unpoisoned().clear();
}

/// The bytes in buffers and in segments on the device of ordinal
/// `device` after each event of `events` (each with its time), counting
/// only what `events` shows.
pub fn memory_over_time(events: &[MemoryEvent], device: usize) -> Vec<(Instant, usize, usize)> {
    let mut levels = levels::Levels::default();
    let mut out = Vec::new();
    for event in events.iter().filter(|e| e.device == device) {
        levels.apply(event);
        out.push((event.at, levels.in_buffers(), levels.in_segments));
    }
    out
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
