//! The simulator's hipRTC: programs that can be created, named and asked
//! for their log, and never compile.
//!
//! The simulator runs kernels of a built-in registry of Rust functions
//! ([`super::KERNELS`]); it has no C++ compiler. `hiprtcCompileProgram`
//! therefore answers `HIPRTC_ERROR_COMPILATION`, and the program's log
//! says why and what to do instead: load the built-in kernels by name with
//! [`super::code_object`]. Everything else follows hipRTC: null arguments
//! are `HIPRTC_ERROR_INVALID_INPUT`, an unknown program
//! `HIPRTC_ERROR_INVALID_PROGRAM`, code asked of a program that did not
//! compile `HIPRTC_ERROR_INVALID_PROGRAM`, lowered names asked before a
//! compilation `HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION`.

use super::kernels::kernel_names;
use crate::bindings::hiprtc::{hiprtcProgram, hiprtcResult, HiprtcApi};
use crate::machine::handles::new_handle;
use crate::machine::lock::lock;
use crate::shared::compiler::{Compiler, CompilerKind};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::Mutex;

/// The simulator's hipRTC table.
pub(crate) static SIM_HIPRTC: HiprtcApi = HiprtcApi {
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

/// The simulator's compiler, as `hip_sys::libraries::rtc::compiler`
/// describes it: hipRTC's 9.0, as AMD's reports in every release.
pub(crate) static SIM_COMPILER: Compiler = Compiler {
    kind: CompilerKind::Sim,
    library: "built-in",
    version: HIPRTC_VERSION,
    api: &SIM_HIPRTC,
    processors: None,
};

/// What `hiprtcVersion` answers: 9.0, the constant clr's `hiprtc.cpp`
/// reports in every ROCm release from 5.2 to 7.x, whatever the runtime's
/// version (HIP 5.2.3's `libamdhip64.so.5` answers it too).
pub(crate) const HIPRTC_VERSION: (i32, i32) = (9, 0);

struct SimProgram {
    name: String,
    /// The log of the last compilation (empty before one).
    log: CString,
    compiled: bool,
}

static PROGRAMS: Mutex<Option<HashMap<usize, SimProgram>>> = Mutex::new(None);

fn with_program<R>(prog: hiprtcProgram, f: impl FnOnce(&mut SimProgram) -> R) -> Result<R, hiprtcResult> {
    let mut programs = lock(&PROGRAMS);
    let program = programs
        .get_or_insert_with(HashMap::new)
        .get_mut(&(prog as usize))
        .ok_or(hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM)?;
    Ok(f(program))
}

fn status(result: Result<(), hiprtcResult>) -> hiprtcResult {
    result.err().unwrap_or(hiprtcResult::HIPRTC_SUCCESS)
}

/// The log of every compilation on the simulator.
pub(crate) fn cannot_compile_log(program: &str) -> String {
    let names = kernel_names();
    format!(
        "{program}: error: the HIP simulator cannot compile C++ source (it has no compiler; hipRTC needs the amd \
         or nvidia backend). To run kernels on the simulator, load its built-in kernels by name: \
         Module::load(device, &hip_sys::sim::code_object(&[\"vector_add_f32\"])). Kernels: {}",
        names.join(", ")
    )
}

unsafe extern "C" fn hiprtcGetErrorString(result: hiprtcResult) -> *const c_char {
    crate::shared::hiprtc_names::hiprtc_status_c_name(result)
}

unsafe extern "C" fn hiprtcVersion(major: *mut c_int, minor: *mut c_int) -> hiprtcResult {
    if major.is_null() || minor.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    // SAFETY: both checked non-null; the caller passes writable ints.
    unsafe {
        *major = HIPRTC_VERSION.0;
        *minor = HIPRTC_VERSION.1;
    }
    hiprtcResult::HIPRTC_SUCCESS
}

unsafe extern "C" fn hiprtcCreateProgram(
    prog: *mut hiprtcProgram,
    src: *const c_char,
    name: *const c_char,
    num_headers: c_int,
    headers: *mut *const c_char,
    include_names: *mut *const c_char,
) -> hiprtcResult {
    if prog.is_null()
        || src.is_null()
        || num_headers < 0
        || (num_headers > 0 && (headers.is_null() || include_names.is_null()))
    {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    let name = if name.is_null() {
        "default_program".to_owned()
    } else {
        // SAFETY: a non-null name is NUL-terminated (hipRTC's contract).
        unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
    };
    let handle = new_handle();
    lock(&PROGRAMS)
        .get_or_insert_with(HashMap::new)
        .insert(handle, SimProgram { name, log: CString::default(), compiled: false });
    // SAFETY: checked non-null; the caller passes a writable handle.
    unsafe { *prog = handle as hiprtcProgram };
    hiprtcResult::HIPRTC_SUCCESS
}

unsafe extern "C" fn hiprtcDestroyProgram(prog: *mut hiprtcProgram) -> hiprtcResult {
    if prog.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    // SAFETY: checked non-null.
    let handle = unsafe { *prog } as usize;
    match lock(&PROGRAMS).get_or_insert_with(HashMap::new).remove(&handle) {
        Some(_) => {
            // SAFETY: as above; hipRTC clears the caller's handle.
            unsafe { *prog = std::ptr::null_mut() };
            hiprtcResult::HIPRTC_SUCCESS
        }
        None => hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM,
    }
}

unsafe extern "C" fn hiprtcCompileProgram(
    prog: hiprtcProgram,
    num_options: c_int,
    options: *mut *const c_char,
) -> hiprtcResult {
    if num_options < 0 || (num_options > 0 && options.is_null()) {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    let noted = with_program(prog, |p| {
        p.log = CString::new(cannot_compile_log(&p.name)).unwrap_or_default();
        p.compiled = false;
    });
    match noted {
        Ok(()) => hiprtcResult::HIPRTC_ERROR_COMPILATION,
        Err(status) => status,
    }
}

unsafe extern "C" fn hiprtcAddNameExpression(prog: hiprtcProgram, name_expression: *const c_char) -> hiprtcResult {
    if name_expression.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    status(with_program(prog, |_| ()))
}

unsafe extern "C" fn hiprtcGetLoweredName(
    prog: hiprtcProgram,
    name_expression: *const c_char,
    lowered_name: *mut *const c_char,
) -> hiprtcResult {
    if name_expression.is_null() || lowered_name.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    status(with_program(prog, |_| ()).and(Err(hiprtcResult::HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION)))
}

unsafe extern "C" fn hiprtcGetProgramLogSize(prog: hiprtcProgram, size: *mut usize) -> hiprtcResult {
    if size.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    status(with_program(prog, |p| {
        // SAFETY: checked non-null. The size counts the NUL.
        unsafe { *size = p.log.as_bytes_with_nul().len() };
    }))
}

unsafe extern "C" fn hiprtcGetProgramLog(prog: hiprtcProgram, log: *mut c_char) -> hiprtcResult {
    if log.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    status(with_program(prog, |p| {
        let bytes = p.log.as_bytes_with_nul();
        // SAFETY: the caller's buffer holds the size hiprtcGetProgramLogSize
        // reported, which is `bytes.len()`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr().cast(), log, bytes.len()) };
    }))
}

unsafe extern "C" fn hiprtcGetCodeSize(prog: hiprtcProgram, size: *mut usize) -> hiprtcResult {
    if size.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    status(with_program(prog, |p| p.compiled).and_then(|c| {
        if c {
            Ok(())
        } else {
            Err(hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM)
        }
    }))
}

unsafe extern "C" fn hiprtcGetCode(prog: hiprtcProgram, code: *mut c_char) -> hiprtcResult {
    if code.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    status(with_program(prog, |p| p.compiled).and_then(|c| {
        if c {
            Ok(())
        } else {
            Err(hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM)
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compilation_fails_with_a_log_that_names_the_built_in_kernels() {
        let api = &SIM_HIPRTC;
        let mut prog: hiprtcProgram = std::ptr::null_mut();
        // SAFETY: valid C strings and out-pointer; no headers.
        let s = unsafe {
            (api.hiprtcCreateProgram)(
                &mut prog,
                c"__global__ void k() {}".as_ptr(),
                c"k.hip".as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, hiprtcResult::HIPRTC_SUCCESS);
        // SAFETY: a live program, no options.
        let status = unsafe { (api.hiprtcCompileProgram)(prog, 0, std::ptr::null_mut()) };
        assert_eq!(status, hiprtcResult::HIPRTC_ERROR_COMPILATION);
        let mut size = 0;
        // SAFETY: a live program and out-pointer.
        assert_eq!(unsafe { (api.hiprtcGetProgramLogSize)(prog, &mut size) }, hiprtcResult::HIPRTC_SUCCESS);
        let mut log = vec![0 as c_char; size];
        // SAFETY: the buffer holds `size` bytes.
        assert_eq!(unsafe { (api.hiprtcGetProgramLog)(prog, log.as_mut_ptr()) }, hiprtcResult::HIPRTC_SUCCESS);
        // SAFETY: NUL-terminated by the call.
        let text = unsafe { CStr::from_ptr(log.as_ptr()) }.to_string_lossy().into_owned();
        assert!(text.starts_with("k.hip: error: the HIP simulator cannot compile C++"), "{text}");
        assert!(text.contains("code_object") && text.contains("vector_add_f32") && text.contains("axpy_f64"), "{text}");
        // SAFETY: a live program and out-pointer.
        assert_eq!(unsafe { (api.hiprtcGetCodeSize)(prog, &mut size) }, hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM);
        // SAFETY: a live program, destroyed once.
        assert_eq!(unsafe { (api.hiprtcDestroyProgram)(&mut prog) }, hiprtcResult::HIPRTC_SUCCESS);
        assert!(prog.is_null());
        // SAFETY: an unknown program is refused before any use.
        let status = unsafe { (api.hiprtcCompileProgram)(0x3 as hiprtcProgram, 0, std::ptr::null_mut()) };
        assert_eq!(status, hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM);
    }
}
