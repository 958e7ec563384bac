//! The process's backend: which implementation fills the HIP table.
//!
//! Selection happens once per process, on the first call of [`hip()`],
//! [`backend()`] or [`selection()`]:
//!
//! - If `AMDGPU_BACKEND` is set and not empty, it names the backend
//!   (`amd`, `nvidia` or `sim`, case-insensitive). That backend is
//!   **forced**: if it cannot be used, every call returns the error; there
//!   is no fallback.
//! - Otherwise the first backend that works wins, in this order:
//!   `amd` (`libamdhip64` loads, has a supported version and reports at
//!   least one device), `nvidia` (`libcudart` and `libcuda` load and
//!   `cudaGetDeviceCount` reports at least one device), `sim`. When it
//!   falls back to the simulator it prints one notice line on stderr.
//!
//! The simulator reads `AMDGPU_SIM_DEVICES` and `AMDGPU_SIM_MEMORY` when it
//! is chosen; a bad value is a [`BackendError::InvalidSimConfig`].
//!
//! Each backend is compiled in with the cargo feature of its name (`amd`,
//! `nvidia`, `sim`), all on by default. Asking for one that is built out
//! (`AMDGPU_BACKEND=amd`, or detection reaching it) gives a
//! [`BackendError::BackendUnavailable`] that names its feature; detection
//! goes on to the next, and without `sim` ends in that error instead of
//! the simulator. The others work as ever.
//!
//! Each backend provides its HIP table and, through its provider, the math
//! library tables ([`crate::libraries`]). Only the selection names every
//! backend: the backends do not know of each other, and nothing outside
//! the selection knows of the simulator.

#[cfg(feature = "amd")]
mod amd;
mod foreign;
mod loader;
#[cfg(feature = "nvidia")]
pub mod nvidia;
mod selection;
mod versions;

/// The simulator: the `hip-sim` crate (the `sim` feature).
#[cfg(feature = "sim")]
pub use hip_sim as sim;

pub use foreign::{adopt_stream, forget_stream, native_stream};
pub(crate) use hip_abi::provider;
pub use hip_abi::{Backend, BackendError};
pub use selection::{backend, device_target_id, hip, last_error_is_sticky, selection, BACKEND_ENV};
pub(crate) use selection::{hiprtc_compiler, nvrtc_compiler, provider};

/// What `hipRuntimeGetVersion` answered on `backend`, as (major, minor,
/// patch): HIP's `major * 10^7 + minor * 10^5 + patch` on amd and the
/// simulator, CUDA's `1000 * major + 10 * minor` on nvidia (as HIP's NVIDIA
/// platform reports it), with patch 0. `None` for a negative number.
pub fn decode_runtime_version(backend: Backend, encoded: i32) -> Option<(u32, u32, u32)> {
    match backend {
        Backend::Nvidia => versions::decode_cuda_version(encoded).map(|(major, minor)| (major, minor, 0)),
        Backend::Amd | Backend::Sim => versions::HipVersion::from_encoded(encoded).map(|v| (v.major, v.minor, v.patch)),
    }
}

/// HIP's name and description of `status`, as the backend serving this
/// process answers `hipGetErrorName` and `hipGetErrorString`: the one
/// place above the backends where they are called, so that the crates
/// above make no C call for an error's text. Numbers (and "no HIP
/// backend") when no backend loads or it answers null.
#[doc(alias = "hipGetErrorName")]
#[doc(alias = "hipGetErrorString")]
pub fn status_text(status: crate::bindings::hip::hipError_t) -> (String, String) {
    let Ok(api) = hip() else {
        return (format!("hipError {}", status.0), "no HIP backend".to_string());
    };
    // SAFETY: hipGetErrorName/String take any code and return a static,
    // NUL-terminated string (or null, handled below).
    let (name, text) = unsafe { ((api.hipGetErrorName)(status), (api.hipGetErrorString)(status)) };
    let read = |p: *const std::ffi::c_char| {
        // SAFETY: non-null (checked) and NUL-terminated per the HIP API.
        (!p.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    (
        read(name).unwrap_or_else(|| format!("hipError {}", status.0)),
        read(text).unwrap_or_else(|| "unknown error".to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_versions_decode_per_backend() {
        assert_eq!(decode_runtime_version(Backend::Amd, 60_032_830), Some((6, 0, 32830)));
        assert_eq!(decode_runtime_version(Backend::Sim, 70_000_000), Some((7, 0, 0)));
        assert_eq!(decode_runtime_version(Backend::Nvidia, 13_000), Some((13, 0, 0)));
        assert_eq!(decode_runtime_version(Backend::Nvidia, 12_040), Some((12, 4, 0)));
        assert_eq!(decode_runtime_version(Backend::Amd, -1), None);
    }
}
