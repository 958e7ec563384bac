//! The one place this crate calls RCCL: the table, and its results turned
//! into errors that carry the communicator's own message.

use crate::{LibError, Result};
use hip_sys::rccl::{ncclComm_t, ncclResult_t, RcclApi};
use std::ffi::CStr;

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
