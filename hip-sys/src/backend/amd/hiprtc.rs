//! hipRTC on the amd backend: its own library from ROCm 6.0
//! (`libhiprtc.so.6`, `.so.7`), part of `libamdhip64` in ROCm 5.x; the
//! library is chosen by the HIP runtime's major version and must report
//! that major itself (see [`crate::libraries::rtc`]).

use super::libraries::rocm_path;
use crate::hiprtc::{hiprtcResult, HiprtcApi};
use crate::{hipError_t, BackendError, HipApi};

/// hipRTC's table for the loaded HIP runtime `hip`.
pub(crate) fn table(hip: &HipApi) -> Result<&'static HiprtcApi, BackendError> {
    let major = hip_major(hip)?;
    load_hiprtc(&candidates(major, rocm_path().as_deref()), major)
}

/// The major version of the HIP runtime `api`.
fn hip_major(api: &HipApi) -> Result<u32, BackendError> {
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
    let opened = crate::backend::loader::open_first("hipRTC", candidates, &hint, &symbol_hint)?;
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
}
