//! Graph memory: the allocation and free nodes `hipMallocAsync` and
//! `hipFreeAsync` make inside a capture, through the raw HIP table.
//!
//! The first tests hold on every backend: CUDA's answers (read on the
//! H200) and clr's agree there, and the simulator keeps the stricter of
//! the two. The last ones are the simulator's model of what no GPU
//! reports as an error: its graph memory pool's counters, and its race
//! detector's view of memory that is not mapped. CI runs this file as HIP
//! 7 and 6, and [`every_rule_holds_as_hip_5`] reruns it as HIP 5.

use std::ffi::c_void;

use hip_sys::{
    hipError_t, hipGraphExec_t, hipGraphInstantiateFlags, hipGraphMemAttributeType, hipGraphNodeType, hipGraph_t,
    hipMemcpyKind, hipStreamCaptureMode, hipStreamCaptureStatus, hipStream_t,
};

mod common;
use common::raw::{api, hip, on_device_0, sim_only, stream};

/// Words in each test buffer: 1 MiB.
const N: usize = 1 << 18;
const BYTES: usize = N * 4;
const MIB: u64 = 1 << 20;

/// `N` words of ordinary device memory, zeroed.
fn buffer() -> *mut c_void {
    let mut p = std::ptr::null_mut();
    hip!((api().hipMalloc)(&mut p, BYTES));
    hip!((api().hipMemset)(p, 0, BYTES));
    p
}

fn first_word(p: *mut c_void) -> u32 {
    let mut out = 0u32;
    hip!((api().hipMemcpy)((&raw mut out).cast(), p, 4, hipMemcpyKind::hipMemcpyDeviceToHost));
    out
}

fn begin(s: hipStream_t) {
    hip!((api().hipStreamBeginCapture)(s, hipStreamCaptureMode::hipStreamCaptureModeGlobal));
}

fn end(s: hipStream_t) -> hipGraph_t {
    let (status, graph) = common::raw::end(s);
    assert_eq!(status, hipError_t::hipSuccess, "hipStreamEndCapture");
    graph
}

fn malloc_async(s: hipStream_t, bytes: usize) -> *mut c_void {
    let mut p = std::ptr::null_mut();
    hip!((api().hipMallocAsync)(&mut p, bytes, s));
    p
}

fn fill(p: *mut c_void, value: u32, s: hipStream_t) {
    hip!((api().hipMemsetD32Async)(p, value as i32, N, s));
}

fn copy(dst: *mut c_void, src: *mut c_void, s: hipStream_t) {
    hip!((api().hipMemcpyAsync)(dst, src, BYTES, hipMemcpyKind::hipMemcpyDeviceToDevice, s));
}

fn instantiate(graph: hipGraph_t, flags: u32) -> Result<hipGraphExec_t, hipError_t> {
    let mut exec = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and a live graph.
    match unsafe { (api().hipGraphInstantiateWithFlags)(&mut exec, graph, flags.into()) } {
        hipError_t::hipSuccess => Ok(exec),
        error => Err(error),
    }
}

fn launch(exec: hipGraphExec_t, s: hipStream_t) -> hipError_t {
    // SAFETY: a live exec and stream.
    unsafe { (api().hipGraphLaunch)(exec, s) }
}

fn node_types(graph: hipGraph_t) -> Vec<hipGraphNodeType> {
    let mut count = 0;
    hip!((api().hipGraphGetNodes)(graph, std::ptr::null_mut(), &mut count));
    let mut nodes = vec![std::ptr::null_mut(); count];
    if count > 0 {
        hip!((api().hipGraphGetNodes)(graph, nodes.as_mut_ptr(), &mut count));
    }
    nodes
        .into_iter()
        .map(|node| {
            let mut kind = hipGraphNodeType::hipGraphNodeTypeEmpty;
            hip!((api().hipGraphNodeGetType)(node, &mut kind));
            kind
        })
        .collect()
}

/// A graph that allocates, fills with `value`, copies into `out`, and
/// frees; with the address its allocation got.
fn alloc_fill_copy_free(s: hipStream_t, out: *mut c_void, value: u32) -> (hipGraph_t, *mut c_void) {
    begin(s);
    let p = malloc_async(s, BYTES);
    assert!(!p.is_null(), "a graph allocation has its address at capture");
    fill(p, value, s);
    copy(out, p, s);
    hip!((api().hipFreeAsync)(p, s));
    (end(s), p)
}

/// A graph that allocates and fills with `value`, and leaves the memory
/// allocated.
fn alloc_fill(s: hipStream_t, value: u32) -> (hipGraph_t, *mut c_void) {
    begin(s);
    let p = malloc_async(s, BYTES);
    fill(p, value, s);
    (end(s), p)
}

fn destroy(exec: hipGraphExec_t, graph: hipGraph_t) {
    hip!((api().hipGraphExecDestroy)(exec));
    hip!((api().hipGraphDestroy)(graph));
}

#[test]
fn a_graph_allocates_and_frees_its_memory_at_every_launch() {
    let _x = on_device_0();
    let (s, out) = (stream(), buffer());
    let (graph, p) = alloc_fill_copy_free(s, out, 7);
    use hipGraphNodeType as T;
    let expected =
        [T::hipGraphNodeTypeMemAlloc, T::hipGraphNodeTypeMemset, T::hipGraphNodeTypeMemcpy, T::hipGraphNodeTypeMemFree];
    assert_eq!(node_types(graph), expected);
    hip!((api().hipStreamSynchronize)(s));
    assert_eq!(first_word(out), 0, "nothing ran at capture");
    let exec = instantiate(graph, 0).unwrap();
    for round in 0..3 {
        hip!((api().hipMemset)(out, 0, BYTES));
        assert_eq!(launch(exec, s), hipError_t::hipSuccess, "launch {round}: each launch frees what it allocates");
        hip!((api().hipStreamSynchronize)(s));
        assert_eq!(first_word(out), 7, "launch {round}");
    }
    // No memory is behind the address outside a launch.
    hip!(hipError_t::hipErrorInvalidValue, (api().hipMemset)(p, 0, 16));
    destroy(exec, graph);
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(out));
}

#[test]
fn a_graph_whose_memory_nothing_freed_is_not_launched_again() {
    let _x = on_device_0();
    let (s, other) = (stream(), stream());
    let (graph, p) = alloc_fill(s, 9);
    hip!(hipError_t::hipErrorInvalidValue, (api().hipMemset)(p, 0, 16));
    let exec = instantiate(graph, 0).unwrap();
    assert_eq!(launch(exec, s), hipError_t::hipSuccess);
    assert_eq!(launch(exec, s), hipError_t::hipErrorInvalidValue, "its allocation is still live");
    hip!((api().hipStreamSynchronize)(s));
    assert_eq!(first_word(p), 9, "memory a launch left allocated is the program's until freed");
    // Freed in stream order on another stream, after the launch's work.
    let mut done = std::ptr::null_mut();
    hip!((api().hipEventCreate)(&mut done));
    hip!((api().hipEventRecord)(done, s));
    hip!((api().hipStreamWaitEvent)(other, done, 0));
    hip!((api().hipFreeAsync)(p, other));
    hip!(hipError_t::hipErrorInvalidValue, (api().hipFreeAsync)(p, other));
    hip!((api().hipEventRecord)(done, other));
    hip!((api().hipStreamWaitEvent)(s, done, 0));
    assert_eq!(launch(exec, s), hipError_t::hipSuccess, "freed: it launches again");
    hip!((api().hipStreamSynchronize)(s));
    hip!((api().hipFree)(p));
    hip!(hipError_t::hipErrorInvalidValue, (api().hipFree)(p));
    assert_eq!(launch(exec, s), hipError_t::hipSuccess);
    hip!((api().hipStreamSynchronize)(s));
    // The memory outlives the graph and its exec until it is freed.
    destroy(exec, graph);
    assert_eq!(first_word(p), 9);
    hip!((api().hipFree)(p));
    hip!((api().hipEventDestroy)(done));
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipStreamDestroy)(other));
}

#[test]
fn auto_free_on_launch_frees_what_the_last_launch_left() {
    let _x = on_device_0();
    let s = stream();
    let (graph, p) = alloc_fill(s, 3);
    let flag = hipGraphInstantiateFlags::hipGraphInstantiateFlagAutoFreeOnLaunch.0;
    let exec = instantiate(graph, flag).unwrap();
    for round in 0..3 {
        assert_eq!(launch(exec, s), hipError_t::hipSuccess, "launch {round}");
    }
    hip!((api().hipStreamSynchronize)(s));
    assert_eq!(first_word(p), 3);
    destroy(exec, graph);
    hip!((api().hipFree)(p));
    hip!((api().hipStreamDestroy)(s));
}

#[test]
fn a_graph_with_memory_nodes_has_one_exec() {
    let _x = on_device_0();
    let (s, out) = (stream(), buffer());
    let (graph, _) = alloc_fill_copy_free(s, out, 1);
    let exec = instantiate(graph, 0).unwrap();
    assert_eq!(instantiate(graph, 0).err(), Some(hipError_t::hipErrorNotSupported));
    destroy(exec, graph);
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(out));
}

#[test]
fn a_capture_frees_only_graph_memory_and_goes_on() {
    let _x = on_device_0();
    let (s, other) = (stream(), stream());
    let plain = buffer();
    let pooled = malloc_async(other, 1024);
    hip!((api().hipStreamSynchronize)(other));
    begin(s);
    for p in [plain, pooled] {
        hip!(hipError_t::hipErrorInvalidValue, (api().hipFreeAsync)(p, s));
        let mut status = hipStreamCaptureStatus::hipStreamCaptureStatusNone;
        hip!((api().hipStreamIsCapturing)(s, &mut status));
        assert_eq!(status, hipStreamCaptureStatus::hipStreamCaptureStatusActive, "the capture goes on");
    }
    // Zero bytes are no allocation and no node, also in a capture.
    let mut zero = std::ptr::dangling_mut::<c_void>();
    hip!((api().hipMallocAsync)(&mut zero, 0, s));
    assert!(zero.is_null());
    let graph = end(s);
    assert!(node_types(graph).is_empty());
    hip!((api().hipGraphDestroy)(graph));
    hip!((api().hipFree)(plain));
    hip!((api().hipFreeAsync)(pooled, other));
    hip!((api().hipStreamSynchronize)(other));
    for st in [s, other] {
        hip!((api().hipStreamDestroy)(st));
    }
}

#[test]
fn another_graph_may_free_the_memory_once_it_is_allocated() {
    let _x = on_device_0();
    let (s, out) = (stream(), buffer());
    let (first, p) = alloc_fill(s, 5);
    begin(s);
    copy(out, p, s);
    hip!((api().hipFreeAsync)(p, s));
    let second = end(s);
    let (allocates, frees) = (instantiate(first, 0).unwrap(), instantiate(second, 0).unwrap());
    assert_eq!(launch(frees, s), hipError_t::hipErrorInvalidValue, "nothing is allocated to free yet");
    for round in 0..2 {
        assert_eq!(launch(allocates, s), hipError_t::hipSuccess, "round {round}");
        assert_eq!(launch(frees, s), hipError_t::hipSuccess, "round {round}");
    }
    hip!((api().hipStreamSynchronize)(s));
    assert_eq!(first_word(out), 5);
    destroy(allocates, first);
    destroy(frees, second);
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(out));
}

/// Read one of the graph memory pool's counters of device 0.
fn attribute(attr: hipGraphMemAttributeType) -> u64 {
    let mut value = 0u64;
    hip!((api().hipDeviceGetGraphMemAttribute)(0, attr, (&raw mut value).cast()));
    value
}

fn used() -> u64 {
    attribute(hipGraphMemAttributeType::hipGraphMemAttrUsedMemCurrent)
}

fn reserved() -> u64 {
    attribute(hipGraphMemAttributeType::hipGraphMemAttrReservedMemCurrent)
}

#[test]
fn the_graph_memory_pool_keeps_what_it_reserved_until_trimmed() {
    sim_only!("the simulator's graph memory pool and race detector");
    let _x = on_device_0();
    hip!((api().hipDeviceGraphMemTrim)(0));
    let (s, out) = (stream(), buffer());
    let (graph, _) = alloc_fill_copy_free(s, out, 2);
    let (leaves, p) = alloc_fill(s, 4);
    assert_eq!((used(), reserved()), (0, 0), "a capture reserves addresses, not memory");
    let free_before = |()| {
        let (mut free, mut total) = (0, 0);
        hip!((api().hipMemGetInfo)(&mut free, &mut total));
        free
    };
    let start = free_before(());
    let exec = instantiate(graph, 0).unwrap();
    assert_eq!(launch(exec, s), hipError_t::hipSuccess);
    assert_eq!((used(), reserved()), (0, 2 * MIB), "freed by its own node; kept in the pool (whole 2 MiB blocks)");
    assert_eq!(start - free_before(()), 2 << 20, "the pool's memory is the device's");
    let kept = instantiate(leaves, 0).unwrap();
    assert_eq!(launch(kept, s), hipError_t::hipSuccess);
    assert_eq!((used(), reserved()), (2 * MIB, 2 * MIB), "the second graph maps the block the first gave back");
    hip!((api().hipDeviceGraphMemTrim)(0));
    assert_eq!(reserved(), 2 * MIB, "trimming keeps what is mapped");
    hip!((api().hipStreamSynchronize)(s));
    hip!((api().hipFree)(p));
    assert_eq!(used(), 0);
    hip!((api().hipDeviceGraphMemTrim)(0));
    assert_eq!(reserved(), 0);
    assert_eq!(free_before(()), start);
    let high = attribute(hipGraphMemAttributeType::hipGraphMemAttrUsedMemHigh);
    assert_eq!(high, 2 * MIB);
    let mut zero = 0u64;
    let mut one = 1u64;
    let used_high = hipGraphMemAttributeType::hipGraphMemAttrUsedMemHigh;
    hip!(hipError_t::hipErrorInvalidValue, (api().hipDeviceSetGraphMemAttribute)(0, used_high, (&raw mut one).cast()));
    hip!((api().hipDeviceSetGraphMemAttribute)(0, used_high, (&raw mut zero).cast()));
    assert_eq!(attribute(used_high), 0, "clr resets the mark to 0");
    let current = hipGraphMemAttributeType::hipGraphMemAttrUsedMemCurrent;
    hip!(hipError_t::hipErrorInvalidValue, (api().hipDeviceSetGraphMemAttribute)(0, current, (&raw mut zero).cast()));
    hip!(hipError_t::hipErrorInvalidDevice, (api().hipDeviceGraphMemTrim)(-1));
    destroy(exec, graph);
    destroy(kept, leaves);
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(out));
}

/// The stream races recorded while `f` runs (expected there).
fn races_during(f: impl FnOnce()) -> Vec<hip_sys::sim::StreamRace> {
    hip_sys::sim::clear_violations();
    {
        let _expected = hip_sys::sim::expect_races();
        f();
    }
    common::stream_races().into_iter().filter_map(|v| v.race).collect()
}

#[test]
fn work_on_graph_memory_outside_its_launches_is_a_reported_use_after_free() {
    sim_only!("the simulator's graph memory pool and race detector");
    let _x = on_device_0();
    let (s, out) = (stream(), buffer());
    let (graph, p) = alloc_fill_copy_free(s, out, 6);
    let exec = instantiate(graph, 0).unwrap();
    // A copy through the API is refused at the call, as CUDA refuses it;
    // a kernel's pointer is a value, so the kernel is enqueued, and its
    // access to the range before any launch mapped it is a use after free.
    hip!(
        hipError_t::hipErrorInvalidValue,
        (api().hipMemcpyAsync)(out, p, 4, hipMemcpyKind::hipMemcpyDeviceToDevice, s)
    );
    let mut module = std::ptr::null_mut();
    let code = hip_sys::sim::code_object(&["fill_u32"]);
    hip!((api().hipModuleLoadData)(&mut module, code.as_ptr().cast()));
    let mut function = std::ptr::null_mut();
    hip!((api().hipModuleGetFunction)(&mut function, module, c"fill_u32".as_ptr()));
    let run_fill = |target: *mut c_void| {
        let (mut ptr, mut value, mut n) = (target, 1u32, N as u32);
        let mut args = [(&raw mut ptr).cast::<c_void>(), (&raw mut value).cast(), (&raw mut n).cast()];
        hip!((api().hipModuleLaunchKernel)(
            function,
            (N / 256) as u32,
            1,
            1,
            256,
            1,
            1,
            0,
            s,
            args.as_mut_ptr(),
            std::ptr::null_mut()
        ));
        hip!((api().hipStreamSynchronize)(s));
    };
    let unmapped = races_during(|| run_fill(p));
    assert_eq!(unmapped.len(), 1, "{unmapped:?}");
    assert!(unmapped[0].after_free, "{}", unmapped[0]);
    // Inside the launches nothing races, replay after replay.
    let replays = races_during(|| {
        for _ in 0..3 {
            assert_eq!(launch(exec, s), hipError_t::hipSuccess);
        }
        hip!((api().hipStreamSynchronize)(s));
    });
    assert!(replays.is_empty(), "{replays:?}");
    assert_eq!(first_word(out), 6);
    let after = races_during(|| run_fill(p));
    assert_eq!(after.len(), 1, "after the free node: {after:?}");
    assert_eq!((after[0].first.function, after[0].after_free), ("hipFreeAsync", true), "{}", after[0]);
    hip!((api().hipModuleUnload)(module));
    destroy(exec, graph);
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(out));
}

#[test]
fn a_launch_on_another_stream_maps_memory_the_last_may_still_use() {
    sim_only!("the simulator's graph memory pool and race detector");
    let _x = on_device_0();
    let (s, other, out) = (stream(), stream(), buffer());
    let (graph, _) = alloc_fill_copy_free(s, out, 8);
    let exec = instantiate(graph, 0).unwrap();
    let unordered = races_during(|| {
        assert_eq!(launch(exec, s), hipError_t::hipSuccess);
        assert_eq!(launch(exec, other), hipError_t::hipSuccess);
        hip!((api().hipDeviceSynchronize)());
    });
    assert!(
        unordered.iter().any(|r| r.second.access == hip_sys::sim::AccessKind::Allocate && !r.after_free),
        "the second launch maps the memory the first still frees: {unordered:?}"
    );
    let ordered = races_during(|| {
        let mut done = std::ptr::null_mut();
        hip!((api().hipEventCreate)(&mut done));
        assert_eq!(launch(exec, s), hipError_t::hipSuccess);
        hip!((api().hipEventRecord)(done, s));
        hip!((api().hipStreamWaitEvent)(other, done, 0));
        assert_eq!(launch(exec, other), hipError_t::hipSuccess);
        hip!((api().hipDeviceSynchronize)());
        hip!((api().hipEventDestroy)(done));
    });
    assert!(ordered.is_empty(), "ordered by an event: {ordered:?}");
    destroy(exec, graph);
    for st in [s, other] {
        hip!((api().hipStreamDestroy)(st));
    }
    hip!((api().hipFree)(out));
}

#[test]
fn new_graph_memory_holds_no_old_values_and_its_ranges_go_with_their_graphs() {
    sim_only!("the simulator's graph memory pool and race detector");
    let _x = on_device_0();
    let live = hip_sys::sim::live_allocations(0);
    let (s, out) = (stream(), buffer());
    // Read the memory as the allocation leaves it, then fill it.
    begin(s);
    let p = malloc_async(s, BYTES);
    copy(out, p, s);
    fill(p, 11, s);
    hip!((api().hipFreeAsync)(p, s));
    let graph = end(s);
    assert_eq!(hip_sys::sim::live_allocations(0), live + 2, "the buffer, and the graph's reserved range");
    let exec = instantiate(graph, 0).unwrap();
    for round in 0..2 {
        assert_eq!(launch(exec, s), hipError_t::hipSuccess);
        hip!((api().hipStreamSynchronize)(s));
        assert_eq!(first_word(out), u32::MAX, "round {round}: not zeros, not the last launch's fill");
    }
    hip!((api().hipGraphExecDestroy)(exec));
    assert_eq!(hip_sys::sim::live_allocations(0), live + 2, "the graph still holds its range");
    hip!((api().hipGraphDestroy)(graph));
    assert_eq!(hip_sys::sim::live_allocations(0), live + 1, "unmapped and unheld: released");
    hip!((api().hipStreamDestroy)(s));
    hip!((api().hipFree)(out));
}

#[test]
fn every_rule_holds_as_hip_5() {
    common::rerun_as_hip_5();
}
