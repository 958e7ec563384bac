//! rocFFT on the amd backend: AMD's `librocfft`, version 1.0.x, whose
//! reported version decides the rule for inputs (see
//! [`crate::libraries::fft`]).

use std::sync::OnceLock;

use super::libraries::{installed, open};
use crate::rocfft::{rocfft_status, RocfftApi};
use crate::shared::library::Library;
use crate::shared::rocfft_version::{parse_rocfft_version, RocfftVersion};
use crate::BackendError;

/// rocFFT's table, from the first candidate library that loads.
pub(crate) fn table() -> Result<&'static RocfftApi, BackendError> {
    load_rocfft(&installed(Library::Rocfft))
}

/// The version the loaded library reported; an error before it loaded.
pub(crate) fn version() -> Result<RocfftVersion, BackendError> {
    LIBRARY_ROCFFT_VERSION.get().copied().ok_or_else(|| BackendError::LibraryUnavailable {
        library: Library::Rocfft.name().to_owned(),
        hint: "its version is known once the library has loaded: call rocfft() first".to_owned(),
    })
}

/// The version `load_rocfft` read from AMD's library.
static LIBRARY_ROCFFT_VERSION: OnceLock<RocfftVersion> = OnceLock::new();

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
    fn a_missing_library_is_an_error() {
        let err = load_rocfft(&["/nonexistent/amdgpu-rs/librocfft.so".to_owned()]).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "rocFFT"), "{err:?}");
    }
}
