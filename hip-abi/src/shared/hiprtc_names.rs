//! hipRTC's names of its statuses, the same on every backend: the public
//! [`hiprtc_status_name`], and the C strings the tables that implement
//! `hiprtcGetErrorString` themselves return.

use std::ffi::{c_char, CStr};

use crate::hiprtc::hiprtcResult;

/// hipRTC's name of a status (`HIPRTC_ERROR_COMPILATION`), the same on
/// every backend; `None` for a code hipRTC does not define (the names are
/// generated with the bindings).
pub fn hiprtc_status_name(status: hiprtcResult) -> Option<&'static str> {
    status.name()
}

/// The same names as NUL-terminated C strings, for the tables that
/// implement `hiprtcGetErrorString` themselves.
pub fn hiprtc_status_c_name(status: hiprtcResult) -> *const c_char {
    status.c_name().unwrap_or(c"HIPRTC_ERROR_UNKNOWN").as_ptr()
}

/// Read a C string a hipRTC table returned (`hiprtcGetErrorString`).
///
/// # Safety
/// `text` is null or a NUL-terminated string that lives for the process.
pub unsafe fn static_text(text: *const c_char) -> Option<&'static str> {
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
