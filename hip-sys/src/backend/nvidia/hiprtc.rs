//! hipRTC over NVRTC: the nvidia backend's [`HiprtcApi`].
//!
//! As HIP's NVIDIA headers do, each hipRTC entry point calls its NVRTC
//! twin (`libnvrtc.so.13`, `.12`, loaded at run time; `nvrtc.h` of CUDA 12
//! and 13 declares every function used with the same signature). A
//! `hiprtcProgram` is the `nvrtcProgram` itself.
//!
//! # The mapping
//!
//! - **Sources written for HIP.** `hiprtcCreateProgram` adds the portable
//!   kernel prelude's NVRTC headers ([`crate::prelude`]: `hip/hip_runtime.h`
//!   with HIP's kernel-side names, `hip/hip_cooperative_groups.h`,
//!   `type_traits`, `limits`), each unless the caller passes a header of
//!   that name, so the same kernel source compiles on AMD and NVIDIA.
//!   `hiprtcCompileProgram` pre-includes `hip/hip_runtime.h`
//!   (`--pre-include`), as hipRTC pre-includes its runtime header: HIP's
//!   names need no `#include` on either.
//! - **The architecture.** hipRTC compiles for the current device when no
//!   `--offload-arch` is given; likewise `hiprtcCompileProgram` adds
//!   `--gpu-architecture=sm_<major><minor>` from the current device's
//!   compute capability (`cudaGetDevice`, `cudaDeviceGetAttribute`) unless
//!   the options already name one (`--gpu-architecture`, `-arch`).
//! - **Code.** `hiprtcGetCodeSize`/`hiprtcGetCode` give the CUBIN when the
//!   compilation made one (a real `sm_` architecture), else the PTX (a
//!   virtual `compute_` one), NUL included, ready for `cuModuleLoadData`.
//! - **Status codes.** NVRTC's 0 to 11 are hipRTC's 0 to 11, one to one
//!   (same names, same numbers); NVRTC's later codes (PCH, cancellation,
//!   12 to 16) become `HIPRTC_ERROR_INTERNAL_ERROR`, logged with NVRTC's
//!   own name.
//! - `hiprtcVersion` reports NVRTC's version (12.9, 13.0), the one that
//!   matters for what it compiles.

use std::ffi::{c_char, c_int, CStr};
use std::sync::OnceLock;

use super::{catch_status, library_candidates, open};
use crate::hiprtc::{hiprtcProgram, hiprtcResult, HiprtcApi};
use crate::shared::compiler::{Compiler, CompilerKind};
use crate::shared::prelude::with_prelude;
use crate::BackendError;

/// `nvrtcResult`.
type NvrtcResult = c_int;
/// `nvrtcProgram`.
type NvrtcProgram = hiprtcProgram;

fn_table! {
    /// The NVRTC functions this mapping calls (`nvrtc.h`, CUDA 12 and 13).
    struct Nvrtc {
        /// `const char *nvrtcGetErrorString(nvrtcResult result)`
        nvrtcGetErrorString = "nvrtcGetErrorString": fn(NvrtcResult) -> *const c_char;
        /// `nvrtcResult nvrtcVersion(int *major, int *minor)`
        nvrtcVersion = "nvrtcVersion": fn(*mut c_int, *mut c_int) -> NvrtcResult;
        /// `nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name,
        /// int numHeaders, const char * const *headers, const char * const *includeNames)`
        nvrtcCreateProgram = "nvrtcCreateProgram": fn(
            *mut NvrtcProgram, *const c_char, *const c_char, c_int, *const *const c_char, *const *const c_char,
        ) -> NvrtcResult;
        /// `nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)`
        nvrtcDestroyProgram = "nvrtcDestroyProgram": fn(*mut NvrtcProgram) -> NvrtcResult;
        /// `nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char * const *options)`
        nvrtcCompileProgram = "nvrtcCompileProgram": fn(NvrtcProgram, c_int, *const *const c_char) -> NvrtcResult;
        /// `nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog, const char * const name_expression)`
        nvrtcAddNameExpression = "nvrtcAddNameExpression": fn(NvrtcProgram, *const c_char) -> NvrtcResult;
        /// `nvrtcResult nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression,
        /// const char** lowered_name)`
        nvrtcGetLoweredName = "nvrtcGetLoweredName": fn(NvrtcProgram, *const c_char, *mut *const c_char) -> NvrtcResult;
        /// `nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *logSizeRet)`
        nvrtcGetProgramLogSize = "nvrtcGetProgramLogSize": fn(NvrtcProgram, *mut usize) -> NvrtcResult;
        /// `nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log)`
        nvrtcGetProgramLog = "nvrtcGetProgramLog": fn(NvrtcProgram, *mut c_char) -> NvrtcResult;
        /// `nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *ptxSizeRet)`
        nvrtcGetPTXSize = "nvrtcGetPTXSize": fn(NvrtcProgram, *mut usize) -> NvrtcResult;
        /// `nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)`
        nvrtcGetPTX = "nvrtcGetPTX": fn(NvrtcProgram, *mut c_char) -> NvrtcResult;
        /// `nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet)`
        nvrtcGetCUBINSize = "nvrtcGetCUBINSize": fn(NvrtcProgram, *mut usize) -> NvrtcResult;
        /// `nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)`
        nvrtcGetCUBIN = "nvrtcGetCUBIN": fn(NvrtcProgram, *mut c_char) -> NvrtcResult;
    }
}

/// hipRTC compiles every program with its runtime header included first,
/// so HIP's names need no `#include`; NVRTC includes the prelude's first.
const PRE_INCLUDE: &CStr = c"--pre-include=hip/hip_runtime.h";

/// `cudaDevAttrComputeCapabilityMajor` and `Minor`.
const CC_MAJOR: c_int = 75;
const CC_MINOR: c_int = 76;

/// The candidate files for NVRTC, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"])
}

const HINT: &str = "install NVRTC (CUDA 12 or 13: the toolkit, or the cuda-nvrtc package) and add its lib64 \
     directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's built-in kernels";

/// NVRTC's functions, set by the first load that succeeds.
static LOADED: OnceLock<Nvrtc> = OnceLock::new();
/// What was loaded, set with [`LOADED`].
static COMPILER: OnceLock<Compiler> = OnceLock::new();

/// The process's NVRTC from the standard [`candidates`] (loaded on first
/// use; an error is kept too). Needs no GPU and no CUDA runtime when the
/// options name an architecture.
pub(crate) fn compiler() -> Result<&'static Compiler, BackendError> {
    static RESULT: OnceLock<Result<&'static Compiler, BackendError>> = OnceLock::new();
    RESULT.get_or_init(|| load(&candidates())).clone()
}

/// Load NVRTC from the first of `candidates` that opens (once per
/// process) and return the hipRTC table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static Compiler, BackendError> {
    if let Some(compiler) = COMPILER.get() {
        return Ok(compiler);
    }
    let library = open("libnvrtc", candidates, HINT)?;
    // SAFETY: `library` is NVRTC, whose exported functions have the
    // signatures declared in `Nvrtc` (CUDA 12 and 13 headers).
    let fns = unsafe { Nvrtc::resolve(&library) }?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    let status = unsafe { (fns.nvrtcVersion)(&mut major, &mut minor) };
    log::debug!("nvidia backend: loaded {} (NVRTC {major}.{minor}, status {status})", library.path());
    let path: &'static str = Box::leak(library.path().to_owned().into_boxed_str());
    library.keep();
    let _ = LOADED.set(fns);
    Ok(COMPILER.get_or_init(|| Compiler {
        kind: CompilerKind::Nvrtc,
        library: path,
        version: (major, minor),
        api: &NVRTC_HIPRTC,
        processors: None,
        builds: String::new,
    }))
}

fn fns() -> Result<&'static Nvrtc, hiprtcResult> {
    LOADED.get().ok_or(hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR)
}

/// hipRTC's status for NVRTC's `status`: the same number for 0 to 11.
pub(crate) fn status(status: NvrtcResult) -> hiprtcResult {
    match status {
        0..=11 => hiprtcResult(status as u32),
        other => {
            let name = fns()
                .ok()
                // SAFETY: nvrtcGetErrorString takes any code and returns a
                // static string.
                .and_then(|f| unsafe { crate::shared::hiprtc_names::static_text((f.nvrtcGetErrorString)(other)) })
                .unwrap_or("unknown");
            log::warn!(
                "NVRTC returned {name} ({other}), which hipRTC has no code for: reporting HIPRTC_ERROR_INTERNAL_ERROR"
            );
            hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR
        }
    }
}

fn ok(result: NvrtcResult) -> Result<(), hiprtcResult> {
    match status(result) {
        hiprtcResult::HIPRTC_SUCCESS => Ok(()),
        s => Err(s),
    }
}

fn entry(body: impl FnOnce(&'static Nvrtc) -> Result<(), hiprtcResult>) -> hiprtcResult {
    catch_status("hipRTC over NVRTC", hiprtcResult::HIPRTC_SUCCESS, hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR, || {
        body(fns()?)
    })
}

/// The mapping's table.
static NVRTC_HIPRTC: HiprtcApi = HiprtcApi {
    hiprtcGetErrorString,
    hiprtcVersion,
    hiprtcCreateProgram,
    hiprtcDestroyProgram,
    hiprtcCompileProgram,
    hiprtcAddNameExpression,
    hiprtcGetLoweredName,
    hiprtcGetProgramLogSize,
    hiprtcGetProgramLog,
    hiprtcGetCodeSize,
    hiprtcGetCode,
};

unsafe extern "C" fn hiprtcGetErrorString(result: hiprtcResult) -> *const c_char {
    crate::shared::hiprtc_names::hiprtc_status_c_name(result)
}

unsafe extern "C" fn hiprtcVersion(major: *mut c_int, minor: *mut c_int) -> hiprtcResult {
    // SAFETY: the caller's out-pointers, passed on (NVRTC checks them).
    entry(|f| ok(unsafe { (f.nvrtcVersion)(major, minor) }))
}

unsafe extern "C" fn hiprtcCreateProgram(
    prog: *mut hiprtcProgram,
    src: *const c_char,
    name: *const c_char,
    num_headers: c_int,
    headers: *mut *const c_char,
    include_names: *mut *const c_char,
) -> hiprtcResult {
    entry(|f| {
        // SAFETY: the caller's arrays of `num_headers` entries (hipRTC's contract).
        let merged = unsafe { with_prelude(CompilerKind::Nvrtc, num_headers, headers, include_names) }?;
        // SAFETY: the caller's program out-pointer, source and name; the
        // header arrays hold `len` NUL-terminated strings each, alive for
        // the call (NVRTC copies them).
        ok(unsafe {
            (f.nvrtcCreateProgram)(prog, src, name, merged.count(), merged.texts.as_ptr(), merged.names.as_ptr())
        })
    })
}

unsafe extern "C" fn hiprtcDestroyProgram(prog: *mut hiprtcProgram) -> hiprtcResult {
    // SAFETY: the caller's program pointer, passed on.
    entry(|f| ok(unsafe { (f.nvrtcDestroyProgram)(prog) }))
}

/// Whether `options` already choose an architecture.
fn names_architecture(option: &[u8]) -> bool {
    [&b"--gpu-architecture"[..], b"-arch", b"--gpu-name"].iter().any(|p| option.starts_with(p))
}

/// `--gpu-architecture=sm_XY` for the current device, NUL-terminated.
fn current_architecture() -> Result<String, hiprtcResult> {
    let cuda = super::fns().ok_or(hiprtcResult::HIPRTC_ERROR_INVALID_OPTION)?;
    let (mut device, mut major, mut minor) = (0, 0, 0);
    // SAFETY: valid out-pointers.
    let status = unsafe { (cuda.rt.cudaGetDevice)(&mut device) };
    if status != 0 {
        log::error!("hipRTC over NVRTC: cudaGetDevice failed ({status}); cannot choose the architecture");
        return Err(hiprtcResult::HIPRTC_ERROR_INVALID_OPTION);
    }
    // SAFETY: valid out-pointers and attribute numbers of cuda_runtime_api.h.
    let statuses = unsafe {
        [
            (cuda.rt.cudaDeviceGetAttribute)(&mut major, CC_MAJOR, device),
            (cuda.rt.cudaDeviceGetAttribute)(&mut minor, CC_MINOR, device),
        ]
    };
    if statuses != [0, 0] {
        log::error!("hipRTC over NVRTC: the compute capability of device {device} is unreadable ({statuses:?})");
        return Err(hiprtcResult::HIPRTC_ERROR_INVALID_OPTION);
    }
    Ok(format!("--gpu-architecture=sm_{major}{minor}\0"))
}

unsafe extern "C" fn hiprtcCompileProgram(
    prog: hiprtcProgram,
    num_options: c_int,
    options: *mut *const c_char,
) -> hiprtcResult {
    entry(|f| {
        let count = usize::try_from(num_options).map_err(|_| hiprtcResult::HIPRTC_ERROR_INVALID_INPUT)?;
        if count > 0 && options.is_null() {
            return Err(hiprtcResult::HIPRTC_ERROR_INVALID_INPUT);
        }
        let mut all: Vec<*const c_char> = Vec::with_capacity(count + 1);
        let mut has_architecture = false;
        for i in 0..count {
            // SAFETY: the array holds `num_options` entries.
            let option = unsafe { *options.add(i) };
            if option.is_null() {
                return Err(hiprtcResult::HIPRTC_ERROR_INVALID_INPUT);
            }
            // SAFETY: each option is NUL-terminated.
            has_architecture |= names_architecture(unsafe { CStr::from_ptr(option) }.to_bytes());
            all.push(option);
        }
        let architecture;
        if !has_architecture {
            architecture = current_architecture()?;
            all.push(architecture.as_ptr().cast());
        }
        all.push(PRE_INCLUDE.as_ptr());
        // SAFETY: a program of this table and `all.len()` NUL-terminated
        // options, alive for the call.
        ok(unsafe { (f.nvrtcCompileProgram)(prog, all.len() as c_int, all.as_ptr()) })
    })
}

unsafe extern "C" fn hiprtcAddNameExpression(prog: hiprtcProgram, name_expression: *const c_char) -> hiprtcResult {
    // SAFETY: the caller's arguments, passed on.
    entry(|f| ok(unsafe { (f.nvrtcAddNameExpression)(prog, name_expression) }))
}

unsafe extern "C" fn hiprtcGetLoweredName(
    prog: hiprtcProgram,
    name_expression: *const c_char,
    lowered_name: *mut *const c_char,
) -> hiprtcResult {
    // SAFETY: the caller's arguments, passed on.
    entry(|f| ok(unsafe { (f.nvrtcGetLoweredName)(prog, name_expression, lowered_name) }))
}

unsafe extern "C" fn hiprtcGetProgramLogSize(prog: hiprtcProgram, size: *mut usize) -> hiprtcResult {
    // SAFETY: the caller's arguments, passed on.
    entry(|f| ok(unsafe { (f.nvrtcGetProgramLogSize)(prog, size) }))
}

unsafe extern "C" fn hiprtcGetProgramLog(prog: hiprtcProgram, log: *mut c_char) -> hiprtcResult {
    // SAFETY: the caller's arguments, passed on.
    entry(|f| ok(unsafe { (f.nvrtcGetProgramLog)(prog, log) }))
}

/// The size of the program's CUBIN, if the compilation made one.
fn cubin_size(f: &Nvrtc, prog: hiprtcProgram) -> Option<usize> {
    let mut size = 0;
    // SAFETY: a valid out-pointer; NVRTC checks the program.
    let status = unsafe { (f.nvrtcGetCUBINSize)(prog, &mut size) };
    (status == 0 && size > 0).then_some(size)
}

unsafe extern "C" fn hiprtcGetCodeSize(prog: hiprtcProgram, size: *mut usize) -> hiprtcResult {
    entry(|f| {
        if size.is_null() {
            return Err(hiprtcResult::HIPRTC_ERROR_INVALID_INPUT);
        }
        match cubin_size(f, prog) {
            Some(bytes) => {
                // SAFETY: checked non-null.
                unsafe { *size = bytes };
                Ok(())
            }
            // SAFETY: checked non-null; NVRTC checks the program.
            None => ok(unsafe { (f.nvrtcGetPTXSize)(prog, size) }),
        }
    })
}

unsafe extern "C" fn hiprtcGetCode(prog: hiprtcProgram, code: *mut c_char) -> hiprtcResult {
    entry(|f| {
        if code.is_null() {
            return Err(hiprtcResult::HIPRTC_ERROR_INVALID_INPUT);
        }
        // SAFETY: the caller's buffer holds what hiprtcGetCodeSize reported,
        // which is the size of the same choice made here.
        ok(unsafe {
            match cubin_size(f, prog) {
                Some(_) => (f.nvrtcGetCUBIN)(prog, code),
                None => (f.nvrtcGetPTX)(prog, code),
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_try_nvrtc_13_then_12() {
        let c = candidates();
        assert_eq!(&c[..3], ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]);
        assert!(c[3..].iter().all(|p| p.starts_with("/usr/local/cuda/lib64/")));
    }

    #[test]
    fn nvrtc_codes_0_to_11_are_hiprtc_codes() {
        for code in 0..=11 {
            assert_eq!(status(code), hiprtcResult(code as u32));
        }
        assert_eq!(status(6), hiprtcResult::HIPRTC_ERROR_COMPILATION);
        assert_eq!(status(10), hiprtcResult::HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID);
        assert_eq!(status(16), hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR);
    }

    #[test]
    fn architecture_options_are_recognised() {
        assert!(names_architecture(b"--gpu-architecture=sm_90"));
        assert!(names_architecture(b"-arch=compute_90"));
        assert!(!names_architecture(b"-std=c++17"));
    }

    #[test]
    fn a_missing_library_is_an_error_naming_libnvrtc() {
        if LOADED.get().is_some() {
            return; // another test of this binary loaded the real one
        }
        let err = load(&["/nonexistent/amdgpu-rs/libnvrtc.so.13".to_owned()]).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "libnvrtc"), "{err:?}");
    }
}

/// Compiles `hip-sys/kernels/rtc_kernels.hip` with a real NVRTC, without a
/// GPU (the architecture is given). Runs where `AMDGPU_TEST_NVRTC` names
/// an NVRTC library (`libnvrtc.so.12`, with its builtins library beside
/// it on the loader path); skips elsewhere.
#[cfg(test)]
mod with_nvrtc {
    use super::*;
    use std::ffi::CString;

    fn compile(options: &[&str]) -> (hiprtcResult, String, Vec<u8>, Vec<String>) {
        let api = &NVRTC_HIPRTC;
        let source = CString::new(include_str!("../../../kernels/rtc_kernels.hip")).expect("no NUL");
        let mut prog: hiprtcProgram = std::ptr::null_mut();
        // SAFETY: valid C strings and out-pointer; no headers.
        let s = unsafe {
            (api.hiprtcCreateProgram)(
                &mut prog,
                source.as_ptr(),
                c"rtc_kernels.hip".as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, hiprtcResult::HIPRTC_SUCCESS);
        let expressions = [c"axpy<float>", c"axpy<double>"];
        for e in expressions {
            // SAFETY: a live program and a C string.
            assert_eq!(unsafe { (api.hiprtcAddNameExpression)(prog, e.as_ptr()) }, hiprtcResult::HIPRTC_SUCCESS);
        }
        let options: Vec<CString> = options.iter().map(|o| CString::new(*o).expect("no NUL")).collect();
        let mut pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: a live program and `pointers.len()` C strings.
        let status = unsafe { (api.hiprtcCompileProgram)(prog, pointers.len() as c_int, pointers.as_mut_ptr()) };
        let mut size = 0;
        // SAFETY: a live program and out-pointer.
        assert_eq!(unsafe { (api.hiprtcGetProgramLogSize)(prog, &mut size) }, hiprtcResult::HIPRTC_SUCCESS);
        let mut log = vec![0u8; size.max(1)];
        // SAFETY: the buffer holds the reported size.
        assert_eq!(unsafe { (api.hiprtcGetProgramLog)(prog, log.as_mut_ptr().cast()) }, hiprtcResult::HIPRTC_SUCCESS);
        let log = String::from_utf8_lossy(&log).trim_end_matches('\0').to_owned();
        let (mut code, mut lowered) = (Vec::new(), Vec::new());
        if status == hiprtcResult::HIPRTC_SUCCESS {
            // SAFETY: a live, compiled program.
            assert_eq!(unsafe { (api.hiprtcGetCodeSize)(prog, &mut size) }, hiprtcResult::HIPRTC_SUCCESS);
            code = vec![0u8; size];
            // SAFETY: the buffer holds the reported size.
            assert_eq!(unsafe { (api.hiprtcGetCode)(prog, code.as_mut_ptr().cast()) }, hiprtcResult::HIPRTC_SUCCESS);
            for e in expressions {
                let mut name: *const c_char = std::ptr::null();
                // SAFETY: a live program, a C string and an out-pointer.
                let status = unsafe { (api.hiprtcGetLoweredName)(prog, e.as_ptr(), &mut name) };
                assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS);
                // SAFETY: NVRTC's string lives until the program is destroyed.
                lowered.push(unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned());
            }
        }
        // SAFETY: a live program, destroyed once.
        assert_eq!(unsafe { (api.hiprtcDestroyProgram)(&mut prog) }, hiprtcResult::HIPRTC_SUCCESS);
        (status, log, code, lowered)
    }

    #[test]
    fn the_hip_source_compiles_to_cubin_and_ptx_with_lowered_names() {
        let Ok(path) = std::env::var("AMDGPU_TEST_NVRTC") else {
            eprintln!("skipped: set AMDGPU_TEST_NVRTC to an NVRTC library to run");
            return;
        };
        load(&[path]).expect("NVRTC loads");
        let (status, log, cubin, lowered) = compile(&["--gpu-architecture=sm_90", "-std=c++17"]);
        assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS, "{log}");
        assert_eq!(&cubin[..4], b"\x7fELF", "a real architecture gives a CUBIN");
        assert_eq!(lowered.len(), 2);
        assert!(lowered[0].starts_with("_Z4axpyIfEv") && lowered[1].starts_with("_Z4axpyIdEv"), "{lowered:?}");
        let (status, log, ptx, _) = compile(&["--gpu-architecture=compute_90"]);
        assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS, "{log}");
        let text = String::from_utf8_lossy(&ptx);
        assert!(text.contains(".entry vector_add") && text.contains(".entry block_sum"), "{text}");
        assert_eq!(ptx.last(), Some(&0), "PTX comes NUL-terminated");
        let (status, log, _, _) = compile(&["--gpu-architecture=sm_90", "-DBROKEN=1", "--no-such-option"]);
        assert_eq!(status, hiprtcResult::HIPRTC_ERROR_INVALID_OPTION, "{log}");
    }
}
