//! How every entry point of the backend runs: find the CUDA functions,
//! never unwind into the C caller, translate the status, and record a
//! failure as the thread's last error.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::errors::{cu_result_to_hip, cuda_error_to_hip, record_last_error};
use super::{fns, CuResult, CudaError, CudaFns};
use crate::bindings::hip::hipError_t;

/// Run one entry point's `body` with the loaded CUDA functions.
///
/// A panic in `body` (there is none by design) becomes
/// `hipErrorUnknown` instead of unwinding into C. The result is recorded
/// as the thread's last error (see [`record_last_error`]).
#[inline]
pub(super) fn entry(body: impl FnOnce(&'static CudaFns) -> Result<(), hipError_t>) -> hipError_t {
    let status = match catch_unwind(AssertUnwindSafe(|| match fns() {
        Some(f) => body(f),
        None => Err(hipError_t::hipErrorNotInitialized),
    })) {
        Ok(Ok(())) => hipError_t::hipSuccess,
        Ok(Err(e)) => e,
        Err(_) => {
            log::error!("nvidia backend: internal panic in a HIP entry point");
            hipError_t::hipErrorUnknown
        }
    };
    record_last_error(status);
    status
}

/// A runtime API status as a HIP result.
pub(super) fn rt(code: CudaError) -> Result<(), hipError_t> {
    match cuda_error_to_hip(code) {
        hipError_t::hipSuccess => Ok(()),
        e => Err(e),
    }
}

/// A driver API status as a HIP result.
pub(super) fn cu(code: CuResult) -> Result<(), hipError_t> {
    match cu_result_to_hip(code) {
        hipError_t::hipSuccess => Ok(()),
        e => Err(e),
    }
}

/// `hipErrorInvalidValue` for a null out-pointer, checked before CUDA
/// sees it (CUDA answers the same, but some CUDA functions crash on one).
pub(super) fn non_null<T>(p: *mut T) -> Result<(), hipError_t> {
    if p.is_null() {
        Err(hipError_t::hipErrorInvalidValue)
    } else {
        Ok(())
    }
}
