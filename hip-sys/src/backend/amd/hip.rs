//! AMD's HIP runtime, `libamdhip64.so`, loaded at run time: the amd
//! backend's HIP table.
//!
//! # Where the library is looked for
//!
//! In this order, the first file that loads wins:
//!
//! 1. `$ROCM_PATH/lib/libamdhip64.so`, `.so.7`, `.so.6`, `.so.5` (when
//!    `ROCM_PATH` is set and not empty);
//! 2. `/opt/rocm/lib/libamdhip64.so`, `.so.7`, `.so.6`, `.so.5`;
//! 3. the bare names `libamdhip64.so`, `.so.7`, `.so.6`, `.so.5`, through the
//!    system loader's search path (`LD_LIBRARY_PATH`, `ld.so.cache`, ...).
//!
//! # ABI across ROCm versions
//!
//! The bindings follow the HIP 5.7 headers (Debian's `libamdhip64-dev
//! 5.7.1`). Calling a function through a signature that does not match the
//! library is undefined behaviour, not an error, so this loader reads
//! `hipRuntimeGetVersion` and accepts only HIP 5.x, 6.x and 7.x, whose
//! differences for the functions of [`HipApi`] are handled as follows:
//!
//! - `hipGetDeviceProperties` became `hipGetDevicePropertiesR0600` with a
//!   new struct in 6.0. It is not in the table: device properties are read
//!   one at a time with `hipDeviceGetAttribute`, whose signature is the
//!   same in 5.x, 6.x and 7.x and whose attribute numbers stayed stable
//!   through 6.x (retired names became `Unused*`, new ones were appended).
//! - `hipGetLastError` returns the status of the last call up to 6.x and
//!   follows CUDA's sticky-until-read semantics from 7.0. Its signature is
//!   unchanged; nothing in this project relies on either meaning.
//! - `hipMemoryType`, the `type` field that `hipPointerGetAttributes`
//!   fills, was renumbered in 6.0 (see [`memory_type_from_v6`]). On a 6.0
//!   or newer runtime the table's `hipPointerGetAttributes` is a shim that
//!   calls the library's function and translates the field back to the
//!   5.7 numbering of the bindings, so callers see one numbering on every
//!   version.
//! - `hipError_t` and `hipMemcpyKind` only gained values after 5.7; the
//!   bindings' newtype enums carry unknown values safely.
//!
//! The remaining functions of the table (device, context, stream, event,
//! memory, memory pool and module calls) have the same C signatures in the
//! 5.7 headers and in the 6.x and 7.x headers as far as the notes this
//! project keeps record. None of this has been run on AMD hardware yet.

use std::ffi::c_void;
use std::sync::OnceLock;

use crate::backend::versions::HipVersion;
use crate::bindings::hip::{hipError_t, hipMemoryType, hipPointerAttribute_t, HipApi};
use crate::BackendError;

/// The library's name in messages.
const LIBRARY: &str = "libamdhip64";

/// The file names tried in each directory and through the loader path.
const FILE_NAMES: [&str; 4] = ["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"];

/// What to do when the library cannot be found.
const NOT_FOUND_HINT: &str = "install ROCm (5.3 or newer: 5.x, 6.x or 7.x), then set ROCM_PATH to its \
     prefix (e.g. /opt/rocm) or add its lib directory to LD_LIBRARY_PATH; \
     or set AMDGPU_BACKEND=sim to use the HIP simulator";

/// What to do when a symbol is missing.
const SYMBOL_HINT: &str = "this HIP runtime is older than ROCm 5.3, the oldest this crate supports (the \
     first whose runtime exports every function it calls; hipLaunchHostFunc came in 5.3), or it is not a \
     complete HIP runtime: point ROCM_PATH at a ROCm 5.3 to 7.x installation, or set AMDGPU_BACKEND=sim to \
     use the HIP simulator. Compiling for AMD targets does not need a supported runtime: hipRTC loads on \
     its own (Program::compile_for)";

/// The HIP versions this loader accepts, in messages.
const SUPPORTED: &str = "HIP 5.3 to 7.x (ROCm 5.3 to 7.x)";

/// The candidate files for `libamdhip64`, in the order they are tried.
///
/// `rocm_path` is the value of `ROCM_PATH`, if any; an empty value is
/// ignored.
pub(crate) fn candidates(rocm_path: Option<&str>) -> Vec<String> {
    super::libraries::rocm_candidates(&FILE_NAMES, rocm_path)
}

/// `libamdhip64` loaded and its table resolved, before any HIP call.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The library's table, exactly as resolved (no shim yet).
    pub(crate) api: HipApi,
    /// The candidate that loaded.
    pub(crate) path: String,
}

/// Load the first candidate that opens and resolve every symbol of
/// [`HipApi::SYMBOLS`] in it.
///
/// A candidate that contains a `/` is opened as a path, otherwise the
/// system loader searches for it. If none opens, the error lists every
/// candidate with the loader's reason. If the first that opens lacks a
/// symbol, the error names it and the file; later candidates are not tried,
/// because a broken installation earlier on the path is worth knowing
/// about. On success the library stays loaded for the rest of the process,
/// so the table's pointers stay valid.
pub(crate) fn load_from(candidates: &[String]) -> Result<Loaded, BackendError> {
    let opened = crate::backend::loader::open_first(LIBRARY, candidates, NOT_FOUND_HINT, SYMBOL_HINT)?;
    // SAFETY: every pointer comes from `libamdhip64`, whose exported
    // functions have the C signatures of the HIP headers the table was
    // generated from (the version is checked before any ABI-sensitive call,
    // see the module docs); the loader refuses null pointers. The library
    // is kept loaded (below), so the pointers stay valid for the process.
    let api = unsafe { HipApi::from_resolver(|name| opened.symbol(name)) }?;
    Ok(Loaded { api, path: opened.keep() })
}

/// Load `libamdhip64` from the standard [`candidates`], check that it
/// reports at least one device and a supported version, and return the
/// process's table (with the version shims installed).
pub(crate) fn load() -> Result<&'static HipApi, BackendError> {
    let rocm_path = std::env::var("ROCM_PATH").ok();
    let loaded = load_from(&candidates(rocm_path.as_deref()))?;
    let api = prepare(loaded)?;
    Ok(Box::leak(Box::new(api)))
}

/// Check a loaded runtime: at least one device, a supported version; then
/// install the shims its version needs.
fn prepare(loaded: Loaded) -> Result<HipApi, BackendError> {
    let Loaded { mut api, path } = loaded;

    // `hipGetDeviceCount` has had the same signature in every HIP release.
    let mut count: i32 = 0;
    // SAFETY: `count` is a valid, writable `int`.
    let status = unsafe { (api.hipGetDeviceCount)(&mut count) };
    if status != hipError_t::hipSuccess || count < 1 {
        return Err(BackendError::BackendUnavailable {
            backend: crate::Backend::Amd,
            reason: format!(
                "{path} loaded but reports no AMD GPU (hipGetDeviceCount: {}, count {count}). \
                 To fix: check that the GPU is visible (/dev/kfd and /dev/dri readable, \
                 HIP_VISIBLE_DEVICES not empty), or set AMDGPU_BACKEND=sim to use the HIP simulator",
                error_name(status)
            ),
        });
    }

    let mut encoded: i32 = 0;
    // SAFETY: `encoded` is a valid, writable `int`; the signature of
    // `hipRuntimeGetVersion` is the same in every HIP release.
    let status = unsafe { (api.hipRuntimeGetVersion)(&mut encoded) };
    let version = if status == hipError_t::hipSuccess { HipVersion::from_encoded(encoded) } else { None };
    let version = match version {
        Some(v) if v.is_supported() => v,
        Some(v) => {
            return Err(BackendError::UnsupportedVersion {
                library: path,
                found: format!("HIP {v} ({encoded})"),
                supported: SUPPORTED.to_owned(),
            })
        }
        None => {
            return Err(BackendError::UnsupportedVersion {
                library: path,
                found: format!("unknown (hipRuntimeGetVersion: {}, value {encoded})", error_name(status)),
                supported: SUPPORTED.to_owned(),
            })
        }
    };
    let runtime = super::installation::record(api.hipRuntimeGetVersion as *const c_void, &path, version);
    log::debug!("loaded {} ({path}): HIP {version}, {count} device(s)", runtime.path);

    if version.renumbered_memory_type() {
        let real = api.hipPointerGetAttributes;
        // A second load in the same process (tests only) finds the same
        // function: the library is loaded once and kept.
        let installed = *REAL_POINTER_GET_ATTRIBUTES.get_or_init(|| real);
        if installed as usize != real as usize {
            return Err(BackendError::BackendUnavailable {
                backend: crate::Backend::Amd,
                reason: format!(
                    "{path} is a second, different HIP runtime in this process; \
                     load one runtime only (unset ROCM_PATH or LD_LIBRARY_PATH entries \
                     that name another ROCm)"
                ),
            });
        }
        api.hipPointerGetAttributes = pointer_get_attributes_v6;
    }
    Ok(api)
}

/// A status as HIP's name and number (`hipErrorNoDevice (100)`), for
/// messages written before any string function of the library is trusted:
/// the names come from this crate's own table.
fn error_name(status: hipError_t) -> String {
    match crate::bindings::error_names::describe(status) {
        Some((name, _)) => format!("{} ({})", name.to_string_lossy(), status.0),
        None => format!("hipError_t({})", status.0),
    }
}

/// The signature of `hipPointerGetAttributes`.
type PointerGetAttributes = unsafe extern "C" fn(*mut hipPointerAttribute_t, *const c_void) -> hipError_t;

/// The library's own `hipPointerGetAttributes`, set when the shim is
/// installed.
static REAL_POINTER_GET_ATTRIBUTES: OnceLock<PointerGetAttributes> = OnceLock::new();

/// Set on the memory-type number of a value that HIP 6.x does not define,
/// so that it never equals a constant of the 5.7 bindings.
pub(crate) const UNKNOWN_MEMORY_TYPE_BIT: u32 = 0x8000_0000;

/// Translate a `hipMemoryType` of HIP 6.0 and later to the 5.7 numbering of
/// the bindings.
///
/// 6.x: Unregistered = 0, Host = 1, Device = 2, Managed = 3, Array = 10,
/// Unified = 11. 5.7: Host = 0, Device = 1, Array = 2, Unified = 3,
/// Managed = 4. `None` for Unregistered, which 5.7 does not have (it
/// reports such a pointer as `hipErrorInvalidValue` instead). A value 6.x
/// does not define keeps its number with [`UNKNOWN_MEMORY_TYPE_BIT`] set.
pub(crate) fn memory_type_from_v6(v6: u32) -> Option<hipMemoryType> {
    Some(match v6 {
        0 => return None,
        1 => hipMemoryType::hipMemoryTypeHost,
        2 => hipMemoryType::hipMemoryTypeDevice,
        3 => hipMemoryType::hipMemoryTypeManaged,
        10 => hipMemoryType::hipMemoryTypeArray,
        11 => hipMemoryType::hipMemoryTypeUnified,
        other => hipMemoryType(other | UNKNOWN_MEMORY_TYPE_BIT),
    })
}

/// `hipPointerGetAttributes` for HIP 6.0 and later, as the 5.7 bindings
/// describe it.
///
/// Calls the library's function, then rewrites the `type` field in the 5.7
/// numbering. A pointer HIP 6.x reports as Unregistered (plain host
/// memory) gives `hipErrorInvalidValue`, as HIP 5.x does. The layout of
/// `hipPointerAttribute_t` is the same in both versions (6.0 replaced the
/// `memoryType`/`type` union by its `type` member).
///
/// # Safety
/// As for the C function: `attributes` must be null or valid for writes.
unsafe extern "C" fn pointer_get_attributes_v6(
    attributes: *mut hipPointerAttribute_t,
    ptr: *const c_void,
) -> hipError_t {
    let Some(real) = REAL_POINTER_GET_ATTRIBUTES.get() else {
        return hipError_t::hipErrorNotInitialized;
    };
    // SAFETY: `real` is the library's function with this signature; the
    // arguments are passed on as the caller gave them.
    let status = unsafe { real(attributes, ptr) };
    if status != hipError_t::hipSuccess || attributes.is_null() {
        return status;
    }
    // SAFETY: the call succeeded, so `attributes` is non-null, valid for
    // reads and writes and initialised by the library; both union members
    // are the same 32-bit enum.
    unsafe {
        let field = &mut (*attributes).__bindgen_anon_1.type_;
        match memory_type_from_v6(field.0) {
            Some(t) => *field = t,
            None => return hipError_t::hipErrorInvalidValue,
        }
    }
    status
}

#[cfg(test)]
mod tests {
    #[test]
    fn loader_messages_name_the_status() {
        assert_eq!(super::error_name(crate::bindings::hip::hipError_t::hipErrorNoDevice), "hipErrorNoDevice (100)");
        assert_eq!(super::error_name(crate::bindings::hip::hipError_t(123_456)), "hipError_t(123456)");
    }

    use super::*;

    #[test]
    fn nonexistent_paths_give_library_not_found_naming_each() {
        let paths = vec![
            "/nonexistent/amdgpu-rs/a/libamdhip64.so".to_owned(),
            "/nonexistent/amdgpu-rs/b/libamdhip64.so.6".to_owned(),
            "libamdhip64-does-not-exist.so.99".to_owned(),
        ];
        let err = load_from(&paths).expect_err("nothing loads");
        let BackendError::LibraryNotFound { tried, .. } = &err else {
            panic!("expected LibraryNotFound, got {err:?}");
        };
        assert_eq!(tried.len(), paths.len());
        let message = err.to_string();
        for (p, t) in paths.iter().zip(tried) {
            assert!(t.starts_with(p.as_str()), "{t} names {p}");
            assert!(message.contains(p.as_str()), "{message} names {p}");
        }
        assert!(message.contains("libamdhip64"), "{message}");
        assert!(message.contains("ROCM_PATH"), "{message}");
        assert!(message.contains("LD_LIBRARY_PATH"), "{message}");
        assert!(message.contains("AMDGPU_BACKEND=sim"), "{message}");
    }

    #[test]
    fn empty_candidate_list_is_library_not_found() {
        let err = load_from(&[]).expect_err("nothing to load");
        assert!(matches!(err, BackendError::LibraryNotFound { .. }), "{err:?}");
    }

    #[test]
    fn library_without_hip_symbols_gives_symbol_missing() {
        // libm is on every glibc system and has none of HIP's symbols.
        let paths = vec!["/nonexistent/amdgpu-rs/libamdhip64.so".to_owned(), "libm.so.6".to_owned()];
        let err = load_from(&paths).expect_err("libm is not HIP");
        let BackendError::SymbolMissing { library, symbol, .. } = &err else {
            panic!("expected SymbolMissing, got {err:?}");
        };
        assert_eq!(library, "libm.so.6");
        assert_eq!(symbol, HipApi::SYMBOLS[0]);
        assert_eq!(symbol, "hipInit");
        let message = err.to_string();
        assert!(message.contains("libm.so.6"), "{message}");
        assert!(message.contains("hipInit"), "{message}");
        assert!(message.contains("too old"), "{message}");
        assert!(message.contains("not a HIP runtime"), "{message}");
    }

    #[test]
    fn candidates_follow_rocm_path_then_opt_rocm_then_loader_path() {
        let c = candidates(Some("/usr/local/rocm-6.1/"));
        assert_eq!(c.len(), 12);
        assert_eq!(c[0], "/usr/local/rocm-6.1/lib/libamdhip64.so");
        assert_eq!(c[3], "/usr/local/rocm-6.1/lib/libamdhip64.so.5");
        assert_eq!(c[4], "/opt/rocm/lib/libamdhip64.so");
        assert_eq!(c[5], "/opt/rocm/lib/libamdhip64.so.7");
        assert_eq!(c[8], "libamdhip64.so");
        assert_eq!(c[11], "libamdhip64.so.5");

        let c = candidates(None);
        assert_eq!(c.len(), 8);
        assert_eq!(c[0], "/opt/rocm/lib/libamdhip64.so");
        assert_eq!(candidates(Some("  ")), c);
        assert_eq!(candidates(Some("/opt/rocm")), c);
    }

    #[test]
    fn hip_versions_decode() {
        let v = HipVersion::from_encoded(50_731_921).expect("positive");
        assert_eq!((v.major, v.minor, v.patch), (5, 7, 31921));
        assert_eq!(v.to_string(), "5.7.31921");
        assert!(v.is_supported());
        assert!(!v.renumbered_memory_type());

        let v = HipVersion::from_encoded(60_032_830).expect("positive");
        assert_eq!((v.major, v.minor, v.patch), (6, 0, 32830));
        assert!(v.renumbered_memory_type());

        let v = HipVersion::from_encoded(70_051_831).expect("positive");
        assert_eq!((v.major, v.minor), (7, 0));
        assert!(v.is_supported() && v.renumbered_memory_type());

        assert!(!HipVersion::from_encoded(40_500_000).expect("ok").is_supported());
        // 5.2 lacks hipLaunchHostFunc; 5.3 is the oldest supported.
        assert!(!HipVersion::from_encoded(50_221_153).expect("ok").is_supported());
        assert!(HipVersion::from_encoded(50_300_000).expect("ok").is_supported());
        assert!(!HipVersion::from_encoded(80_000_000).expect("ok").is_supported());
        assert_eq!(HipVersion::from_encoded(-1), None);
    }

    #[test]
    fn memory_types_translate_from_v6_numbering() {
        assert_eq!(memory_type_from_v6(0), None);
        assert_eq!(memory_type_from_v6(1), Some(hipMemoryType::hipMemoryTypeHost));
        assert_eq!(memory_type_from_v6(2), Some(hipMemoryType::hipMemoryTypeDevice));
        assert_eq!(memory_type_from_v6(3), Some(hipMemoryType::hipMemoryTypeManaged));
        assert_eq!(memory_type_from_v6(10), Some(hipMemoryType::hipMemoryTypeArray));
        assert_eq!(memory_type_from_v6(11), Some(hipMemoryType::hipMemoryTypeUnified));
        let unknown = memory_type_from_v6(4).expect("kept");
        assert_eq!(unknown.0, 4 | UNKNOWN_MEMORY_TYPE_BIT);
        for known in [
            hipMemoryType::hipMemoryTypeHost,
            hipMemoryType::hipMemoryTypeDevice,
            hipMemoryType::hipMemoryTypeArray,
            hipMemoryType::hipMemoryTypeUnified,
            hipMemoryType::hipMemoryTypeManaged,
        ] {
            assert_ne!(unknown, known);
        }
    }
}
