//! The process's HIP table, which every wrapper gets first.

use crate::Result;
use hip_sys::HipApi;

/// The process's HIP table, or why there is none.
///
/// # Errors
/// [`HipError::Backend`](crate::HipError::Backend): no backend could be
/// set up (the same error on every call).
pub fn api() -> Result<&'static HipApi> {
    Ok(hip_sys::hip()?)
}
