//! The one place this crate calls RCCL (the collectives' door): the
//! table, one function per C call, and its results turned into errors
//! that carry the communicator's own message.

use crate::{LibError, Result};
use hip_sys::hipStream_t;
use hip_sys::rccl::{
    ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t, ncclScalarResidence_t, ncclUniqueId, RcclApi,
};
use std::ffi::{c_int, c_void, CStr};

/// The process's RCCL table.
pub(crate) fn api() -> Result<&'static RcclApi> {
    Ok(hip_sys::rccl()?)
}

/// `result` as a result; a failure names `operation`, the rank and what
/// `ncclGetLastError` says.
pub(crate) fn check(api: &RcclApi, result: ncclResult_t, operation: &'static str, comm: ncclComm_t) -> Result<()> {
    if result == ncclResult_t::ncclSuccess {
        return Ok(());
    }
    Err(error(api, result, operation, comm))
}

/// The error of a failed `result`.
pub(crate) fn error(api: &RcclApi, result: ncclResult_t, operation: &'static str, comm: ncclComm_t) -> LibError {
    LibError::Collective { operation, result: result.0, name: name(result), message: last_error(api, comm) }
}

/// `ncclResult_t`'s name.
pub(crate) fn name(result: ncclResult_t) -> &'static str {
    // 7 is ncclInProgress from NCCL 2.14 (non-blocking communicators,
    // which this crate does not make); RCCL 5.4's header calls it
    // ncclNumResults.
    match result.0 {
        7 => "ncclInProgress",
        _ => result.name().unwrap_or("an unknown ncclResult_t"),
    }
}

/// What `ncclGetLastError` says (empty if nothing).
pub(crate) fn last_error(api: &RcclApi, comm: ncclComm_t) -> String {
    // SAFETY: takes any communicator (or null) and returns null or a
    // NUL-terminated string valid until the thread's next NCCL call.
    let text = unsafe { (api.ncclGetLastError)(comm) };
    if text.is_null() {
        return String::new();
    }
    // SAFETY: non-null and NUL-terminated (above); copied at once.
    unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
}

// One function per C call. Each is NCCL's (RCCL's) function of the same
// name; the safety contract is the C function's.

/// `ncclGetUniqueId`.
///
/// # Safety
/// `id` is valid for a write.
pub(crate) unsafe fn get_unique_id(api: &RcclApi, id: *mut ncclUniqueId) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclGetUniqueId)(id) }
}

/// `ncclCommInitAll`.
///
/// # Safety
/// `comms` has room for `n` communicators, `devices` holds `n` ordinals.
pub(crate) unsafe fn comm_init_all(
    api: &RcclApi,
    comms: *mut ncclComm_t,
    n: c_int,
    devices: *const c_int,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclCommInitAll)(comms, n, devices) }
}

/// `ncclCommInitRank`, on the current device.
///
/// # Safety
/// `comm` is valid for a write.
pub(crate) unsafe fn comm_init_rank(
    api: &RcclApi,
    comm: *mut ncclComm_t,
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclCommInitRank)(comm, nranks, id, rank) }
}

/// `ncclCommGetAsyncError`.
///
/// # Safety
/// `comm` is live; `error` is valid for a write.
pub(crate) unsafe fn comm_get_async_error(api: &RcclApi, comm: ncclComm_t, error: *mut ncclResult_t) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclCommGetAsyncError)(comm, error) }
}

/// `ncclCommAbort`.
///
/// # Safety
/// `comm` is live and not used again.
pub(crate) unsafe fn comm_abort(api: &RcclApi, comm: ncclComm_t) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclCommAbort)(comm) }
}

/// `ncclCommDestroy`.
///
/// # Safety
/// `comm` is live and not used again.
pub(crate) unsafe fn comm_destroy(api: &RcclApi, comm: ncclComm_t) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclCommDestroy)(comm) }
}

/// `ncclGroupStart`.
pub(crate) fn group_start(api: &RcclApi) -> ncclResult_t {
    // SAFETY: no arguments.
    unsafe { (api.ncclGroupStart)() }
}

/// `ncclGroupEnd`.
pub(crate) fn group_end(api: &RcclApi) -> ncclResult_t {
    // SAFETY: no arguments.
    unsafe { (api.ncclGroupEnd)() }
}

/// `ncclRedOpCreatePreMulSum` with a host scalar, read before it returns
/// (`ncclScalarHostImmediate`).
///
/// # Safety
/// `scalar` points to one element of `datatype`; `comm` is live.
pub(crate) unsafe fn red_op_create_pre_mul_sum(
    api: &RcclApi,
    op: *mut ncclRedOp_t,
    scalar: *const c_void,
    datatype: ncclDataType_t,
    comm: ncclComm_t,
) -> ncclResult_t {
    let residence = ncclScalarResidence_t::ncclScalarHostImmediate;
    // SAFETY: the caller's contract; NCCL only reads a host scalar.
    unsafe { (api.ncclRedOpCreatePreMulSum)(op, scalar.cast_mut(), datatype, residence, comm) }
}

/// `ncclRedOpDestroy`. NCCL allows it as soon as the last call given `op`
/// has returned, also inside a group.
///
/// # Safety
/// `op` was made on the live `comm` and is not used again.
pub(crate) unsafe fn red_op_destroy(api: &RcclApi, op: ncclRedOp_t, comm: ncclComm_t) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclRedOpDestroy)(op, comm) }
}

/// `ncclAllReduce`.
///
/// # Safety
/// `send` and `recv` hold `count` elements of `datatype` on the
/// communicator's device (the same pointer in place); `comm` and `stream`
/// are live, of that device.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn all_reduce(
    api: &RcclApi,
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclAllReduce)(send, recv, count, datatype, op, comm, stream) }
}

/// `ncclBroadcast`.
///
/// # Safety
/// As [`all_reduce`]; `send` is read at the root only.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn broadcast(
    api: &RcclApi,
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    root: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclBroadcast)(send, recv, count, datatype, root, comm, stream) }
}

/// `ncclReduce`.
///
/// # Safety
/// As [`all_reduce`]; `recv` is written at the root only.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reduce(
    api: &RcclApi,
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    root: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclReduce)(send, recv, count, datatype, op, root, comm, stream) }
}

/// `ncclAllGather`.
///
/// # Safety
/// `send` holds `count` elements, `recv` `count` times the rank count, on
/// the communicator's device; `comm` and `stream` live, of that device.
pub(crate) unsafe fn all_gather(
    api: &RcclApi,
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclAllGather)(send, recv, count, datatype, comm, stream) }
}

/// `ncclReduceScatter`.
///
/// # Safety
/// `recv` holds `count` elements, `send` `count` times the rank count, on
/// the communicator's device; `comm` and `stream` live, of that device.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reduce_scatter(
    api: &RcclApi,
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclReduceScatter)(send, recv, count, datatype, op, comm, stream) }
}

/// `ncclSend`.
///
/// # Safety
/// `send` holds `count` elements on the communicator's device; `comm` and
/// `stream` live, of that device.
pub(crate) unsafe fn send(
    api: &RcclApi,
    send: *const c_void,
    count: usize,
    datatype: ncclDataType_t,
    peer: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclSend)(send, count, datatype, peer, comm, stream) }
}

/// `ncclRecv`.
///
/// # Safety
/// As [`send`], for `recv`, which is written.
pub(crate) unsafe fn recv(
    api: &RcclApi,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    peer: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's contract.
    unsafe { (api.ncclRecv)(recv, count, datatype, peer, comm, stream) }
}
