//! ROCTx's table, for profiler ranges and marks: AMD's library, the
//! attached NVTX tool, the simulator's timeline, or none.
//!
//! - **amd**: `librocprofiler-sdk-roctx.so` (`.so.1` of ROCm 7, `.so.0`
//!   of ROCm 6), else roctracer's older `libroctx64.so` (`.so.4`), beside
//!   the loaded runtime. Either forwards to a profiler (rocprofv3,
//!   rocprof) when one is attached and costs a call otherwise.
//! - **sim**: the simulator records each thread's ranges and marks in its
//!   timeline, with ROCTx's return values.
//! - **nvidia**: NVTX v3, whose C API is header-only: the backend does
//!   NVTX's injection protocol itself, attaching the tool that Nsight
//!   Systems or Nsight Compute names in `NVTX_INJECTION64_PATH`; unset,
//!   there is no table and ranges are no-ops.
//!
//! Without a table the ranges of `hip_core::profile` are no-ops, and it
//! says so once.

use std::sync::OnceLock;

use crate::roctx::RoctxApi;
use crate::BackendError;

/// The process's ROCTx table.
pub fn roctx() -> Result<&'static RoctxApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RoctxApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.roctx)()).clone()
}
