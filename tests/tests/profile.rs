//! Profiler ranges and marks (`amdgpu::profile`) on the simulator, whose
//! ROCTx records each thread's annotations: ranges nest and pair per
//! thread, close innermost first whatever order their guards drop in,
//! close on unwind, and cost nothing once switched off. Every test holds
//! `sim::exclusive()` (switching ranges off is process-wide) and runs on
//! a thread of its own, whose annotations it reads.

use amdgpu::profile;
use hip_sys::sim::{self, ProfileKind};

mod common;

/// The simulator, held: its ROCTx and timeline are what these tests read;
/// `None` (saying so) on a GPU, where the vendor's tools record instead.
fn simulator() -> Option<sim::Exclusive> {
    if !common::on_sim() {
        eprintln!("skipped: reads the simulator's annotations and timeline");
        return None;
    }
    Some(sim::exclusive())
}

/// Run `f` on a fresh thread and return what it annotated: each event's
/// kind and level, in order.
fn annotations_of(f: impl FnOnce() + Send + 'static) -> Vec<(ProfileKind, i32)> {
    let thread = std::thread::spawn(f);
    let id = thread.thread().id();
    thread.join().expect("the thread runs");
    let (events, dropped) = sim::profile_events();
    assert_eq!(dropped, 0, "the timeline kept every event");
    events.into_iter().filter(|e| e.thread == id).map(|e| (e.kind, e.level)).collect()
}

fn push(name: &str, level: i32) -> (ProfileKind, i32) {
    (ProfileKind::Push(name.to_owned()), level)
}

fn pop(level: i32) -> (ProfileKind, i32) {
    (ProfileKind::Pop, level)
}

fn mark(name: &str) -> (ProfileKind, i32) {
    (ProfileKind::Mark(name.to_owned()), 0)
}

#[test]
fn ranges_nest_and_pair_on_their_thread() {
    let Some(_x) = simulator() else { return };
    assert!(profile::enabled(), "the simulator has ROCTx");
    let seen = annotations_of(|| {
        let _step = profile::range("step");
        {
            let _forward = profile::range("forward");
            profile::mark("checkpoint");
        }
        let _backward = profile::range("backward");
    });
    assert_eq!(
        seen,
        [push("step", 0), push("forward", 1), mark("checkpoint"), pop(1), push("backward", 1), pop(1), pop(0)]
    );
}

#[test]
fn a_range_dropped_before_an_inner_one_closes_with_it() {
    let Some(_x) = simulator() else { return };
    let seen = annotations_of(|| {
        let outer = profile::range("outer");
        let inner = profile::range("inner");
        drop(outer); // the library closes innermost first: nothing yet
        profile::mark("between");
        drop(inner); // closes "inner", then "outer"
        let _after = profile::range("after");
    });
    assert_eq!(seen, [push("outer", 0), push("inner", 1), mark("between"), pop(1), pop(0), push("after", 0), pop(0)]);
}

#[test]
fn ranges_close_on_unwind() {
    let Some(_x) = simulator() else { return };
    let seen = annotations_of(|| {
        let unwound = std::panic::catch_unwind(|| {
            let _range = profile::range("fails");
            panic!("inside the range");
        });
        assert!(unwound.is_err());
        let _next = profile::range("next");
    });
    assert_eq!(seen, [push("fails", 0), pop(0), push("next", 0), pop(0)]);
}

#[test]
fn threads_keep_their_own_ranges() {
    let Some(_x) = simulator() else { return };
    let (ready, go) =
        (std::sync::Arc::new(std::sync::Barrier::new(2)), std::sync::Arc::new(std::sync::Barrier::new(2)));
    let (r, g) = (ready.clone(), go.clone());
    let other = std::thread::spawn(move || {
        let _theirs = profile::range("theirs");
        r.wait();
        g.wait();
    });
    let other_id = other.thread().id();
    let seen = annotations_of(move || {
        ready.wait(); // "theirs" is open on the other thread
        let _mine = profile::range("mine");
        go.wait();
    });
    other.join().unwrap();
    assert_eq!(seen, [push("mine", 0), pop(0)], "levels count this thread's ranges only");
    let (events, _) = sim::profile_events();
    let theirs: Vec<_> = events.into_iter().filter(|e| e.thread == other_id).map(|e| (e.kind, e.level)).collect();
    assert_eq!(theirs, [push("theirs", 0), pop(0)]);
}

#[test]
fn a_name_is_cut_at_a_nul_and_may_be_empty() {
    let Some(_x) = simulator() else { return };
    let seen = annotations_of(|| {
        let _cut = profile::range("before\0after");
        profile::mark("");
    });
    assert_eq!(seen, [push("before", 0), mark(""), pop(0)]);
}

#[test]
fn a_forgotten_range_stays_open_and_later_ranges_nest_in_it() {
    let Some(_x) = simulator() else { return };
    let seen = annotations_of(|| {
        std::mem::forget(profile::range("forgotten"));
        let _later = profile::range("later");
    });
    assert_eq!(seen, [push("forgotten", 0), push("later", 1), pop(1)]);
}

#[test]
fn switched_off_ranges_and_marks_do_nothing_and_open_ones_still_close() {
    let Some(_x) = simulator() else { return };
    let seen = annotations_of(|| {
        let open = profile::range("open");
        profile::set_enabled(false);
        assert!(!profile::enabled());
        let _ignored = profile::range("ignored");
        profile::mark("ignored");
        drop(open);
        profile::set_enabled(true);
        profile::mark("back");
    });
    profile::set_enabled(true);
    assert_eq!(seen, [push("open", 0), pop(0), mark("back")]);
}

/// A small workload's trace: its copies and kernels on their devices'
/// streams, each from its start to its end, and the thread's ranges and
/// marks, in the Chrome trace format (the JSON chrome://tracing and
/// Perfetto open).
#[test]
fn the_trace_shows_the_streams_operations_and_the_threads_ranges() {
    use amdgpu::{DeviceArray, Stream};
    let Some(_x) = simulator() else { return };
    sim::start_trace();
    let stream = Stream::new().unwrap();
    let thread = std::thread::current().id();
    {
        let _step = profile::range("step");
        let mut x = DeviceArray::<f32>::zeros_on(&stream, 1024).unwrap();
        x.copy_from_slice(&[1.0; 1024]).unwrap();
        profile::mark("uploaded");
        assert_eq!(x.to_vec().unwrap()[0], 1.0);
    }
    stream.synchronize().unwrap();
    sim::stop_trace();
    let (ops, dropped) = sim::traced_ops();
    assert_eq!(dropped, 0);
    let functions: Vec<&str> = ops.iter().map(|op| op.function).collect();
    assert!(functions.iter().any(|f| f.starts_with("hipMemset")), "the zeroing is traced: {functions:?}");
    assert!(functions.iter().filter(|f| f.starts_with("hipMemcpy")).count() >= 2, "both copies: {functions:?}");
    for op in &ops {
        let (Some(start), Some(end)) = (op.started, op.ended) else { panic!("{op:?} never ran") };
        assert!(op.queued <= start && start <= end, "{op:?}");
        assert!(!op.failed);
    }
    let trace: serde_json::Value = serde_json::from_str(&sim::chrome_trace()).expect("the trace is JSON");
    let events = trace["traceEvents"].as_array().expect("a Chrome trace has traceEvents");
    let complete: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(complete.len(), ops.len(), "one complete event per operation");
    for e in &complete {
        assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0, "{e}");
        assert!(e["pid"].as_u64().unwrap() >= 1, "operations are on a device's process: {e}");
    }
    let device_names: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(device_names.contains(&"device 0") && device_names.contains(&"host threads"), "{device_names:?}");
    // This thread's range, begun and ended, and its mark between them.
    let (events_of_thread, _) = sim::profile_events();
    assert!(events_of_thread.iter().any(|e| e.thread == thread));
    let phases: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["pid"] == 0 && e["ph"] != "M")
        .map(|e| (e["ph"].as_str().unwrap(), e["name"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(phases, [("B", "step"), ("i", "uploaded"), ("E", "")]);
}

/// The HTML page of a trace: one SVG with a bar per operation that ran
/// and per range, each named in its tooltip, the names escaped.
#[test]
fn the_html_timeline_draws_every_operation_and_range() {
    use amdgpu::{DeviceArray, Stream};
    let Some(_x) = simulator() else { return };
    sim::start_trace();
    let stream = Stream::new().unwrap();
    {
        let _range = profile::range("<load & check>");
        let x = DeviceArray::<u32>::zeros_on(&stream, 256).unwrap();
        assert_eq!(x.to_vec().unwrap(), vec![0; 256]);
    }
    sim::stop_trace();
    let page = sim::html_timeline();
    let (ops, _) = sim::traced_ops();
    let ran = ops.iter().filter(|op| op.started.is_some()).count();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<svg") && page.contains("</svg>"));
    for op in ops.iter().filter(|op| op.started.is_some()) {
        assert!(page.contains(&format!("<title>{}: ", op.function)), "{} is drawn", op.function);
    }
    let bars = page.matches("<rect").count();
    let legend = 8;
    assert_eq!(bars, ran + 1 + legend, "a bar per operation, one for the range, the legend's swatches");
    assert!(page.contains("&lt;load &amp; check&gt;") && !page.contains("<load"), "names are escaped");
}

/// With the `tracing` feature: spans are ranges while a thread is inside
/// them (the program's and the runtime's own), through `RangeLayer`.
#[cfg(feature = "tracing")]
mod spans {
    use super::*;
    use tracing_subscriber::prelude::*;

    #[test]
    fn entered_spans_are_ranges_and_the_runtimes_launches_and_copies_are_spans() {
        let Some(_x) = simulator() else { return };
        let seen = annotations_of(|| {
            let subscriber = tracing_subscriber::registry().with(profile::RangeLayer::new());
            tracing::subscriber::with_default(subscriber, || {
                let step = tracing::info_span!("step");
                let _step = step.enter();
                {
                    let _inner = tracing::info_span!("inner").entered();
                    profile::mark("inside");
                }
                // The runtime's own span: a synchronous copy.
                let x = amdgpu::DeviceArray::from_slice(&[1u32, 2, 3]).unwrap();
                assert_eq!(x.to_vec().unwrap(), [1, 2, 3]);
            });
        });
        let names: Vec<&str> = seen
            .iter()
            .filter_map(|(kind, _)| match kind {
                ProfileKind::Push(name) => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(names[..2], ["step", "inner"], "{seen:?}");
        assert!(names.contains(&"copy"), "the runtime's copy is a span, so a range: {names:?}");
        assert_eq!(seen[2], mark("inside"));
        let pushes = seen.iter().filter(|(k, _)| matches!(k, ProfileKind::Push(_))).count();
        let pops = seen.iter().filter(|(k, l)| *k == ProfileKind::Pop && *l >= 0).count();
        assert_eq!(pushes, pops, "every span's range closed: {seen:?}");
        assert_eq!(seen.last(), Some(&pop(0)), "\"step\" closes last");
    }
}

/// An array written on one stream and read on another: the reading
/// stream waits for the writer's event, drawn in the trace as a flow from
/// the recording on the writing stream to the wait on the reading one.
#[test]
fn the_trace_draws_a_wait_for_another_streams_event_as_a_flow() {
    use amdgpu::{DeviceArray, Stream};
    let Some(_x) = simulator() else { return };
    let (writer, reader) = (Stream::new().unwrap(), Stream::new().unwrap());
    sim::start_trace();
    let source = DeviceArray::from_slice_on(&writer, &[5u32; 64]).unwrap();
    let mut copy = DeviceArray::<u32>::zeros_on(&reader, 64).unwrap();
    copy.copy_from(&source).unwrap(); // on the reader's stream, after the writer's upload
    assert_eq!(copy.to_vec().unwrap(), vec![5; 64]);
    sim::stop_trace();
    let trace: serde_json::Value = serde_json::from_str(&sim::chrome_trace()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let ends: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "f").collect();
    assert!(!ends.is_empty(), "at least one wait between streams");
    for end in ends {
        let start = events.iter().find(|e| e["ph"] == "s" && e["id"] == end["id"]).expect("each wait's recording");
        assert_ne!(start["tid"], end["tid"], "a flow joins two streams");
        assert!(start["ts"].as_f64().unwrap() <= end["ts"].as_f64().unwrap(), "the recording comes first");
    }
    let (ops, _) = sim::traced_ops();
    let outs = ops.iter().filter(|op| matches!(op.flow, Some(sim::Flow::Out(_)))).count();
    let ins = ops.iter().filter(|op| matches!(op.flow, Some(sim::Flow::In(_)))).count();
    assert!(outs >= 1 && ins >= 1, "{ops:?}");
}

/// A violation the simulator records during a trace is marked on it: an
/// instant on the object's device in the Chrome trace, a red mark on the
/// page, naming what was broken.
#[test]
fn the_trace_marks_the_simulators_violations() {
    let Some(_x) = simulator() else { return };
    if amdgpu::Device::count().unwrap() < 2 {
        eprintln!("skipped: needs two devices");
        return;
    }
    let api = sim::api();
    sim::clear_violations();
    sim::start_trace();
    let seen = annotations_of(move || {
        let mut stream = std::ptr::null_mut();
        // SAFETY: valid out-pointers and a live stream, destroyed once.
        unsafe {
            assert_eq!((api.hipSetDevice)(0), hip_sys::hipError_t::hipSuccess);
            assert_eq!((api.hipStreamCreate)(&mut stream), hip_sys::hipError_t::hipSuccess);
            assert_eq!((api.hipSetDevice)(1), hip_sys::hipError_t::hipSuccess);
            // Destroyed under the other device: a context violation.
            assert_eq!((api.hipStreamDestroy)(stream), hip_sys::hipError_t::hipSuccess);
            assert_eq!((api.hipSetDevice)(0), hip_sys::hipError_t::hipSuccess);
        }
    });
    sim::stop_trace();
    assert!(seen.is_empty());
    let trace: serde_json::Value = serde_json::from_str(&sim::chrome_trace()).unwrap();
    let marks: Vec<&serde_json::Value> =
        trace["traceEvents"].as_array().unwrap().iter().filter(|e| e["cat"] == "violation").collect();
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(marks[0]["pid"], 1, "on device 0's process");
    assert!(marks[0]["name"].as_str().unwrap().contains("hipStreamDestroy"), "{}", marks[0]);
    assert!(sim::html_timeline().contains("hipStreamDestroy"), "the page marks it too");
    sim::clear_violations();
}

/// `AMDGPU_TRACE=path`: the process records from its start and writes
/// the trace there, and the page beside it, when it exits. The test's
/// own binary reruns this test alone with the variable set.
#[test]
fn amdgpu_trace_writes_the_trace_when_the_process_exits() {
    const CHILD: &str = "AMDGPU_TESTS_TRACE_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let x = amdgpu::DeviceArray::from_slice(&[1.0f32; 32]).unwrap();
        assert_eq!(x.to_vec().unwrap(), vec![1.0; 32]);
        return;
    }
    let _x = sim::exclusive();
    let path = std::env::temp_dir().join(format!("amdgpu-trace-{}.json", std::process::id()));
    common::rerun_this_test(
        "amdgpu_trace_writes_the_trace_when_the_process_exits",
        &[(CHILD, "1".as_ref()), ("AMDGPU_TRACE", path.as_ref()), ("AMDGPU_BACKEND", "sim".as_ref())],
    );
    let text = std::fs::read_to_string(&path).expect("the trace was written at exit");
    let page = std::fs::read_to_string(path.with_extension("html")).expect("and the page beside it");
    let _ = (std::fs::remove_file(&path), std::fs::remove_file(path.with_extension("html")));
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ops = trace["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").count();
    assert!(ops >= 2, "the child's upload and download: {text}");
    assert!(page.contains("<svg"));
}

/// `AMDGPU_MEMORY_HISTORY=path`: the pool records from the first pool on
/// and writes the history there when the process exits, in the format
/// the extension names. The test's own binary reruns this test alone.
#[test]
fn amdgpu_memory_history_writes_the_history_when_the_process_exits() {
    const CHILD: &str = "AMDGPU_TESTS_HISTORY_CHILD";
    if std::env::var_os(CHILD).is_some() {
        drop(amdgpu::DeviceArray::from_slice(&[1.0f32; 1000]).unwrap());
        return;
    }
    let _x = sim::exclusive();
    for extension in ["jsonl", "html", "pickle"] {
        let path = std::env::temp_dir().join(format!("amdgpu-memory-{}.{extension}", std::process::id()));
        common::rerun_this_test(
            "amdgpu_memory_history_writes_the_history_when_the_process_exits",
            &[(CHILD, "1".as_ref()), ("AMDGPU_MEMORY_HISTORY", path.as_ref()), ("AMDGPU_BACKEND", "sim".as_ref())],
        );
        let bytes = std::fs::read(&path).expect("the history was written at exit");
        let _ = std::fs::remove_file(&path);
        match extension {
            "jsonl" => {
                let events = amdgpu::pool::history::read_json_lines(&String::from_utf8(bytes).unwrap()).unwrap();
                let allocs = events.iter().filter(|e| e.kind == amdgpu::pool::history::MemoryEventKind::Alloc);
                assert!(allocs.clone().any(|e| e.bytes == 4000), "the child's buffer: {events:?}");
            }
            "html" => assert!(String::from_utf8(bytes).unwrap().contains("<polygon"), "a band for its stream"),
            _ => assert_eq!(bytes[0], 0x80, "a pickle"),
        }
    }
}
