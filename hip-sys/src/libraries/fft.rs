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

use std::fmt;
use std::sync::OnceLock;

use super::{candidates, open, rocm_path, source, Library, Source};
use crate::rocfft::{rocfft_status, RocfftApi};
use crate::BackendError;

/// The process's rocFFT table.
pub fn rocfft() -> Result<&'static RocfftApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocfftApi, BackendError>> = OnceLock::new();
    TABLE
        .get_or_init(|| match source(crate::selection())? {
            Source::Sim => crate::sim::rocfft_env_version().map(|_| crate::sim::rocfft_api()),
            Source::Amd => load_rocfft(&candidates(Library::Rocfft, rocm_path().as_deref())),
            Source::Nvidia => {
                let api = crate::backend::nvidia::cufft::load(&crate::backend::nvidia::cufft::candidates())?;
                // cuFFT keeps out-of-place R2C inputs and may overwrite C2R
                // ones: the input rules of rocFFT 1.0.25 and later.
                let _ = LIBRARY_ROCFFT_VERSION.set(RocfftVersion::R2C_KEEPS_INPUT);
                Ok(api)
            }
        })
        .clone()
}

/// A rocFFT version, as `rocfft_get_version_string` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RocfftVersion {
    /// Major version (1 in every ROCm from 5.0 on).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version (15 in ROCm 5.0 to 36 in ROCm 7.2).
    pub patch: u32,
}

impl RocfftVersion {
    /// The first rocFFT whose out-of-place real forward (R2C) transforms
    /// leave their input intact: 1.0.25, of ROCm 6.0 (its changelog: "Real
    /// forward transforms (real-to-complex) no longer overwrite input").
    pub const R2C_KEEPS_INPUT: RocfftVersion = RocfftVersion::new(1, 0, 25);

    /// The version `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> RocfftVersion {
        RocfftVersion { major, minor, patch }
    }

    /// Parse rocFFT's version string (`1.0.27.abcdef`, `1.0.27`).
    pub fn parse(text: &str) -> Option<RocfftVersion> {
        parse_rocfft_version(text).map(|(major, minor, patch)| RocfftVersion { major, minor, patch })
    }

    /// Whether an out-of-place real forward (R2C) transform of this version
    /// may overwrite its input: before 1.0.25. Real inverse (C2R)
    /// transforms may overwrite their input in every version; complex
    /// (C2C) transforms never do, in any 1.0.x.
    ///
    /// The rule goes by the version the library reports, which lagged once:
    /// ROCm 6.0.0's rocFFT reports 1.0.23 (ROCm 5.7's number) although its
    /// R2C transforms already keep their input; for it the rule errs on the
    /// safe side. No release reports 1.0.25 or later and overwrites.
    pub fn r2c_may_overwrite_input(self) -> bool {
        self < RocfftVersion::R2C_KEEPS_INPUT
    }
}

impl fmt::Display for RocfftVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The version of the rocFFT this process uses (loading it if needed):
/// the library's own report on the amd backend, the simulated version
/// (`AMDGPU_SIM_ROCFFT_VERSION`, see [`crate::sim`]) on the simulator, and
/// on the nvidia backend 1.0.25, the first rocFFT whose rules for inputs
/// cuFFT follows.
pub fn rocfft_version() -> Result<RocfftVersion, BackendError> {
    rocfft()?;
    match LIBRARY_ROCFFT_VERSION.get() {
        Some(version) => Ok(*version),
        None => Ok(crate::sim::rocfft_version()),
    }
}

/// The version `load_rocfft` read from AMD's library, or the rocFFT whose
/// rules cuFFT follows on the nvidia backend.
static LIBRARY_ROCFFT_VERSION: OnceLock<RocfftVersion> = OnceLock::new();

/// Parse rocFFT's version string (`1.0.27.abcdef`, `1.0.27`) into
/// (major, minor, patch).
pub(crate) fn parse_rocfft_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split(['.', '-', ' ']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next()?.parse().ok()?;
    Some((major, minor, patch))
}

fn load_rocfft(candidates: &[String]) -> Result<&'static RocfftApi, BackendError> {
    let opened = open(Library::Rocfft, candidates)?;
    // SAFETY: every symbol has the signature of the bindings in rocFFT
    // 1.0.x (module docs); the version is checked before any other call.
    let api = unsafe { RocfftApi::from_resolver(|name| opened.symbol(name)) }?;
    let mut buf = [0 as std::ffi::c_char; 64];
    // SAFETY: `buf` is valid for its length.
    let status = unsafe { (api.rocfft_get_version_string)(buf.as_mut_ptr(), buf.len()) };
    // SAFETY: on success the library wrote a NUL-terminated string into `buf`;
    // the last byte is kept NUL in any case.
    let text = unsafe {
        buf[buf.len() - 1] = 0;
        std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    };
    const SUPPORTED: &str = "rocFFT 1.0.x (ROCm 5.x, 6.x and 7.x)";
    if status != rocfft_status::rocfft_status_success {
        return Err(opened.unsupported(format!("unknown (rocfft_get_version_string: status {})", status.0), SUPPORTED));
    }
    match parse_rocfft_version(&text) {
        Some((1, 0, patch)) => {
            let _ = LIBRARY_ROCFFT_VERSION.set(RocfftVersion::new(1, 0, patch));
            log::debug!("loaded {}: rocFFT {text}", opened.path());
            opened.keep();
            Ok(Box::leak(Box::new(api)))
        }
        _ => Err(opened.unsupported(format!("rocFFT {text}"), SUPPORTED)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocfft_versions_parse() {
        assert_eq!(parse_rocfft_version("1.0.27.c3a0b8"), Some((1, 0, 27)));
        assert_eq!(parse_rocfft_version("1.0.36"), Some((1, 0, 36)));
        assert_eq!(parse_rocfft_version("garbage"), None);
    }

    #[test]
    fn a_missing_library_is_an_error() {
        let err = load_rocfft(&["/nonexistent/amdgpu-rs/librocfft.so".to_owned()]).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "rocFFT"), "{err:?}");
    }
}
