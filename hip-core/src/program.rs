//! Runtime compilation: [`Program`] (HIP source, options, headers, name
//! expressions) compiled by hipRTC (NVRTC on nvidia) into [`Code`].

use crate::raw::on_device;
use crate::{Device, HipError, Module, Result};
use hip_sys::hiprtc::{hiprtcProgram, hiprtcResult, HiprtcApi};
use std::ffi::{c_char, CStr, CString};
use std::sync::Arc;

/// HIP kernel source to compile at run time, with its options, named
/// headers and name expressions.
///
/// [`Program::compile`] always runs the compiler; [`Program::build`] goes
/// through the [kernel cache](crate::KernelCache) first. On the simulator
/// nothing compiles: the error's log says so and names the simulator's
/// built-in kernels, which load by name (`hip_sys::sim::code_object`).
///
/// ```
/// use hip_core::{Device, Program};
///
/// let program = Program::new("extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }")
///     .name("k.hip")
///     .option("-std=c++17");
/// match program.build(Device::new(0)?) {
///     Ok(code) => println!("{} bytes of code", code.bytes().len()),
///     Err(error) => println!("{error}"), // the simulator, or a compile error with its log
/// }
/// # Ok::<(), hip_core::HipError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Program {
    pub(crate) source: String,
    pub(crate) name: String,
    pub(crate) options: Vec<String>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) name_expressions: Vec<String>,
}

impl Program {
    /// A program of `source`, named `program.hip`, with no options.
    pub fn new(source: impl Into<String>) -> Program {
        Program {
            source: source.into(),
            name: "program.hip".to_owned(),
            options: Vec::new(),
            headers: Vec::new(),
            name_expressions: Vec::new(),
        }
    }

    /// The name the compiler's messages give the source.
    pub fn name(mut self, name: impl Into<String>) -> Program {
        self.name = name.into();
        self
    }

    /// A compiler option (`-std=c++17`, `-DN=4`). Without an architecture
    /// option the program is compiled for the device's own.
    pub fn option(mut self, option: impl Into<String>) -> Program {
        self.options.push(option.into());
        self
    }

    /// Several compiler options.
    pub fn options<S: Into<String>>(mut self, options: impl IntoIterator<Item = S>) -> Program {
        self.options.extend(options.into_iter().map(Into::into));
        self
    }

    /// A header the source can `#include "include_name"`, with `text`.
    pub fn header(mut self, include_name: impl Into<String>, text: impl Into<String>) -> Program {
        self.headers.push((include_name.into(), text.into()));
        self
    }

    /// A name expression (`axpy<float>`, `&scale<double, 4>`): the
    /// compiler instantiates it, and [`Code::lowered_name`] gives the
    /// kernel's symbol for [`Module::function`].
    pub fn name_expression(mut self, expression: impl Into<String>) -> Program {
        self.name_expressions.push(expression.into());
        self
    }

    /// The source.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Compile for `device`'s architecture (under that device, which stays
    /// the thread's HIP device afterwards as before), skipping the cache.
    pub fn compile(&self, device: Device) -> Result<Code> {
        let api = hip_sys::hiprtc()?;
        let target = crate::cache::target(device)?;
        on_device(device, || compile(api, self, target))?
    }

    /// The code for `device`, from the process's [kernel
    /// cache](crate::KernelCache::global) (and its disk cache where
    /// `AMDGPU_KERNEL_CACHE` names one), compiled on a miss.
    pub fn build(&self, device: Device) -> Result<Arc<Code>> {
        crate::KernelCache::global().get_or_compile(self, device).map(|(code, _)| code)
    }

    /// [`Program::build`], loaded on `device`.
    pub fn load(&self, device: Device) -> Result<Module> {
        self.build(device)?.load(device)
    }
}

/// Compiled code: an AMD code object, a CUBIN or PTX on nvidia, with the
/// compiler's log and the lowered names of the program's name expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    pub(crate) bytes: Vec<u8>,
    pub(crate) log: String,
    pub(crate) lowered: Vec<(String, String)>,
    pub(crate) target: String,
}

impl Code {
    /// The code object, for [`Module::load`].
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The compiler's log (warnings; often empty).
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The architecture compiled for (`sm_90`, the AMD device's name and
    /// version).
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The symbol of a name expression given to [`Program::name_expression`].
    pub fn lowered_name(&self, expression: &str) -> Option<&str> {
        self.lowered.iter().find(|(e, _)| e == expression).map(|(_, l)| l.as_str())
    }

    /// Load the code on `device`.
    pub fn load(&self, device: Device) -> Result<Module> {
        Module::load(device, &self.bytes)
    }
}

/// Why a runtime compilation failed: the hipRTC status, the operation,
/// the program's name, the architecture, and the compiler's log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{operation} failed for program `{program}` ({target}): {}\n{log}", self.status_name())]
pub struct CompileError {
    /// The hipRTC call that failed (`hiprtcCompileProgram`).
    pub operation: &'static str,
    /// hipRTC's status.
    pub status: hiprtcResult,
    /// The program's name.
    pub program: String,
    /// The architecture it was compiled for.
    pub target: String,
    /// The compiler's log.
    pub log: String,
}

impl CompileError {
    /// hipRTC's name of the status (`HIPRTC_ERROR_COMPILATION`).
    pub fn status_name(&self) -> &'static str {
        hip_sys::hiprtc_status_name(self.status).unwrap_or("HIPRTC_ERROR_UNKNOWN")
    }
}

fn c_string(what: &'static str, text: &str, program: &Program, target: &str) -> Result<CString> {
    CString::new(text).map_err(|_| {
        HipError::Compile(Box::new(CompileError {
            operation: "hiprtcCreateProgram",
            status: hiprtcResult::HIPRTC_ERROR_INVALID_INPUT,
            program: program.name.clone(),
            target: target.to_owned(),
            log: format!("the {what} holds a NUL byte, which C strings cannot: remove it"),
        }))
    })
}

/// A hipRTC program, destroyed on drop.
struct Handle<'a> {
    api: &'a HiprtcApi,
    program: hiprtcProgram,
}

impl Drop for Handle<'_> {
    fn drop(&mut self) {
        // SAFETY: a live program, destroyed once, here.
        let status = unsafe { (self.api.hiprtcDestroyProgram)(&mut self.program) };
        if status != hiprtcResult::HIPRTC_SUCCESS {
            log::error!("hiprtcDestroyProgram: status {}", status.0);
        }
    }
}

impl Handle<'_> {
    fn log(&self) -> String {
        let mut size = 0;
        // SAFETY: a live program and a valid out-pointer.
        if unsafe { (self.api.hiprtcGetProgramLogSize)(self.program, &mut size) } != hiprtcResult::HIPRTC_SUCCESS
            || size == 0
        {
            return String::new();
        }
        let mut log = vec![0u8; size];
        // SAFETY: the buffer holds the size the library reported.
        if unsafe { (self.api.hiprtcGetProgramLog)(self.program, log.as_mut_ptr().cast()) }
            != hiprtcResult::HIPRTC_SUCCESS
        {
            return String::new();
        }
        String::from_utf8_lossy(&log).trim_end_matches('\0').trim_end().to_owned()
    }
}

/// Compile under the current device (the caller binds it).
fn compile(api: &HiprtcApi, program: &Program, target: String) -> Result<Code> {
    let fail = |operation, status, log: String| {
        HipError::Compile(Box::new(CompileError {
            operation,
            status,
            program: program.name.clone(),
            target: target.clone(),
            log,
        }))
    };
    let source = c_string("source", &program.source, program, &target)?;
    let name = c_string("program name", &program.name, program, &target)?;
    let mut header_texts = Vec::with_capacity(program.headers.len());
    let mut header_names = Vec::with_capacity(program.headers.len());
    for (include, text) in &program.headers {
        header_names.push(c_string("header name", include, program, &target)?);
        header_texts.push(c_string("header text", text, program, &target)?);
    }
    let mut text_ptrs: Vec<*const c_char> = header_texts.iter().map(|h| h.as_ptr()).collect();
    let mut name_ptrs: Vec<*const c_char> = header_names.iter().map(|h| h.as_ptr()).collect();
    let mut raw: hiprtcProgram = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and C strings alive for the call; the
    // header arrays hold `len` entries each.
    let status = unsafe {
        (api.hiprtcCreateProgram)(
            &mut raw,
            source.as_ptr(),
            name.as_ptr(),
            text_ptrs.len() as i32,
            text_ptrs.as_mut_ptr(),
            name_ptrs.as_mut_ptr(),
        )
    };
    if status != hiprtcResult::HIPRTC_SUCCESS {
        return Err(fail("hiprtcCreateProgram", status, String::new()));
    }
    let handle = Handle { api, program: raw };
    let expressions = program
        .name_expressions
        .iter()
        .map(|e| c_string("name expression", e, program, &target))
        .collect::<Result<Vec<_>>>()?;
    for expression in &expressions {
        // SAFETY: a live program and a C string.
        let status = unsafe { (api.hiprtcAddNameExpression)(handle.program, expression.as_ptr()) };
        if status != hiprtcResult::HIPRTC_SUCCESS {
            return Err(fail(
                "hiprtcAddNameExpression",
                status,
                format!("name expression `{}`", expression.to_string_lossy()),
            ));
        }
    }
    let options =
        program.options.iter().map(|o| c_string("option", o, program, &target)).collect::<Result<Vec<_>>>()?;
    let mut option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: a live program and `len` C strings alive for the call.
    let status =
        unsafe { (api.hiprtcCompileProgram)(handle.program, option_ptrs.len() as i32, option_ptrs.as_mut_ptr()) };
    let log = handle.log();
    if status != hiprtcResult::HIPRTC_SUCCESS {
        return Err(fail("hiprtcCompileProgram", status, log));
    }
    let mut size = 0;
    // SAFETY: a live, compiled program and a valid out-pointer.
    let status = unsafe { (api.hiprtcGetCodeSize)(handle.program, &mut size) };
    if status != hiprtcResult::HIPRTC_SUCCESS {
        return Err(fail("hiprtcGetCodeSize", status, log));
    }
    let mut bytes = vec![0u8; size];
    // SAFETY: the buffer holds the size the library reported.
    let status = unsafe { (api.hiprtcGetCode)(handle.program, bytes.as_mut_ptr().cast()) };
    if status != hiprtcResult::HIPRTC_SUCCESS {
        return Err(fail("hiprtcGetCode", status, log));
    }
    // Lowered names belong to the program: read them before it goes.
    let mut lowered = Vec::with_capacity(expressions.len());
    for (expression, text) in expressions.iter().zip(&program.name_expressions) {
        let mut symbol: *const c_char = std::ptr::null();
        // SAFETY: a live, compiled program, a C string and an out-pointer.
        let status = unsafe { (api.hiprtcGetLoweredName)(handle.program, expression.as_ptr(), &mut symbol) };
        if status != hiprtcResult::HIPRTC_SUCCESS || symbol.is_null() {
            return Err(fail("hiprtcGetLoweredName", status, format!("name expression `{text}`")));
        }
        // SAFETY: the library's NUL-terminated string, alive until the
        // program is destroyed (after this copy).
        lowered.push((text.clone(), unsafe { CStr::from_ptr(symbol) }.to_string_lossy().into_owned()));
    }
    drop(handle);
    Ok(Code { bytes, log, lowered, target })
}
