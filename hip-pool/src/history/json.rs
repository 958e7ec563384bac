//! The memory history as JSON Lines: one flat JSON object an event, so
//! `jq`, pandas (`read_json(lines=True)`) and a spreadsheet read it, and
//! [`read_json_lines`] reads it back (what `amdgpu-info memory` does).
//!
//! ```text
//! {"us":0.0,"device":0,"stream":4294967296,"address":8192,"bytes":1048576,"event":"segment"}
//! {"us":12.5,"device":0,"stream":4294967296,"address":8192,"bytes":1000,"event":"alloc"}
//! {"us":40.1,"device":0,"stream":4294967296,"address":8192,"bytes":1000,"event":"free","waits":"stream","on":4294967297,"count":1}
//! {"us":52.0,"device":0,"stream":4294967296,"address":0,"bytes":1073741824,"event":"oom","step":0}
//! ```
//!
//! `us` is microseconds since the first event; `stream` is `null` where
//! no stream took part; a free's `waits` is `nothing`, `stream` (`on`
//! the stream of the oldest pending use, `count` events in all) or
//! `graph` (`on` the capture, `count` graphs) or `processes` (`count`
//! shares with other processes).

use super::{history, MemoryEvent, MemoryEventKind, Waits};
use std::fmt::Write;
use std::time::{Duration, Instant};

/// The recorded history as JSON Lines (see the module's docs).
pub fn history_json_lines() -> String {
    to_json_lines(&history())
}

/// `events` as JSON Lines.
pub fn to_json_lines(events: &[MemoryEvent]) -> String {
    let first = events.first().map(|e| e.at);
    let mut out = String::new();
    for event in events {
        let us = first.map_or(0.0, |f| event.at.duration_since(f).as_secs_f64() * 1e6);
        let stream = event.stream.map_or_else(|| "null".to_owned(), |s| s.to_string());
        let _ = write!(
            out,
            r#"{{"us":{us:.3},"device":{},"stream":{stream},"address":{},"bytes":{},"event":"#,
            event.device, event.address, event.bytes
        );
        let _ = match event.kind {
            MemoryEventKind::Alloc => write!(out, r#""alloc""#),
            MemoryEventKind::Free(Waits::Nothing) => write!(out, r#""free","waits":"nothing""#),
            MemoryEventKind::Free(Waits::Streams { stream, events }) => {
                write!(out, r#""free","waits":"stream","on":{stream},"count":{events}"#)
            }
            MemoryEventKind::Free(Waits::Processes { shares }) => {
                write!(out, r#""free","waits":"processes","count":{shares}"#)
            }
            MemoryEventKind::Free(Waits::Graphs { capture, graphs }) => {
                write!(out, r#""free","waits":"graph","on":{capture},"count":{graphs}"#)
            }
            MemoryEventKind::Segment => write!(out, r#""segment""#),
            MemoryEventKind::SegmentFree => write!(out, r#""segment_free""#),
            MemoryEventKind::OutOfMemory(step) => write!(out, r#""oom","step":{step}"#),
        };
        out.push_str("}\n");
    }
    out
}

/// A line of a history file that is not one of [`to_json_lines`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line} of the memory history is not a history event: {reason}")]
pub struct HistoryFormatError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Read a history written by [`history_json_lines`] (or
/// `AMDGPU_MEMORY_HISTORY=path.jsonl`), its times placed from now on.
/// Blank lines are skipped.
///
/// # Errors
///
/// [`HistoryFormatError`] naming the first line that is not an event of
/// this format, and why.
pub fn read_json_lines(text: &str) -> Result<Vec<MemoryEvent>, HistoryFormatError> {
    let base = Instant::now();
    let mut events = Vec::new();
    for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let fail = |reason: String| HistoryFormatError { line: index + 1, reason };
        let fields = Fields::parse(line).map_err(fail)?;
        events.push(fields.event(base).map_err(fail)?);
    }
    Ok(events)
}

/// The fields of one line: a flat object of numbers, `null` and strings
/// without escapes.
struct Fields<'a>(Vec<(&'a str, &'a str)>);

impl<'a> Fields<'a> {
    fn parse(line: &'a str) -> Result<Self, String> {
        let inner = line
            .trim()
            .strip_prefix('{')
            .and_then(|l| l.strip_suffix('}'))
            .ok_or_else(|| "not a JSON object on one line".to_owned())?;
        let mut fields = Vec::new();
        for pair in inner.split(',') {
            let (key, value) = pair.split_once(':').ok_or_else(|| format!("{pair:?} is not \"key\":value"))?;
            let key = key.trim().strip_prefix('"').and_then(|k| k.strip_suffix('"'));
            let key = key.ok_or_else(|| format!("the key of {pair:?} is not a string"))?;
            fields.push((key, value.trim().trim_matches('"')));
        }
        Ok(Fields(fields))
    }

    fn text(&self, key: &str) -> Result<&'a str, String> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).ok_or_else(|| format!("no \"{key}\""))
    }

    fn number<T: std::str::FromStr>(&self, key: &str) -> Result<T, String> {
        let text = self.text(key)?;
        text.parse().map_err(|_| format!("\"{key}\" is {text:?}, not a number of its kind"))
    }

    fn event(&self, base: Instant) -> Result<MemoryEvent, String> {
        let us: f64 = self.number("us")?;
        let at = Duration::try_from_secs_f64(us / 1e6)
            .map_err(|_| format!("\"us\" is {us}, not a time since the first event"))?;
        let device = self.number("device")?;
        let stream = match self.text("stream")? {
            "null" => None,
            _ => Some(self.number("stream")?),
        };
        let kind = match self.text("event")? {
            "alloc" => MemoryEventKind::Alloc,
            "free" => MemoryEventKind::Free(match self.text("waits")? {
                "nothing" => Waits::Nothing,
                "stream" => Waits::Streams { stream: self.number("on")?, events: self.number("count")? },
                "graph" => Waits::Graphs { capture: self.number("on")?, graphs: self.number("count")? },
                "processes" => Waits::Processes { shares: self.number("count")? },
                other => return Err(format!("\"waits\" is {other:?}: nothing, stream, graph or processes")),
            }),
            "segment" => MemoryEventKind::Segment,
            "segment_free" => MemoryEventKind::SegmentFree,
            "oom" => MemoryEventKind::OutOfMemory(self.number("step")?),
            other => return Err(format!("\"event\" is {other:?}: alloc, free, segment, segment_free or oom")),
        };
        Ok(MemoryEvent {
            at: base + at,
            device,
            stream,
            address: self.number("address")?,
            bytes: self.number("bytes")?,
            kind,
            backtrace: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_event_reads_back_as_written() {
        let t = Instant::now();
        let device = 0;
        let kinds = [
            MemoryEventKind::Segment,
            MemoryEventKind::Alloc,
            MemoryEventKind::Free(Waits::Nothing),
            MemoryEventKind::Free(Waits::Streams { stream: 1 << 32, events: 2 }),
            MemoryEventKind::Free(Waits::Graphs { capture: 17, graphs: 1 }),
            MemoryEventKind::Free(Waits::Processes { shares: 2 }),
            MemoryEventKind::OutOfMemory(3),
            MemoryEventKind::SegmentFree,
        ];
        let events: Vec<MemoryEvent> = kinds
            .iter()
            .enumerate()
            .map(|(i, kind)| MemoryEvent {
                at: t + Duration::from_micros(i as u64 * 250),
                device,
                stream: (i != 6).then_some(i as u64),
                address: 0x1000 * i,
                bytes: 1 << i,
                kind: *kind,
                backtrace: None,
            })
            .collect();
        let text = to_json_lines(&events);
        assert_eq!(text.lines().count(), kinds.len());
        let back = read_json_lines(&text).expect("its own format");
        let strip = |e: &MemoryEvent| (e.device, e.stream, e.address, e.bytes, e.kind);
        assert_eq!(back.iter().map(strip).collect::<Vec<_>>(), events.iter().map(strip).collect::<Vec<_>>());
        let gap = back[4].at.duration_since(back[0].at);
        assert!(gap.abs_diff(Duration::from_micros(1000)) < Duration::from_micros(1), "{gap:?}");
    }

    #[test]
    fn a_bad_line_is_an_error_naming_it_and_why() {
        let good = r#"{"us":0,"device":0,"stream":null,"address":0,"bytes":1,"event":"alloc"}"#;
        for (bad, says) in [
            ("not json", "not a JSON object"),
            (r#"{"us":0,"device":0,"stream":null,"address":0,"bytes":1,"event":"borrow"}"#, "\"event\" is \"borrow\""),
            (r#"{"us":0,"device":0,"stream":null,"address":0,"event":"alloc"}"#, "no \"bytes\""),
            (r#"{"us":-1,"device":0,"stream":null,"address":0,"bytes":1,"event":"alloc"}"#, "\"us\" is -1"),
            (r#"{"us":0,"device":0,"stream":7,"address":0,"bytes":x,"event":"alloc"}"#, "\"bytes\" is \"x\""),
        ] {
            let err = read_json_lines(&format!("{good}\n\n{bad}\n")).expect_err(bad);
            assert_eq!(err.line, 3, "{err}");
            assert!(err.to_string().contains(says), "{err} should say {says}");
        }
    }
}
