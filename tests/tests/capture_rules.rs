//! Stream capture and graphs through the raw HIP table, against clr's rules
//! (`hip_graph.cpp`, `hip_stream.cpp`, `hip_event.cpp`, the checks of
//! `hip_internal.hpp`), per HIP version: 5 is clr 5.7, 6 is 6.2 and later
//! (its strictest minors), 7 adds 7.x's changes. CI runs this file as HIP 7
//! and 6, and [`every_rule_holds_as_hip_5`] reruns it as HIP 5.
//!
//! Capture state is process-wide (a Global capture on one thread refuses
//! `hipMalloc` on every thread), so every test holds the simulator alone.
//! The first tests run on every backend (CUDA's rules agree there); the
//! rest are the simulator's model of clr and skip elsewhere.

use std::ffi::c_void;

use hip_sys::{
    hipError_t, hipEvent_t, hipGraphExecUpdateResult, hipGraphExec_t, hipGraphNode_t, hipGraph_t, hipMemcpyKind,
    hipStreamCaptureMode, hipStreamCaptureStatus, hipStream_t,
};

const GLOBAL: hipStreamCaptureMode = hipStreamCaptureMode::hipStreamCaptureModeGlobal;
const THREAD_LOCAL: hipStreamCaptureMode = hipStreamCaptureMode::hipStreamCaptureModeThreadLocal;
const RELAXED: hipStreamCaptureMode = hipStreamCaptureMode::hipStreamCaptureModeRelaxed;
const NONE: hipStreamCaptureStatus = hipStreamCaptureStatus::hipStreamCaptureStatusNone;
const ACTIVE: hipStreamCaptureStatus = hipStreamCaptureStatus::hipStreamCaptureStatusActive;
const INVALIDATED: hipStreamCaptureStatus = hipStreamCaptureStatus::hipStreamCaptureStatusInvalidated;
const N: usize = 1024;

mod common;
use common::raw::{api, end, hip, is_sim, on_device_0, sim_only, stream};

/// The simulated HIP major (5, 6 or 7); 0 on a real backend.
fn major() -> i32 {
    if !is_sim() {
        return 0;
    }
    let mut version = 0;
    hip!((api().hipRuntimeGetVersion)(&mut version));
    version / 10_000_000
}

/// Whether this version invalidates captures (clr 6.2 and later).
fn invalidates() -> bool {
    major() >= 6
}

fn event() -> hipEvent_t {
    let mut e = std::ptr::null_mut();
    hip!((api().hipEventCreateWithFlags)(&mut e, hip_sys::hipEventDisableTiming));
    e
}

/// `N` u32 of device memory, zeroed.
fn buffer() -> *mut c_void {
    let mut p = std::ptr::null_mut();
    hip!((api().hipMalloc)(&mut p, N * 4));
    hip!((api().hipMemset)(p, 0, N * 4));
    hip!((api().hipDeviceSynchronize)());
    p
}

fn read(p: *mut c_void) -> Vec<u32> {
    let mut out = vec![0u32; N];
    hip!((api().hipMemcpy)(out.as_mut_ptr().cast(), p, N * 4, hip_sys::hipMemcpyKind::hipMemcpyDeviceToHost));
    out
}

fn status(s: hipStream_t) -> hipStreamCaptureStatus {
    let mut now = NONE;
    hip!((api().hipStreamIsCapturing)(s, &mut now));
    now
}

fn fill(p: *mut c_void, value: u32, s: hipStream_t) -> hipError_t {
    // SAFETY: `p` holds `N` u32 (or was freed, which HIP checks).
    unsafe { (api().hipMemsetD32Async)(p, value as i32, N, s) }
}

fn instantiate(graph: hipGraph_t) -> hipGraphExec_t {
    let mut exec = std::ptr::null_mut();
    hip!((api().hipGraphInstantiate)(&mut exec, graph, std::ptr::null_mut(), std::ptr::null_mut(), 0));
    exec
}

fn node_count(graph: hipGraph_t) -> usize {
    let mut count = 0;
    hip!((api().hipGraphGetNodes)(graph, std::ptr::null_mut(), &mut count));
    count
}

#[test]
fn captured_work_runs_only_when_the_graph_is_launched() {
    let _x = on_device_0();
    let (a, b) = (buffer(), buffer());
    let s = stream();
    hip!((api().hipStreamBeginCapture)(s, GLOBAL));
    assert_eq!(status(s), ACTIVE);
    assert_eq!(fill(a, 7, s), hipError_t::hipSuccess);
    hip!((api().hipMemcpyAsync)(b, a, N * 4, hip_sys::hipMemcpyKind::hipMemcpyDeviceToDevice, s));
    let (ended, graph) = end(s);
    assert_eq!(ended, hipError_t::hipSuccess);
    assert_eq!(status(s), NONE);
    assert_eq!(node_count(graph), 2);
    hip!((api().hipStreamSynchronize)(s));
    assert_eq!(read(b), vec![0; N], "captured work did not run at capture");
    let exec = instantiate(graph);
    for round in 0..3 {
        hip!((api().hipMemset)(a, 0, N * 4));
        hip!((api().hipDeviceSynchronize)());
        hip!((api().hipGraphLaunch)(exec, s));
        hip!((api().hipStreamSynchronize)(s));
        assert_eq!(read(b), vec![7; N], "launch {round}");
    }
    hip!((api().hipGraphExecDestroy)(exec));
    hip!((api().hipGraphDestroy)(graph));
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(a));
    hip!((api().hipFree)(b));
}

#[test]
fn forks_and_joins_through_events_make_one_graph() {
    let _x = on_device_0();
    let (a, b) = (buffer(), buffer());
    let (s1, s2) = (stream(), stream());
    let (fork, join) = (event(), event());
    hip!((api().hipStreamBeginCapture)(s1, GLOBAL));
    hip!((api().hipEventRecord)(fork, s1));
    hip!((api().hipStreamWaitEvent)(s2, fork, 0));
    assert_eq!(status(s2), ACTIVE, "a stream that waits on a captured event joins the capture");
    let (mut id1, mut id2) = (0, 0);
    let mut st = NONE;
    hip!((api().hipStreamGetCaptureInfo)(s1, &mut st, &mut id1));
    hip!((api().hipStreamGetCaptureInfo)(s2, &mut st, &mut id2));
    assert_eq!(id1, id2, "one capture, one id");
    assert_eq!(fill(a, 1, s1), hipError_t::hipSuccess);
    assert_eq!(fill(b, 2, s2), hipError_t::hipSuccess);
    hip!((api().hipEventRecord)(join, s2));
    hip!((api().hipStreamWaitEvent)(s1, join, 0));
    let (ended, graph) = end(s1);
    assert_eq!(ended, hipError_t::hipSuccess);
    assert_eq!(status(s2), NONE, "ending the capture ends it for the joined stream");
    assert_eq!(node_count(graph), 2);
    let exec = instantiate(graph);
    hip!((api().hipGraphLaunch)(exec, s1));
    hip!((api().hipStreamSynchronize)(s1));
    assert_eq!((read(a), read(b)), (vec![1; N], vec![2; N]));
    hip!((api().hipGraphExecDestroy)(exec));
    hip!((api().hipGraphDestroy)(graph));
    for e in [fork, join] {
        hip!((api().hipEventDestroy)(e));
    }
    for s in [s1, s2] {
        hip!((api().hipStreamDestroy)(s));
    }
    hip!((api().hipFree)(a));
    hip!((api().hipFree)(b));
}

/// A graph that forks from `s1` to `s2` and joins back: `s1` fills `a`
/// then `shared`, `s2` fills `b` then `shared` (with `ordered`, only after
/// waiting for `s1`'s fill of it, through a second fork event).
fn branches_graph(
    s1: hipStream_t,
    s2: hipStream_t,
    a: *mut c_void,
    b: *mut c_void,
    shared: *mut c_void,
    ordered: bool,
) -> hipGraph_t {
    let (fork, again, join) = (event(), event(), event());
    hip!((api().hipStreamBeginCapture)(s1, GLOBAL));
    hip!((api().hipEventRecord)(fork, s1));
    hip!((api().hipStreamWaitEvent)(s2, fork, 0));
    assert_eq!(fill(a, 1, s1), hipError_t::hipSuccess);
    assert_eq!(fill(b, 2, s2), hipError_t::hipSuccess);
    assert_eq!(fill(shared, 3, s1), hipError_t::hipSuccess);
    if ordered {
        hip!((api().hipEventRecord)(again, s1));
        hip!((api().hipStreamWaitEvent)(s2, again, 0));
    }
    assert_eq!(fill(shared, 4, s2), hipError_t::hipSuccess);
    hip!((api().hipEventRecord)(join, s2));
    hip!((api().hipStreamWaitEvent)(s1, join, 0));
    let (ended, graph) = end(s1);
    assert_eq!(ended, hipError_t::hipSuccess);
    for e in [fork, again, join] {
        hip!((api().hipEventDestroy)(e));
    }
    graph
}

#[test]
fn branches_of_one_graph_that_touch_the_same_memory_unordered_are_a_reported_race() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let (a, b, shared) = (buffer(), buffer(), buffer());
    let (s1, s2, launch) = (stream(), stream(), stream());
    for ordered in [true, false] {
        let graph = branches_graph(s1, s2, a, b, shared, ordered);
        let exec = instantiate(graph);
        hip_sys::sim::clear_violations();
        {
            let _expected = hip_sys::sim::expect_races();
            for _ in 0..2 {
                hip!((api().hipGraphLaunch)(exec, launch));
            }
            hip!((api().hipStreamSynchronize)(launch));
        }
        let races: Vec<_> = hip_sys::sim::violations().into_iter().filter_map(|v| v.race).collect();
        if ordered {
            assert!(races.is_empty(), "the branches' fills of one buffer are ordered by an event: {races:?}");
            assert_eq!(read(shared), vec![4; N], "the second branch's fill is the later one");
        } else {
            // One race a launch: the two branches' fills of `shared`.
            assert_eq!(races.len(), 2, "{races:?}");
            assert!(races.iter().all(|r| !r.after_free && r.len == N * 4), "{races:?}");
        }
        assert_eq!((read(a), read(b)), (vec![1; N], vec![2; N]));
        hip!((api().hipGraphExecDestroy)(exec));
        hip!((api().hipGraphDestroy)(graph));
    }
    for s in [s1, s2, launch] {
        hip!((api().hipStreamDestroy)(s));
    }
    for p in [a, b, shared] {
        hip!((api().hipFree)(p));
    }
}

/// A graph of `fills` fills of `p` (on `s`).
fn fills_graph(s: hipStream_t, p: *mut c_void, values: &[u32]) -> hipGraph_t {
    hip!((api().hipStreamBeginCapture)(s, GLOBAL));
    for &v in values {
        assert_eq!(fill(p, v, s), hipError_t::hipSuccess);
    }
    let (ended, graph) = end(s);
    assert_eq!(ended, hipError_t::hipSuccess);
    graph
}

#[test]
fn an_exec_takes_the_parameters_of_a_graph_of_the_same_shape() {
    let _x = on_device_0();
    let a = buffer();
    let s = stream();
    let first = fills_graph(s, a, &[3, 4]);
    let same_shape = fills_graph(s, a, &[5, 6]);
    let other_shape = fills_graph(s, a, &[9]);
    let exec = instantiate(first);
    let mut node: hipGraphNode_t = std::ptr::null_mut();
    let mut result = hipGraphExecUpdateResult::hipGraphExecUpdateSuccess;
    hip!(
        hipError_t::hipErrorGraphExecUpdateFailure,
        (api().hipGraphExecUpdate)(exec, other_shape, &mut node, &mut result)
    );
    assert_eq!(result, hipGraphExecUpdateResult::hipGraphExecUpdateErrorTopologyChanged);
    hip!((api().hipGraphExecUpdate)(exec, same_shape, &mut node, &mut result));
    assert_eq!(result, hipGraphExecUpdateResult::hipGraphExecUpdateSuccess);
    hip!((api().hipGraphLaunch)(exec, s));
    hip!((api().hipStreamSynchronize)(s));
    assert_eq!(read(a), vec![6; N], "the updated parameters ran");
    hip!((api().hipGraphExecDestroy)(exec));
    for g in [first, same_shape, other_shape] {
        hip!((api().hipGraphDestroy)(g));
    }
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(a));
}

/// A graph of one copy of `N` u32 from `src` to `dst` with `kind`.
fn copy_graph(s: hipStream_t, dst: *mut c_void, src: *mut c_void, kind: hipMemcpyKind) -> hipGraph_t {
    hip!((api().hipStreamBeginCapture)(s, GLOBAL));
    hip!((api().hipMemcpyAsync)(dst, src, N * 4, kind, s));
    let (ended, graph) = end(s);
    assert_eq!(ended, hipError_t::hipSuccess);
    graph
}

/// hip-tests' `Unit_hipGraphExecUpdate_Negative_Functional_ParametersChanged`:
/// a copy node whose kind changed (host to device, then device to host)
/// is refused from clr 6.0 on, naming the new graph's node; clr 5.7
/// compares no kinds. Copies given `hipMemcpyDefault` both ways compare
/// equal, as their kinds do.
#[test]
fn an_exec_update_refuses_a_copy_whose_kind_changed_from_hip_6() {
    let _x = on_device_0();
    sim_only!("clr's hipGraphExecUpdate kind check (CUDA's answer is not modelled)");
    let device = buffer();
    let mut host = std::ptr::null_mut();
    hip!((api().hipHostMalloc)(&mut host, N * 4, 0));
    let s = stream();
    let to_device = copy_graph(s, device, host, hipMemcpyKind::hipMemcpyHostToDevice);
    let to_host = copy_graph(s, host, device, hipMemcpyKind::hipMemcpyDeviceToHost);
    let exec = instantiate(to_device);
    let mut node: hipGraphNode_t = std::ptr::null_mut();
    let mut result = hipGraphExecUpdateResult::hipGraphExecUpdateSuccess;
    // SAFETY: valid out-pointers.
    let status = unsafe { (api().hipGraphExecUpdate)(exec, to_host, &mut node, &mut result) };
    if major() >= 6 {
        assert_eq!(status, hipError_t::hipErrorGraphExecUpdateFailure);
        assert_eq!(result, hipGraphExecUpdateResult::hipGraphExecUpdateErrorParametersChanged);
        let mut nodes = [std::ptr::null_mut(); 1];
        let mut count = 1;
        hip!((api().hipGraphGetNodes)(to_host, nodes.as_mut_ptr(), &mut count));
        assert_eq!(node, nodes[0], "the new graph's copy node is named");
    } else {
        assert_eq!((status, result), (hipError_t::hipSuccess, hipGraphExecUpdateResult::hipGraphExecUpdateSuccess));
    }
    let default = hipMemcpyKind::hipMemcpyDefault;
    let (either, other) = (copy_graph(s, device, host, default), copy_graph(s, host, device, default));
    let exec_default = instantiate(either);
    hip!((api().hipGraphExecUpdate)(exec_default, other, &mut node, &mut result));
    assert_eq!(result, hipGraphExecUpdateResult::hipGraphExecUpdateSuccess);
    for e in [exec, exec_default] {
        hip!((api().hipGraphExecDestroy)(e));
    }
    for g in [to_device, to_host, either, other] {
        hip!((api().hipGraphDestroy)(g));
    }
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipHostFree)(host));
    hip!((api().hipFree)(device));
}

#[test]
fn a_graphs_nodes_need_an_array_with_room_or_none() {
    let _x = on_device_0();
    let mut graph = std::ptr::null_mut();
    hip!((api().hipGraphCreate)(&mut graph, 0));
    let mut count = 0;
    hip!((api().hipGraphGetNodes)(graph, std::ptr::null_mut(), &mut count));
    assert_eq!(count, 0);
    let mut nodes = [std::ptr::null_mut(); 2];
    // No room: CUDA refuses it (clr does not); the simulator keeps CUDA's answer.
    hip!(hipError_t::hipErrorInvalidValue, (api().hipGraphGetNodes)(graph, nodes.as_mut_ptr(), &mut count));
    count = 2;
    hip!((api().hipGraphGetNodes)(graph, nodes.as_mut_ptr(), &mut count));
    assert_eq!(count, 0, "the count says how many nodes there are");
    hip!((api().hipGraphDestroy)(graph));
}

#[test]
fn begin_end_and_the_queries_answer_as_clr() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let target = buffer_for_capture();
    let s = stream();
    let null: hipStream_t = std::ptr::null_mut();
    hip!(hipError_t::hipErrorStreamCaptureUnsupported, (api().hipStreamBeginCapture)(null, GLOBAL));
    hip!(hipError_t::hipErrorInvalidValue, (api().hipStreamBeginCapture)(s, hipStreamCaptureMode(3)));
    assert_eq!(end(s).0, hipError_t::hipErrorIllegalState, "not capturing");
    hip!((api().hipStreamBeginCapture)(s, GLOBAL));
    hip!(hipError_t::hipErrorIllegalState, (api().hipStreamBeginCapture)(s, GLOBAL));
    hip!(hipError_t::hipErrorInvalidValue, (api().hipStreamEndCapture)(s, std::ptr::null_mut()));
    assert_eq!(end(null).0, hipError_t::hipErrorIllegalState);
    let mut now = NONE;
    hip!(hipError_t::hipErrorStreamCaptureImplicit, (api().hipStreamIsCapturing)(null, &mut now));
    let (mut id, mut deps, mut count): (u64, *const hipGraphNode_t, usize) = (0, std::ptr::null(), 9);
    hip!((api().hipStreamGetCaptureInfo_v2)(s, &mut now, &mut id, std::ptr::null_mut(), &mut deps, &mut count));
    assert_eq!((now, count), (ACTIVE, 0));
    assert!(id > 0);
    assert_eq!(fill(target, 1, s), hipError_t::hipSuccess);
    let mut capturing: hipGraph_t = std::ptr::null_mut();
    hip!((api().hipStreamGetCaptureInfo_v2)(s, &mut now, &mut id, &mut capturing, &mut deps, &mut count));
    assert_eq!(count, 1, "the fill is what the next node depends on");
    assert!(!capturing.is_null(), "the graph being captured");
    let (ended, graph) = end(s);
    assert_eq!(ended, hipError_t::hipSuccess);
    assert_eq!(graph, capturing, "the capture's graph is the one shown while capturing");
    hip!((api().hipGraphDestroy)(graph));
    hip!(hipError_t::hipErrorIllegalState, (api().hipGraphDestroy)(graph));
    hip!(hipError_t::hipErrorInvalidValue, (api().hipGraphDestroy)(std::ptr::null_mut()));
    // A non-blocking stream's capture leaves the null stream alone.
    let mut quiet = std::ptr::null_mut();
    hip!((api().hipStreamCreateWithFlags)(&mut quiet, hip_sys::hipStreamNonBlocking));
    hip!((api().hipStreamBeginCapture)(quiet, RELAXED));
    hip!((api().hipStreamIsCapturing)(null, &mut now));
    assert_eq!(now, NONE);
    let (ended, graph) = end(quiet);
    assert_eq!(ended, hipError_t::hipSuccess);
    hip!((api().hipGraphDestroy)(graph));
    hip!((api().hipStreamDestroy)(quiet));
    hip!((api().hipStreamDestroy)(s));
}

/// Device memory for a capture to fill: call it before a capture begins
/// (its first call allocates, which a capture refuses).
fn buffer_for_capture() -> *mut c_void {
    thread_local! {
        static BUFFER: usize = buffer() as usize;
    }
    BUFFER.with(|b| *b as *mut c_void)
}

#[test]
fn only_the_thread_that_began_a_capture_ends_it_unless_relaxed() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let s = stream() as usize;
    hip!((api().hipStreamBeginCapture)(s as hipStream_t, GLOBAL));
    let elsewhere = std::thread::spawn(move || end(s as hipStream_t).0).join().unwrap();
    assert_eq!(elsewhere, hipError_t::hipErrorStreamCaptureWrongThread);
    assert_eq!(status(s as hipStream_t), ACTIVE, "a wrong-thread end changes nothing");
    let (ended, graph) = end(s as hipStream_t);
    assert_eq!(ended, hipError_t::hipSuccess);
    hip!((api().hipGraphDestroy)(graph));
    hip!((api().hipStreamBeginCapture)(s as hipStream_t, RELAXED));
    let (ended, graph) = std::thread::spawn(move || {
        let (e, g) = end(s as hipStream_t);
        (e, g as usize)
    })
    .join()
    .unwrap();
    assert_eq!(ended, hipError_t::hipSuccess, "a Relaxed capture ends on any thread");
    hip!((api().hipGraphDestroy)(graph as hipGraph_t));
    hip!((api().hipStreamDestroy)(s as hipStream_t));
}

/// Begin a capture of `mode` on a new stream, with one fill in it.
fn capturing(mode: hipStreamCaptureMode) -> hipStream_t {
    let target = buffer_for_capture();
    let s = stream();
    hip!((api().hipStreamBeginCapture)(s, mode));
    assert_eq!(fill(target, 1, s), hipError_t::hipSuccess);
    s
}

/// End the capture on `s` after a refused call: invalidated on HIP 6 and 7
/// (901, no graph), still whole on HIP 5.
fn assert_invalidated_per_version(s: hipStream_t) {
    let (ended, graph) = end(s);
    if invalidates() {
        assert_eq!(ended, hipError_t::hipErrorStreamCaptureInvalidated);
        assert!(graph.is_null());
        assert_eq!(status(s), INVALIDATED, "clr leaves the origin invalidated");
        hip!(hipError_t::hipErrorStreamCaptureInvalidated, (api().hipMemsetD32Async)(buffer_for_capture(), 0, N, s));
    } else {
        assert_eq!(ended, hipError_t::hipSuccess);
        hip!((api().hipGraphDestroy)(graph));
    }
    hip!((api().hipStreamDestroy)(s));
}

#[test]
fn allocations_during_a_global_capture_are_refused_on_every_thread() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let s = capturing(GLOBAL);
    let mut p = std::ptr::null_mut();
    hip!(hipError_t::hipErrorStreamCaptureUnsupported, (api().hipMalloc)(&mut p, 64));
    assert_invalidated_per_version(s);
    let s = capturing(GLOBAL);
    let other = std::thread::spawn(|| {
        let mut p = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { (api().hipMalloc)(&mut p, 64) }
    })
    .join()
    .unwrap();
    assert_eq!(other, hipError_t::hipErrorStreamCaptureUnsupported, "another thread in Global mode");
    assert_invalidated_per_version(s);
}

#[test]
fn relaxed_threads_and_thread_local_captures_leave_other_threads_free() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let s = capturing(GLOBAL);
    let relaxed = std::thread::spawn(|| {
        let mut mode = RELAXED;
        hip!((api().hipThreadExchangeStreamCaptureMode)(&mut mode));
        assert_eq!(mode, GLOBAL, "a thread starts in Global mode");
        let mut p = std::ptr::null_mut();
        hip!((api().hipMalloc)(&mut p, 64));
        hip!((api().hipFree)(p));
    });
    relaxed.join().unwrap();
    let (ended, graph) = end(s);
    assert_eq!(ended, hipError_t::hipSuccess, "a Relaxed thread's allocation does not touch the capture");
    hip!((api().hipGraphDestroy)(graph));
    hip!((api().hipStreamDestroy)(s));

    let s = capturing(THREAD_LOCAL);
    std::thread::spawn(|| {
        let mut p = std::ptr::null_mut();
        hip!((api().hipMalloc)(&mut p, 64));
        hip!((api().hipFree)(p));
    })
    .join()
    .unwrap();
    let mut p = std::ptr::null_mut();
    hip!(hipError_t::hipErrorStreamCaptureUnsupported, (api().hipMalloc)(&mut p, 64));
    assert_invalidated_per_version(s);
    let mut mode = hipStreamCaptureMode(7);
    hip!(hipError_t::hipErrorInvalidValue, (api().hipThreadExchangeStreamCaptureMode)(&mut mode));
}

#[test]
fn synchronous_copies_and_device_synchronize_break_captures() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let (a, b) = (buffer() as usize, buffer() as usize);
    // A synchronous copy on another thread, while a Relaxed capture runs.
    let s = capturing(RELAXED);
    let copied = std::thread::spawn(move || {
        // SAFETY: two buffers of N u32.
        unsafe {
            (api().hipMemcpy)(
                b as *mut c_void,
                a as *const c_void,
                N * 4,
                hip_sys::hipMemcpyKind::hipMemcpyDeviceToDevice,
            )
        }
    });
    let copied = copied.join().unwrap();
    if invalidates() {
        assert_eq!(copied, hipError_t::hipErrorStreamCaptureImplicit, "any capture, any mode, any thread");
    } else {
        assert_eq!(copied, hipError_t::hipSuccess, "HIP 5 refuses only for Global captures");
    }
    assert_invalidated_per_version(s);
    let s = capturing(GLOBAL);
    hip!(hipError_t::hipErrorStreamCaptureImplicit, (api().hipMemset)(b as *mut c_void, 0, N * 4));
    assert_invalidated_per_version(s);
    let s = capturing(RELAXED);
    let expected = if invalidates() { hipError_t::hipErrorStreamCaptureUnsupported } else { hipError_t::hipSuccess };
    hip!(expected, (api().hipDeviceSynchronize)());
    assert_invalidated_per_version(s);
    hip!((api().hipFree)(a as *mut c_void));
    hip!((api().hipFree)(b as *mut c_void));
}

#[test]
fn waiting_for_a_capturing_stream_or_its_events_is_refused() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let s = capturing(GLOBAL);
    hip!(hipError_t::hipErrorStreamCaptureUnsupported, (api().hipStreamSynchronize)(s));
    assert_invalidated_per_version(s);
    let s = capturing(GLOBAL);
    hip!(hipError_t::hipErrorStreamCaptureUnsupported, (api().hipStreamQuery)(s));
    assert_invalidated_per_version(s);
    // An event recorded in the capture: 907 from HIP 6 (the pool's event
    // queries would break a capture this way).
    let s = capturing(RELAXED);
    let e = event();
    hip!((api().hipEventRecord)(e, s));
    let expected = if invalidates() { hipError_t::hipErrorCapturedEvent } else { hipError_t::hipSuccess };
    hip!(expected, (api().hipEventQuery)(e));
    assert_invalidated_per_version(s);
    hip!((api().hipEventDestroy)(e));
    // Another stream's synchronize, during a Global capture, unless Relaxed.
    let s = capturing(GLOBAL);
    let other = stream();
    hip!(hipError_t::hipErrorStreamCaptureUnsupported, (api().hipStreamSynchronize)(other));
    hip!((api().hipStreamDestroy)(other));
    assert_invalidated_per_version(s);
    // An event recorded outside captures, waited for or queried during a
    // Global capture: refused (the query by CUDA's rule, which clr lacks).
    let e = event();
    let other = stream();
    hip!((api().hipEventRecord)(e, other));
    hip!((api().hipStreamSynchronize)(other));
    for wait in [api().hipEventSynchronize, api().hipEventQuery] {
        let s = capturing(GLOBAL);
        hip!(hipError_t::hipErrorStreamCaptureUnsupported, wait(e));
        assert_invalidated_per_version(s);
    }
    hip!((api().hipEventDestroy)(e));
    hip!((api().hipStreamDestroy)(other));
}

#[test]
fn an_unjoined_fork_fails_the_end_and_leaves_the_stream_stuck_as_clr_does() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let s1 = capturing(GLOBAL);
    let s2 = stream();
    let fork = event();
    hip!((api().hipEventRecord)(fork, s1));
    hip!((api().hipStreamWaitEvent)(s2, fork, 0));
    assert_eq!(fill(buffer_for_capture(), 2, s2), hipError_t::hipSuccess);
    assert_eq!(end(s2).0, hipError_t::hipErrorStreamCaptureUnmatched, "only the origin ends a capture");
    assert_eq!(end(s1).0, hipError_t::hipErrorStreamCaptureUnjoined);
    // clr: the origin stays Active but unlisted.
    assert_eq!(status(s1), ACTIVE);
    assert_eq!(end(s1).0, hipError_t::hipErrorStreamCaptureWrongThread);
    hip!(hipError_t::hipErrorIllegalState, (api().hipStreamBeginCapture)(s1, GLOBAL));
    // Only a destroy resets it.
    hip!((api().hipStreamDestroy)(s1));
    assert_eq!(status(s2), NONE);
    hip!((api().hipStreamDestroy)(s2));
    hip!((api().hipEventDestroy)(fork));
}

#[test]
fn an_event_from_before_the_capture_is_isolation_and_captures_do_not_merge() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    buffer_for_capture();
    let s = stream();
    let before = event();
    hip!((api().hipEventRecord)(before, s));
    hip!((api().hipStreamBeginCapture)(s, GLOBAL));
    let other = stream();
    hip!(hipError_t::hipErrorStreamCaptureIsolation, (api().hipStreamWaitEvent)(other, before, 0));
    let second = capturing(GLOBAL);
    let inside = event();
    hip!((api().hipEventRecord)(inside, s));
    hip!(hipError_t::hipErrorStreamCaptureMerge, (api().hipStreamWaitEvent)(second, inside, 0));
    for stream in [s, second] {
        let (ended, graph) = end(stream);
        assert_eq!(ended, hipError_t::hipSuccess);
        hip!((api().hipGraphDestroy)(graph));
        hip!((api().hipStreamDestroy)(stream));
    }
    hip!((api().hipStreamDestroy)(other));
    for e in [before, inside] {
        hip!((api().hipEventDestroy)(e));
    }
}

#[test]
fn a_replay_into_memory_freed_since_the_capture_is_a_reported_use_after_free() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let a = buffer();
    let s = stream();
    let graph = fills_graph(s, a, &[5]);
    let exec = instantiate(graph);
    hip!((api().hipFree)(a));
    hip_sys::sim::clear_violations();
    {
        let _expected = hip_sys::sim::expect_races();
        hip!((api().hipGraphLaunch)(exec, s));
        hip!((api().hipStreamSynchronize)(s));
    }
    let races: Vec<_> =
        hip_sys::sim::violations().into_iter().filter(|v| v.kind == hip_sys::sim::ViolationKind::StreamRace).collect();
    assert!(!races.is_empty(), "the graph's baked address was freed: the replay is reported");
    hip!((api().hipGraphExecDestroy)(exec));
    hip!((api().hipGraphDestroy)(graph));
    hip!((api().hipStreamDestroy)(s));
}

#[test]
fn destroying_an_exec_with_a_launch_queued_is_a_violation_before_hip_7() {
    sim_only!("the simulator's model of clr's capture rules");
    let _x = on_device_0();
    let a = buffer();
    let s = stream();
    let graph = fills_graph(s, a, &[8]);
    let exec = instantiate(graph);
    hip_sys::sim::clear_violations();
    let hold = hip_sys::sim::hold_stream(s).unwrap();
    hip!((api().hipGraphLaunch)(exec, s));
    hip!((api().hipGraphExecDestroy)(exec));
    hold.release();
    hip!((api().hipStreamSynchronize)(s));
    assert_eq!(read(a), vec![8; N], "the queued replay still ran");
    let in_use =
        hip_sys::sim::violations().iter().filter(|v| v.kind == hip_sys::sim::ViolationKind::GraphExecInUse).count();
    assert_eq!(in_use, usize::from(major() < 7), "HIP 5 and 6 free the exec under the queued launch");
    hip_sys::sim::clear_violations();
    hip!(hipError_t::hipErrorInvalidValue, (api().hipGraphExecDestroy)(exec));
    hip!((api().hipGraphDestroy)(graph));
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(a));
}

#[test]
fn every_rule_holds_as_hip_5() {
    common::rerun_as_hip_5();
}
