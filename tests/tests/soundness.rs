//! The standing attack suite: safe programs that would race, read under a
//! live borrow, overflow or lose data, each refused (a compile error, an
//! error, or a wait). One test per attack; its name says what it tries.
//!
//! # The attacks of issue 47, and where they are resisted
//!
//! | API | attack | resisted by | test |
//! |---|---|---|---|
//! | host references (`HostBuffer::as_slice`, `as_mut_slice`) | a graph replay writes under a live `&[T]`, or reads in the middle of a `&mut [T]` | the guards count as host views; a replay that conflicts is refused | `a_replay_never_writes_under_a_host_view`, `a_replay_never_reads_under_a_host_write`, `a_view_taken_while_replays_run_on_another_thread_sees_whole_replays` |
//! | managed memory (`ManagedArray::as_slice`, `as_mut_slice`) | the host reads while a kernel queued on the array's own stream still writes; a replay on the own stream (which skips the hooks of ordinary device memory) writes under a live `&[T]`; a forgotten view | the view waits for the own stream and the other streams' uses; the buffer allows host views at creation, so every replay of it, on any stream, is counted against them and refused on a conflict; `&mut` keeps direct device writes out (compile error) | `managed_array.rs` (with its compile_fail doc test) |
//! | graph holds on pooled memory (`GraphPool`) | two graphs sharing private blocks replayed on two streams at once | their launches share one `ReplayOrder`: one event on a stream switch | `capture_pool.rs`: `graphs_sharing_a_graph_pool_never_replay_at_once` |
//! | sizes from user input (`LaunchConfig`, lengths, shapes) | a launch whose thread count overflows `u64` passes a short per-thread array; a convolution padding wraps its output's count to 0 | counts in `u128`, saturating; every step checked, then refused | `a_launch_whose_thread_count_overflows_is_refused`, `size_extremes.rs` |
//! | `copy_scope` | another thread's capture makes the final wait fail, and every host buffer is marked lost | the scope waits for foreign captures to end | `copy_scope_waits_out_another_threads_capture` |
//! | `GraphExec::launch` | a launch onto a capturing stream, which AMD runs at once outside the capture | refused first, typed | `a_launch_onto_a_capturing_stream_is_refused` |
//! | DLPack (`DeviceArray::into_dlpack`, `from_dlpack`, `DlTensor::with_array(_mut)`) | a consumer reads the tensor before the producer's queued write; frees it while its read is queued and the next owner writes; a shape or strides whose span overflows; a refused tensor leaked or deleted twice; writing a read-only tensor; forgetting an imported array; moving a borrowed tensor's array out of its scope | the consumer's stream waits for the producer's event; the deleter records the consumer's use for the next owner; checked spans (i128); the `DlTensor` owner deletes once on every path; `array_mut` refused; a forgotten import leaks, never frees; the scope hands out a view whose lifetime ends with it, and waits for its work | `dlpack.rs`; `with_array_mut`'s compile_fail doc test |
//! | IPC (`hip_pool::ipc::share`, `open`) | another process reads before the exporter's queued write; the exporter drops a shared buffer (and the pool reuses its block) while another process has it open, or keeps it forever for an importer that crashed; a forged or corrupt handle names memory past its allocation | the handle's IPC event, waited for on the opener's stream, and recorded for another share only once no process can open its own (two live shares on one event could deadlock an opener); a shared buffer is held, its release deferred until the ledger (joined before each open) closes atomically with no living importer, a dead process's entry not counting; the handle's place checked against the opened allocation's size | `hip-pool/tests/pool_ipc.rs`, `hip-sys/tests/sim_ipc.rs` |
//! | `std::mem::forget` of a host view | a forgotten view lets replays write under it later | a forgotten view keeps refusing replays (never unsound) | `a_forgotten_host_view_keeps_refusing_replays` |
//!
//! # Every `unsafe impl Send`/`Sync` and every `Drop` of the safe crates
//!
//! What each resists (`cargo xtask soundness` fails when a type with one
//! of them is missing here, named with its file). Send and Sync bounds are
//! pinned by each crate's `tests/bounds.rs`; the drops' touching no thread
//! state by the drop audit (`cargo xtask audit`) and `seed_rules.rs`.
//!
//! | type | what | the attack it resists | how | tests |
//! |---|---|---|---|---|
//! | `Event` (hip-core/src/event.rs) | Send, Sync, Drop | record on one thread, wait on another that drops it; drop on a thread bound to another device | a thread-free handle, destroyed under its own device (HIP keeps it until the recorded work passes) | `seed_rules.rs`: `resources_of_device_1_dropped_on_a_device_0_thread` |
//! | `Context` (hip-core/src/context.rs) | Send, Sync | a primary context used on another thread | a process-wide identifier; each call binds it | hip-core `tests/bounds.rs` |
//! | `Graph` (hip-core/src/graph.rs) | Send, Sync, Drop | drop the graph while an exec made of it replays, freeing what it holds | each exec keeps the holds and the order itself | `graph_replays.rs` |
//! | `GraphExec` (hip-core/src/graph.rs) | Send, Sync, Drop | launch one exec (or two sharing memory) on two streams from two threads at once; drop it under a queued launch; replay under a host view | launches serialized by their `ReplayOrder`, ordered on the GPU; the drop waits for the last launch (after the captures, if one is underway); host views refuse | this file; `graph_replays.rs`: `an_exec_dropped_during_a_capture_is_freed_after_it_and_the_capture_survives` |
//! | `Observer` (hip-core/src/graph.rs) | Send, Sync | a launch reads a resource's counter after the resource went | the counter lives inside the resource the observer holds | `graph_replays.rs` (replays on the buffers' own stream) |
//! | `Retire` (hip-core/src/graph.rs) | Send | an exec destroyed twice, or under its last launch, when its drop is put off past a capture | destroyed once, by whichever thread runs it, after the wait | `graph_replays.rs`: `an_exec_dropped_during_a_capture_is_freed_after_it_and_the_capture_survives` |
//! | `OpenCapture` (hip-core/src/graph.rs) | Drop | a capture's closure panics and leaves the stream capturing (every later call refused) | ends the capture on unwind and discards its graph | `capture_pool.rs`, hip-core's capture tests |
//! | `Inner` (hip-core/src/module.rs) | Send, Sync, Drop | unload a module whose kernel is queued or captured | functions and graphs hold it; unloaded under its device | `graph_replays.rs` (graphs keep modules) |
//! | `Function` (hip-core/src/module.rs) | Send, Sync | launch one kernel from many threads | a thread-free handle that keeps its module loaded | `typed_launch.rs` |
//! | `Shared` (hip-core/src/shared.rs) | Send, Sync, Drop | a value shared across threads dropped by the last clone on another | `Arc`'s bounds: `T: Send + Sync` | hip-core's `shared` unit tests |
//! | `Kept` (hip-core/src/shared.rs) | Send, Sync | a kept value used after it went | kept values are never dropped | hip-core's `shared` unit tests |
//! | `Inner` (hip-core/src/stream.rs) | Send, Sync, Drop | destroy a stream with work queued, on a thread bound to another device | destroyed under its device; HIP finishes the queued work | `seed_rules.rs` |
//! | `Restore` (hip-core/src/underway.rs) | Drop | a panic inside `capture::relaxed` leaves the thread in the Relaxed mode, breaking later captures' rules | the mode restored on unwind | `capture_pool.rs`: `an_allocation_on_another_thread_does_not_break_a_global_capture` |
//! | `Reopen` (hip-core/src/underway.rs) | Drop | a panic in exclusive work holds every later capture back forever | reopened on unwind | `capture_pool.rs` (reclaims wait for captures) |
//! | `Range` (hip-core/src/profile/mod.rs) | Drop | close a range from another thread (closing that thread's innermost instead); drop ranges out of order; forget one | neither `Send` nor `Sync` (a compile error, `profile`'s compile_fail doc test); ranges close innermost first, a dropped outer one when the inner does; a forgotten range stays open, a wrong picture, never memory unsafety | `profile.rs` |
//! | `ThreadState` (hip-core/src/state.rs) | Drop | a thread's streams destroyed under another device at its exit | each under its device | `seed_rules.rs`: `many_threads_switching_and_dropping_across_threads` |
//! | `RestoreDevice` (hip-core/src/state.rs) | Drop | a panic in `with_device` leaves the thread on the other device (the seed's second problem) | restored on unwind | `seed_rules.rs` |
//! | `KeepDevice` (hip-core/src/state.rs) | Drop | as `RestoreDevice`, for a switch to the device the thread is on | restored on unwind when the closure left it | `seed_rules.rs` |
//! | `RestoreStream` (hip-core/src/state.rs) | Drop | a panic in `with_stream` leaves the thread's stream switched | restored on unwind | `seed_rules.rs` |
//! | `RestorePriority` (hip-core/src/state.rs) | Drop | a panic in `with_priority` leaves the priority switched | restored on unwind | hip-core's state tests |
//! | `DropScope` (hip-core/src/audit.rs) | Drop | (the audit's instrument) a drop's scope left open on a panic | closed on unwind | `cargo xtask audit` |
//! | `Restore` (hip-core/src/raw/current.rs) | Drop | a call through `on_device` panics and leaves HIP's current device switched | restored on unwind | `run_on.rs` |
//! | `Handle` (hip-core/src/raw/rtc.rs) | Drop | a failed compile leaks its hipRTC program | destroyed on every path | `rtc.rs` |
//! | `CapturedUse` (hip-pool/src/uses/captured.rs) | Drop | the last hold goes while a dropped buffer's release waits on it: the block leaked, or freed under a replay | the last hold runs the release, after the execs' retirement waited for their launches | `graph_replays.rs` |
//! | `Uses` (hip-pool/src/uses/mod.rs) | Drop | a buffer's use list freed while a graph's hold shares it | reference-counted | `hip-pool/tests/use_list.rs` |
//! | `LaunchGuard` (hip-pool/src/collective_gate.rs) | Drop | a panic during a group's launch leaves the gate closed, so every driver free waits forever | opened on unwind | `collective.rs` |
//! | `Local` (hip-pool/src/pool_core/caches.rs) | Drop | a thread exits with blocks in its cache: leaked, or reused under their pending uses | handed back to the pool with their events | `pool.rs`: `threads_sharing_a_device_reuse_their_own_blocks_without_the_pool` |
//! | `Steal` (hip-pool/src/pool_core/caches.rs) | Drop | a reclaim panics while holding every thread's cache still | the slots given back on unwind | `pool.rs`, `stress.rs` |
//! | `Slot` (hip-pool/src/pool_core/caches.rs) | Send, Sync | a reclaim on another thread takes a cache's blocks while its owner allocates from it | the steal protocol: busy flags and the barrier (module docs) | `stress.rs`, `pool_properties.rs` |
//! | `AsyncPool` (hip-pool/src/driver/stream_ordered.rs) | Send, Sync | HIP's pool handle used from many threads | a thread-free handle | `pool.rs` |
//! | `Buffer` (hip-pool/src/pool/buffer.rs) | Drop | drop a buffer a kernel of another stream still reads; its next owner writes it | its events go with the block; the next owner waits for them on the GPU | `stream_uses.rs`: `a_dropped_input_is_not_reused_while_another_stream_still_reads_it`, `drops_on_other_threads_keep_queued_uses_safe` |
//! | `Opened` (hip-pool/src/ipc/mod.rs) | Drop | close another process's memory while this process's work still uses it; leave its ledger before closing, letting the exporter free it under the open | the foreign buffer's release runs after every use is waited for; the close comes before the ledger entry leaves | `hip-pool/tests/pool_ipc.rs` |
//! | `OpenedChunks` (hip-pool/src/ipc/chunks.rs) | Drop | unmap another process's chunks while this process's work still uses them; leave the ledger before unmapping; release imported memory twice, or free addresses still mapped | the foreign buffer's release runs after every use is waited for; the chunks are unmapped and released, then the range freed, then the entry leaves (fields drop last); a failed open releases only what it imported | `a_buffer_of_the_strategy_is_shared_with_another_process_chunk_by_chunk` |
//! | `Entry` (hip-pool/src/ipc/ledger.rs) | Drop | an importer's count left behind, keeping the memory forever; or taken back from another process's cell | the count goes down in the cell the join took (its own process's), freed at zero; a dead process's cell is ignored and cleared by the exporter | hip-pool's ledger unit tests, `hip-pool/tests/pool_ipc.rs` |
//! | `Ledger` (hip-pool/src/ipc/ledger.rs) | Drop | a slot reused while an importer is still counted in it, so that a later share's close frees memory under the earlier importer | a slot goes back to the free list only once closed (no living importer, and later joins of its generation refused); one still joined is never reused | `a_freed_slot_is_reused_in_a_new_generation_that_old_handles_do_not_join`, `joins_racing_a_close_are_either_counted_or_refused` |
//! | `PrivatePool` (hip-pool/src/private_pool.rs) | Drop | the last graph of a capture goes while its blocks are in flight | blocks adopted by the device pool with their events | `capture_pool.rs` |
//! | `DlTensor` (amdgpu/src/dlpack/tensor.rs) | Send, Drop | a tensor deleted twice (a refused import, then its owner), or never; deleted on another thread than the one that took it | one owner, whose drop calls the deleter once (`into_raw` hands that duty over); DLPack's deleters run on any thread | `dlpack.rs`: `a_tensor_dropped_on_another_thread_is_deleted_once`, `every_refusal_deletes_the_tensor_once_and_says_why` |
//! | `DnnHandle` (hip-libs/src/dnn/handle.rs) | Send | one MIOpen handle used by two threads at once | not `Sync`; the cache gives it to one thread at a time | hip-libs `tests/bounds.rs` |
//! | `SparseHandle` (hip-libs/src/sparse/handle.rs) | Send | as `DnnHandle`, for rocSPARSE | as `DnnHandle` | hip-libs `tests/bounds.rs` |
//! | `RandHandle` (hip-libs/src/rand/generator.rs) | Send | as `DnnHandle`, for rocRAND | as `DnnHandle` | hip-libs `tests/bounds.rs` |
//! | `BlasHandle` (hip-libs/src/blas/handle.rs) | Send | as `DnnHandle`, for rocBLAS | as `DnnHandle` | hip-libs `tests/bounds.rs` |
//! | `ThreadHandles` (hip-libs/src/handle_cache.rs) | Drop | a thread's exit destroys its handles under the wrong device, or reads the thread state in a drop | each destroyed under its device | the drop audit, `seed_rules.rs` |
//! | `Communicator` (hip-libs/src/collective/communicator.rs) | Send, Drop | two threads call one communicator at once (NCCL forbids it); a drop with work queued waits for a peer forever | not `Sync`; a drop with work queued aborts | `collective.rs`: `dropping_a_communicator_with_work_queued_aborts_it` |
//! | `CsrMatrix` (hip-libs/src/sparse/csr.rs) | Send, Sync, Drop | one thread runs the analysis (writing the descriptor) while another computes with it | analysis under a write lock, computes under a read lock | `sparse.rs` |
//! | `Plan` (hip-libs/src/fft/plan.rs) | Send, Sync, Drop | two threads run one cached plan at once through one work area | a work area per call, from the pool | `fft.rs`: `threads_sharing_a_cached_plan_each_get_their_own_transform` |
//! | `ConvDesc` (hip-libs/src/dnn/conv_plan.rs) | Drop | a descriptor leaked on an error path | destroyed on drop | `dnn.rs` |
//! | `TensorDesc` (hip-libs/src/dnn/tensor.rs) | Drop | as `ConvDesc` | as `ConvDesc` | `dnn.rs` |
//! | `ActivationDesc` (hip-libs/src/dnn/activation.rs) | Drop | as `ConvDesc` | as `ConvDesc` | `dnn.rs` |
//! | `HostBuffer` (amdgpu/src/host/mod.rs) | Send, Sync, Drop | drop it while a copy or a graph still uses it; read it (`&`, from any thread) while a copy or a replay writes it | the drop waits, or leaves the release to the last hold; views wait for the copies and refuse replays | `host_copies.rs`: `dropping_a_host_buffer_waits_for_its_pending_copies`; this file |
//! | `HostRef` (amdgpu/src/host/guard.rs) | Drop | forget the view, then replay into the buffer | the count stays: those replays stay refused | `a_forgotten_host_view_keeps_refusing_replays` |
//! | `HostRefMut` (amdgpu/src/host/guard.rs) | Drop | as `HostRef`, for replays that read the buffer | as `HostRef` | `a_forgotten_host_view_keeps_refusing_replays` |
//! | `Drain` (amdgpu/src/copy_scope.rs) | Drop | a scope's closure panics, and the host memory is released before its copies ran | the wait happens on unwind | `copy_scope.rs`: `a_panicking_scope_still_waits_for_its_copies` |

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
