//! Errors of backend selection and library loading.
//!
//! Every message says what went wrong and what to do about it, so that a
//! program can print it as it is.

use crate::Backend;
use std::str::FromStr;

/// Why a backend or one of its libraries could not be used.
///
/// Returned by `hip_sys::hip()` and `hip_sys::selection()`
/// when the process's backend cannot be set up. Selection happens once per
/// process, so the same error comes back on every later call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// `AMDGPU_BACKEND` holds a value that names no backend.
    #[error(
        "AMDGPU_BACKEND={value:?} is not a backend: set it to one of amd, nvidia, sim, \
         or leave it unset to pick the first that works"
    )]
    InvalidBackend {
        /// The value as found in the environment.
        value: String,
    },

    /// No candidate file of a C library could be loaded.
    #[error(
        "could not load {library}; tried: {}. To fix: {hint}",
        .tried.join(", ")
    )]
    LibraryNotFound {
        /// The library, e.g. `libamdhip64` (the HIP runtime).
        library: String,
        /// Every path or file name tried, in order, each followed by the
        /// loader's reason in parentheses.
        tried: Vec<String>,
        /// What to do about it.
        hint: String,
    },

    /// A library loaded but lacks a function this project calls.
    #[error(
        "{library} has no symbol `{symbol}`: the library is too old for amdgpu-rs \
         or is not a HIP runtime. To fix: {hint}"
    )]
    SymbolMissing {
        /// The library file that was loaded.
        library: String,
        /// The first symbol that could not be found.
        symbol: String,
        /// What to do about it.
        hint: String,
    },

    /// A library loaded but reports a version whose ABI this project does
    /// not know.
    #[error(
        "{library} reports version {found}, but amdgpu-rs supports {supported}. \
         To fix: install a supported ROCm release (set ROCM_PATH to it), \
         or set AMDGPU_BACKEND=sim to use the HIP simulator"
    )]
    UnsupportedVersion {
        /// The library file that was loaded.
        library: String,
        /// The version it reports.
        found: String,
        /// The versions this project supports.
        supported: String,
    },

    /// A math library (rocSPARSE, rocFFT, MIOpen) cannot be used with the
    /// process's backend: the backend has no implementation of it, or its
    /// shared library or one of its symbols is missing.
    #[error("{library} is not available: {hint}")]
    LibraryUnavailable {
        /// The library, e.g. `rocSPARSE`.
        library: String,
        /// Why, and what to do about it.
        hint: String,
    },

    /// A backend was asked for but cannot be used.
    #[error("the {backend} backend is not available: {reason}")]
    BackendUnavailable {
        /// The backend that was asked for.
        backend: Backend,
        /// Why, and what to do about it.
        reason: String,
    },

    /// One of the simulator's environment variables holds a bad value.
    #[error("{variable}={value:?} is invalid: {reason}")]
    InvalidSimConfig {
        /// The variable, e.g. `AMDGPU_SIM_DEVICES`.
        variable: String,
        /// The value as found in the environment.
        value: String,
        /// What is wrong and what is accepted.
        reason: String,
    },
}

impl FromStr for Backend {
    type Err = BackendError;

    /// Parse `amd`, `nvidia` or `sim`, ignoring case and surrounding
    /// whitespace.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        Backend::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| BackendError::InvalidBackend { value: s.to_owned() })
    }
}
