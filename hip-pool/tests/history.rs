//! The pool's memory history: every buffer handed out and given back
//! (with what it waits for), every segment and every out-of-memory step,
//! accounting for what the pool's statistics count. Every test holds
//! `sim::exclusive()`: the history is process-wide.

use hip_core::{Device, Stream};
use hip_pool::history::{self, MemoryEventKind, Waits};
use hip_pool::{Access, Limit, Pool, Strategy};
use hip_sys::sim;

/// The history's bytes in segments of `device` at its end.
fn reserved_in_history(device: Device) -> usize {
    history::memory_over_time(&history::history(), device.ordinal()).last().map_or(0, |p| p.2)
}

/// The history's bytes in buffers of `device` at its end.
fn allocated_in_history(device: Device) -> usize {
    history::memory_over_time(&history::history(), device.ordinal()).last().map_or(0, |p| p.1)
}

/// The simulator to this test alone, device 0 with a pool of its own, and
/// the history cleared and recording.
fn recording() -> (sim::Exclusive, Device, Pool) {
    let exclusive = sim::exclusive();
    let device = Device::new(0).unwrap();
    let pool = Pool::new(device, Strategy::Cached).unwrap();
    history::clear_history();
    history::record_history(true);
    (exclusive, device, pool)
}

#[test]
fn the_history_accounts_for_every_buffer_and_segment_the_pool_counts() {
    let (_x, device, pool) = recording();
    let (first, second) = (Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap());
    let sizes = [1000usize, 64 << 10, 3 << 20];
    let buffers: Vec<_> = sizes.iter().map(|&n| pool.alloc(n, &first).unwrap()).collect();
    assert_eq!(allocated_in_history(device), sizes.iter().sum::<usize>(), "the bytes asked for");
    assert_eq!(reserved_in_history(device), pool.stats().reserved, "every segment the pool took");
    // One buffer used on another stream: its block waits for that use.
    buffers[0].prepare(&second, Access::Write).unwrap();
    buffers[0].record(&second, Access::Write).unwrap();
    drop(buffers);
    let frees: Vec<(usize, Waits)> = history::history()
        .iter()
        .filter_map(|e| match e.kind {
            MemoryEventKind::Free(waits) => Some((e.bytes, waits)),
            _ => None,
        })
        .collect();
    assert_eq!(frees.len(), 3);
    let waits_on_second = Waits::Streams { stream: second.id(), events: 1 };
    assert!(frees.contains(&(1000, waits_on_second)), "the held block names the stream it waits for: {frees:?}");
    assert!(frees.contains(&(64 << 10, Waits::Nothing)), "{frees:?}");
    assert_eq!(allocated_in_history(device), 0);
    assert_eq!(reserved_in_history(device), pool.stats().reserved, "freed blocks stay in their segments");
    second.synchronize().unwrap();
    pool.reclaim().unwrap();
    assert_eq!(pool.stats().reserved, 0);
    assert_eq!(reserved_in_history(device), 0, "the reclaim released every segment");
    for event in history::history() {
        assert_eq!(event.device, device.ordinal());
    }
    history::record_history(false);
    history::clear_history();
}

#[test]
fn an_allocation_past_the_limit_marks_each_ladder_step_and_the_failure() {
    let (_x, device, pool) = recording();
    pool.set_hard_limit(Limit::Bytes(1 << 20));
    let stream = Stream::new_on(device).unwrap();
    assert!(pool.alloc(8 << 20, &stream).is_err(), "past the hard limit");
    history::record_history(false);
    let steps: Vec<(usize, usize)> = history::history()
        .iter()
        .filter_map(|e| match e.kind {
            MemoryEventKind::OutOfMemory(step) => Some((step, e.bytes)),
            _ => None,
        })
        .collect();
    assert_eq!(steps.first().map(|s| s.0), Some(1), "the ladder starts at its first rung: {steps:?}");
    assert_eq!(steps.last(), Some(&(0, 8 << 20)), "then the failure, with the bytes asked for: {steps:?}");
    let page = history::history_html();
    assert!(page.contains("<svg") && page.contains("polyline") && page.contains("out of memory asking for 8.0 MiB"));
    history::clear_history();
}

/// A property test against the pool's own statistics: after every step of
/// a random workload (allocations of random sizes on two streams, frees
/// in random order, uses on the other stream, reclaims) the history's
/// bytes in segments are the pool's `reserved`, and its bytes in buffers
/// are the bytes of the live buffers.
#[test]
fn at_every_moment_the_history_accounts_for_every_byte_the_pool_holds() {
    let (_x, device, pool) = recording();
    let streams = [Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap()];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |below: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % below as u64) as usize
    };
    let mut live = Vec::new();
    for step in 0..400 {
        match next(10) {
            0..=4 => {
                let bytes = 1 + next(3 << 20);
                live.push(pool.alloc(bytes, &streams[next(2)]).unwrap());
            }
            5..=7 if !live.is_empty() => drop(live.swap_remove(next(live.len()))),
            8 if !live.is_empty() => {
                let buffer = &live[next(live.len())];
                let other = &streams[usize::from(buffer.stream().id() == streams[0].id())];
                buffer.prepare(other, Access::Read).unwrap();
                buffer.record(other, Access::Read).unwrap();
            }
            _ => {
                streams.iter().for_each(|s| s.synchronize().unwrap());
                pool.reclaim().unwrap();
            }
        }
        let stats = pool.stats();
        assert_eq!(reserved_in_history(device), stats.reserved, "bytes in segments after step {step}");
        let in_buffers: usize = live.iter().map(|b| b.len()).sum();
        assert_eq!(allocated_in_history(device), in_buffers, "bytes in buffers after step {step}");
        assert_eq!(stats.live_buffers, live.len(), "live buffers after step {step}");
    }
    drop(live);
    history::record_history(false);
}

/// A buffer given back while a graph still uses it names that graph's
/// capture, and one still used on another stream names that stream.
#[test]
fn a_held_block_names_what_it_waits_for() {
    let (_x, device, pool) = recording();
    let stream = Stream::new_on(device).unwrap();
    let used = pool.alloc(4096, &stream).unwrap();
    let (graph, ()) = stream
        .capture(hip_core::CaptureMode::Global, |s| {
            used.prepare(s, Access::Write)?;
            used.record(s, Access::Write)
        })
        .unwrap();
    drop(used);
    history::record_history(false);
    let waits: Vec<Waits> = history::history()
        .iter()
        .filter_map(|e| match e.kind {
            MemoryEventKind::Free(waits) => Some(waits),
            _ => None,
        })
        .collect();
    assert!(matches!(waits[..], [Waits::Graphs { graphs: 1, .. }]), "{waits:?}");
    drop(graph);
}

/// With backtraces on, an allocation's event carries the backtrace of
/// the call that asked for it; off, none.
#[test]
fn a_backtrace_names_the_code_that_allocated() {
    if !std::backtrace::Backtrace::force_capture().to_string().contains("a_backtrace_names_the_code_that_allocated") {
        eprintln!("skipped: this binary's backtraces name no functions (its symbols were stripped)");
        return;
    }
    let (_x, device, pool) = recording();
    let stream = Stream::new_on(device).unwrap();
    history::record_backtraces(true);
    drop(pool.alloc(4096, &stream).unwrap());
    history::record_backtraces(false);
    drop(pool.alloc(4096, &stream).unwrap());
    history::record_history(false);
    let allocs: Vec<_> = history::history().into_iter().filter(|e| e.kind == MemoryEventKind::Alloc).collect();
    assert_eq!(allocs.len(), 2);
    let text = allocs[0].backtrace.as_ref().expect("taken while on").to_string();
    assert!(text.contains("a_backtrace_names_the_code_that_allocated"), "{text}");
    assert!(allocs[1].backtrace.is_none(), "none while off");
}

#[test]
fn off_nothing_is_recorded() {
    let _x = sim::exclusive();
    history::record_history(false);
    history::clear_history();
    let device = Device::new(0).unwrap();
    let pool = Pool::new(device, Strategy::Cached).unwrap();
    drop(pool.alloc(4096, &Stream::new_on(device).unwrap()).unwrap());
    assert!(history::history().is_empty());
    assert!(history::history_html().contains("No memory history was recorded"));
}

/// The snapshot of a real workload read by Python's own `pickle`, and
/// checked against the shape PyTorch's memory snapshot has (what
/// `pytorch.org/memory_viz` reads): skipped, saying so, without python3.
#[test]
fn the_snapshot_is_a_pytorch_memory_snapshot_that_python_reads() {
    let (_x, device, pool) = recording();
    let (first, second) = (Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap());
    let kept = pool.alloc(3 << 20, &first).unwrap();
    let used = pool.alloc(1 << 16, &first).unwrap();
    used.prepare(&second, Access::Read).unwrap();
    used.record(&second, Access::Read).unwrap();
    drop(used); // waits for the read on the other stream
    drop(pool.alloc(1 << 16, &first).unwrap());
    history::record_history(false);
    let snapshot = history::memory_viz_snapshot();
    history::clear_history();
    drop(kept);
    let path = std::env::temp_dir().join(format!("hip-pool-snapshot-{}.pickle", std::process::id()));
    std::fs::write(&path, &snapshot).unwrap();
    const CHECK: &str = r#"
import pickle, sys
s = pickle.load(open(sys.argv[1], 'rb'))
assert set(s) == {'segments', 'device_traces'}, s.keys()
actions = {'alloc', 'free_requested', 'free_completed', 'segment_alloc', 'segment_free', 'oom', 'snapshot'}
seen = []
for trace in s['device_traces']:
    for e in trace:
        assert e['action'] in actions, e
        assert all(isinstance(e[k], int) for k in ('addr', 'size', 'stream', 'time_us')), e
        assert isinstance(e['frames'], list), e
        seen.append(e['action'])
for seg in s['segments']:
    assert {'device', 'address', 'total_size', 'stream', 'segment_type', 'allocated_size', 'active_size', 'blocks'} <= set(seg), seg
    at = seg['address']
    for b in seg['blocks']:
        assert b['address'] == at and b['size'] > 0, (seg, b)
        assert b['state'] in ('active_allocated', 'active_pending_free', 'inactive'), b
        at += b['size']
    assert at == seg['address'] + seg['total_size'], seg
print(' '.join(seen))
"#;
    let run = std::process::Command::new("python3").arg("-c").arg(CHECK).arg(&path).output();
    let _ = std::fs::remove_file(&path);
    let Ok(out) = run else {
        eprintln!("skipped: python3 is not installed, so the snapshot is not read by Python's pickle");
        return;
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let actions = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        actions.trim(),
        "segment_alloc alloc segment_alloc alloc free_requested free_completed alloc free_requested free_completed",
        "a segment for the large block and one for the small ones; the waiting block's free completes when its \
         address is handed out again"
    );
}
