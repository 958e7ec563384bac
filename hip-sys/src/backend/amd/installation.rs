//! The ROCm installation of the loaded HIP runtime: the file that loaded,
//! its directory and its version.
//!
//! hipRTC and the math libraries must come from the runtime's own
//! installation. Two ROCm releases mixed in one process share HSA and
//! comgr state they were not built against, so every other amd loader
//! looks in [`Runtime::directory`] first and only there once a runtime is
//! loaded. The directory is read from the loaded file itself (`dladdr` on
//! one of its functions), so it is right however the runtime was found:
//! through `ROCM_PATH`, `/opt/rocm` or the system loader's path.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use crate::backend::versions::HipVersion;

/// The HIP runtime this process loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Runtime {
    /// The file that loaded, as the dynamic loader resolved it.
    pub(crate) path: String,
    /// Its directory, without a trailing `/`.
    pub(crate) directory: String,
    /// Its version.
    pub(crate) version: HipVersion,
}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// The loaded runtime, once the amd backend has loaded one that it accepts.
pub(crate) fn runtime() -> Option<&'static Runtime> {
    RUNTIME.get()
}

/// Record the runtime whose function `symbol` is (called once it is
/// accepted). `fallback` is the candidate that opened, used when the
/// loader cannot name the file.
pub(crate) fn record(symbol: *const c_void, fallback: &str, version: HipVersion) -> &'static Runtime {
    let path = file_of(symbol).unwrap_or_else(|| fallback.to_owned());
    let directory = match path.rfind('/') {
        Some(0) => "/".to_owned(),
        Some(slash) => path[..slash].to_owned(),
        None => ".".to_owned(),
    };
    RUNTIME.get_or_init(|| Runtime { path, directory, version })
}

/// `Dl_info` of `<dlfcn.h>`.
#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}

extern "C" {
    /// `int dladdr(const void *addr, Dl_info *info)` (glibc, musl).
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
}

/// The path of the shared object that holds `address`, if the loader knows.
pub(crate) fn file_of(address: *const c_void) -> Option<String> {
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: `dladdr` takes any address and writes only `info`.
    if unsafe { dladdr(address, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: a non-null `dli_fname` is the loader's NUL-terminated path,
    // alive while the object is loaded (the caller's library is kept).
    let path = unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
    // A path without a directory is the main program's own name.
    path.contains('/').then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loader_names_the_file_of_a_function() {
        let cos: unsafe extern "C" fn(f64) -> f64 = {
            extern "C" {
                fn cos(x: f64) -> f64;
            }
            cos
        };
        let path = file_of(cos as *const c_void).expect("libm is a shared object");
        assert!(path.contains("libm"), "{path}");
        assert!(path.starts_with('/'), "{path}");
        assert_eq!(file_of(std::ptr::null()), None);
    }
}
