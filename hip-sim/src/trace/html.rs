//! The timeline as a self-contained HTML page: one SVG, no script and
//! nothing fetched, for a quick look without a trace viewer. A lane per
//! host thread (its ranges stacked by level, its marks as ticks) and per
//! stream of each device (its operations as bars from start to end); each
//! shape's tooltip names it with its times.

use super::{began, flows, micros, streams, traced_ops, violations, TracedOp};
use crate::roctx::{profile_events, ProfileKind};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::thread::ThreadId;
use std::time::Instant;

/// Width of the drawing, and of the lanes' labels at its left.
const WIDTH: f64 = 1200.0;
const LABELS: f64 = 190.0;
/// Height of one lane, of one range level in a thread's lane, and of the
/// time axis.
const LANE: f64 = 26.0;
const LEVEL: f64 = 14.0;
const AXIS: f64 = 34.0;

/// `text` with the characters HTML and SVG give a meaning escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// What the colours mean: kinds of operation, and the ranges.
const LEGEND: [(&str, &str); 8] = [
    ("copies", "#4e79a7"),
    ("fills", "#76b7b2"),
    ("kernels", "#e15759"),
    ("BLAS, solvers", "#f28e2b"),
    ("FFT, sparse, DNN", "#edc948"),
    ("collectives", "#b07aa1"),
    ("other (events, waits)", "#9c9c9c"),
    ("ranges", "#59a14f"),
];

/// `n` and `what`, plural unless one.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A fill colour for an operation, by what its function does.
fn colour(function: &str) -> &'static str {
    let kind = match function {
        f if f.contains("Memcpy") => 0,
        f if f.contains("Memset") => 1,
        f if f.contains("Launch") || f.contains("Kernel") => 2,
        f if f.starts_with("rocblas") || f.starts_with("rocsolver") => 3,
        f if f.starts_with("rocfft") || f.starts_with("rocsparse") || f.starts_with("miopen") => 4,
        f if f.starts_with("nccl") => 5,
        _ => 6,
    };
    LEGEND[kind].1
}

/// A range's start and end on a thread, and its level.
struct Span {
    name: String,
    level: i32,
    start: f64,
    end: Option<f64>,
}

/// One thread's ranges (closed or still open) and marks (name, time).
struct ThreadLane {
    thread: ThreadId,
    spans: Vec<Span>,
    marks: Vec<(String, f64)>,
}

/// Each thread's lane, in the order the threads first annotated.
fn thread_lanes(began: Instant) -> Vec<ThreadLane> {
    let (events, _) = profile_events();
    let mut lanes: Vec<ThreadLane> = Vec::new();
    for event in events {
        let at = micros(began, event.at);
        let index = match lanes.iter().position(|lane| lane.thread == event.thread) {
            Some(i) => i,
            None => {
                lanes.push(ThreadLane { thread: event.thread, spans: Vec::new(), marks: Vec::new() });
                lanes.len() - 1
            }
        };
        let ThreadLane { spans, marks, .. } = &mut lanes[index];
        match event.kind {
            ProfileKind::Push(name) => spans.push(Span { name, level: event.level, start: at, end: None }),
            ProfileKind::Pop => {
                if let Some(open) = spans.iter_mut().rev().find(|s| s.end.is_none() && s.level == event.level) {
                    open.end = Some(at);
                }
            }
            ProfileKind::Mark(name) => marks.push((name, at)),
        }
    }
    lanes
}

/// An SVG being drawn: its text, and the time scale (µs from the trace's
/// start, `end` the last drawn).
struct Drawing {
    svg: String,
    began: Instant,
    end: f64,
}

impl Drawing {
    /// The x of `us` microseconds after the start.
    fn x(&self, us: f64) -> f64 {
        LABELS + (us.max(0.0) / self.end) * (WIDTH - LABELS - 40.0)
    }

    /// The x of `at`.
    fn at(&self, at: Instant) -> f64 {
        self.x(micros(self.began, at))
    }

    /// The time axis: ten ticks, and their grid lines down to `height`.
    fn axis(&mut self, height: f64) {
        for i in 0..=10 {
            let us = self.end * f64::from(i) / 10.0;
            let tx = self.x(us);
            let _ = write!(
                self.svg,
                r##"<line x1="{tx:.1}" y1="{AXIS}" x2="{tx:.1}" y2="{height}" stroke="#e4e4e4"/><text x="{tx:.1}" y="20" text-anchor="middle">{us:.0} µs</text>"##
            );
        }
    }

    /// A host thread's lane at `y`, `lane` high: its ranges by level, its
    /// marks as ticks.
    fn thread_lane(&mut self, index: usize, thread: &ThreadLane, y: f64, lane: f64) {
        let _ = write!(self.svg, r#"<text x="6" y="{:.1}">host thread {}</text>"#, y + 16.0, index + 1);
        for span in &thread.spans {
            let (x0, x1) = (self.x(span.start), self.x(span.end.unwrap_or(self.end)));
            let top = y + 4.0 + LEVEL * f64::from(span.level);
            let open = if span.end.is_none() { " (still open)" } else { "" };
            let _ = write!(
                self.svg,
                r##"<rect x="{x0:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="#59a14f" fill-opacity="0.55" stroke="#3b6e35"><title>{}: {:.1} to {:.1} µs{open}</title></rect>"##,
                (x1 - x0).max(1.0),
                LEVEL - 2.0,
                escape(&span.name),
                span.start,
                span.end.unwrap_or(self.end)
            );
        }
        for (name, at) in &thread.marks {
            let mx = self.x(*at);
            let _ = write!(
                self.svg,
                r##"<line x1="{mx:.1}" y1="{y:.1}" x2="{mx:.1}" y2="{:.1}" stroke="#000" stroke-width="2"><title>{} at {at:.1} µs</title></line>"##,
                y + lane - 2.0,
                escape(name)
            );
        }
    }

    /// A stream's lane at `y`: its operations from start to end.
    fn stream_lane<'a>(&mut self, device: usize, name: &str, ops: impl Iterator<Item = &'a TracedOp>, y: f64) {
        let _ = write!(self.svg, r#"<text x="6" y="{:.1}">device {device}, {}</text>"#, y + 16.0, escape(name));
        for op in ops {
            let Some(started) = op.started else { continue };
            let (s, e) = (micros(self.began, started), op.ended.map_or(self.end, |t| micros(self.began, t)));
            let (x0, x1) = (self.x(s), self.x(e));
            let queued = micros(op.queued, started);
            let _ = write!(
                self.svg,
                r##"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}" stroke="{}"><title>{}: {s:.1} to {e:.1} µs, queued {queued:.1} µs before</title></rect>"##,
                y + 5.0,
                (x1 - x0).max(1.0),
                LANE - 10.0,
                colour(op.function),
                if op.failed { "#d00" } else { "#333" },
                escape(op.function)
            );
        }
    }

    /// The arrows between streams, from an event's recording to each wait
    /// for it; `lanes` gives each stream's middle.
    fn arrows(&mut self, ops: &[TracedOp], lanes: &BTreeMap<(usize, u32), f64>) {
        for (source, wait, _) in flows(ops) {
            let (Some(end), Some(start)) = (source.ended, wait.started) else { continue };
            let from = lanes.get(&(source.device, source.stream_id));
            let (Some(&y0), Some(&y1)) = (from, lanes.get(&(wait.device, wait.stream_id))) else { continue };
            let (x0, x1) = (self.at(end), self.at(start));
            let _ = write!(
                self.svg,
                r##"<line x1="{x0:.1}" y1="{y0:.1}" x2="{x1:.1}" y2="{y1:.1}" stroke="#444" stroke-width="1.5" marker-end="url(#arrow)"><title>{} waits for {}</title></line>"##,
                escape(&wait.stream),
                escape(&source.stream)
            );
        }
    }

    /// The simulator's violations: red marks on the time axis.
    fn violations(&mut self) {
        for (at, device, what) in violations(self.began) {
            let vx = self.at(at);
            let _ = write!(
                self.svg,
                r##"<path d="M{:.1},{:.1} L{:.1},{:.1} L{vx:.1},{:.1} z" fill="#d00"><title>device {device}: {}</title></path>"##,
                vx - 6.0,
                AXIS - 10.0,
                vx + 6.0,
                AXIS - 10.0,
                AXIS,
                escape(&what)
            );
        }
    }

    /// The legend, at `y`.
    fn legend(&mut self, y: f64) {
        let mut lx = LABELS;
        for (what, fill) in LEGEND {
            let _ = write!(
                self.svg,
                r##"<rect x="{lx:.1}" y="{:.1}" width="12" height="12" fill="{fill}" stroke="#333"/><text x="{:.1}" y="{:.1}">{what}</text>"##,
                y + 10.0,
                lx + 16.0,
                y + 20.0
            );
            lx += 30.0 + 6.5 * what.len() as f64;
        }
        let _ = write!(
            self.svg,
            r##"<line x1="{lx:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#444" stroke-width="1.5" marker-end="url(#arrow)"/><text x="{:.1}" y="{:.1}">a wait for another stream's event</text>"##,
            y + 16.0,
            lx + 14.0,
            y + 16.0,
            lx + 18.0,
            y + 20.0
        );
    }
}

/// The height of a thread's lane: its deepest range's level.
fn thread_height(spans: &[Span]) -> f64 {
    LANE.max(8.0 + LEVEL * (1 + spans.iter().map(|s| s.level).max().unwrap_or(0)) as f64)
}

/// The current (or last) trace drawn as an HTML page (see the module
/// docs). Open ranges and operations that have not ended run to the end
/// of the drawing.
pub fn html_timeline() -> String {
    let began = began();
    let (ops, dropped) = traced_ops();
    let threads = thread_lanes(began);
    let mut end = ops.iter().filter_map(|op| op.ended).map(|t| micros(began, t)).fold(1.0f64, f64::max);
    for ThreadLane { spans, marks, .. } in &threads {
        end = spans.iter().map(|s| s.end.unwrap_or(s.start)).chain(marks.iter().map(|m| m.1)).fold(end, f64::max);
    }
    let streams = streams(&ops);
    let threads_height: f64 = threads.iter().map(|lane| thread_height(&lane.spans)).sum();
    let height = AXIS + threads_height + LANE * streams.len() as f64 + LANE + 10.0;
    let mut drawing = Drawing { svg: String::new(), began, end };
    let _ = write!(
        drawing.svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="11"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker></defs>"##
    );
    drawing.axis(height);
    let mut y = AXIS;
    for (index, thread) in threads.iter().enumerate() {
        let lane = thread_height(&thread.spans);
        drawing.thread_lane(index, thread, y, lane);
        y += lane;
    }
    let mut lanes: BTreeMap<(usize, u32), f64> = BTreeMap::new();
    for (&(device, id), name) in &streams {
        lanes.insert((device, id), y + LANE / 2.0);
        drawing.stream_lane(device, name, ops.iter().filter(|op| op.device == device && op.stream_id == id), y);
        y += LANE;
    }
    drawing.arrows(&ops, &lanes);
    drawing.violations();
    drawing.legend(y);
    drawing.svg.push_str("</svg>");
    let note = if dropped > 0 {
        format!(" ({dropped} operations past the trace's limit are not drawn)")
    } else {
        String::new()
    };
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Stream timeline</title></head>\n\
         <body style=\"margin:12px;font-family:sans-serif\">\n<h3 style=\"margin:0 0 8px\">Stream timeline: {}, {}, {}, {end:.0} µs{note}</h3>\n{}\n</body></html>\n",
        count(ops.len(), "operation"),
        count(streams.len(), "stream"),
        count(threads.len(), "annotating host thread"),
        drawing.svg
    )
}

#[cfg(test)]
mod tests {
    use super::{colour, escape};

    #[test]
    fn names_are_escaped_and_coloured_by_kind() {
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_ne!(colour("hipMemcpyAsync"), colour("hipModuleLaunchKernel"));
    }
}
