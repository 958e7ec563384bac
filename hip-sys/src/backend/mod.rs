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
//! The simulator is compiled in with the `sim` feature, which is on by
//! default. In a build without it, `AMDGPU_BACKEND=sim`, and detection that
//! would fall back to the simulator, give a
//! [`BackendError::BackendUnavailable`] that says how to turn it on; amd
//! and nvidia work as ever.
//!
//! Each backend provides its HIP table and, through its provider, the math
//! library tables ([`crate::libraries`]). Only the selection names every
//! backend: the backends do not know of each other, and nothing outside
//! the selection knows of the simulator.

mod amd;
mod error;
mod kind;
mod loader;
pub mod nvidia;
mod provider;
mod selection;
#[cfg(feature = "sim")]
pub mod sim;

pub(crate) use amd::hiprtc_compiler;
pub use error::BackendError;
pub use kind::Backend;
pub(crate) use nvidia::nvrtc_compiler;
pub(crate) use selection::provider;
pub use selection::{backend, device_target_id, hip, last_error_is_sticky, selection, BACKEND_ENV};

/// What `hipRuntimeGetVersion` answered on `backend`, as (major, minor,
/// patch): HIP's `major * 10^7 + minor * 10^5 + patch` on amd and the
/// simulator, CUDA's `1000 * major + 10 * minor` on nvidia (as HIP's NVIDIA
/// platform reports it), with patch 0. `None` for a negative number.
pub fn decode_runtime_version(backend: Backend, encoded: i32) -> Option<(u32, u32, u32)> {
    match backend {
        Backend::Nvidia => nvidia::decode_version(encoded).map(|(major, minor)| (major, minor, 0)),
        Backend::Amd | Backend::Sim => amd::HipVersion::from_encoded(encoded).map(|v| (v.major, v.minor, v.patch)),
    }
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
