//! ROCTx's ranges and marks: the nested ranges and instants of the
//! calling thread that a profiler shows on its timeline (rocprofv3 on
//! AMD, the simulator's own timeline). The table is the one
//! `hip_sys::roctx` loads; none of these calls can fail.
//!
//! # References
//! ROCTx's [API reference](https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/api-reference/rocprofiler-sdk-roctx_api_reference.html).

use hip_sys::roctx::RoctxApi;
use std::ffi::CStr;

/// `roctxRangePushA`: open a range named `message` on this thread; the
/// 0-based level it starts at.
#[doc(alias = "roctxRangePushA")]
pub fn range_push(api: &RoctxApi, message: &CStr) -> i32 {
    // SAFETY: a NUL-terminated message; the call takes any.
    unsafe { (api.roctxRangePushA)(message.as_ptr()) }
}

/// `roctxRangePop`: close this thread's innermost range; the level it
/// was started at, or a negative value when none was open.
#[doc(alias = "roctxRangePop")]
pub fn range_pop(api: &RoctxApi) -> i32 {
    // SAFETY: no arguments.
    unsafe { (api.roctxRangePop)() }
}

/// `roctxMarkA`: an instant named `message` on this thread.
#[doc(alias = "roctxMarkA")]
pub fn mark(api: &RoctxApi, message: &CStr) {
    // SAFETY: a NUL-terminated message; the call takes any.
    unsafe { (api.roctxMarkA)(message.as_ptr()) }
}
