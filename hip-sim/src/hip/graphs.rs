//! Stream capture and graphs: `hipStreamBeginCapture`/`EndCapture`, the
//! capture queries, `hipThreadExchangeStreamCaptureMode`, and graph
//! creation, instantiation, launch, update and destruction. The capture
//! rules are in `capture.rs`, the graph objects in `graph.rs`.

use crate::bindings::hip::{
    hipError_t, hipGraphExecUpdateResult, hipGraphExec_t, hipGraphInstantiateFlags, hipGraphMemAttributeType,
    hipGraphNodeType, hipGraphNode_t, hipGraph_t, hipStreamCaptureMode, hipStreamCaptureStatus, hipStream_t,
};
use crate::entry::{call, write_out};
use crate::machine::calls::idx;
use crate::machine::capture;
use crate::machine::graph::{self, ExecObj, GraphObj, Node};
use crate::machine::graph_memory::{self, GraphAllocation, LaunchPlan, NodeMemory};
use crate::machine::handles::new_handle;
use crate::machine::lock::lock;
use crate::machine::queue::Target;
use crate::machine::queue::Work;
use crate::machine::races::{self, Actor, Clock, Stamp};
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations::{self, AccessKind, Violation, ViolationKind};
use crate::submit::{self, Op};
use crate::targets::checked_target;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub(crate) unsafe extern "C" fn hipStreamBeginCapture(stream: hipStream_t, mode: hipStreamCaptureMode) -> hipError_t {
    call(idx!("hipStreamBeginCapture"), || {
        let queue = checked_target("hipStreamBeginCapture", stream)?;
        if queue.is_null {
            // clr: "capture cannot be initiated on legacy stream".
            return Err(hipError_t::hipErrorStreamCaptureUnsupported);
        }
        capture::begin(&queue, mode)
    })
}

pub(crate) unsafe extern "C" fn hipStreamEndCapture(stream: hipStream_t, out: *mut hipGraph_t) -> hipError_t {
    call(idx!("hipStreamEndCapture"), || {
        if out.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let queue = checked_target("hipStreamEndCapture", stream)?;
        if queue.is_null {
            return Err(hipError_t::hipErrorIllegalState);
        }
        match capture::end(&queue) {
            Ok(ended) => {
                graph::insert_graph(ended.graph, GraphObj::new(ended.device, ended.nodes));
                // SAFETY: checked non-null.
                unsafe { write_out(out, ended.graph as hipGraph_t) }
            }
            Err(error) => {
                if error == hipError_t::hipErrorStreamCaptureInvalidated {
                    // SAFETY: checked non-null.
                    unsafe { write_out(out, std::ptr::null_mut())? };
                }
                Err(error)
            }
        }
    })
}

pub(crate) unsafe extern "C" fn hipStreamIsCapturing(
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
) -> hipError_t {
    call(idx!("hipStreamIsCapturing"), || {
        if status.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let queue = checked_target("hipStreamIsCapturing", stream)?;
        let now = capture::reported_status(&queue)?;
        // SAFETY: checked non-null.
        unsafe { write_out(status, now) }
    })
}

/// The capture information of `stream`; each out-pointer may be null
/// except `status`, and the others are written only while it captures.
fn capture_info(
    function: &'static str,
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
    id: *mut c_ulonglong,
    graph_out: *mut hipGraph_t,
    dependencies: *mut *const hipGraphNode_t,
    count: *mut usize,
) -> Result<(), hipError_t> {
    if status.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let queue = checked_target(function, stream)?;
    let now = capture::reported_status(&queue)?;
    // SAFETY: checked non-null.
    unsafe { write_out(status, now)? };
    if now != hipStreamCaptureStatus::hipStreamCaptureStatusActive {
        return Ok(());
    }
    let Some(now) = capture::dependencies(&queue) else {
        return Ok(());
    };
    // SAFETY: each out-pointer is null (skipped) or valid for a write (caller).
    unsafe {
        if !id.is_null() {
            id.write(now.id);
        }
        if !graph_out.is_null() {
            // The graph being captured: the handle `hipStreamEndCapture`
            // returns. No call takes it before then (nodes are not added
            // by hand in the simulator): they answer as for an unknown one.
            graph_out.write(now.graph as hipGraph_t);
        }
        if !dependencies.is_null() {
            dependencies.write(now.nodes);
        }
        if !count.is_null() {
            count.write(now.count);
        }
    }
    Ok(())
}

pub(crate) unsafe extern "C" fn hipStreamGetCaptureInfo(
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
    id: *mut c_ulonglong,
) -> hipError_t {
    call(idx!("hipStreamGetCaptureInfo"), || {
        let none = std::ptr::null_mut();
        capture_info("hipStreamGetCaptureInfo", stream, status, id, none, std::ptr::null_mut(), std::ptr::null_mut())
    })
}

pub(crate) unsafe extern "C" fn hipStreamGetCaptureInfo_v2(
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
    id: *mut c_ulonglong,
    graph_out: *mut hipGraph_t,
    dependencies: *mut *const hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    call(idx!("hipStreamGetCaptureInfo_v2"), || {
        capture_info("hipStreamGetCaptureInfo_v2", stream, status, id, graph_out, dependencies, count)
    })
}

pub(crate) unsafe extern "C" fn hipThreadExchangeStreamCaptureMode(mode: *mut hipStreamCaptureMode) -> hipError_t {
    call(idx!("hipThreadExchangeStreamCaptureMode"), || {
        if mode.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: non-null and valid for a read and a write (caller).
        unsafe {
            let old = capture::exchange_mode(mode.read())?;
            mode.write(old);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipGraphCreate(out: *mut hipGraph_t, flags: c_uint) -> hipError_t {
    call(idx!("hipGraphCreate"), || {
        if out.is_null() || flags != 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let handle = new_handle();
        graph::insert_graph(handle, GraphObj::new(current_device(), Vec::new()));
        // SAFETY: checked non-null.
        unsafe { write_out(out, handle as hipGraph_t) }
    })
}

pub(crate) unsafe extern "C" fn hipGraphDestroy(graph: hipGraph_t) -> hipError_t {
    call(idx!("hipGraphDestroy"), || {
        if graph.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // clr: a graph it does not know is hipErrorIllegalState.
        graph::remove_graph(graph as usize).map(drop).ok_or(hipError_t::hipErrorIllegalState)?;
        graph_memory::collect();
        Ok(())
    })
}

fn graph_of(graph: hipGraph_t) -> Result<Arc<GraphObj>, hipError_t> {
    graph::graph(graph as usize).ok_or(hipError_t::hipErrorInvalidValue)
}

fn exec_of(exec: hipGraphExec_t) -> Result<Arc<ExecObj>, hipError_t> {
    graph::exec(exec as usize).ok_or(hipError_t::hipErrorInvalidValue)
}

pub(crate) unsafe extern "C" fn hipGraphGetNodes(
    graph: hipGraph_t,
    nodes: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    call(idx!("hipGraphGetNodes"), || {
        if count.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let graph = graph_of(graph)?;
        let have = graph.nodes.len();
        // SAFETY: `count` is non-null; `nodes` is null or holds `*count`
        // slots (caller).
        unsafe {
            if nodes.is_null() {
                count.write(have);
                return Ok(());
            }
            let room = count.read();
            if room == 0 {
                // CUDA refuses an array with no room (read on the H200);
                // clr writes nothing and succeeds. The stricter answer.
                return Err(hipError_t::hipErrorInvalidValue);
            }
            for i in 0..room {
                let value = graph.nodes.get(i).map_or(std::ptr::null_mut(), |n| n.handle as hipGraphNode_t);
                nodes.add(i).write(value);
            }
            if room > have {
                count.write(have);
            }
        }
        Ok(())
    })
}

/// Instantiate `graph` into `out`, with `hipGraphInstantiateFlags` `flags`.
fn instantiate(out: *mut hipGraphExec_t, graph: hipGraph_t, flags: c_ulonglong) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let graph = graph_of(graph)?;
    if graph.instantiated.swap(true, Ordering::AcqRel) && graph.has_memory_nodes() {
        // clr: a graph with memory nodes is instantiated once, ever.
        return Err(hipError_t::hipErrorNotSupported);
    }
    let handle = new_handle();
    let auto_free =
        u32::try_from(flags).is_ok_and(|f| f == hipGraphInstantiateFlags::hipGraphInstantiateFlagAutoFreeOnLaunch.0);
    let exec = ExecObj {
        device: graph.device,
        nodes: std::sync::Mutex::new(Arc::new(graph.nodes.clone())),
        in_flight: Arc::default(),
        auto_free,
    };
    graph::insert_exec(handle, exec);
    // SAFETY: checked non-null.
    unsafe { write_out(out, handle as hipGraphExec_t) }
}

pub(crate) unsafe extern "C" fn hipGraphInstantiate(
    out: *mut hipGraphExec_t,
    graph: hipGraph_t,
    _error_node: *mut hipGraphNode_t,
    _log: *mut c_char,
    _log_size: usize,
) -> hipError_t {
    // clr ignores the error node and the log.
    call(idx!("hipGraphInstantiate"), || instantiate(out, graph, 0))
}

pub(crate) unsafe extern "C" fn hipGraphInstantiateWithFlags(
    out: *mut hipGraphExec_t,
    graph: hipGraph_t,
    flags: c_ulonglong,
) -> hipError_t {
    call(idx!("hipGraphInstantiateWithFlags"), || {
        // clr compares for equality: 0 or AutoFreeOnLaunch (1), from 6.2
        // also UseNodePriority (8); HIP 6 is modelled by 6.0's refusal.
        let allowed = flags == 0 || flags == 1 || (flags == 8 && sim().config.hip_major >= 7);
        if !allowed {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        instantiate(out, graph, flags)
    })
}

pub(crate) unsafe extern "C" fn hipGraphLaunch(exec: hipGraphExec_t, stream: hipStream_t) -> hipError_t {
    call(idx!("hipGraphLaunch"), || {
        let exec = exec_of(exec)?;
        let queue = checked_target("hipGraphLaunch", stream)?;
        if capture::is_member(&queue) {
            // clr runs the graph at once, outside the capture (it is not
            // part of the captured graph): refused here, being wrong there.
            return Err(hipError_t::hipErrorStreamCaptureUnsupported);
        }
        let nodes = lock(&exec.nodes).clone();
        let plan = graph_memory::plan_launch(nodes.iter().filter_map(|n| n.memory.as_ref()), exec.auto_free)?;
        let done = graph::launch_started(&exec);
        match replay(&queue, &plan, &nodes) {
            Ok(lanes) => {
                let end = Op { after: lanes, ..Op::new("hipGraphLaunch") };
                submit::submit(&queue, false, end, done)
            }
            Err(error) => {
                let _ = done();
                Err(error)
            }
        }
    })
}

/// Enqueue the frees `plan` asks for, then `nodes` in capture order, on
/// `queue`; the join of the clocks of the lanes beside the origin's, which
/// the launch's end waits for.
///
/// Every node runs on `queue`, one after another. What the race detector
/// sees follows the graph instead: the origin lane's nodes are the
/// stream's own operations, as before; while races are checked, each other
/// lane has a clock of its own at every launch, and each of its nodes is
/// checked with the clocks of its dependencies, so two branches that a GPU
/// may run at once are unordered here too.
fn replay(queue: &Target, plan: &LaunchPlan, nodes: &[Node]) -> Result<Option<Clock>, hipError_t> {
    for range in &plan.free_first {
        let (op, work) = free_node(range);
        submit::submit_with(queue, false, Vec::new(), op, work)?;
    }
    if !races::race_check_enabled() || nodes.iter().all(|n| n.lane == 0) {
        for node in nodes {
            let (op, work) = replayed(node);
            submit::submit_with(queue, false, Vec::new(), op, work)?;
        }
        return Ok(None);
    }
    let start = Op { want_clock: true, ..Op::new("hipGraphLaunch") };
    let base = submit::submit_with(queue, false, Vec::new(), start, Arc::new(|| Ok(())))?.unwrap_or_default();
    let mut clocks: Vec<Clock> = Vec::with_capacity(nodes.len());
    let mut lanes: Vec<Option<Actor>> = Vec::new();
    let mut ends = Clock::default();
    for node in nodes {
        let (op, work) = replayed(node);
        let mut after = if node.lane == 0 { Clock::default() } else { base.clone() };
        for &dep in &node.deps {
            after.join(&clocks[dep]);
        }
        let clock = if node.lane == 0 {
            let op = Op { after: Some(after), want_clock: true, ..op };
            submit::submit_with(queue, false, Vec::new(), op, work)?.unwrap_or_default()
        } else {
            if lanes.len() <= node.lane {
                lanes.resize(node.lane + 1, None);
            }
            let actor = lanes[node.lane].get_or_insert_with(|| {
                let name = format!("lane {} of a graph launched on {}", node.lane, queue.actor.name());
                Actor::stream(races::new_component(), name)
            });
            let mut clock = after;
            let epoch = races::tick(&mut clock, actor);
            let stamp = Stamp {
                clock: &clock,
                component: actor.component(),
                epoch,
                actor,
                function: op.function,
                device: queue.device,
            };
            races::check(&stamp, &op.accesses);
            submit::submit_unstamped(queue, work);
            ends.join(&clock);
            clock
        };
        clocks.push(clock);
    }
    Ok(Some(ends))
}

/// What a launch enqueues for `node`: its operation again, with the
/// addresses of its capture; a memory node maps or unmaps its allocation
/// now, at the call (see `graph_memory.rs`).
fn replayed(node: &Node) -> (Op, Work) {
    match &node.memory {
        None => (Op::with(node.function, node.accesses.clone()), node.work.clone()),
        Some(NodeMemory::Free(range)) => free_node(range),
        Some(NodeMemory::Allocate(range)) => {
            graph_memory::map(range);
            let op = Op::with("hipMallocAsync", range.access(AccessKind::Allocate).into_iter().collect());
            // New memory holds no value a program may count on: ones,
            // which read as NaN in every float type.
            let allocation = range.allocation.clone();
            (
                op,
                Arc::new(move || {
                    lock(&allocation.data).fill(0xFF);
                    Ok(())
                }),
            )
        }
    }
}

/// A free node of `range`, enqueued now.
fn free_node(range: &Arc<GraphAllocation>) -> (Op, Work) {
    graph_memory::unmap(range);
    (Op::with("hipFreeAsync", range.access(AccessKind::Free).into_iter().collect()), Arc::new(|| Ok(())))
}

pub(crate) unsafe extern "C" fn hipGraphUpload(exec: hipGraphExec_t, stream: hipStream_t) -> hipError_t {
    call(idx!("hipGraphUpload"), || {
        // clr validates and does nothing else.
        exec_of(exec)?;
        checked_target("hipGraphUpload", stream).map(drop)
    })
}

pub(crate) unsafe extern "C" fn hipGraphExecDestroy(exec: hipGraphExec_t) -> hipError_t {
    call(idx!("hipGraphExecDestroy"), || {
        let exec = graph::remove_exec(exec as usize).ok_or(hipError_t::hipErrorInvalidValue)?;
        if exec.in_flight.load(Ordering::Acquire) > 0 && sim().config.hip_major < 7 {
            let (function, thread) = ("hipGraphExecDestroy", violations::thread_name());
            violations::record(Violation::of(
                ViolationKind::GraphExecInUse,
                function,
                exec.device,
                current_device(),
                thread,
            ));
        }
        // The queued replay holds its nodes: it still runs.
        drop(exec);
        graph_memory::collect();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipGraphExecUpdate(
    exec: hipGraphExec_t,
    graph: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    result: *mut hipGraphExecUpdateResult,
) -> hipError_t {
    call(idx!("hipGraphExecUpdate"), || {
        if error_node.is_null() || result.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let exec = exec_of(exec)?;
        let graph = graph_of(graph)?;
        let mut nodes = lock(&exec.nodes);
        let refusal = graph::update_refusal(&nodes, &graph.nodes, sim().config.hip_major);
        // SAFETY: both checked non-null.
        unsafe {
            match refusal {
                Some((why, node)) => {
                    error_node.write(node as hipGraphNode_t);
                    result.write(why);
                    Err(hipError_t::hipErrorGraphExecUpdateFailure)
                }
                None => {
                    *nodes = Arc::new(graph.nodes.clone());
                    error_node.write(std::ptr::null_mut());
                    result.write(hipGraphExecUpdateResult::hipGraphExecUpdateSuccess);
                    Ok(())
                }
            }
        }
    })
}

pub(crate) unsafe extern "C" fn hipGraphNodeGetType(node: hipGraphNode_t, kind: *mut hipGraphNodeType) -> hipError_t {
    call(idx!("hipGraphNodeGetType"), || {
        // clr: a null or unknown node, or a null out-pointer, is InvalidValue.
        if node.is_null() || kind.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let node = graph::node(node as usize).ok_or(hipError_t::hipErrorInvalidValue)?;
        // SAFETY: checked non-null.
        unsafe { write_out(kind, node.node_type()) }
    })
}

/// A device ordinal as clr checks it for the graph memory calls.
fn graph_memory_device(device: c_int) -> Result<usize, hipError_t> {
    usize::try_from(device).ok().filter(|&d| sim().device(d).is_some()).ok_or(hipError_t::hipErrorInvalidDevice)
}

pub(crate) unsafe extern "C" fn hipDeviceGraphMemTrim(device: c_int) -> hipError_t {
    call(idx!("hipDeviceGraphMemTrim"), || graph_memory::trim(graph_memory_device(device)?))
}

pub(crate) unsafe extern "C" fn hipDeviceGetGraphMemAttribute(
    device: c_int,
    attr: hipGraphMemAttributeType,
    value: *mut c_void,
) -> hipError_t {
    call(idx!("hipDeviceGetGraphMemAttribute"), || {
        let (device, value) = graph_memory_args(device, value)?;
        let now = graph_memory::attribute(device, attr)?;
        // SAFETY: non-null; HIP documents a uint64_t here.
        unsafe { write_out(value, now) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceSetGraphMemAttribute(
    device: c_int,
    attr: hipGraphMemAttributeType,
    value: *mut c_void,
) -> hipError_t {
    call(idx!("hipDeviceSetGraphMemAttribute"), || {
        let (device, value) = graph_memory_args(device, value)?;
        // SAFETY: non-null; HIP documents a uint64_t here.
        graph_memory::set_attribute(device, attr, unsafe { value.read() })
    })
}

/// The device and value of the graph memory attribute calls, in clr's
/// order: the ordinal first, then a null value.
fn graph_memory_args(device: c_int, value: *mut c_void) -> Result<(usize, *mut u64), hipError_t> {
    let device = graph_memory_device(device)?;
    if value.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    Ok((device, value.cast()))
}
