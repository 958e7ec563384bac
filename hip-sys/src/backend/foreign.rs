//! Streams made by other code in this process (a framework's: PyTorch's,
//! CuPy's, JAX's), as handles of the loaded backend's table: the runtime's
//! own stream is the handle on AMD and in the simulator; on NVIDIA the
//! framework holds a `cudaStream_t`, which the table names by a handle of
//! its own until it is forgotten.

use super::backend;
use crate::bindings::hip::{hipError_t, hipStream_t};
use std::ffi::c_void;

/// The table's handle for `raw`, a stream of the loaded runtime made by
/// other code (a `hipStream_t` on AMD and in the simulator, a
/// `cudaStream_t` on NVIDIA; null is the null stream everywhere). Give it
/// back with [`forget_stream`]; the stream itself stays its maker's.
///
/// # Errors
/// `hipErrorOutOfMemory` when NVIDIA's table of streams is full.
pub fn adopt_stream(raw: *mut c_void) -> Result<hipStream_t, hipError_t> {
    match backend() {
        #[cfg(feature = "nvidia")]
        super::Backend::Nvidia if !raw.is_null() => super::nvidia::adopt_cuda_stream(raw),
        _ => Ok(raw.cast()),
    }
}

/// Give back a handle [`adopt_stream`] made; the stream is not destroyed.
///
/// # Errors
/// `hipErrorContextIsDestroyed` for a handle already given back (NVIDIA).
pub fn forget_stream(handle: hipStream_t) -> Result<(), hipError_t> {
    // Elsewhere the handle is the stream itself: nothing to give back.
    let _ = handle;
    match backend() {
        #[cfg(feature = "nvidia")]
        super::Backend::Nvidia if !handle.is_null() => super::nvidia::forget_cuda_stream(handle),
        _ => Ok(()),
    }
}

/// The loaded runtime's own stream behind a handle of the table, the
/// inverse of [`adopt_stream`]: what a framework takes for a stream (a
/// `hipStream_t` on AMD and in the simulator, where it is the handle
/// itself; the `cudaStream_t` on NVIDIA; null for the null stream).
///
/// # Errors
/// `hipErrorContextIsDestroyed` for a handle that names no stream
/// (NVIDIA).
pub fn native_stream(handle: hipStream_t) -> Result<*mut c_void, hipError_t> {
    match backend() {
        #[cfg(feature = "nvidia")]
        super::Backend::Nvidia if !handle.is_null() => super::nvidia::cuda_stream(handle),
        _ => Ok(handle.cast()),
    }
}
