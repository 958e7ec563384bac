//! The simulator's stream timeline: while a trace runs ([`start_trace`]),
//! every operation queued on a stream, with its device, its stream, the
//! function that queued it and when it was queued, started and ended;
//! written with the threads' ROCTx ranges and marks
//! ([`profile_events`](crate::profile_events)) as a Chrome trace
//! ([`chrome_trace`]), the JSON that `chrome://tracing` and
//! <https://ui.perfetto.dev> open.
//!
//! [`html_timeline`] draws the same as a self-contained HTML page (an SVG,
//! no script, no network) for a quick look. Both mark the waits for
//! another stream's event (arrows), the operations that faulted, and the
//! simulator's violations recorded meanwhile (races, device mismatches).
//!
//! Off, queuing an operation costs one atomic load here. The trace keeps
//! the first [`MAX_TRACED_OPS`] operations and counts the rest.

use crate::machine::lock::lock;
use crate::machine::queue::{Target, Work};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

mod chrome;
mod html;

pub use chrome::chrome_trace;
pub use html::html_timeline;

/// The most operations one trace keeps.
pub const MAX_TRACED_OPS: usize = 1 << 20;

/// An arrow of the timeline between streams: an event's recording, made
/// by one operation (`Out`) and waited for by others (`In`), by a number
/// both share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flow {
    /// This operation records the event.
    Out(u64),
    /// This operation waits for the recording.
    In(u64),
}

impl Flow {
    /// The number of recording `generation` of the event at `event`.
    pub(crate) fn id(event: usize, generation: u64) -> u64 {
        (event as u64).rotate_left(20) ^ generation
    }
}

/// One operation of the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracedOp {
    /// The HIP or library function that queued it.
    pub function: &'static str,
    /// The device of its stream.
    pub device: usize,
    /// Its stream, as the race detector names it (`stream 3 of device 0`).
    pub stream: Arc<str>,
    /// Its stream's number among the simulator's streams.
    pub stream_id: u32,
    /// When it was queued.
    pub queued: Instant,
    /// When it started on its stream (`None` while it has not; the first
    /// time, for work a graph runs again).
    pub started: Option<Instant>,
    /// When it ended (`None` while it has not; the last time).
    pub ended: Option<Instant>,
    /// Whether it failed (a device fault).
    pub failed: bool,
    /// The event recording it makes or waits for.
    pub flow: Option<Flow>,
}

struct Trace {
    /// When the trace started: time 0 of the written trace.
    began: Instant,
    ops: Vec<TracedOp>,
    dropped: u64,
}

static ON: AtomicBool = AtomicBool::new(false);
static TRACE: Mutex<Option<Trace>> = Mutex::new(None);

/// Start a trace: forget the operations and annotations recorded so far
/// and record from now on.
pub fn start_trace() {
    crate::roctx::clear_profile_events();
    *lock(&TRACE) = Some(Trace { began: Instant::now(), ops: Vec::new(), dropped: 0 });
    ON.store(true, Ordering::Release);
}

/// Where `AMDGPU_TRACE` asked for the trace to be written, once read.
static TRACE_FILE: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();

/// `AMDGPU_TRACE=path.json`: trace from the start, and when the process
/// exits write the Chrome trace to the path and the HTML page beside it
/// (`path.html`). Read once, when the simulator starts.
pub(crate) fn from_env() {
    let path = TRACE_FILE.get_or_init(|| std::env::var_os("AMDGPU_TRACE").filter(|v| !v.is_empty()).map(Into::into));
    if path.is_none() {
        return;
    }
    start_trace();
    extern "C" fn write_at_exit() {
        let Some(Some(path)) = TRACE_FILE.get() else { return };
        stop_trace();
        let page = path.with_extension("html");
        for (file, text) in [(path.as_path(), chrome_trace()), (page.as_path(), html_timeline())] {
            if let Err(e) = std::fs::write(file, text) {
                use std::io::Write as _;
                let _ =
                    writeln!(std::io::stderr(), "hip simulator: AMDGPU_TRACE: cannot write {}: {e}", file.display());
            }
        }
    }
    // SAFETY: `write_at_exit` is an `extern "C" fn()` that does not
    // unwind (a failure is written to stderr, unchecked), as atexit
    // requires.
    if unsafe { libc::atexit(write_at_exit) } != 0 {
        log::warn!("hip simulator: AMDGPU_TRACE is set but the trace cannot be written at exit (atexit failed)");
    }
}

/// Stop recording; what was recorded stays readable.
pub fn stop_trace() {
    ON.store(false, Ordering::Release);
}

/// The operations recorded by the current (or last) trace, in the order
/// they were queued, and how many were left out past [`MAX_TRACED_OPS`].
pub fn traced_ops() -> (Vec<TracedOp>, u64) {
    lock(&TRACE).as_ref().map_or((Vec::new(), 0), |t| (t.ops.clone(), t.dropped))
}

/// `work`, queued on `target` by `function`: recorded, if a trace runs,
/// with the times it starts and ends each time it runs.
pub(crate) fn traced(function: &'static str, target: &Target, flow: Option<Flow>, work: Work) -> Work {
    if !ON.load(Ordering::Acquire) {
        return work;
    }
    // The operation's place in this trace, which `began` names: a trace
    // started later does not take its times.
    let (index, began) = {
        let mut trace = lock(&TRACE);
        let Some(trace) = trace.as_mut() else { return work };
        if trace.ops.len() >= MAX_TRACED_OPS {
            trace.dropped += 1;
            return work;
        }
        trace.ops.push(TracedOp {
            function,
            device: target.device,
            stream: target.actor.name().into(),
            stream_id: target.actor.component(),
            queued: Instant::now(),
            started: None,
            ended: None,
            failed: false,
            flow,
        });
        (trace.ops.len() - 1, trace.began)
    };
    Arc::new(move || {
        let started = Instant::now();
        let result = work();
        let ended = Instant::now();
        let mut trace = lock(&TRACE);
        // A new trace started meanwhile: this operation is not in it.
        if let Some(op) = trace.as_mut().filter(|t| t.began == began).and_then(|t| t.ops.get_mut(index)) {
            op.started.get_or_insert(started);
            op.ended = Some(ended);
            op.failed |= result.is_err();
        }
        result
    })
}

/// Each stream `ops` ran on, by device and stream number, with its name.
fn streams(ops: &[TracedOp]) -> std::collections::BTreeMap<(usize, u32), Arc<str>> {
    let mut streams = std::collections::BTreeMap::new();
    for op in ops {
        streams.entry((op.device, op.stream_id)).or_insert_with(|| op.stream.clone());
    }
    streams
}

/// The timeline's arrows between streams: each wait for an event's
/// recording that started, with the operation that made the recording
/// and ended, and the recording's number.
fn flows(ops: &[TracedOp]) -> Vec<(&TracedOp, &TracedOp, u64)> {
    let recorded: std::collections::BTreeMap<u64, &TracedOp> = ops
        .iter()
        .filter_map(|op| match op.flow {
            Some(Flow::Out(id)) if op.ended.is_some() => Some((id, op)),
            _ => None,
        })
        .collect();
    ops.iter()
        .filter_map(|op| match op.flow {
            Some(Flow::In(id)) if op.started.is_some() => Some((*recorded.get(&id)?, op, id)),
            _ => None,
        })
        .collect()
}

/// The simulator's violations (races, device mismatches, peer accesses)
/// recorded since the trace began, as the timeline marks them: when, on
/// which device, and what, in words.
fn violations(began: Instant) -> Vec<(Instant, usize, String)> {
    crate::machine::violations::violations_since(began)
        .into_iter()
        .map(|(v, at)| {
            let what = match &v.race {
                Some(race) => format!(
                    "{:?}: {} on {} and {} on {}",
                    v.kind, race.first.function, race.first.stream, race.second.function, race.second.stream
                ),
                None => format!("{:?} in {} (thread {})", v.kind, v.function, v.thread),
            };
            (at, v.object_device, what)
        })
        .collect()
}

/// When the current (or last) trace began (now, if none ran).
fn began() -> Instant {
    lock(&TRACE).as_ref().map_or_else(Instant::now, |t| t.began)
}

/// Microseconds from `began` to `at` (negative before it).
fn micros(began: Instant, at: Instant) -> f64 {
    match at.checked_duration_since(began) {
        Some(after) => after.as_secs_f64() * 1e6,
        None => -(began.duration_since(at).as_secs_f64() * 1e6),
    }
}
