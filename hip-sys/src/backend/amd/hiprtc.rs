//! AMD's hipRTC on its own: the compiler of the loaded HIP runtime's
//! installation, or, where no runtime is loaded (no GPU, or a runtime this
//! crate refuses), the first hipRTC found.
//!
//! hipRTC has lived in its own library since ROCm 6.0 (`libhiprtc.so.6`,
//! `libhiprtc.so.7`); in ROCm 5.x it is part of `libamdhip64.so.5`.
//!
//! - **With the amd backend's runtime loaded**, only its installation is
//!   looked in: `libhiprtc.so.<major>` then `libhiprtc.so` beside it for
//!   ROCm 6 and later, the runtime's own file for 5.x. Two ROCm releases
//!   in one process are never mixed.
//! - **Without one**, hipRTC is looked for as the runtime would be:
//!   `$ROCM_PATH/lib`, `/opt/rocm/lib`, then the loader's path, under
//!   `libhiprtc.so.7`, `libhiprtc.so.6`, `libhiprtc.so` and
//!   `libamdhip64.so.5`. hipRTC compiles for a named target with no GPU
//!   present, so offline compilation works on any machine with ROCm's
//!   compiler libraries (Debian's `libamdhip64-5` is enough).
//!
//! The table is AMD's functions behind the guards of [`hiprtc_table`]:
//! the portable prelude ([`crate::prelude`]) added at creation, one call
//! at a time, and no processor comgr does not know.
//!
//! `hiprtcVersion` is not a way to tell installations apart: clr
//! hard-codes 9.0 in `hiprtc.cpp` in every release from 5.2 to 7.x. It is
//! read and reported, never compared. Every function of the table has the
//! same signature in hipRTC 5.0 to 7.x.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use super::hiprtc_table;
use super::installation::{self, Runtime};
use super::libraries::{rocm_candidates, rocm_path};
use crate::hiprtc::{hiprtcResult, HiprtcApi};
use crate::shared::compiler::{Compiler, CompilerKind};
use crate::BackendError;

/// The process's AMD hipRTC (loaded on first use; an error is kept too).
/// The selection calls it once the backend is chosen, so that an amd
/// runtime, if the process uses one, decides the installation.
pub(crate) fn compiler() -> Result<&'static Compiler, BackendError> {
    static LOADED: OnceLock<Result<&'static Compiler, BackendError>> = OnceLock::new();
    LOADED
        .get_or_init(|| match installation::runtime() {
            Some(runtime) => load(&beside(runtime), &format!("the HIP runtime's installation ({})", runtime.directory)),
            None => load(&standalone(rocm_path().as_deref()), "ROCM_PATH, /opt/rocm or the loader's path"),
        })
        .clone()
}

/// The files tried for the hipRTC of `runtime`'s installation.
pub(crate) fn beside(runtime: &Runtime) -> Vec<String> {
    let dir = &runtime.directory;
    match runtime.version.major {
        5 => vec![runtime.path.clone()],
        major => vec![format!("{dir}/libhiprtc.so.{major}"), format!("{dir}/libhiprtc.so")],
    }
}

/// The file names tried where no runtime is loaded, newest first.
const STANDALONE_NAMES: [&str; 4] = ["libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so", "libamdhip64.so.5"];

/// The files tried where no runtime is loaded, in order.
pub(crate) fn standalone(rocm_path: Option<&str>) -> Vec<String> {
    rocm_candidates(&STANDALONE_NAMES, rocm_path)
}

fn load(candidates: &[String], looked_in: &str) -> Result<&'static Compiler, BackendError> {
    let hint = format!(
        "hipRTC was looked for in {looked_in}. Install ROCm's hipRTC (the hiprtc package of ROCm 6 or 7; in ROCm \
         5.x, and in Debian's libamdhip64-5, it is part of libamdhip64), then set ROCM_PATH to its prefix or add \
         its lib directory to LD_LIBRARY_PATH"
    );
    let symbol_hint = "point ROCM_PATH at a ROCm installation whose hipRTC is complete";
    let opened = crate::backend::loader::open_first("hipRTC", candidates, &hint, symbol_hint)?;
    // SAFETY: every function of the table has the signature of the
    // bindings in hipRTC 5.0 to 7.x (module docs).
    let api = unsafe { HiprtcApi::from_resolver(|name| opened.symbol(name)) }?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    let status = unsafe { (api.hiprtcVersion)(&mut major, &mut minor) };
    if status != hiprtcResult::HIPRTC_SUCCESS {
        return Err(opened.unsupported(
            format!("a hipRTC whose hiprtcVersion fails (status {})", status.0),
            "a hipRTC that answers hiprtcVersion",
        ));
    }
    let path = installation::file_of(api.hiprtcVersion as *const c_void).unwrap_or_else(|| opened.path().to_owned());
    log::debug!("loaded {path}: hipRTC (hiprtcVersion {major}.{minor})");
    let processors = comgr_processors(path.rsplit_once('/').map_or(".", |(dir, _)| dir));
    let Some(api) = hiprtc_table::guarded(api, processors) else {
        return Err(opened.unsupported(
            "a second AMD hipRTC in a process that already uses one".to_owned(),
            "the process's first hipRTC",
        ));
    };
    opened.keep();
    let library: &'static str = Box::leak(path.into_boxed_str());
    let api: &'static HiprtcApi = Box::leak(Box::new(api));
    Ok(Box::leak(Box::new(Compiler {
        kind: CompilerKind::Hiprtc,
        library,
        version: (major, minor),
        api,
        processors,
        builds: String::new,
    })))
}

/// `amd_comgr_status_t amd_comgr_get_isa_count(size_t *count)`.
type IsaCount = unsafe extern "C" fn(*mut usize) -> c_int;
/// `amd_comgr_status_t amd_comgr_get_isa_name(size_t index, const char **isa_name)`.
type IsaName = unsafe extern "C" fn(usize, *mut *const c_char) -> c_int;

/// The processors of the code object manager that hipRTC in `dir` uses,
/// from its ISA names (`amdgcn-amd-amdhsa--gfx90a:xnack+` gives `gfx90a`),
/// in its order without repeats. clr loads comgr by its soname
/// (`libamd_comgr.so.2`, `.so.3` from ROCm 7), beside the runtime in an
/// installation; `None` where none loads or it cannot list its ISAs.
fn comgr_processors(dir: &str) -> Option<&'static [&'static str]> {
    let names = ["libamd_comgr.so.3", "libamd_comgr.so.2"];
    let candidates: Vec<String> =
        names.iter().map(|n| format!("{dir}/{n}")).chain(names.iter().map(|n| (*n).to_owned())).collect();
    let opened = crate::backend::loader::open_first("comgr", &candidates, "", "").ok()?;
    let (count, name) = (opened.optional("amd_comgr_get_isa_count")?, opened.optional("amd_comgr_get_isa_name")?);
    // SAFETY: comgr's exported functions of these names have these
    // signatures (amd_comgr.h, interface versions 2 and 3).
    let (count, name) = unsafe {
        (std::mem::transmute::<*const c_void, IsaCount>(count), std::mem::transmute::<*const c_void, IsaName>(name))
    };
    let mut n = 0usize;
    // SAFETY: a valid out-pointer.
    if unsafe { count(&mut n) } != 0 || n == 0 {
        return None;
    }
    let mut processors: Vec<&'static str> = Vec::with_capacity(n);
    for index in 0..n {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: an index below the count and a valid out-pointer.
        if unsafe { name(index, &mut text) } != 0 || text.is_null() {
            return None;
        }
        // SAFETY: comgr's static, NUL-terminated ISA name.
        let isa = unsafe { CStr::from_ptr(text) }.to_string_lossy();
        let processor = isa.rsplit("--").next().unwrap_or_default().split(':').next().unwrap_or_default();
        if !processor.is_empty() && !processors.contains(&processor) {
            processors.push(Box::leak(processor.to_owned().into_boxed_str()));
        }
    }
    log::debug!("comgr at {}: {} processors", opened.path(), processors.len());
    opened.keep();
    Some(Box::leak(processors.into_boxed_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::versions::HipVersion;

    fn runtime(path: &str, major: u32) -> Runtime {
        let directory = path.rsplit_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default();
        Runtime { path: path.to_owned(), directory, version: HipVersion { major, minor: 2, patch: 0 } }
    }

    #[test]
    fn beside_the_runtime_only_its_installation_is_tried() {
        assert_eq!(
            beside(&runtime("/x/rocm-7.1/lib/libamdhip64.so.7.1.0", 7)),
            ["/x/rocm-7.1/lib/libhiprtc.so.7", "/x/rocm-7.1/lib/libhiprtc.so"]
        );
        assert_eq!(beside(&runtime("/opt/rocm/lib/libamdhip64.so.6", 6))[0], "/opt/rocm/lib/libhiprtc.so.6");
        // ROCm 5.x: hipRTC is the runtime itself.
        let five = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153";
        assert_eq!(beside(&runtime(five, 5)), [five]);
    }

    #[test]
    fn on_its_own_hiprtc_is_looked_for_newest_first() {
        let c = standalone(Some("/x/rocm/"));
        assert_eq!(
            c[..4],
            [
                "/x/rocm/lib/libhiprtc.so.7",
                "/x/rocm/lib/libhiprtc.so.6",
                "/x/rocm/lib/libhiprtc.so",
                "/x/rocm/lib/libamdhip64.so.5"
            ]
        );
        assert_eq!(c[4], "/opt/rocm/lib/libhiprtc.so.7");
        assert_eq!(c[8..], STANDALONE_NAMES);
        assert_eq!(standalone(None).len(), 8);
        assert_eq!(standalone(Some(" ")), standalone(None));
    }

    #[test]
    fn a_missing_library_is_an_error_naming_hiprtc_and_where_it_was_looked_for() {
        let err = load(&["/nonexistent/amdgpu-rs/libhiprtc.so.7".to_owned()], "ROCM_PATH").expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "hipRTC"), "{err:?}");
        let text = err.to_string();
        assert!(text.contains("ROCM_PATH") && text.contains("libamdhip64-5"), "{text}");
    }
}
