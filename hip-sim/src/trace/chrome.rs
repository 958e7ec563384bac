//! The timeline as a Chrome trace (the JSON format of `chrome://tracing`,
//! which Perfetto opens too): one process per device whose threads are its
//! streams, one of the host's threads.

use super::{began, flows, micros, streams, traced_ops, violations};
use crate::roctx::{profile_events, ProfileKind};

use crate::shared::json::string as json_string;

/// The current (or last) trace as a Chrome trace: one process per device
/// whose threads are its streams, each operation a complete event from
/// its start to its end (its time queued in its arguments); and a
/// process of the host's threads with their ranges (begin and end
/// events) and marks (instants). Operations that never ran are left out.
pub fn chrome_trace() -> String {
    let (ops, dropped) = traced_ops();
    let began = began();
    let (annotations, dropped_annotations) = profile_events();
    let mut events: Vec<String> = Vec::new();
    let host = 0usize;
    events.push(format!(r#"{{"name":"process_name","ph":"M","pid":{host},"args":{{"name":"host threads"}}}}"#));
    let streams = streams(&ops);
    let devices: std::collections::BTreeSet<usize> = streams.keys().map(|(d, _)| *d).collect();
    for device in devices {
        let pid = device + 1;
        events.push(format!(r#"{{"name":"process_name","ph":"M","pid":{pid},"args":{{"name":"device {device}"}}}}"#));
    }
    for ((device, id), name) in &streams {
        let (pid, name) = (device + 1, json_string(name));
        events.push(format!(r#"{{"name":"thread_name","ph":"M","pid":{pid},"tid":{id},"args":{{"name":{name}}}}}"#));
    }
    for op in &ops {
        let (Some(start), Some(end)) = (op.started, op.ended) else { continue };
        let (ts, dur, queued) = (micros(began, start), micros(start, end), micros(op.queued, start));
        let (pid, tid, name) = (op.device + 1, op.stream_id, json_string(op.function));
        events.push(format!(
            r#"{{"name":{name},"cat":"stream","ph":"X","ts":{ts:.3},"dur":{dur:.3},"pid":{pid},"tid":{tid},"args":{{"queued_us":{queued:.3},"failed":{}}}}}"#,
            op.failed
        ));
    }
    // The arrows between streams: from the operation that records an
    // event (at its end) to each that waits for that recording (at its
    // start), where both ran.
    for (source, wait, id) in flows(&ops) {
        let (Some(end), Some(start), Some(_)) = (source.ended, wait.started, wait.ended) else { continue };
        events.push(format!(
            r#"{{"name":"event","cat":"flow","ph":"s","id":{id},"ts":{:.3},"pid":{},"tid":{}}}"#,
            micros(began, end),
            source.device + 1,
            source.stream_id
        ));
        events.push(format!(
            r#"{{"name":"event","cat":"flow","ph":"f","bp":"e","id":{id},"ts":{:.3},"pid":{},"tid":{}}}"#,
            micros(began, start),
            wait.device + 1,
            wait.stream_id
        ));
    }
    // The simulator's violations, as instants on their device.
    for (at, device, what) in violations(began) {
        events.push(format!(
            r#"{{"name":{},"cat":"violation","ph":"i","s":"p","ts":{:.3},"pid":{},"tid":0}}"#,
            json_string(&what),
            micros(began, at),
            device + 1
        ));
    }
    let mut threads: Vec<std::thread::ThreadId> = Vec::new();
    for event in &annotations {
        let tid = match threads.iter().position(|t| *t == event.thread) {
            Some(i) => i + 1,
            None => {
                threads.push(event.thread);
                threads.len()
            }
        };
        let ts = micros(began, event.at);
        let line = match &event.kind {
            ProfileKind::Push(name) => {
                format!(
                    r#"{{"name":{},"cat":"range","ph":"B","ts":{ts:.3},"pid":{host},"tid":{tid}}}"#,
                    json_string(name)
                )
            }
            ProfileKind::Pop if event.level >= 0 => {
                format!(r#"{{"cat":"range","ph":"E","ts":{ts:.3},"pid":{host},"tid":{tid}}}"#)
            }
            ProfileKind::Pop => continue,
            ProfileKind::Mark(name) => format!(
                r#"{{"name":{},"cat":"mark","ph":"i","s":"t","ts":{ts:.3},"pid":{host},"tid":{tid}}}"#,
                json_string(name)
            ),
        };
        events.push(line);
    }
    format!(
        "{{\"traceEvents\":[\n{}\n],\"displayTimeUnit\":\"ns\",\"otherData\":{{\"producer\":\"hip-sim\",\"dropped_ops\":{dropped},\"dropped_annotations\":{dropped_annotations}}}}}\n",
        events.join(",\n")
    )
}
