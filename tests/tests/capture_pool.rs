//! The pool under stream capture: buffers a graph uses are not reused
//! while it may run; allocations inside a capture come from the capture's
//! private pool, reused in capture order; nothing on a capturing path
//! queries an event, synchronizes or frees; reclaims wait for captures and
//! are refused inside one; running out of memory inside one is its own
//! error; an allocation on another thread does not break a Global capture.
//!
//! Run as the simulator's default HIP version, as HIP 6 in CI's second
//! run, and as HIP 5 through a child process.

use hip_core::raw::mem;
use hip_core::{CaptureMode, Device, HipError, Stream};
use hip_pool::{capture_into, enqueue, Access, Buffer, GraphPool, Limit, Pool, PoolError, Strategy};
use hip_sys::sim;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod common;
use common::buffers::{fill, read};

const BYTES: usize = 1 << 16;

/// Enqueue a copy of `from` into `to` on `stream`, under the operand protocol.
fn copy(to: &Buffer, from: &Buffer, stream: &Stream) -> Result<(), PoolError> {
    enqueue(stream, [(from, Access::Read), (to, Access::Write)], || {
        // SAFETY: both hold `len` bytes of this device.
        unsafe {
            mem::copy_async(
                stream.device(),
                to.as_ptr(),
                from.as_ptr(),
                to.len(),
                hip_sys::hipMemcpyKind::hipMemcpyDeviceToDevice,
                stream.as_raw(),
            )
        }
        .map_err(PoolError::from)
    })
}

fn setup() -> (sim::Exclusive, Device, Pool, Stream) {
    let guard = sim::exclusive();
    let device = Device::new(0).unwrap();
    // The strategy `AMDGPU_POOL` names (cached unset; CI also runs the
    // suite with expandable pools), where the runtime has it (not the
    // rerun as HIP 5, which has no virtual memory).
    let strategy = match Strategy::from_env().unwrap() {
        Strategy::Expandable if !hip_core::raw::vmm::supported(device).unwrap() => Strategy::Cached,
        named => named,
    };
    (guard, device, Pool::new(device, strategy).unwrap(), Stream::new_on(device).unwrap())
}

/// The calls of the capture-sensitive HIP functions this thread made (the
/// simulator counts them; elsewhere they read 0).
fn sensitive_calls() -> [u64; 6] {
    ["hipMalloc", "hipFree", "hipEventQuery", "hipEventSynchronize", "hipStreamSynchronize", "hipDeviceSynchronize"]
        .map(sim::thread_call_count)
}

#[test]
fn a_buffer_a_graph_uses_is_not_reused_until_the_graph_and_its_execs_are_gone() {
    let (_x, _device, pool, stream) = setup();
    let used = pool.alloc(BYTES, &stream).unwrap();
    let address = used.as_ptr();
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| fill(&used, 5, s)).unwrap();
    drop(used);
    let exec = graph.instantiate().unwrap();
    let other = pool.alloc(BYTES, &stream).unwrap();
    assert_ne!(other.as_ptr(), address, "the block the graph writes was handed out again");
    drop(graph);
    let again = pool.alloc(BYTES, &stream).unwrap();
    assert_ne!(again.as_ptr(), address, "the exec still holds the block");
    exec.launch(&stream).unwrap();
    drop(again);
    drop(exec);
    let reused = pool.alloc(BYTES, &stream).unwrap();
    assert_eq!(reused.as_ptr(), address, "with the graph and its exec gone, the block is the pool's again");
}

#[test]
fn an_updated_exec_holds_the_buffers_of_the_graph_it_took() {
    let (_x, _device, pool, stream) = setup();
    let (first, second) = (pool.alloc(BYTES, &stream).unwrap(), pool.alloc(BYTES, &stream).unwrap());
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| fill(&first, 5, s)).unwrap();
    let mut exec = graph.instantiate().unwrap();
    let (update, ()) = stream.capture(CaptureMode::Global, |s| fill(&second, 6, s)).unwrap();
    exec.update(&update).unwrap();
    // The exec now writes `second`: dropping the graph it came from and
    // the buffer must leave the block to the exec.
    let address = second.as_ptr();
    drop((update, second));
    let other = pool.alloc(BYTES, &stream).unwrap();
    assert_ne!(other.as_ptr(), address, "the block the updated exec writes was handed out again");
    fill(&other, 0, &stream).unwrap();
    exec.launch(&stream).unwrap();
    assert_eq!(read(&other), vec![0; BYTES]);
    drop((exec, graph, first));
}

#[test]
fn replays_on_another_stream_are_ordered_with_eager_work_on_the_buffers() {
    let (_x, device, pool, stream) = setup();
    let races = common::stream_races().len();
    let (input, output) = (pool.alloc(BYTES, &stream).unwrap(), pool.alloc(BYTES, &stream).unwrap());
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| copy(&output, &input, s)).unwrap();
    let exec = graph.instantiate().unwrap();
    let replay = Stream::new_on(device).unwrap();
    for byte in 1..=3u8 {
        // Eager on the buffers' own stream, replayed on another, read on the own.
        fill(&input, byte, &stream).unwrap();
        exec.launch(&replay).unwrap();
        assert_eq!(read(&output), vec![byte; BYTES]);
    }
    replay.synchronize().unwrap();
    assert_eq!(common::stream_races().len(), races, "a replay overlapped eager work on its buffers");
}

#[test]
fn a_replay_on_the_buffers_own_stream_waits_for_their_use_on_another() {
    let (_x, device, pool, stream) = setup();
    let races = common::stream_races().len();
    let (input, output) = (pool.alloc(BYTES, &stream).unwrap(), pool.alloc(BYTES, &stream).unwrap());
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| copy(&output, &input, s)).unwrap();
    let exec = graph.instantiate().unwrap();
    let other = Stream::new_on(device).unwrap();
    for byte in 1..=3u8 {
        // The input written on another stream, held back there on the
        // simulator: the replay on the buffers' own stream must wait for it.
        let hold = common::on_sim().then(|| sim::hold_stream(other.as_raw()).unwrap());
        fill(&input, byte, &other).unwrap();
        exec.launch(&stream).unwrap();
        let released = hold.map(common::release_later);
        assert_eq!(read(&output), vec![byte; BYTES], "the replay copied the input before its write");
        if let Some(released) = released {
            released.join().unwrap();
        }
    }
    assert_eq!(common::stream_races().len(), races, "a replay overlapped a write of its input on another stream");
}

#[test]
fn a_capture_allocates_from_its_private_pool_and_reuses_blocks_in_capture_order() {
    let (_x, _device, pool, stream) = setup();
    let before = pool.stats();
    let result = pool.alloc(BYTES, &stream).unwrap();
    let (graph, addresses) = stream
        .capture(CaptureMode::Global, |s| {
            let scratch = pool.alloc(BYTES, s)?;
            fill(&scratch, 7, s)?;
            copy(&result, &scratch, s)?;
            let first = scratch.as_ptr();
            drop(scratch);
            // Same size, same stream, later in the capture: the same block.
            let again = pool.alloc(BYTES, s)?;
            fill(&again, 9, s)?;
            Ok::<_, PoolError>((first, again.as_ptr()))
        })
        .unwrap();
    assert_eq!(addresses.0, addresses.1, "a block freed in the capture serves it again");
    assert_eq!(pool.stats().driver_allocations - before.driver_allocations, 2, "one for `result`, one private");
    let exec = graph.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    assert_eq!(read(&result), vec![7; BYTES]);
    // Eagerly, the private block is out of the general pool's reach.
    let eager = pool.alloc(BYTES, &stream).unwrap();
    assert_ne!(eager.as_ptr(), addresses.0);
    drop(eager);
    pool.reclaim().unwrap();
    drop((exec, graph));
    // Graphs gone: the private block is a free segment of the general
    // pool, which the next reclaim gives back.
    assert_eq!(pool.reclaim().unwrap(), BYTES);
}

#[test]
fn nothing_on_a_capturing_path_queries_an_event_synchronizes_or_frees() {
    let (_x, device, pool, stream) = setup();
    let other = Stream::new_on(device).unwrap();
    // A buffer with uses on another stream, and one whose own stream is another.
    let shared = pool.alloc(BYTES, &stream).unwrap();
    fill(&shared, 1, &other).unwrap();
    let foreign = pool.alloc(BYTES, &other).unwrap();
    let calls = sensitive_calls();
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            copy(&shared, &foreign, s)?;
            let scratch = pool.alloc(BYTES, s)?;
            copy(&scratch, &shared, s)?;
            drop(scratch);
            Ok::<_, PoolError>(())
        })
        .unwrap();
    let after = sensitive_calls();
    if common::on_sim() {
        // One hipMalloc, in the Relaxed mode, for the private block; nothing else.
        assert_eq!([after[0] - calls[0], after[1] - calls[1], after[2] - calls[2]], [1, 0, 0]);
        assert_eq!([after[3] - calls[3], after[4] - calls[4], after[5] - calls[5]], [0, 0, 0]);
    }
    let exec = graph.instantiate().unwrap();
    fill(&foreign, 6, &other).unwrap();
    exec.launch(&stream).unwrap();
    assert_eq!(read(&shared), vec![6; BYTES]);
}

#[test]
fn reclaim_is_refused_inside_a_capture_and_waits_for_one_elsewhere() {
    let (_x, device, pool, stream) = setup();
    let buffer = pool.alloc(BYTES, &stream).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            let refused = pool.reclaim();
            assert!(matches!(refused, Err(PoolError::Hip(HipError::CaptureUnderway { .. }))), "{refused:?}");
            let waiting = {
                let done = done.clone();
                std::thread::spawn(move || {
                    let reclaimed = hip_pool::reclaim(device);
                    done.store(true, Ordering::Release);
                    reclaimed
                })
            };
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!done.load(Ordering::Acquire), "a reclaim ran during the capture");
            fill(&buffer, 3, s)?;
            Ok::<_, PoolError>(waiting)
        })
        .map(|(graph, waiting)| {
            waiting.join().unwrap().unwrap();
            (graph, ())
        })
        .unwrap();
    assert!(done.load(Ordering::Acquire));
    graph.instantiate().unwrap().launch(&stream).unwrap();
    assert_eq!(read(&buffer), vec![3; BYTES]);
}

#[test]
fn out_of_memory_inside_a_capture_is_its_own_error_and_the_capture_survives() {
    let (_x, _device, pool, stream) = setup();
    pool.set_hard_limit(Limit::Bytes(4 * BYTES));
    let calls = sensitive_calls();
    let (graph, refused) = stream
        .capture(CaptureMode::Global, |s| {
            let kept = pool.alloc(BYTES, s)?;
            let refused = pool.alloc(8 * BYTES, s).map(|_| ()).unwrap_err();
            fill(&kept, 1, s)?;
            Ok::<_, PoolError>(refused)
        })
        .unwrap();
    assert!(
        matches!(refused, PoolError::OutOfMemoryInCapture { requested, .. } if requested == 8 * BYTES),
        "{refused}"
    );
    assert!(refused.is_out_of_memory());
    let after = sensitive_calls();
    assert_eq!(after[4] - calls[4] + after[5] - calls[5], 0, "the ladder synchronized during the capture");
    assert_eq!(graph.node_count().unwrap(), 1);
}

#[test]
fn an_allocation_on_another_thread_does_not_break_a_global_capture() {
    let (_x, device, pool, stream) = setup();
    let buffer = pool.alloc(BYTES, &stream).unwrap();
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            fill(&buffer, 4, s)?;
            // A size the pool has never seen: a driver allocation (Relaxed).
            let fresh = common::on_thread("allocator", move || {
                let stream = Stream::new_on(device).unwrap();
                pool.alloc(48 << 20, &stream).map(|b| b.len())
            });
            assert_eq!(fresh.unwrap(), 48 << 20);
            Ok::<_, PoolError>(())
        })
        .unwrap();
    graph.instantiate().unwrap().launch(&stream).unwrap();
    assert_eq!(read(&buffer), vec![4; BYTES]);
}

#[test]
fn captures_sharing_a_graph_pool_reuse_its_blocks_and_others_do_not() {
    let (_x, _device, pool, stream) = setup();
    let (a, b) = (pool.alloc(BYTES, &stream).unwrap(), pool.alloc(BYTES, &stream).unwrap());
    // Each capture: scratch = byte; out = scratch; the scratch dropped.
    let step = |out: &Buffer, byte: u8, s: &Stream| {
        let scratch = pool.alloc(BYTES, s)?;
        fill(&scratch, byte, s)?;
        copy(out, &scratch, s)?;
        Ok::<_, PoolError>(scratch.as_ptr())
    };
    let shared = GraphPool::new(pool);
    let (first, p1) = capture_into(&shared, &stream, CaptureMode::Global, |s| step(&a, 1, s)).unwrap();
    let (second, p2) = capture_into(&shared, &stream, CaptureMode::Global, |s| step(&b, 2, s)).unwrap();
    assert_eq!(p1, p2, "the second capture reuses the block the first freed");
    let (third, p3) = stream.capture(CaptureMode::Global, |s| step(&b, 3, s)).unwrap();
    assert_ne!(p3, p1, "a capture of its own does not take the shared pool's blocks");
    // Replayed in capture order, one after another.
    let execs = (first.instantiate().unwrap(), second.instantiate().unwrap());
    execs.0.launch(&stream).unwrap();
    execs.1.launch(&stream).unwrap();
    assert_eq!((read(&a), read(&b)), (vec![1; BYTES], vec![2; BYTES]));
    drop((execs, first, second, third));
    // The third capture's block goes back; the shared one is held by the handle.
    assert_eq!(pool.reclaim().unwrap(), BYTES);
    drop(shared);
    assert_eq!(pool.reclaim().unwrap(), BYTES, "the handle was the last holder");
}

/// The attack of issue 47: two graphs sharing a `GraphPool` block,
/// launched on two streams at once, would race on it (each fills the
/// shared scratch and copies it out). Their launches share one order: the
/// second stream waits for the first launch on the GPU.
#[test]
fn graphs_sharing_a_graph_pool_never_replay_at_once() {
    let (_x, device, pool, stream) = setup();
    sim::clear_violations();
    let (a, b) = (pool.alloc(BYTES, &stream).unwrap(), pool.alloc(BYTES, &stream).unwrap());
    let step = |out: &Buffer, byte: u8, s: &Stream| {
        let scratch = pool.alloc(BYTES, s)?;
        fill(&scratch, byte, s)?;
        copy(out, &scratch, s)?;
        Ok::<_, PoolError>(scratch.as_ptr())
    };
    let shared = GraphPool::new(pool);
    let (first, p1) = capture_into(&shared, &stream, CaptureMode::Global, |s| step(&a, 1, s)).unwrap();
    let (second, p2) = capture_into(&shared, &stream, CaptureMode::Global, |s| step(&b, 2, s)).unwrap();
    assert_eq!(p1, p2, "the graphs share the scratch block");
    let (one, two) = (first.instantiate().unwrap(), second.instantiate().unwrap());
    let (s1, s2) = (Stream::new_on(device).unwrap(), Stream::new_on(device).unwrap());
    for round in 0..4 {
        // The first replay is held on its stream; the second, on another
        // stream, must not run before it.
        let hold = common::on_sim().then(|| sim::hold_stream(s1.as_raw()).unwrap());
        one.launch(&s1).unwrap();
        two.launch(&s2).unwrap();
        if let Some(hold) = hold {
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(!s2.query().unwrap(), "round {round}: the second replay ran before the first");
            hold.release();
        }
        s2.synchronize().unwrap();
        assert_eq!((read(&a), read(&b)), (vec![1; BYTES], vec![2; BYTES]), "round {round}");
    }
    assert!(common::stream_races().is_empty(), "{:?}", common::stream_races());
    // A graph of its own, on other memory, is not held back by them.
    let c = pool.alloc(BYTES, &stream).unwrap();
    let (third, ()) = stream.capture(CaptureMode::Global, |s| fill(&c, 3, s)).unwrap();
    let three = third.instantiate().unwrap();
    if common::on_sim() {
        let hold = sim::hold_stream(s1.as_raw()).unwrap();
        one.launch(&s1).unwrap();
        three.launch(&s2).unwrap();
        s2.synchronize().unwrap();
        hold.release();
    }
    s1.synchronize().unwrap();
}

#[test]
fn a_driver_free_during_a_capture_runs_when_it_ends() {
    let (_x, device, _pool, stream) = setup();
    let pass_through = Pool::new(device, Strategy::None).unwrap();
    let other = Stream::new_on(device).unwrap();
    let buffer = pass_through.alloc(BYTES, &other).unwrap();
    let target = pass_through.alloc(BYTES, &stream).unwrap();
    let frees = || sim::thread_call_count("hipFree");
    let before = frees();
    let (graph, ()) = stream
        .capture(CaptureMode::Global, |s| {
            fill(&target, 2, s)?;
            // hipFree in a Global capture breaks it: the free waits.
            drop(buffer);
            if common::on_sim() {
                assert_eq!(frees(), before, "freed during the capture");
            }
            Ok::<_, PoolError>(())
        })
        .unwrap();
    if common::on_sim() {
        assert_eq!(frees(), before + 1, "freed when the capture ended");
    }
    graph.instantiate().unwrap().launch(&stream).unwrap();
    assert_eq!(read(&target), vec![2; BYTES]);
}

#[test]
fn every_rule_holds_as_hip_5() {
    common::rerun_as_hip_5();
}
