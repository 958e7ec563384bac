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
//! The table's `hiprtcCreateProgram` adds the portable prelude
//! ([`crate::prelude`]), as the nvidia backend's does, and its
//! `hiprtcCompileProgram` refuses a processor comgr does not know (below).
//!
//! `hiprtcVersion` is not a way to tell installations apart: clr
//! hard-codes 9.0 in `hiprtc.cpp` in every release from 5.2 to 7.x. It is
//! read and reported, never compared. Every function of the table has the
//! same signature in hipRTC 5.0 to 7.x.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use super::installation::{self, Runtime};
use super::libraries::{rocm_candidates, rocm_path};
use crate::hiprtc::{hiprtcProgram, hiprtcResult, HiprtcApi};
use crate::shared::compiler::{Compiler, CompilerKind};
use crate::shared::prelude::with_prelude;
use crate::BackendError;

/// The process's AMD hipRTC (loaded on first use; an error is kept too).
pub(crate) fn compiler() -> Result<&'static Compiler, BackendError> {
    static LOADED: OnceLock<Result<&'static Compiler, BackendError>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            // The backend is chosen first, so that an amd runtime, if the
            // process uses one, decides the installation.
            let _ = crate::backend::selection();
            match installation::runtime() {
                Some(runtime) => {
                    load(&beside(runtime), &format!("the HIP runtime's installation ({})", runtime.directory))
                }
                None => load(&standalone(rocm_path().as_deref()), "ROCM_PATH, /opt/rocm or the loader's path"),
            }
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
    opened.keep();
    let processors = comgr_processors(path.rsplit_once('/').map_or(".", |(dir, _)| dir));
    let mut api = api;
    // The table's create adds the portable prelude (as the nvidia
    // backend's does), so programs from the raw table get it too.
    let real = *REAL_CREATE.get_or_init(|| api.hiprtcCreateProgram);
    if real as usize == api.hiprtcCreateProgram as usize {
        api.hiprtcCreateProgram = create_with_prelude;
    }
    if let Some(list) = processors {
        // The table's compile checks the architecture options first (the
        // process keeps one AMD hipRTC, so one real function and list).
        let real = *REAL_COMPILE.get_or_init(|| api.hiprtcCompileProgram);
        let _ = PROCESSORS.set(list);
        if real as usize == api.hiprtcCompileProgram as usize {
            api.hiprtcCompileProgram = compile_known_processors;
        }
    }
    let library: &'static str = Box::leak(path.into_boxed_str());
    let api: &'static HiprtcApi = Box::leak(Box::new(api));
    Ok(Box::leak(Box::new(Compiler { kind: CompilerKind::Hiprtc, library, version: (major, minor), api, processors })))
}

/// `hiprtcCreateProgram`'s signature.
type CreateFn = unsafe extern "C" fn(
    *mut hiprtcProgram,
    *const c_char,
    *const c_char,
    c_int,
    *mut *const c_char,
    *mut *const c_char,
) -> hiprtcResult;

/// AMD's own `hiprtcCreateProgram`, behind [`create_with_prelude`].
static REAL_CREATE: OnceLock<CreateFn> = OnceLock::new();

/// `hiprtcCreateProgram` of the amd table: AMD's, with the portable
/// prelude's headers after the caller's (those it does not give by name).
unsafe extern "C" fn create_with_prelude(
    prog: *mut hiprtcProgram,
    src: *const c_char,
    name: *const c_char,
    count: c_int,
    headers: *mut *const c_char,
    include_names: *mut *const c_char,
) -> hiprtcResult {
    let Some(real) = REAL_CREATE.get() else { return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR };
    // SAFETY: the caller's arrays of `count` entries (hipRTC's contract).
    let mut merged = match unsafe { with_prelude(CompilerKind::Hiprtc, count, headers, include_names) } {
        Ok(merged) => merged,
        Err(status) => return status,
    };
    // SAFETY: the caller's out-pointer, source and name; the arrays hold
    // `merged.count()` NUL-terminated strings, alive for the call (hipRTC
    // copies them).
    unsafe { real(prog, src, name, merged.count(), merged.texts.as_mut_ptr(), merged.names.as_mut_ptr()) }
}

/// `hiprtcCompileProgram`'s signature.
type CompileFn = unsafe extern "C" fn(hiprtcProgram, c_int, *mut *const c_char) -> hiprtcResult;

/// AMD's own `hiprtcCompileProgram`, behind [`compile_known_processors`].
static REAL_COMPILE: OnceLock<CompileFn> = OnceLock::new();
/// The processors comgr knows, for [`compile_known_processors`].
static PROCESSORS: OnceLock<&'static [&'static str]> = OnceLock::new();

/// The processor an architecture option names (`--offload-arch=gfx90a:xnack+`
/// and `--gpu-architecture=gfx90a` give `gfx90a`), if it is one.
fn named_processor(option: &[u8]) -> Option<&[u8]> {
    let value =
        [&b"--offload-arch="[..], b"--gpu-architecture="].iter().find_map(|prefix| option.strip_prefix(*prefix))?;
    Some(value.split(|b| *b == b':').next().unwrap_or(value))
}

/// `hiprtcCompileProgram` of the amd table: hipRTC 5.x aborts the process
/// (`munmap_chunk(): invalid pointer`) when an option names a processor
/// its comgr does not know, so such an option is
/// `HIPRTC_ERROR_INVALID_OPTION` here, before AMD's function is called.
unsafe extern "C" fn compile_known_processors(
    prog: hiprtcProgram,
    count: c_int,
    options: *mut *const c_char,
) -> hiprtcResult {
    let Some(real) = REAL_COMPILE.get() else { return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR };
    let known = PROCESSORS.get().copied().unwrap_or_default();
    if count > 0 && options.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    for i in 0..usize::try_from(count).unwrap_or(0) {
        // SAFETY: the array holds `count` entries (hipRTC's contract).
        let option = unsafe { *options.add(i) };
        if option.is_null() {
            return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
        }
        // SAFETY: a non-null option is NUL-terminated.
        let text = unsafe { CStr::from_ptr(option) }.to_bytes();
        if let Some(processor) = named_processor(text) {
            if !known.iter().any(|k| k.as_bytes() == processor) {
                log::error!(
                    "hipRTC: {} names a processor this hipRTC's comgr does not know (it knows {}); refused",
                    String::from_utf8_lossy(text),
                    known.join(", ")
                );
                return hiprtcResult::HIPRTC_ERROR_INVALID_OPTION;
            }
        }
    }
    // SAFETY: the caller's arguments, checked above, passed on.
    unsafe { real(prog, count, options) }
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
    use super::super::hip::HipVersion;
    use super::*;

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
    fn architecture_options_name_their_processor() {
        assert_eq!(named_processor(b"--offload-arch=gfx942:sramecc+:xnack-"), Some(&b"gfx942"[..]));
        assert_eq!(named_processor(b"--gpu-architecture=gfx90a"), Some(&b"gfx90a"[..]));
        assert_eq!(named_processor(b"-O3"), None);
    }

    #[test]
    fn a_missing_library_is_an_error_naming_hiprtc_and_where_it_was_looked_for() {
        let err = load(&["/nonexistent/amdgpu-rs/libhiprtc.so.7".to_owned()], "ROCM_PATH").expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "hipRTC"), "{err:?}");
        let text = err.to_string();
        assert!(text.contains("ROCM_PATH") && text.contains("libamdhip64-5"), "{text}");
    }
}
