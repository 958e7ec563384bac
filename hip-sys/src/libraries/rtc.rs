//! The runtime compiler's table, [`HiprtcApi`]: AMD's hipRTC, NVRTC on
//! nvidia, or the simulator's.
//!
//! - **amd**: hipRTC has lived in its own library since ROCm 6.0
//!   (`libhiprtc.so.6`, `libhiprtc.so.7`); in ROCm 5.x it is part of
//!   `libamdhip64` itself. The loader reads the HIP runtime's version
//!   (`hipRuntimeGetVersion`) and opens `libhiprtc.so.<major>` then
//!   `libhiprtc.so` for 6 and later, `libamdhip64.so.5` then
//!   `libamdhip64.so` for 5, in `$ROCM_PATH/lib`, `/opt/rocm/lib` and
//!   through the loader path. Every function of the table has the same
//!   signature in hipRTC 5.0 to 7.x. The library's own `hiprtcVersion`
//!   must report the runtime's major version: two ROCm installations
//!   mixed in one process are refused.
//! - **nvidia**: NVRTC (`libnvrtc.so.13`, `.12`) behind the same table,
//!   compiling for the current device's compute capability; see the nvidia
//!   backend's `nvrtc.rs`.
//! - **sim**: the simulator cannot compile C++. Its table creates programs
//!   and answers every compilation with `HIPRTC_ERROR_COMPILATION` and a
//!   log that says so and names its built-in kernels, which load by name
//!   through [`crate::sim::code_object`].

use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

use super::{rocm_path, source, Source};
use crate::hiprtc::{hiprtcResult, HiprtcApi};
use crate::{hipError_t, BackendError};

/// The process's hipRTC table (loaded on first use).
pub fn hiprtc() -> Result<&'static HiprtcApi, BackendError> {
    static TABLE: OnceLock<Result<&'static HiprtcApi, BackendError>> = OnceLock::new();
    TABLE
        .get_or_init(|| match source(crate::selection())? {
            Source::Sim => Ok(crate::sim::hiprtc_api()),
            Source::Amd => {
                let major = hip_major()?;
                load_hiprtc(&candidates(major, rocm_path().as_deref()), major)
            }
            Source::Nvidia => crate::backend::nvidia::nvrtc::load(&crate::backend::nvidia::nvrtc::candidates()),
        })
        .clone()
}

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

/// The HIP runtime's major version (amd backend).
fn hip_major() -> Result<u32, BackendError> {
    let api = crate::hip()?;
    let mut encoded = 0;
    // SAFETY: a valid out-pointer; the signature is the same in every HIP.
    let status = unsafe { (api.hipRuntimeGetVersion)(&mut encoded) };
    if status != hipError_t::hipSuccess || encoded < 0 {
        return Err(BackendError::LibraryUnavailable {
            library: "hipRTC".to_owned(),
            hint: format!(
                "hipRuntimeGetVersion failed (status {}, value {encoded}), so the hipRTC library to load is unknown",
                status.0
            ),
        });
    }
    Ok(encoded as u32 / 10_000_000)
}

/// The files tried for hipRTC of HIP `major`, in order.
pub(crate) fn candidates(major: u32, rocm_path: Option<&str>) -> Vec<String> {
    let names: Vec<String> = if major >= 6 {
        vec![format!("libhiprtc.so.{major}"), "libhiprtc.so".to_owned()]
    } else {
        vec!["libamdhip64.so.5".to_owned(), "libamdhip64.so".to_owned()]
    };
    let mut dirs = Vec::with_capacity(2);
    if let Some(root) = rocm_path.map(str::trim).filter(|p| !p.is_empty()) {
        dirs.push(root.trim_end_matches('/').to_owned());
    }
    if !dirs.iter().any(|d| d == "/opt/rocm") {
        dirs.push("/opt/rocm".to_owned());
    }
    let mut out = Vec::new();
    for dir in &dirs {
        out.extend(names.iter().map(|name| format!("{dir}/lib/{name}")));
    }
    out.extend(names);
    out
}

fn load_hiprtc(candidates: &[String], major: u32) -> Result<&'static HiprtcApi, BackendError> {
    let hint = format!(
        "install hipRTC of ROCm {major}.x (the hiprtc package; in ROCm 5.x it is part of libamdhip64), then set \
         ROCM_PATH to its prefix or add its lib directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim"
    );
    let symbol_hint = format!("point ROCM_PATH at a ROCm {major}.x installation whose hipRTC is complete");
    let opened = crate::loader::open_first("hipRTC", candidates, &hint, &symbol_hint)?;
    // SAFETY: every function of the table has the signature of the
    // bindings in hipRTC 5.0 to 7.x (module docs).
    let api = unsafe { HiprtcApi::from_resolver(|name| opened.symbol(name)) }?;
    let (mut lib_major, mut lib_minor) = (0, 0);
    // SAFETY: valid out-pointers.
    let status = unsafe { (api.hiprtcVersion)(&mut lib_major, &mut lib_minor) };
    if status != hiprtcResult::HIPRTC_SUCCESS || lib_major as u32 != major {
        return Err(opened.unsupported(
            format!("hipRTC {lib_major}.{lib_minor} (hiprtcVersion status {})", status.0),
            &format!("the hipRTC of the loaded HIP runtime, {major}.x"),
        ));
    }
    log::debug!("loaded {}: hipRTC {lib_major}.{lib_minor}", opened.path());
    opened.keep();
    Ok(Box::leak(Box::new(api)))
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
    fn rocm_6_and_later_load_libhiprtc_and_5_libamdhip64() {
        let c = candidates(7, Some("/x/rocm"));
        assert_eq!(c[..2], ["/x/rocm/lib/libhiprtc.so.7", "/x/rocm/lib/libhiprtc.so"]);
        assert_eq!(c[2], "/opt/rocm/lib/libhiprtc.so.7");
        assert_eq!(c.last().map(String::as_str), Some("libhiprtc.so"));
        assert_eq!(candidates(6, None)[0], "/opt/rocm/lib/libhiprtc.so.6");
        let five = candidates(5, None);
        assert_eq!(
            five,
            ["/opt/rocm/lib/libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so", "libamdhip64.so.5", "libamdhip64.so"]
        );
    }

    #[test]
    fn a_missing_library_is_an_error_naming_hiprtc() {
        let err = load_hiprtc(&["/nonexistent/amdgpu-rs/libhiprtc.so.7".to_owned()], 7).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "hipRTC"), "{err:?}");
        assert!(err.to_string().contains("ROCM_PATH"), "{err}");
    }

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
