//! Stream capture and graphs: begin and end a capture, ask a stream's
//! capture status, instantiate a graph, launch and update the executable
//! one, destroy both.
//!
//! # References
//! HIP's [graph management](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___graph.html) and
//! [stream capture](https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/hipgraph.html) reference.

use hip_sys::{
    hipError_t, hipGraphExecUpdateResult, hipGraphExec_t, hipGraphNode_t, hipGraph_t, hipStreamCaptureMode,
    hipStreamCaptureStatus, hipStream_t,
};

use super::{api, on_device, run_on};
use crate::{check, Device, Result};

/// `hipStreamBeginCapture`: start capturing `stream`'s work in `mode`
/// (under `device` through [`on_device`]).
///
/// # Errors
/// HIP's status: `hipErrorStreamCaptureUnsupported` for the null stream,
/// `hipErrorIllegalState` for a stream already capturing.
///
/// # Safety
/// `stream` is a live stream of `device`.
#[doc(alias = "hipStreamBeginCapture")]
pub unsafe fn begin_capture(device: Device, stream: hipStream_t, mode: hipStreamCaptureMode) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        check(
            // SAFETY: the caller's live stream; HIP checks the mode.
            unsafe { (api.hipStreamBeginCapture)(stream, mode) },
            "hipStreamBeginCapture",
        )
    })?
}

/// `hipStreamEndCapture`: end the capture begun on `stream` and return
/// its graph (under `device` through [`on_device`]).
///
/// # Errors
/// HIP's status: `hipErrorStreamCaptureInvalidated` (no graph),
/// `hipErrorStreamCaptureUnjoined`, `hipErrorStreamCaptureWrongThread`,
/// `hipErrorStreamCaptureUnmatched`, `hipErrorIllegalState`.
///
/// # Safety
/// `stream` is a live stream of `device`.
#[doc(alias = "hipStreamEndCapture")]
pub unsafe fn end_capture(device: Device, stream: hipStream_t) -> Result<hipGraph_t> {
    let api = api()?;
    let mut graph: hipGraph_t = std::ptr::null_mut();
    on_device(device, || {
        check(
            // SAFETY: the caller's live stream and a valid out-pointer.
            unsafe { (api.hipStreamEndCapture)(stream, &mut graph) },
            "hipStreamEndCapture",
        )
    })??;
    Ok(graph)
}

/// `hipStreamIsCapturing`: whether `stream` captures (under `device`
/// through [`on_device`]).
///
/// # Errors
/// HIP's status: `hipErrorStreamCaptureImplicit` for the null stream while
/// a blocking stream captures.
///
/// # Safety
/// `stream` is a live stream of `device` (or null).
#[doc(alias = "hipStreamIsCapturing")]
pub unsafe fn capture_status(device: Device, stream: hipStream_t) -> Result<hipStreamCaptureStatus> {
    let api = api()?;
    let mut status = hipStreamCaptureStatus::hipStreamCaptureStatusNone;
    on_device(device, || {
        check(
            // SAFETY: the caller's live stream and a valid out-pointer.
            unsafe { (api.hipStreamIsCapturing)(stream, &mut status) },
            "hipStreamIsCapturing",
        )
    })??;
    Ok(status)
}

/// `hipStreamGetCaptureInfo`: `stream`'s capture status and, while it
/// captures, the capture's process-unique id (under `device` through
/// [`on_device`]).
///
/// # Errors
/// HIP's status: `hipErrorStreamCaptureImplicit` for the null stream while
/// a blocking stream captures.
///
/// # Safety
/// `stream` is a live stream of `device` (or null).
#[doc(alias = "hipStreamGetCaptureInfo")]
pub unsafe fn capture_info(device: Device, stream: hipStream_t) -> Result<(hipStreamCaptureStatus, u64)> {
    let api = api()?;
    let mut status = hipStreamCaptureStatus::hipStreamCaptureStatusNone;
    let mut id: std::ffi::c_ulonglong = 0;
    on_device(device, || {
        check(
            // SAFETY: the caller's live stream and valid out-pointers.
            unsafe { (api.hipStreamGetCaptureInfo)(stream, &mut status, &mut id) },
            "hipStreamGetCaptureInfo",
        )
    })??;
    Ok((status, id))
}

/// `hipThreadExchangeStreamCaptureMode`: set the calling thread's
/// interaction mode with captures; returns the previous one. Binds no
/// device: the mode is the thread's.
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipThreadExchangeStreamCaptureMode")]
pub fn exchange_capture_mode(mode: hipStreamCaptureMode) -> Result<hipStreamCaptureMode> {
    let api = api()?;
    let mut mode = mode;
    // SAFETY: a valid in/out pointer.
    check(unsafe { (api.hipThreadExchangeStreamCaptureMode)(&mut mode) }, "hipThreadExchangeStreamCaptureMode")?;
    Ok(mode)
}

/// `hipGraphGetNodes` with no node array: how many nodes `graph` has.
/// Binds no device.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `graph` is a live graph.
#[doc(alias = "hipGraphGetNodes")]
pub unsafe fn node_count(graph: hipGraph_t) -> Result<usize> {
    let api = api()?;
    let mut count = 0usize;
    // SAFETY: the caller's live graph; a null node array asks for the count.
    check(unsafe { (api.hipGraphGetNodes)(graph, std::ptr::null_mut(), &mut count) }, "hipGraphGetNodes")?;
    Ok(count)
}

/// `hipGraphDestroy`: destroy `graph` (under `device` through
/// [`on_device`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `graph` is a live graph of `device`, not used again.
#[doc(alias = "hipGraphDestroy")]
pub unsafe fn destroy_graph(device: Device, graph: hipGraph_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        check(
            // SAFETY: the caller's live graph, destroyed once.
            unsafe { (api.hipGraphDestroy)(graph) },
            "hipGraphDestroy",
        )
    })?
}

/// `hipGraphInstantiateWithFlags` with no flags: an executable graph of
/// `graph` (under `device` through [`on_device`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `graph` is a live graph of `device`.
#[doc(alias = "hipGraphInstantiateWithFlags")]
pub unsafe fn instantiate(device: Device, graph: hipGraph_t) -> Result<hipGraphExec_t> {
    let api = api()?;
    let mut exec: hipGraphExec_t = std::ptr::null_mut();
    on_device(device, || {
        check(
            // SAFETY: the caller's live graph and a valid out-pointer.
            unsafe { (api.hipGraphInstantiateWithFlags)(&mut exec, graph, 0) },
            "hipGraphInstantiateWithFlags",
        )
    })??;
    Ok(exec)
}

/// `hipGraphLaunch`: enqueue a run of `exec` on `stream` (under `device`
/// through [`run_on`]: a hot call).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `exec` is a live executable graph of `device`, `stream` a live stream
/// of `device` (or null), and the memory the graph's nodes use is live
/// until the run completes.
#[inline]
#[doc(alias = "hipGraphLaunch")]
pub unsafe fn launch(device: Device, exec: hipGraphExec_t, stream: hipStream_t) -> Result<()> {
    let api = api()?;
    run_on(device, || {
        check(
            // SAFETY: the caller's live exec and stream.
            unsafe { (api.hipGraphLaunch)(exec, stream) },
            "hipGraphLaunch",
        )
    })?
}

/// `hipGraphUpload`: make `exec` ready to run on `stream`'s device ahead
/// of its first launch, in `stream`'s order (under `device` through
/// [`run_on`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `exec` is a live executable graph of `device`, `stream` a live stream
/// of `device` (or null).
#[doc(alias = "hipGraphUpload")]
pub unsafe fn upload(device: Device, exec: hipGraphExec_t, stream: hipStream_t) -> Result<()> {
    let api = api()?;
    run_on(device, || {
        check(
            // SAFETY: the caller's live exec and stream.
            unsafe { (api.hipGraphUpload)(exec, stream) },
            "hipGraphUpload",
        )
    })?
}

/// `hipGraphExecUpdate`: give `exec` the parameters of `graph`, of the
/// same shape (under `device` through [`on_device`]). Returns HIP's
/// result: `hipGraphExecUpdateSuccess`, or why the graph does not fit
/// (with the status `hipErrorGraphExecUpdateFailure`, which is not an
/// `Err` here).
///
/// # Errors
/// HIP's status other than `hipErrorGraphExecUpdateFailure`.
///
/// # Safety
/// `exec` and `graph` are live, of `device`, and no launch of `exec` is
/// queued or running.
#[doc(alias = "hipGraphExecUpdate")]
pub unsafe fn update(device: Device, exec: hipGraphExec_t, graph: hipGraph_t) -> Result<hipGraphExecUpdateResult> {
    let api = api()?;
    let mut node: hipGraphNode_t = std::ptr::null_mut();
    let mut result = hipGraphExecUpdateResult::hipGraphExecUpdateSuccess;
    let status = on_device(device, || {
        // SAFETY: the caller's live exec and graph; valid out-pointers.
        unsafe { (api.hipGraphExecUpdate)(exec, graph, &mut node, &mut result) }
    })?;
    if status == hipError_t::hipErrorGraphExecUpdateFailure {
        return Ok(result);
    }
    check(status, "hipGraphExecUpdate")?;
    Ok(result)
}

/// `hipGraphExecDestroy`: destroy `exec` (under `device` through
/// [`on_device`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `exec` is a live executable graph of `device`, not used again, with no
/// launch of it queued (HIP before 6.2 frees it at once, under the queued
/// work).
#[doc(alias = "hipGraphExecDestroy")]
pub unsafe fn destroy_exec(device: Device, exec: hipGraphExec_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        check(
            // SAFETY: the caller's live exec, destroyed once, idle.
            unsafe { (api.hipGraphExecDestroy)(exec) },
            "hipGraphExecDestroy",
        )
    })?
}
