//! The runtime compiler's table, [`HiprtcApi`]: AMD's hipRTC, NVRTC on
//! nvidia, or the simulator's.
//!
//! - **amd**: hipRTC has lived in its own library since ROCm 6.0
//!   (`libhiprtc.so.6`, `libhiprtc.so.7`); in ROCm 5.x it is part of
//!   `libamdhip64` itself. The loader reads the HIP runtime's version
//!   (`hipRuntimeGetVersion`) and opens `libhiprtc.so.<major>` then
//!   `libhiprtc.so` for 6 and later, `libamdhip64.so.5` then
//!   `libamdhip64.so` for 5, in `$ROCM_PATH/lib`, `/opt/rocm/lib` and
//!   through the loader path. Every function of the table has the same
//!   signature in hipRTC 5.0 to 7.x. The library's own `hiprtcVersion`
//!   must report the runtime's major version: two ROCm installations
//!   mixed in one process are refused.
//! - **nvidia**: NVRTC (`libnvrtc.so.13`, `.12`) behind the same table,
//!   compiling for the current device's compute capability; see the nvidia
//!   backend's `nvrtc.rs`.
//! - **sim**: the simulator cannot compile C++. Its table creates programs
//!   and answers every compilation with `HIPRTC_ERROR_COMPILATION` and a
//!   log that says so and names its built-in kernels, which load by name
//!   through [`crate::sim::code_object`].

use std::sync::OnceLock;

use crate::hiprtc::HiprtcApi;
use crate::BackendError;

pub use crate::shared::hiprtc_names::hiprtc_status_name;

/// The process's hipRTC table (loaded on first use).
pub fn hiprtc() -> Result<&'static HiprtcApi, BackendError> {
    static TABLE: OnceLock<Result<&'static HiprtcApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.hiprtc)(crate::hip()?)).clone()
}
