//! The memory history drawn as one self-contained HTML page: per device,
//! the bytes in buffers stacked by stream, the bytes in segments, the
//! out-of-memory steps, and a table of the blocks given back while still
//! in use, with what each waited for.

use super::levels::Levels;
use super::{bytes_text, history, MemoryEvent, MemoryEventKind, Waits};
use std::fmt::Write;
use std::time::Instant;

/// The stream colours, in the order streams first allocate.
const COLOURS: [&str; 8] = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f"];
/// The band of buffers handed out for no stream: none of the streams'
/// colours, nor the grey of the segments line.
const NO_STREAM: &str = "#c9b8e6";
/// The waiting blocks listed at most, per device.
const MAX_ROWS: usize = 40;
const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 200.0;
const LEFT: f64 = 80.0;

/// The recorded history as a self-contained HTML page (one SVG a device,
/// no script): the bytes in buffers over time stacked by the stream they
/// were allocated for (a colour a stream), the bytes in segments (a grey
/// line), out-of-memory steps as red lines, and below each picture the
/// blocks given back while another stream's work or a graph still used
/// them, with what each waited for. Tooltips give the values.
pub fn history_html() -> String {
    page(&history())
}

/// The page of `events`.
fn page(events: &[MemoryEvent]) -> String {
    let Some(first) = events.first().map(|e| e.at) else {
        return "<!DOCTYPE html>\n<html><body><p>No memory history was recorded: call \
                hip_pool::history::record_history(true) or set AMDGPU_MEMORY_HISTORY=1.</p></body></html>\n"
            .to_owned();
    };
    let span = events.last().map_or(0.0, |e| e.at.duration_since(first).as_secs_f64() * 1e3).max(1e-3);
    let mut devices: Vec<usize> = events.iter().map(|e| e.device).collect();
    devices.sort_unstable();
    devices.dedup();
    let mut body = String::new();
    for device in devices {
        let on_device: Vec<&MemoryEvent> = events.iter().filter(|e| e.device == device).collect();
        let chart = Chart { first, span, series: Series::of(&on_device) };
        body.push_str(&chart.svg(device, &on_device));
        body.push_str(&waiting_table(&on_device, first, &chart.series.streams));
    }
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Memory history</title>\n<style>\
         body{{margin:12px;font-family:sans-serif}} table{{border-collapse:collapse;font-size:12px;margin:4px 0 14px}} \
         td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}} th{{background:#f4f4f4}}</style></head>\n\
         <body>\n<h3 style=\"margin:0 0 8px\">Memory over time ({} events): bytes in buffers by stream, \
         <span style=\"color:#888\">bytes in segments</span>, <span style=\"color:#d00\">out of memory</span></h3>\n\
         {body}</body></html>\n",
        events.len()
    )
}

/// A device's bytes after each of its events: in buffers per stream (in
/// the order the streams first allocate, then buffers of no stream, when
/// there are any), and in segments.
struct Series {
    streams: Vec<u64>,
    points: Vec<(Instant, Vec<usize>, usize)>,
}

impl Series {
    fn of(events: &[&MemoryEvent]) -> Series {
        let mut levels = Levels::default();
        let mut points = Vec::with_capacity(events.len());
        for event in events {
            levels.apply(event);
            let mut lanes: Vec<usize> = levels.by_stream.iter().map(|(_, b)| *b).collect();
            lanes.push(levels.unstreamed);
            points.push((event.at, lanes, levels.in_segments));
        }
        // Every point has a lane for each stream (those that allocate
        // later are 0 before) and the unstreamed lane last.
        let streams: Vec<u64> = levels.by_stream.iter().map(|(s, _)| *s).collect();
        for (_, lanes, _) in &mut points {
            let unstreamed = lanes.pop().unwrap_or(0);
            lanes.resize(streams.len(), 0);
            lanes.push(unstreamed);
        }
        Series { streams, points }
    }

    /// The most bytes the picture must show.
    fn top(&self) -> usize {
        self.points.iter().map(|(_, b, r)| b.iter().sum::<usize>().max(*r)).max().unwrap_or(0).max(1)
    }
}

struct Chart {
    first: Instant,
    span: f64,
    series: Series,
}

impl Chart {
    fn x(&self, at: Instant) -> f64 {
        LEFT + at.duration_since(self.first).as_secs_f64() * 1e3 / self.span * (WIDTH - LEFT - 20.0)
    }

    fn y(&self, bytes: usize) -> f64 {
        20.0 + (1.0 - bytes as f64 / self.series.top() as f64) * (HEIGHT - 40.0)
    }

    /// A step line through `level` of each point, from 0 at the left.
    fn steps(&self, level: impl Fn(&(Instant, Vec<usize>, usize)) -> usize) -> Vec<(f64, f64)> {
        let mut out = vec![(LEFT, self.y(0))];
        let mut last = 0;
        for point in &self.series.points {
            let x = self.x(point.0);
            let now = level(point);
            out.push((x, self.y(last)));
            out.push((x, self.y(now)));
            last = now;
        }
        out.push((WIDTH - 20.0, self.y(last)));
        out
    }

    /// The bands to draw, bottom up: each stream's (a letter and its id)
    /// and, if any buffer had none, the no-stream one; with the lane, the
    /// name, the colour and the peak.
    fn bands(&self) -> Vec<(usize, String, &'static str, usize)> {
        let peak = |lane: usize| self.series.points.iter().map(|p| p.1[lane]).max().unwrap_or(0);
        let mut bands: Vec<_> = (self.series.streams.iter().enumerate())
            .map(|(lane, stream)| {
                (lane, format!("stream {} (id {stream})", letter(lane)), COLOURS[lane % COLOURS.len()], peak(lane))
            })
            .collect();
        let unstreamed = self.series.streams.len();
        if peak(unstreamed) > 0 {
            bands.push((unstreamed, "no stream".to_owned(), NO_STREAM, peak(unstreamed)));
        }
        bands
    }

    fn svg(&self, device: usize, events: &[&MemoryEvent]) -> String {
        let top = self.series.top();
        let mut svg = format!(
            r##"<h4 style="margin:8px 0 0">device {device}</h4><svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="11"><text x="6" y="{:.1}">{}</text><text x="6" y="{:.1}">0</text>"##,
            self.y(top) + 4.0,
            bytes_text(top),
            self.y(0) + 4.0
        );
        // Each stream's band: between the streams below it and itself;
        // buffers of no stream, if any, on top.
        let bands = self.bands();
        for (lane, name, colour, peak) in &bands {
            let upper = self.steps(|p| p.1[..=*lane].iter().sum());
            let lower = self.steps(|p| p.1[..*lane].iter().sum());
            let mut points = String::new();
            for (x, y) in upper.iter().chain(lower.iter().rev()) {
                let _ = write!(points, "{x:.1},{y:.1} ");
            }
            let _ = write!(
                svg,
                r#"<polygon points="{}" fill="{colour}" fill-opacity="0.75"><title>{name}: at most {} in buffers</title></polygon>"#,
                points.trim_end(),
                bytes_text(*peak)
            );
        }
        let reserved: Vec<String> = self.steps(|p| p.2).iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = write!(
            svg,
            r##"<polyline points="{}" fill="none" stroke="#888" stroke-width="2"><title>bytes in segments</title></polyline>"##,
            reserved.join(" ")
        );
        for event in events {
            if let MemoryEventKind::OutOfMemory(step) = event.kind {
                let x = self.x(event.at);
                let what = if step == 0 { "nothing found".to_owned() } else { format!("ladder step {step}") };
                let _ = write!(
                    svg,
                    r##"<line x1="{x:.1}" y1="20" x2="{x:.1}" y2="{:.1}" stroke="#d00" stroke-width="2"><title>out of memory asking for {}: {what}</title></line>"##,
                    HEIGHT - 20.0,
                    bytes_text(event.bytes)
                );
            }
        }
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{:.2} ms</text></svg>"#,
            WIDTH - 20.0,
            HEIGHT - 4.0,
            self.span
        );
        // The legend: a swatch a band, with its name.
        svg.push_str("<div style=\"font-size:12px\">");
        for (_, name, colour, _) in &bands {
            let _ = write!(
                svg,
                r#"<span style="display:inline-block;width:10px;height:10px;background:{colour}"></span> {name} &nbsp; "#
            );
        }
        svg.push_str("</div>\n");
        svg
    }
}

/// The short name of the stream that first allocated `lane`-th: A, B, …,
/// Z, AA, AB, …
fn letter(lane: usize) -> String {
    let mut name = String::new();
    let mut n = lane + 1;
    while n > 0 {
        let digit = u8::try_from((n - 1) % 26).unwrap_or(0);
        name.insert(0, char::from(b'A' + digit));
        n = (n - 1) / 26;
    }
    name
}

/// The blocks of a device given back while still in use, with what each
/// waited for; empty if there were none.
fn waiting_table(events: &[&MemoryEvent], first: Instant, streams: &[u64]) -> String {
    let name = |id: u64| match streams.iter().position(|s| *s == id) {
        Some(lane) => format!("{} (id {id})", letter(lane)),
        None => format!("id {id}"),
    };
    let waiting: Vec<(&MemoryEvent, String)> = events
        .iter()
        .filter_map(|e| match e.kind {
            MemoryEventKind::Free(Waits::Streams { stream, events }) => {
                let more = if events > 1 { format!(" (and {} more events)", events - 1) } else { String::new() };
                Some((*e, format!("the work of stream {}{more}", name(stream))))
            }
            MemoryEventKind::Free(Waits::Processes { shares }) => {
                Some((*e, format!("other processes ({shares} shares)")))
            }
            MemoryEventKind::Free(Waits::Graphs { capture, graphs }) => {
                let more = if graphs > 1 { format!(" (and {} more graphs)", graphs - 1) } else { String::new() };
                Some((*e, format!("the graph of capture {capture}{more}")))
            }
            _ => None,
        })
        .collect();
    if waiting.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<table><tr><th>given back at</th><th>address</th><th>bytes</th><th>stream</th><th style=\"text-align:left\">\
         still in use by ({} blocks)</th></tr>\n",
        waiting.len()
    );
    for (event, reason) in waiting.iter().take(MAX_ROWS) {
        let _ = writeln!(
            out,
            "<tr><td>{:.3} ms</td><td>{:#x}</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{reason}</td></tr>",
            event.at.duration_since(first).as_secs_f64() * 1e3,
            event.address,
            bytes_text(event.bytes),
            event.stream.map_or_else(|| "-".to_owned(), name),
        );
    }
    if waiting.len() > MAX_ROWS {
        let _ = writeln!(out, "<tr><td colspan=\"5\">and {} more</td></tr>", waiting.len() - MAX_ROWS);
    }
    out.push_str("</table>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn streams_are_stacked_bands_and_waiting_blocks_are_listed_with_their_reason() {
        let t = Instant::now();
        let device = 0;
        let event = |ms: u64, stream: u64, address: usize, bytes: usize, kind: MemoryEventKind| MemoryEvent {
            at: t + Duration::from_millis(ms),
            device,
            stream: Some(stream),
            address,
            bytes,
            kind,
            backtrace: None,
        };
        let events = [
            event(0, 1, 0x1000, 4 << 20, MemoryEventKind::Segment),
            event(1, 1, 0x1000, 1 << 20, MemoryEventKind::Alloc),
            event(2, 2, 0x200000, 2 << 20, MemoryEventKind::Alloc),
            event(3, 1, 0x1000, 1 << 20, MemoryEventKind::Free(Waits::Streams { stream: 2, events: 3 })),
            event(4, 2, 0x200000, 2 << 20, MemoryEventKind::Free(Waits::Graphs { capture: 11, graphs: 1 })),
            event(5, 2, 0, 8 << 20, MemoryEventKind::OutOfMemory(0)),
        ];
        let html = page(&events);
        assert_eq!(html.matches("<polygon").count(), 2, "one band a stream");
        assert!(html.contains("stream A (id 1): at most 1.0 MiB") && html.contains("stream B (id 2): at most 2.0 MiB"));
        assert!(html.contains("the work of stream B (id 2) (and 2 more events)"), "{html}");
        assert!(html.contains("the graph of capture 11"), "{html}");
        assert!(html.contains("out of memory asking for 8.0 MiB: nothing found"), "{html}");
        let series = Series::of(&events.iter().collect::<Vec<_>>());
        assert_eq!(series.points[2].1, [1 << 20, 2 << 20, 0], "both streams' buffers, none of no stream");
        assert_eq!(series.points[1].1, [1 << 20, 0, 0], "a lane for the stream that allocates later");
        assert_eq!(series.points[4].1, [0, 0, 0], "both given back");
        assert_eq!(series.top(), 4 << 20, "the segment is the most");
        assert_eq!([0, 1, 25, 26, 27].map(letter), ["A", "B", "Z", "AA", "AB"]);
    }

    #[test]
    fn buffers_of_no_stream_are_a_band_of_their_own() {
        let at = Instant::now();
        let alloc = |stream: Option<u64>, bytes: usize| MemoryEvent {
            at,
            device: 0,
            stream,
            address: 0x1000,
            bytes,
            kind: MemoryEventKind::Alloc,
            backtrace: None,
        };
        let with = page(&[alloc(Some(1), 1 << 20), alloc(None, 2 << 20)]);
        assert_eq!(with.matches("<polygon").count(), 2, "{with}");
        assert!(with.contains("no stream: at most 2.0 MiB"), "{with}");
        assert!(with.contains("</span> no stream"), "in the legend too: {with}");
        let without = page(&[alloc(Some(1), 1 << 20)]);
        assert!(!without.contains("no stream"), "no band when nothing is unstreamed");
    }
}
