//! Stream capture and graphs over CUDA graphs.
//!
//! HIP's capture and graph calls are CUDA's with the same enum values
//! (`hipStreamCaptureMode`, `hipStreamCaptureStatus`,
//! `hipGraphExecUpdateResult` 0-7, `hipGraphInstantiateFlags`) and the
//! same error codes (900-910). What this file adds:
//!
//! - **Handles.** Graphs and executable graphs are generation-tagged
//!   handles (see `objects.rs`), as streams and events are, so a destroyed
//!   or never-made one is `hipErrorInvalidValue` (clr's answer for a graph
//!   or exec it does not know) instead of a dangling pointer handed to CUDA.
//!   A capture's graph gets its handle when `hipStreamGetCaptureInfo_v2`
//!   first shows it, and keeps it at `hipStreamEndCapture`.
//! - **Signatures that changed in CUDA 12 and 13.** `hipGraphInstantiate`
//!   (error node and log buffer) maps onto `cudaGraphInstantiateWithFlags`
//!   with no flags, writing no error node and an empty log;
//!   `hipGraphExecUpdate` (error node and result out-pointers) onto CUDA
//!   12's `cudaGraphExecUpdateResultInfo`; the capture information onto
//!   the driver's `cuStreamGetCaptureInfo_v2`, whose signature both driver
//!   generations keep (the runtime's changed in CUDA 13).

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

use super::call::{cu, entry, non_null, rt};
use super::driver::ensure_context;
use super::objects::{create_in, stream_of, EXECS, GRAPHS};
use super::types::CudaGraphExecUpdateResultInfo;
use super::CudaFns;
use crate::bindings::hip::{
    hipError_t, hipGraphExecUpdateResult, hipGraphExec_t, hipGraphMemAttributeType, hipGraphNodeType, hipGraphNode_t,
    hipGraph_t, hipStreamCaptureMode, hipStreamCaptureStatus, hipStream_t,
};

/// The CUDA graph of `graph`: null, destroyed or never made is
/// `hipErrorInvalidValue`, as clr answers.
fn graph_of(graph: hipGraph_t) -> Result<*mut c_void, hipError_t> {
    if graph.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    GRAPHS.resolve(graph.cast()).map_err(|_| hipError_t::hipErrorInvalidValue)
}

/// The CUDA executable graph of `exec`, with the same errors as [`graph_of`].
pub(super) fn exec_of(exec: hipGraphExec_t) -> Result<*mut c_void, hipError_t> {
    if exec.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    EXECS.resolve(exec.cast()).map_err(|_| hipError_t::hipErrorInvalidValue)
}

/// The handle of CUDA graph `raw`: the one it already has (a capture's
/// graph shown by `hipStreamGetCaptureInfo_v2`), else a new one.
fn graph_handle(raw: *mut c_void) -> Result<*mut c_void, hipError_t> {
    if let Some(handle) = GRAPHS.handle_of(raw) {
        return Ok(handle);
    }
    GRAPHS.insert(raw).ok_or(hipError_t::hipErrorOutOfMemory)
}

fn destroy_exec(f: &CudaFns, raw: *mut c_void) {
    // SAFETY: an executable graph just made, destroyed once.
    let _ = unsafe { (f.rt.cudaGraphExecDestroy)(raw) };
}

pub(super) unsafe extern "C" fn hipStreamBeginCapture(stream: hipStream_t, mode: hipStreamCaptureMode) -> hipError_t {
    // SAFETY: no pointers; CUDA checks the stream's state and the mode.
    entry(|f| rt(unsafe { (f.rt.cudaStreamBeginCapture)(stream_of(stream)?, mode.0 as c_int) }))
}

pub(super) unsafe extern "C" fn hipStreamEndCapture(stream: hipStream_t, graph: *mut hipGraph_t) -> hipError_t {
    entry(|f| {
        non_null(graph)?;
        let stream = stream_of(stream)?;
        let mut raw: *mut c_void = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer for the captured graph.
        let status = rt(unsafe { (f.rt.cudaStreamEndCapture)(stream, &mut raw) });
        if raw.is_null() {
            // SAFETY: `graph` is non-null and valid for a write (caller).
            unsafe { graph.write(std::ptr::null_mut()) };
            return status;
        }
        let handle = match graph_handle(raw) {
            Ok(handle) => handle,
            Err(error) => {
                // SAFETY: the graph CUDA just handed over, destroyed once.
                let _ = unsafe { (f.rt.cudaGraphDestroy)(raw) };
                return Err(error);
            }
        };
        // SAFETY: as above.
        unsafe { graph.write(handle.cast()) };
        status
    })
}

pub(super) unsafe extern "C" fn hipStreamIsCapturing(
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
) -> hipError_t {
    entry(|f| {
        non_null(status)?;
        // SAFETY: `status` is a valid `hipStreamCaptureStatus`, an `int`
        // as CUDA's enum is.
        rt(unsafe { (f.rt.cudaStreamIsCapturing)(stream_of(stream)?, status.cast()) })
    })
}

/// `cuStreamGetCaptureInfo_v2` with the HIP arguments; a non-null
/// `graph_out` gets the capture's graph handle.
fn capture_info(
    f: &CudaFns,
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
    id: *mut c_ulonglong,
    graph_out: *mut hipGraph_t,
    dependencies: *mut *const hipGraphNode_t,
    count: *mut usize,
) -> Result<(), hipError_t> {
    non_null(status)?;
    ensure_context(f)?;
    let stream = stream_of(stream)?;
    let mut raw_graph: *mut c_void = std::ptr::null_mut();
    let graph_ptr = if graph_out.is_null() { std::ptr::null_mut() } else { &mut raw_graph as *mut _ };
    // SAFETY: every out-pointer is the caller's (valid or null, which the
    // driver skips) or `raw_graph`; `hipGraphNode_t` and `CUgraphNode` are
    // both opaque pointers; a HIP status is an `int` as the driver's is.
    cu(unsafe {
        (f.drv.cuStreamGetCaptureInfo)(stream, status.cast(), id.cast(), graph_ptr, dependencies.cast(), count)
    })?;
    if !graph_out.is_null() {
        let handle = if raw_graph.is_null() { std::ptr::null_mut() } else { graph_handle(raw_graph)? };
        // SAFETY: non-null and valid for a write (caller).
        unsafe { graph_out.write(handle.cast()) };
    }
    Ok(())
}

pub(super) unsafe extern "C" fn hipStreamGetCaptureInfo(
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
    id: *mut c_ulonglong,
) -> hipError_t {
    entry(|f| {
        let (graph, deps, count) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        capture_info(f, stream, status, id, graph, deps, count)
    })
}

pub(super) unsafe extern "C" fn hipStreamGetCaptureInfo_v2(
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
    id: *mut c_ulonglong,
    graph: *mut hipGraph_t,
    dependencies: *mut *const hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    entry(|f| capture_info(f, stream, status, id, graph, dependencies, count))
}

pub(super) unsafe extern "C" fn hipThreadExchangeStreamCaptureMode(mode: *mut hipStreamCaptureMode) -> hipError_t {
    entry(|f| {
        non_null(mode)?;
        // SAFETY: `mode` is a valid `hipStreamCaptureMode`, an `int` as
        // CUDA's enum is.
        rt(unsafe { (f.rt.cudaThreadExchangeStreamCaptureMode)(mode.cast()) })
    })
}

pub(super) unsafe extern "C" fn hipGraphCreate(graph: *mut hipGraph_t, flags: c_uint) -> hipError_t {
    entry(|f| {
        create_in(
            &GRAPHS,
            graph.cast(),
            // SAFETY: a valid out-pointer; CUDA checks the flags (0).
            |raw| rt(unsafe { (f.rt.cudaGraphCreate)(raw, flags) }),
            |raw| {
                // SAFETY: the graph just made, destroyed once.
                let _ = unsafe { (f.rt.cudaGraphDestroy)(raw) };
            },
        )
    })
}

pub(super) unsafe extern "C" fn hipGraphDestroy(graph: hipGraph_t) -> hipError_t {
    entry(|f| {
        if graph.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let raw = GRAPHS.remove(graph.cast()).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        // SAFETY: the live graph the handle named, destroyed once: the
        // handle no longer resolves.
        rt(unsafe { (f.rt.cudaGraphDestroy)(raw) })
    })
}

pub(super) unsafe extern "C" fn hipGraphGetNodes(
    graph: hipGraph_t,
    nodes: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    entry(|f| {
        non_null(count)?;
        // SAFETY: `nodes` is null or holds `*count` node slots (caller);
        // HIP's and CUDA's nodes are both opaque pointers.
        rt(unsafe { (f.rt.cudaGraphGetNodes)(graph_of(graph)?, nodes.cast(), count) })
    })
}

pub(super) unsafe extern "C" fn hipGraphInstantiate(
    exec: *mut hipGraphExec_t,
    graph: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    log: *mut c_char,
    log_size: usize,
) -> hipError_t {
    entry(|f| {
        let graph = graph_of(graph)?;
        // CUDA 12 reports no error node or log; write none.
        if !error_node.is_null() {
            // SAFETY: non-null and valid for a write (caller).
            unsafe { error_node.write(std::ptr::null_mut()) };
        }
        if !log.is_null() && log_size > 0 {
            // SAFETY: `log` holds `log_size` > 0 bytes (caller).
            unsafe { log.write(0) };
        }
        // SAFETY: a valid out-pointer and a live graph.
        let create = |raw| rt(unsafe { (f.rt.cudaGraphInstantiateWithFlags)(raw, graph, 0) });
        create_in(&EXECS, exec.cast(), create, |raw| destroy_exec(f, raw))
    })
}

pub(super) unsafe extern "C" fn hipGraphInstantiateWithFlags(
    exec: *mut hipGraphExec_t,
    graph: hipGraph_t,
    flags: c_ulonglong,
) -> hipError_t {
    entry(|f| {
        let graph = graph_of(graph)?;
        // SAFETY: a valid out-pointer and a live graph; HIP's flag bits
        // (AutoFreeOnLaunch 1, Upload 2, DeviceLaunch 4, UseNodePriority 8)
        // are CUDA's, which CUDA checks.
        let create = |raw| rt(unsafe { (f.rt.cudaGraphInstantiateWithFlags)(raw, graph, flags) });
        create_in(&EXECS, exec.cast(), create, |raw| destroy_exec(f, raw))
    })
}

pub(super) unsafe extern "C" fn hipGraphLaunch(exec: hipGraphExec_t, stream: hipStream_t) -> hipError_t {
    // SAFETY: a live executable graph and stream.
    entry(|f| rt(unsafe { (f.rt.cudaGraphLaunch)(exec_of(exec)?, stream_of(stream)?) }))
}

pub(super) unsafe extern "C" fn hipGraphUpload(exec: hipGraphExec_t, stream: hipStream_t) -> hipError_t {
    // SAFETY: a live executable graph and stream.
    entry(|f| rt(unsafe { (f.rt.cudaGraphUpload)(exec_of(exec)?, stream_of(stream)?) }))
}

pub(super) unsafe extern "C" fn hipGraphExecDestroy(exec: hipGraphExec_t) -> hipError_t {
    entry(|f| {
        if exec.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let raw = EXECS.remove(exec.cast()).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        // SAFETY: the live executable graph the handle named, destroyed
        // once. CUDA releases it after launches already queued.
        rt(unsafe { (f.rt.cudaGraphExecDestroy)(raw) })
    })
}

pub(super) unsafe extern "C" fn hipGraphExecUpdate(
    exec: hipGraphExec_t,
    graph: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    result: *mut hipGraphExecUpdateResult,
) -> hipError_t {
    entry(|f| {
        non_null(error_node)?;
        non_null(result)?;
        let (exec, graph) = (exec_of(exec)?, graph_of(graph)?);
        let mut info = CudaGraphExecUpdateResultInfo::default();
        // SAFETY: live objects and a valid result struct to write.
        let status = rt(unsafe { (f.rt.cudaGraphExecUpdate)(exec, graph, &mut info) });
        // SAFETY: both checked non-null; valid for writes (caller).
        unsafe {
            error_node.write(info.error_node.cast());
            result.write(hipGraphExecUpdateResult(info.result as c_uint));
        }
        status
    })
}

pub(super) unsafe extern "C" fn hipGraphNodeGetType(node: hipGraphNode_t, kind: *mut hipGraphNodeType) -> hipError_t {
    entry(|f| {
        non_null(node)?;
        non_null(kind)?;
        // SAFETY: a node pointer as `hipGraphGetNodes` handed it out (CUDA's
        // own); HIP's node types 0-11 are CUDA's values, an `int` as
        // CUDA's enum is.
        rt(unsafe { (f.rt.cudaGraphNodeGetType)(node.cast(), kind.cast()) })
    })
}

pub(super) unsafe extern "C" fn hipDeviceGraphMemTrim(device: c_int) -> hipError_t {
    // SAFETY: no pointers; CUDA checks the ordinal.
    entry(|f| rt(unsafe { (f.rt.cudaDeviceGraphMemTrim)(device) }))
}

pub(super) unsafe extern "C" fn hipDeviceGetGraphMemAttribute(
    device: c_int,
    attr: hipGraphMemAttributeType,
    value: *mut c_void,
) -> hipError_t {
    // SAFETY: the caller's out-pointer to a `uint64_t`.
    entry(|f| unsafe { graph_mem_attribute(f.rt.cudaDeviceGetGraphMemAttribute, device, attr, value) })
}

pub(super) unsafe extern "C" fn hipDeviceSetGraphMemAttribute(
    device: c_int,
    attr: hipGraphMemAttributeType,
    value: *mut c_void,
) -> hipError_t {
    // SAFETY: the caller's pointer to a `uint64_t`.
    entry(|f| unsafe { graph_mem_attribute(f.rt.cudaDeviceSetGraphMemAttribute, device, attr, value) })
}

/// `cudaDeviceGetGraphMemAttribute` or `cudaDeviceSetGraphMemAttribute`
/// (`call`) of `device`'s `attr`: HIP's four attributes are CUDA's values,
/// which CUDA checks, as it checks the ordinal.
///
/// # Safety
/// `value` is null (refused) or points to a `uint64_t`.
unsafe fn graph_mem_attribute(
    call: unsafe extern "C" fn(c_int, c_int, *mut c_void) -> super::CudaError,
    device: c_int,
    attr: hipGraphMemAttributeType,
    value: *mut c_void,
) -> Result<(), hipError_t> {
    non_null(value)?;
    // SAFETY: a non-null pointer to a `uint64_t` (caller).
    rt(unsafe { call(device, attr.0 as c_int, value) })
}
