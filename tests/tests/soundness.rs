//! The standing attack suite: safe programs that would race, read under a
//! live borrow, overflow or lose data, each refused (a compile error, an
//! error, or a wait). One test per attack; its name says what it tries.
//!
//! What each kind of API resists, and where the attack lives:
//!
//! | API | attack | resisted by | test |
//! |---|---|---|---|
//! | host references (`HostBuffer::as_slice`, `as_mut_slice`) | a graph replay writes under a live `&[T]`, or reads in the middle of a `&mut [T]` | the guards count as host borrows; a replay that conflicts is refused | `a_replay_never_writes_under_a_host_view`, `a_replay_never_reads_under_a_host_write` |
//! | graph holds on pooled memory (`GraphPool`) | two graphs sharing private blocks replayed on two streams at once | their launches share one order: one event on a stream switch | `graphs_sharing_a_graph_pool_never_replay_at_once` |
//! | sizes from user input (`LaunchConfig`, array lengths) | a launch whose thread count overflows `u64` passes a short per-thread array | counts in `u128`, saturating, then refused | `a_launch_whose_thread_count_overflows_is_refused`, `tests/tests/size_extremes.rs` |
//! | `copy_scope` (borrow until the stream drained) | another thread's capture makes the final wait fail, and the results are thrown away | the scope waits for foreign captures to end | `copy_scope_waits_out_another_threads_capture` |
//! | `GraphExec::launch` | a launch onto a capturing stream, which AMD runs at once outside the capture | refused first, typed | `a_launch_onto_a_capturing_stream_is_refused` |
//! | `std::mem::forget` of a host guard | a forgotten view lets replays write under it later | a forgotten guard keeps refusing replays (never unsound) | `a_forgotten_host_view_keeps_refusing_replays` |
//! | `copy_scope` escapes, graph holds on dropped buffers, `Send`/`Sync` | see `copy_scope.rs`'s compile-fail docs, `graph_replays.rs`, each crate's `tests/bounds.rs` | | |

use amdgpu::kernel::{Kernel, Out, PerThread};
use amdgpu::prelude::*;
use amdgpu::{CaptureMode, Error, GraphExec, LaunchConfig};
use hip_core::HipError;
use hip_sys::{sim, Backend};

mod common;

#[test]
fn a_launch_whose_thread_count_overflows_is_refused() {
    let _x = sim::exclusive();
    let Some(module) = common::test_module(device()) else { return };
    // SAFETY: fill_f32(float* p, float value, uint32_t n) writes
    // p[0..min(n, threads)); the per-thread rule bounds it by the threads.
    let fill = unsafe { Kernel::<(Out<f32, PerThread>, f32, u32)>::from_module(&module, "fill_f32") }.unwrap();
    let mut four = DeviceArray::<f32>::zeros(4).unwrap();
    // Every axis within the device's limits (grid.x 2^30 of INT32_MAX,
    // y and z 2^16 as AMD reports, 16 threads a block, no axis above
    // u32::MAX threads), and 2^66 threads in all: 0 in a u64.
    let config = LaunchConfig { grid: [1 << 30, 1 << 16, 1 << 16], block: [1, 4, 4], shared_memory: 0 };
    assert_eq!(config.threads(), 1 << 66);
    assert_eq!(config.blocks(), 1 << 62);
    let before = sim::call_count("hipModuleLaunchKernel");
    let error = fill.launch(config, &stream(), (&mut four, 1.0f32, 4)).unwrap_err();
    match &error {
        Error::ArgumentTooShort { argument: 0, len: 4, needed, .. } => assert_eq!(*needed, 1 << 66),
        // The H200 reports 65535 blocks in y and z.
        Error::Hip(HipError::InvalidLaunch(_)) if amdgpu::backend() != Backend::Sim => {}
        other => panic!("{other}"),
    }
    assert_eq!(sim::call_count("hipModuleLaunchKernel"), before, "nothing was launched");
    assert_eq!(four.to_vec().unwrap(), [0.0; 4]);
    // Any grid and block, even past every limit: a count, never a wrap.
    let most = LaunchConfig { grid: [u32::MAX; 3], block: [u32::MAX; 3], shared_memory: 0 };
    assert_eq!(most.threads(), u128::MAX, "saturated");
    assert_eq!(most.blocks(), u128::from(u32::MAX).pow(3));
}

/// A graph that copies `source` into `out` (pinned host memory) at each
/// replay, on `stream`.
fn copy_out_graph(source: &DeviceArray<f32>, out: &mut HostBuffer<f32>, stream: &Stream) -> GraphExec {
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| source.copy_to_host_async(out, s)).unwrap();
    graph.instantiate().unwrap()
}

#[test]
fn a_replay_never_writes_under_a_host_view() {
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    let source = DeviceArray::from_slice(&[7.0f32; 4]).unwrap();
    let mut out = HostBuffer::<f32>::zeroed(4).unwrap();
    let exec = copy_out_graph(&source, &mut out, &stream);
    let view = out.as_slice().unwrap();
    let refused = exec.launch(&stream).unwrap_err();
    assert!(matches!(refused, HipError::HostBorrowed { operation: "GraphExec::launch", .. }), "{refused}");
    assert!(refused.to_string().contains("drop the host view"), "{refused}");
    stream.synchronize().unwrap();
    assert_eq!(view, [0.0; 4], "the view did not change under its borrow");
    drop(view);
    exec.launch(&stream).unwrap();
    assert_eq!(out.as_slice().unwrap(), [7.0; 4], "the view waits for the replay's copy");
}

#[test]
fn a_replay_never_reads_under_a_host_write() {
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    let mut input = HostBuffer::from_slice(&[1.0f32; 4]).unwrap();
    let mut array = DeviceArray::<f32>::zeros(4).unwrap();
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| array.copy_from_host_async(&input, s)).unwrap();
    let exec = graph.instantiate().unwrap();
    {
        let mut write = input.as_mut_slice().unwrap();
        let refused = exec.launch(&stream).unwrap_err();
        assert!(matches!(refused, HipError::HostBorrowed { .. }), "{refused}");
        write.fill(5.0);
    }
    exec.launch(&stream).unwrap();
    assert_eq!(array.to_vec().unwrap(), [5.0; 4], "the replay after the write copies what was written");
    // Host writes wait for the last replay's read; reads may overlap it.
    input.as_mut_slice().unwrap().fill(6.0);
    let read = input.as_slice().unwrap();
    exec.launch(&stream).unwrap();
    drop(read);
    assert_eq!(array.to_vec().unwrap(), [6.0; 4]);
}

#[test]
fn a_forgotten_host_view_keeps_refusing_replays() {
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    let source = DeviceArray::from_slice(&[7.0f32; 4]).unwrap();
    let mut out = HostBuffer::<f32>::zeroed(4).unwrap();
    let exec = copy_out_graph(&source, &mut out, &stream);
    std::mem::forget(out.as_slice().unwrap());
    for _ in 0..3 {
        assert!(matches!(exec.launch(&stream), Err(HipError::HostBorrowed { .. })));
    }
    stream.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap(), [0.0; 4], "no replay ever wrote under the forgotten view");
    // A forgotten write view refuses replays that only read, too.
    let mut input = HostBuffer::from_slice(&[1.0f32; 4]).unwrap();
    let mut array = DeviceArray::<f32>::zeros(4).unwrap();
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| array.copy_from_host_async(&input, s)).unwrap();
    let reads = graph.instantiate().unwrap();
    std::mem::forget(input.as_mut_slice().unwrap());
    assert!(matches!(reads.launch(&stream), Err(HipError::HostBorrowed { .. })));
}

#[test]
fn a_view_taken_while_replays_run_on_another_thread_sees_whole_replays() {
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    let mut out = HostBuffer::<f32>::zeroed(1024).unwrap();
    let mut source = DeviceArray::<f32>::zeros(1024).unwrap();
    let exec = copy_out_graph(&source, &mut out, &stream);
    source.copy_from_slice(&[3.0; 1024]).unwrap();
    std::thread::scope(|scope| {
        let launcher = scope.spawn(|| {
            let (mut launched, mut refused) = (0, 0);
            for _ in 0..200 {
                match exec.launch(&stream) {
                    Ok(()) => launched += 1,
                    Err(HipError::HostBorrowed { .. }) => refused += 1,
                    Err(other) => panic!("{other}"),
                }
            }
            (launched, refused)
        });
        for _ in 0..200 {
            let view = out.as_slice().unwrap();
            assert!(view.iter().all(|v| *v == view[0]), "a view saw a replay's copy half done");
        }
        let (launched, refused) = launcher.join().unwrap();
        assert_eq!(launched + refused, 200);
    });
    stream.synchronize().unwrap();
}

#[test]
fn a_launch_onto_a_capturing_stream_is_refused() {
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    let mut array = DeviceArray::<f32>::zeros(4).unwrap();
    let twos = DeviceArray::from_slice(&[2.0f32; 4]).unwrap();
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| array.copy_from_async(&twos, s)).unwrap();
    let exec = graph.instantiate().unwrap();
    let other = Stream::new().unwrap();
    let outcome = other.capture(CaptureMode::Global, |s| exec.launch(s));
    let refused = outcome.unwrap_err();
    assert!(matches!(refused, HipError::CaptureUnderway { operation: "GraphExec::launch", .. }), "{refused}");
    assert!(refused.to_string().contains("after the capture ends"), "{refused}");
    exec.launch(&stream).unwrap();
    assert_eq!(array.to_vec().unwrap(), [2.0; 4]);
}

#[test]
fn copy_scope_waits_out_another_threads_capture() {
    let _x = sim::exclusive();
    let stream = Stream::new().unwrap();
    let input = HostBuffer::from_slice(&[4u32; 64]).unwrap();
    let mut output = HostBuffer::<u32>::zeroed(64).unwrap();
    let mut array = DeviceArray::<u32>::zeros(64).unwrap();
    let (began, ended) = (std::sync::Barrier::new(2), std::sync::atomic::AtomicBool::new(false));
    std::thread::scope(|scope| {
        let capturer = scope.spawn(|| {
            let other = Stream::new().unwrap();
            let mut scratch = DeviceArray::<u32>::zeros(4).unwrap();
            let ones = DeviceArray::from_slice(&[1u32; 4]).unwrap();
            other
                .capture(CaptureMode::Global, |s| {
                    began.wait();
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    ended.store(true, std::sync::atomic::Ordering::SeqCst);
                    scratch.copy_from_async(&ones, s)
                })
                .map(|_| ())
        });
        amdgpu::copy_scope(&stream, |copies| {
            copies.to_device(&mut array, &input)?;
            copies.to_host(&mut output, &array)?;
            began.wait();
            Ok(())
        })
        .expect("the scope waited for the other thread's capture instead of failing");
        assert!(ended.load(std::sync::atomic::Ordering::SeqCst), "the final wait came after that capture");
        capturer.join().unwrap().unwrap();
    });
    assert_eq!(output.as_slice().unwrap(), [4; 64], "nothing was lost");
}
