//! rocFFT's table: AMD's library, the simulator's, or the mapping onto
//! cuFFT.
//!
//! **rocFFT** reports its own version through `rocfft_get_version_string`:
//! 1.0.x in every ROCm from 5.0 (1.0.15) to 7.2 (1.0.36). Its C API is
//! stable across 1.0.x; every function of the table has the same
//! signature in the 5.x, 6.x and 7.x headers. Supported: rocFFT 1.0.x.
//! What does change is behaviour: before 1.0.25 (ROCm 6.0) a real
//! forward (R2C) transform may overwrite its input even when it is not in
//! place; real inverse (C2R) transforms may in every version, complex
//! ones never. [`rocfft_version`] gives the loaded version, and
//! [`RocfftVersion::r2c_may_overwrite_input`] the rule.

use std::sync::OnceLock;

use crate::rocfft::RocfftApi;
use crate::BackendError;

pub use crate::shared::rocfft_version::RocfftVersion;

/// The process's rocFFT table.
pub fn rocfft() -> Result<&'static RocfftApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocfftApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.rocfft)()).clone()
}

/// The version of the rocFFT this process uses (loading it if needed):
/// the library's own report on the amd backend, the simulated version
/// (`AMDGPU_SIM_ROCFFT_VERSION`, see [`crate::sim`]) on the simulator, and
/// on the nvidia backend 1.0.25, the first rocFFT whose rules for inputs
/// cuFFT follows.
pub fn rocfft_version() -> Result<RocfftVersion, BackendError> {
    rocfft()?;
    (crate::backend::provider()?.rocfft_version)()
}
