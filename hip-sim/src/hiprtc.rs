//! The simulator's hipRTC: HIP source compiled for the CPU by the host's
//! C++ compiler (see the `cpu` module), into a code object that
//! `hipModuleLoadData` loads and whose kernels run with GPU semantics.
//!
//! With no compiler on the machine, `hiprtcCompileProgram` answers
//! `HIPRTC_ERROR_COMPILATION` with a log that says what to install, and
//! that the built-in kernels still load by name ([`super::code_object`]).
//! Everything else follows hipRTC: null arguments are
//! `HIPRTC_ERROR_INVALID_INPUT`, an unknown program
//! `HIPRTC_ERROR_INVALID_PROGRAM`, code asked of a program that did not
//! compile `HIPRTC_ERROR_INVALID_PROGRAM`, lowered names asked before a
//! compilation `HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION`, and of
//! an expression never added `HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID`.

use super::cpu::build::{self, Request};
use super::kernels::kernel_names;
use crate::bindings::hiprtc::{hiprtcProgram, hiprtcResult, HiprtcApi};
use crate::machine::handles::new_handle;
use crate::machine::lock::lock;
use crate::shared::compiler::{Compiler, CompilerKind};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::{Arc, Mutex};

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
    builds: build::identity,
};

/// What `hiprtcVersion` answers: 9.0, the constant clr's `hiprtc.cpp`
/// reports in every ROCm release from 5.2 to 7.x, whatever the runtime's
/// version (HIP 5.2.3's `libamdhip64.so.5` answers it too).
pub(crate) const HIPRTC_VERSION: (i32, i32) = (9, 0);

struct SimProgram {
    name: String,
    source: String,
    /// Headers given by name, (include name, text).
    headers: Vec<(String, String)>,
    /// Name expressions, in order, with their lowered names once compiled.
    expressions: Vec<(String, Option<CString>)>,
    /// The log of the last compilation (empty before one).
    log: CString,
    /// The code object of the last compilation, if it compiled.
    code: Option<Arc<Vec<u8>>>,
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

/// What a failed compilation's log adds when there is no compiler: the
/// built-in kernels still load by name.
fn built_in_hint() -> String {
    format!(
        "\nThe simulator's built-in kernels load by name without a compiler: \
         Module::load(device, &hip_sys::sim::code_object(&[\"vector_add_f32\"])). Kernels: {}",
        kernel_names().join(", ")
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
    // SAFETY: a NUL-terminated source (hipRTC's contract), checked non-null.
    let source = unsafe { CStr::from_ptr(src) }.to_string_lossy().into_owned();
    let mut given = Vec::with_capacity(num_headers as usize);
    for i in 0..num_headers as usize {
        // SAFETY: `num_headers` entries in each array (hipRTC's contract).
        let (text, include) = unsafe { (*headers.add(i), *include_names.add(i)) };
        if text.is_null() || include.is_null() {
            return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
        }
        // SAFETY: NUL-terminated strings (hipRTC's contract).
        let (text, include) = unsafe { (CStr::from_ptr(text), CStr::from_ptr(include)) };
        given.push((include.to_string_lossy().into_owned(), text.to_string_lossy().into_owned()));
    }
    let handle = new_handle();
    lock(&PROGRAMS).get_or_insert_with(HashMap::new).insert(
        handle,
        SimProgram { name, source, headers: given, expressions: Vec::new(), log: CString::default(), code: None },
    );
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
    let mut given = Vec::with_capacity(num_options as usize);
    for i in 0..num_options as usize {
        // SAFETY: `num_options` entries (hipRTC's contract).
        let option = unsafe { *options.add(i) };
        if option.is_null() {
            return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
        }
        // SAFETY: a NUL-terminated option.
        given.push(unsafe { CStr::from_ptr(option) }.to_string_lossy().into_owned());
    }
    // Read the program, compile outside the lock, note the outcome.
    let request = with_program(prog, |p| {
        let expressions = p.expressions.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>();
        (p.name.clone(), p.source.clone(), p.headers.clone(), expressions)
    });
    let (name, source, headers, expressions) = match request {
        Ok(request) => request,
        Err(status) => return status,
    };
    let built = build::build(&Request {
        name: &name,
        source: &source,
        headers: &headers,
        options: &given,
        expressions: &expressions,
        hip_major: crate::machine::sim().config.hip_major,
        racecheck: crate::machine::sim().config.racecheck,
    });
    let compiled = built.code.is_some();
    let noted = with_program(prog, |p| {
        let mut log = built.log.clone();
        if !compiled && crate::cpu::compiler::find().is_err() {
            log.push_str(&built_in_hint());
        }
        p.log = CString::new(log.replace('\0', " ")).unwrap_or_default();
        p.code = built.code.clone();
        for (expression, lowered) in &mut p.expressions {
            *lowered = compiled.then(|| CString::new(build::lowered(expression)).unwrap_or_default());
        }
    });
    match (noted, compiled) {
        (Err(status), _) => status,
        (Ok(()), true) => hiprtcResult::HIPRTC_SUCCESS,
        (Ok(()), false) if built.invalid_option => hiprtcResult::HIPRTC_ERROR_INVALID_OPTION,
        (Ok(()), false) => hiprtcResult::HIPRTC_ERROR_COMPILATION,
    }
}

unsafe extern "C" fn hiprtcAddNameExpression(prog: hiprtcProgram, name_expression: *const c_char) -> hiprtcResult {
    if name_expression.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    // SAFETY: a NUL-terminated expression (hipRTC's contract).
    let expression = unsafe { CStr::from_ptr(name_expression) }.to_string_lossy().into_owned();
    status(with_program(prog, |p| {
        if !p.expressions.iter().any(|(e, _)| *e == expression) {
            p.expressions.push((expression, None));
        }
    }))
}

unsafe extern "C" fn hiprtcGetLoweredName(
    prog: hiprtcProgram,
    name_expression: *const c_char,
    lowered_name: *mut *const c_char,
) -> hiprtcResult {
    if name_expression.is_null() || lowered_name.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    // SAFETY: a NUL-terminated expression (hipRTC's contract).
    let expression = unsafe { CStr::from_ptr(name_expression) }.to_string_lossy().into_owned();
    status(
        with_program(prog, |p| {
            if p.code.is_none() {
                return Err(hiprtcResult::HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION);
            }
            let (_, lowered) = p
                .expressions
                .iter()
                .find(|(e, _)| *e == expression)
                .ok_or(hiprtcResult::HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID)?;
            let lowered = lowered.as_ref().ok_or(hiprtcResult::HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID)?;
            // SAFETY: checked non-null; the name lives as long as the program,
            // as hipRTC's do.
            unsafe { *lowered_name = lowered.as_ptr() };
            Ok(())
        })
        .and_then(|r| r),
    )
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
    status(
        with_program(prog, |p| match &p.code {
            Some(code) => {
                // SAFETY: checked non-null.
                unsafe { *size = code.len() };
                Ok(())
            }
            None => Err(hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM),
        })
        .and_then(|r| r),
    )
}

unsafe extern "C" fn hiprtcGetCode(prog: hiprtcProgram, code: *mut c_char) -> hiprtcResult {
    if code.is_null() {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    status(
        with_program(prog, |p| match &p.code {
            Some(bytes) => {
                // SAFETY: the caller's buffer holds the size
                // hiprtcGetCodeSize reported, the code's length.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), code.cast::<u8>(), bytes.len()) };
                Ok(())
            }
            None => Err(hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM),
        })
        .and_then(|r| r),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compile_error_is_reported_with_the_programs_file_and_line() {
        let api = &SIM_HIPRTC;
        let mut prog: hiprtcProgram = std::ptr::null_mut();
        // SAFETY: valid C strings and out-pointer; no headers.
        let s = unsafe {
            (api.hiprtcCreateProgram)(
                &mut prog,
                c"#include <hip/hip_runtime.h>\n__global__ void k() { int x = ; }".as_ptr(),
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
        if crate::cpu::compiler::find().is_ok() {
            assert!(text.contains("k.hip:2:") && text.contains("error"), "{text}");
            assert!(!text.contains("hip-sim-cxx-"), "the private directory is not shown: {text}");
        } else {
            assert!(text.starts_with("k.hip: error: the simulator found no C++ compiler"), "{text}");
            assert!(text.contains("code_object") && text.contains("vector_add_f32"), "{text}");
        }
        // SAFETY: a live program and out-pointer.
        assert_eq!(unsafe { (api.hiprtcGetCodeSize)(prog, &mut size) }, hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM);
        let mut lowered = std::ptr::null();
        // SAFETY: a live program, a C string and an out-pointer.
        let status = unsafe { (api.hiprtcGetLoweredName)(prog, c"k".as_ptr(), &mut lowered) };
        assert_eq!(status, hiprtcResult::HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION);
        // SAFETY: a live program, destroyed once.
        assert_eq!(unsafe { (api.hiprtcDestroyProgram)(&mut prog) }, hiprtcResult::HIPRTC_SUCCESS);
        assert!(prog.is_null());
        // SAFETY: an unknown program is refused before any use.
        let status = unsafe { (api.hiprtcCompileProgram)(0x3 as hiprtcProgram, 0, std::ptr::null_mut()) };
        assert_eq!(status, hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM);
    }
}
