//! Which rocFFT version the simulator models: the default, the one
//! `AMDGPU_SIM_ROCFFT_VERSION` names, or the one a test set, and
//! `rocfft_get_version_string`.

use super::status::*;
use crate::library::call;
use crate::machine::lock::lock;
use crate::shared::rocfft_version::RocfftVersion;
use crate::BackendError;
use std::ffi::c_char;
use std::sync::{Mutex, OnceLock};

/// The version the simulator reports unless told otherwise.
pub const DEFAULT_VERSION: RocfftVersion = RocfftVersion::new(1, 0, 27);

/// The variable that selects the simulated rocFFT version.
const VERSION_VARIABLE: &str = "AMDGPU_SIM_ROCFFT_VERSION";

/// Parse a value of `AMDGPU_SIM_ROCFFT_VERSION`: a rocFFT 1.0.x version
/// (`1.0.24`), as the amd loader accepts.
pub fn parse_version(value: &str) -> Result<RocfftVersion, BackendError> {
    match RocfftVersion::parse(value) {
        Some(version) if version.major == 1 && version.minor == 0 => Ok(version),
        _ => Err(BackendError::InvalidSimConfig {
            variable: VERSION_VARIABLE.to_owned(),
            value: value.to_owned(),
            reason: format!(
                "expected a rocFFT 1.0.x version such as 1.0.24 (ROCm 5.7) or {DEFAULT_VERSION} (ROCm 6.1, the default)"
            ),
        }),
    }
}

/// The version `AMDGPU_SIM_ROCFFT_VERSION` selects (read once), or the
/// default when it is unset or empty.
pub fn env_version() -> Result<RocfftVersion, BackendError> {
    static ENV: OnceLock<Result<RocfftVersion, BackendError>> = OnceLock::new();
    ENV.get_or_init(|| match std::env::var(VERSION_VARIABLE) {
        Ok(value) if !value.trim().is_empty() => parse_version(&value),
        _ => Ok(DEFAULT_VERSION),
    })
    .clone()
}

/// The version set by [`set_rocfft_version`], overriding the environment.
static VERSION_OVERRIDE: Mutex<Option<RocfftVersion>> = Mutex::new(None);

/// The rocFFT version the simulator models now: the one
/// [`set_rocfft_version`] set, else `AMDGPU_SIM_ROCFFT_VERSION`'s, else
/// [`DEFAULT_VERSION`] (also when the variable is invalid: the rocFFT
/// table then fails to load, saying why).
pub fn rocfft_version() -> RocfftVersion {
    (*lock(&VERSION_OVERRIDE)).unwrap_or_else(|| env_version().unwrap_or(DEFAULT_VERSION))
}

/// Model `version` from now on (`None`: back to the environment's or the
/// default), for tests of code that must handle older rocFFT behaviour.
/// Process-wide: take [`crate::exclusive()`] around its use.
pub fn set_rocfft_version(version: Option<RocfftVersion>) {
    *lock(&VERSION_OVERRIDE) = version;
}

pub(crate) unsafe extern "C" fn rocfft_get_version_string(buf: *mut c_char, len: usize) -> Status {
    call("rocfft_get_version_string", OK, FAILURE, || {
        let version = rocfft_version().to_string();
        if buf.is_null() || len < version.len() + 1 {
            return Err(INVALID_ARG);
        }
        // SAFETY: `buf` is valid for `len` bytes (C contract), and the
        // string with its NUL fits.
        unsafe {
            std::ptr::copy_nonoverlapping(version.as_ptr(), buf.cast::<u8>(), version.len());
            *buf.add(version.len()) = 0;
        }
        Ok(())
    })
}
