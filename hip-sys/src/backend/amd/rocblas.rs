//! rocBLAS on the amd backend: AMD's `librocblas`, versions 2.x to 5.x,
//! with shims for the math-mode calls that 3.1 added (see
//! [`crate::libraries::blas`]).

use std::ffi::c_char;

use super::libraries::{installed, open};
use crate::rocblas::{rocblas_handle, rocblas_math_mode, rocblas_status, RocblasApi};
use crate::shared::library::Library;
use crate::BackendError;

/// rocBLAS's table, from the first candidate library that loads.
pub(crate) fn table() -> Result<&'static RocblasApi, BackendError> {
    load_rocblas(&installed(Library::Rocblas))
}

/// The versions the loader accepts, in messages.
const SUPPORTED: &str = "rocBLAS 2.x to 5.x (ROCm 5.x, 6.x and 7.x)";

/// The major version of a `rocblas_get_version_string` answer.
pub(crate) fn rocblas_major(text: &str) -> Option<u32> {
    text.trim().split(['.', '-']).next()?.parse().ok()
}

/// `rocblas_set_math_mode` where the library has none: as the real
/// function on hardware without XF32, it succeeds and changes nothing.
unsafe extern "C" fn set_math_mode_absent(handle: rocblas_handle, _mode: rocblas_math_mode) -> rocblas_status {
    if handle.is_null() {
        return rocblas_status::rocblas_status_invalid_handle;
    }
    rocblas_status::rocblas_status_success
}

/// `rocblas_get_math_mode` where the library has none: the default.
unsafe extern "C" fn get_math_mode_absent(handle: rocblas_handle, mode: *mut rocblas_math_mode) -> rocblas_status {
    if handle.is_null() {
        return rocblas_status::rocblas_status_invalid_handle;
    }
    if mode.is_null() {
        return rocblas_status::rocblas_status_invalid_pointer;
    }
    // SAFETY: non-null, and valid for a write per the C contract.
    unsafe { mode.write(rocblas_math_mode::rocblas_default_math) };
    rocblas_status::rocblas_status_success
}

fn load_rocblas(candidates: &[String]) -> Result<&'static RocblasApi, BackendError> {
    let opened = open(Library::Rocblas, candidates)?;
    let resolve = |name: &'static str| match name {
        "rocblas_set_math_mode" => Ok(opened.optional(name).unwrap_or(set_math_mode_absent as *const std::ffi::c_void)),
        "rocblas_get_math_mode" => Ok(opened.optional(name).unwrap_or(get_math_mode_absent as *const std::ffi::c_void)),
        other => opened.symbol(other),
    };
    // SAFETY: every symbol has the signature of the bindings in rocBLAS 2.x
    // to 5.x (module docs), and the two shims have theirs; the version is
    // checked before any call that depends on it.
    let api = unsafe { RocblasApi::from_resolver(resolve) }?;
    let mut size = 0usize;
    // SAFETY: a valid out-pointer.
    let status = unsafe { (api.rocblas_get_version_string_size)(&mut size) };
    let mut buf = vec![0 as c_char; size.clamp(1, 256)];
    let status = if status == rocblas_status::rocblas_status_success {
        // SAFETY: `buf` is valid for its length.
        unsafe { (api.rocblas_get_version_string)(buf.as_mut_ptr(), buf.len()) }
    } else {
        status
    };
    if status != rocblas_status::rocblas_status_success {
        return Err(opened.unsupported(format!("unknown (rocblas_get_version_string: status {})", status.0), SUPPORTED));
    }
    let last = buf.len() - 1;
    buf[last] = 0;
    // SAFETY: NUL-terminated: the library wrote a C string and the last byte is NUL.
    let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
    match rocblas_major(&text) {
        Some(2..=5) => {
            log::debug!("loaded {}: rocBLAS {text}", opened.path());
            opened.keep();
            Ok(Box::leak(Box::new(api)))
        }
        _ => Err(opened.unsupported(format!("rocBLAS {text}"), SUPPORTED)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_a_foreign_library_is_an_error() {
        assert_eq!(rocblas_major("4.1.0.1a2b3c"), Some(4));
        assert_eq!(rocblas_major("2.47.0-dirty"), Some(2));
        assert_eq!(rocblas_major("garbage"), None);
        let err = load_rocblas(&["libm.so.6".to_owned()]).expect_err("not rocBLAS");
        assert!(matches!(err, BackendError::SymbolMissing { ref symbol, .. } if symbol == "rocblas_create_handle"));
    }

    #[test]
    fn the_math_mode_shims_act_as_hardware_without_xf32() {
        let handle = 8usize as rocblas_handle;
        // SAFETY: the shims only compare the handle with null.
        unsafe {
            assert_eq!(
                set_math_mode_absent(handle, rocblas_math_mode::rocblas_xf32_xdl_math_op),
                rocblas_status::rocblas_status_success
            );
            let mut mode = rocblas_math_mode::rocblas_xf32_xdl_math_op;
            assert_eq!(get_math_mode_absent(handle, &mut mode), rocblas_status::rocblas_status_success);
            assert_eq!(mode, rocblas_math_mode::rocblas_default_math);
            assert_eq!(
                get_math_mode_absent(std::ptr::null_mut(), &mut mode),
                rocblas_status::rocblas_status_invalid_handle
            );
        }
    }
}
