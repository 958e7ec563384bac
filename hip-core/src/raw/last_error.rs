//! HIP's last error on this thread: read it, take it, and forget a failure
//! this layer expected.

use hip_sys::hipError_t;

use super::api;
use crate::Result;

/// The thread's last error, left in place (`hipPeekAtLastError`): the
/// status itself, which the caller turns into an error or not.
pub(crate) fn peek() -> Result<hipError_t> {
    let api = api()?;
    // SAFETY: no arguments.
    Ok(unsafe { (api.hipPeekAtLastError)() })
}

/// The thread's last error, reset to success (`hipGetLastError`).
pub(crate) fn take() -> Result<hipError_t> {
    let api = api()?;
    // SAFETY: no arguments.
    Ok(unsafe { (api.hipGetLastError)() })
}

/// Forget the thread's last error when it is `status`, a failure this
/// layer expected and handled (an out-of-memory answer that the pool
/// recovers from), so that code which checks `hipGetLastError` after its
/// own work, as libraries do, does not take it for its own.
///
/// Under HIP 7 (and CUDA) a failure stays the thread's last error until it
/// is read; under HIP 5 and 6 the next call overwrites it anyway, so this
/// is needed only for 7 and harmless before. Never called from a drop:
/// rule 1 keeps drops away from `hipGetLastError`.
pub fn forget_expected_failure(status: hipError_t) {
    if peek().is_ok_and(|last| last == status) {
        let _ = take();
    }
}
