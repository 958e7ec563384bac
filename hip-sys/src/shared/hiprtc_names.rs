//! hipRTC's names of its statuses, the same on every backend: the public
//! [`hiprtc_status_name`], and the C strings the tables that implement
//! `hiprtcGetErrorString` themselves return.

use std::ffi::{c_char, CStr};

use crate::hiprtc::hiprtcResult;

/// hipRTC's name of a status (`HIPRTC_ERROR_COMPILATION`), the same on
/// every backend; `None` for a code hipRTC does not define.
pub fn hiprtc_status_name(status: hiprtcResult) -> Option<&'static str> {
    Some(match status {
        hiprtcResult::HIPRTC_SUCCESS => "HIPRTC_SUCCESS",
        hiprtcResult::HIPRTC_ERROR_OUT_OF_MEMORY => "HIPRTC_ERROR_OUT_OF_MEMORY",
        hiprtcResult::HIPRTC_ERROR_PROGRAM_CREATION_FAILURE => "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
        hiprtcResult::HIPRTC_ERROR_INVALID_INPUT => "HIPRTC_ERROR_INVALID_INPUT",
        hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM => "HIPRTC_ERROR_INVALID_PROGRAM",
        hiprtcResult::HIPRTC_ERROR_INVALID_OPTION => "HIPRTC_ERROR_INVALID_OPTION",
        hiprtcResult::HIPRTC_ERROR_COMPILATION => "HIPRTC_ERROR_COMPILATION",
        hiprtcResult::HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE => "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
        hiprtcResult::HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION => {
            "HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION"
        }
        hiprtcResult::HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION => {
            "HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION"
        }
        hiprtcResult::HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID => "HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
        hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR => "HIPRTC_ERROR_INTERNAL_ERROR",
        hiprtcResult::HIPRTC_ERROR_LINKING => "HIPRTC_ERROR_LINKING",
        _ => return None,
    })
}

/// The same names as NUL-terminated C strings, for the tables that
/// implement `hiprtcGetErrorString` themselves.
pub(crate) fn hiprtc_status_c_name(status: hiprtcResult) -> *const c_char {
    macro_rules! names {
        ($($name:ident),*) => {
            match status {
                $(hiprtcResult::$name => concat!(stringify!($name), "\0").as_ptr().cast(),)*
                _ => c"HIPRTC_ERROR_UNKNOWN".as_ptr(),
            }
        };
    }
    names!(
        HIPRTC_SUCCESS,
        HIPRTC_ERROR_OUT_OF_MEMORY,
        HIPRTC_ERROR_PROGRAM_CREATION_FAILURE,
        HIPRTC_ERROR_INVALID_INPUT,
        HIPRTC_ERROR_INVALID_PROGRAM,
        HIPRTC_ERROR_INVALID_OPTION,
        HIPRTC_ERROR_COMPILATION,
        HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE,
        HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION,
        HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION,
        HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID,
        HIPRTC_ERROR_INTERNAL_ERROR,
        HIPRTC_ERROR_LINKING
    )
}

/// Read a C string a hipRTC table returned (`hiprtcGetErrorString`).
///
/// # Safety
/// `text` is null or a NUL-terminated string that lives for the process.
pub(crate) unsafe fn static_text(text: *const c_char) -> Option<&'static str> {
    if text.is_null() {
        return None;
    }
    // SAFETY: the caller's guarantee.
    unsafe { CStr::from_ptr(text) }.to_str().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_cover_every_code_and_match_the_c_strings() {
        for code in (0..=11).chain([100]) {
            let status = hiprtcResult(code);
            let name = hiprtc_status_name(status).expect("a hipRTC code");
            // SAFETY: the names are static C strings.
            assert_eq!(unsafe { static_text(hiprtc_status_c_name(status)) }, Some(name));
        }
        assert_eq!(hiprtc_status_name(hiprtcResult(6)), Some("HIPRTC_ERROR_COMPILATION"));
        assert_eq!(hiprtc_status_name(hiprtcResult(55)), None);
    }
}
