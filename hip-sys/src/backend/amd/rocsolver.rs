//! rocSOLVER on the amd backend: AMD's `librocsolver`, version 3.x (see
//! [`crate::libraries::solver`]).

use std::ffi::c_char;

use super::libraries::{installed, open};
use super::rocblas::rocblas_major;
use crate::rocsolver::{rocblas_status, RocsolverApi};
use crate::shared::library::Library;
use crate::BackendError;

/// rocSOLVER's table, from the first candidate library that loads.
pub(crate) fn table() -> Result<&'static RocsolverApi, BackendError> {
    load_rocsolver(&installed(Library::Rocsolver))
}

/// The versions the loader accepts, in messages.
const SUPPORTED: &str = "rocSOLVER 3.x (ROCm 5.x, 6.x and 7.x)";

fn load_rocsolver(candidates: &[String]) -> Result<&'static RocsolverApi, BackendError> {
    let opened = open(Library::Rocsolver, candidates)?;
    // SAFETY: every symbol has the signature of the bindings in rocSOLVER
    // 3.x (module docs); the version is checked before any other call.
    let api = unsafe { RocsolverApi::from_resolver(|name| opened.symbol(name)) }?;
    let mut size = 0usize;
    // SAFETY: a valid out-pointer.
    let status = unsafe { (api.rocsolver_get_version_string_size)(&mut size) };
    let mut buf = vec![0 as c_char; size.clamp(1, 256)];
    let status = if status == rocblas_status::rocblas_status_success {
        // SAFETY: `buf` is valid for its length.
        unsafe { (api.rocsolver_get_version_string)(buf.as_mut_ptr(), buf.len()) }
    } else {
        status
    };
    if status != rocblas_status::rocblas_status_success {
        return Err(
            opened.unsupported(format!("unknown (rocsolver_get_version_string: status {})", status.0), SUPPORTED)
        );
    }
    let last = buf.len() - 1;
    buf[last] = 0;
    // SAFETY: NUL-terminated: the library wrote a C string and the last byte is NUL.
    let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
    // The same `major.minor.patch.tweak` form as rocBLAS's.
    match rocblas_major(&text) {
        Some(3) => {
            log::debug!("loaded {}: rocSOLVER {text}", opened.path());
            opened.keep();
            Ok(Box::leak(Box::new(api)))
        }
        _ => Err(opened.unsupported(format!("rocSOLVER {text}"), SUPPORTED)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_foreign_library_is_an_error() {
        let err = load_rocsolver(&["/nonexistent/amdgpu-rs/librocsolver.so".to_owned()]).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "rocSOLVER"), "{err:?}");
        let err = load_rocsolver(&["libm.so.6".to_owned()]).expect_err("not rocSOLVER");
        assert!(
            matches!(err, BackendError::SymbolMissing { ref symbol, .. } if symbol == "rocsolver_get_version_string"),
            "{err:?}"
        );
    }
}
