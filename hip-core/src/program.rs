//! Runtime compilation: [`Program`] (HIP source, options, headers, name
//! expressions) compiled by hipRTC (NVRTC on nvidia) into [`Code`], for a
//! device or for a named [`Target`] with no device.
//!
//! Every compilation gets the portable kernel prelude
//! ([`hip_sys::prelude`], added by the compiler's table in `hip-sys`):
//! headers passed by name, so that one source,
//! `#include <hip/hip_runtime.h>` and all, compiles with AMD's hipRTC
//! (ROCm 5.x to 7.x) and with NVRTC.

use crate::raw;
use crate::raw::rtc::{self, Failed};
use crate::{CompileError, Device, HipError, Module, Result, Target};
use hip_sys::hiprtc::hiprtcResult;
use std::ffi::CString;

/// HIP kernel source to compile at run time, with its options, named
/// headers and name expressions.
///
/// [`Program::compile`] always runs the compiler for a device;
/// [`Program::build`] goes through the [kernel cache](crate::KernelCache)
/// first. [`Program::compile_for`] and [`Program::build_for`] compile for
/// a named [`Target`] with no device: AMD targets with AMD's hipRTC,
/// NVIDIA ones with NVRTC, whatever the backend. On the simulator nothing
/// compiles: the error's log says so and names the simulator's built-in
/// kernels, which load by name (`hip_sys::sim::code_object`).
///
/// The source may include `<hip/hip_runtime.h>`, `<hip/hip_cooperative_groups.h>`
/// and, under NVRTC, `<type_traits>` and `<limits>`: the portable prelude
/// ([`hip_sys::prelude`]) passes them by name, unless [`Program::header`]
/// gives a header of the same name.
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
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Program};
    ///
    /// let program = Program::new("extern \"C\" __global__ void fill(float* x) { x[threadIdx.x] = 1.0f; }");
    /// assert!(program.source().contains("fill"));
    /// # if hip_sys::backend() == hip_sys::Backend::Sim && hip_sys::sim::cxx_compiler().is_err() {
    /// #     return Ok(()); // the simulator compiles with the machine's C++ compiler: none here
    /// # }
    /// let device = Device::new(0)?;
    /// let module = program.compile(device)?.load(device)?;
    /// assert_eq!(module.function("fill")?.name(), "fill");
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
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
    ///
    /// # Errors
    /// [`HipError::Compile`] with the compiler's log; [`HipError::Backend`]
    /// where the backend has no compiler.
    pub fn compile(&self, device: Device) -> Result<Code> {
        let compiler = rtc::compiler()?;
        let target = device.target()?;
        raw::on_device(device, || compile(compiler, self, target, None))?
    }

    /// Compile for `target` with no device, skipping the cache: AMD
    /// targets with AMD's hipRTC, NVIDIA ones with NVRTC, each loaded on
    /// its own (neither needs a GPU), the simulator's with its own table
    /// (which compiles nothing).
    ///
    /// # Errors
    /// [`HipError::Backend`] when the target's compiler is not installed
    /// (the message names every file tried); [`HipError::Compile`] with
    /// the log when the source does not compile, or when the options name
    /// another architecture than `target`.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Program, Target};
    ///
    /// let program = Program::new("extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }");
    /// for target in ["gfx90a", "gfx1030", "gfx942:sramecc+:xnack-"] {
    ///     match program.compile_for(&target.parse::<Target>()?) {
    ///         Ok(code) => println!("{target}: {} bytes", code.bytes().len()),
    ///         Err(error) => println!("{target}: {error}"), // hipRTC not installed here
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compile_for(&self, target: &Target) -> Result<Code> {
        let compiler = rtc::compiler_of(target.compiler())?;
        let name = target.to_string();
        let refuse = |log: String| {
            Err(HipError::Compile(Box::new(CompileError {
                operation: "hiprtcCompileProgram",
                status: hiprtcResult::HIPRTC_ERROR_INVALID_OPTION,
                program: self.name.clone(),
                target: name.clone(),
                log,
            })))
        };
        if let Some(option) = self.options.iter().find(|o| target.names_architecture(o)) {
            return refuse(format!(
                "the option `{option}` names an architecture, and so does the target: remove the option \
                 (compile_for passes {})",
                target.compiler_option().unwrap_or_default()
            ));
        }
        // hipRTC 5.x aborts the process on a processor it does not know.
        if let Target::Amd(amd) = target {
            let info = compiler.info();
            if !info.knows(amd.processor()) {
                return refuse(format!(
                    "{} ({}) does not compile for {}; it knows {}. Install a ROCm release whose compiler \
                     supports {} and point ROCM_PATH at it",
                    info.kind,
                    info.library,
                    amd.processor(),
                    info.processors.unwrap_or_default().join(", "),
                    amd.processor()
                ));
            }
        }
        compile(compiler, self, name.clone(), target.compiler_option())
    }
}

/// The HIP runtime's version as (major, minor, patch), decoded from
/// `hipRuntimeGetVersion` (`major * 10^7 + minor * 10^5 + patch`); on
/// nvidia the CUDA runtime's (`1000 * major + 10 * minor`, as HIP's NVIDIA
/// platform reports it), with patch 0.
///
/// # Errors
/// [`HipError::Backend`] when no backend loads; the call's error.
#[doc(alias = "hipRuntimeGetVersion")]
pub fn runtime_version() -> Result<(u32, u32, u32)> {
    let encoded = raw::runtime::version()?;
    Ok(hip_sys::backend::decode_runtime_version(hip_sys::backend(), encoded).unwrap_or((0, 0, 0)))
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
    /// version, or the [`Target`] of [`Program::compile_for`]).
    pub fn target(&self) -> &str {
        &self.target
    }

    /// What the code is, read from its header: an amdgcn code object and
    /// its processor, a CUBIN, PTX.
    pub fn kind(&self) -> crate::CodeKind {
        crate::code_kind(&self.bytes)
    }

    /// The symbol of a name expression given to [`Program::name_expression`].
    pub fn lowered_name(&self, expression: &str) -> Option<&str> {
        self.lowered.iter().find(|(e, _)| e == expression).map(|(_, l)| l.as_str())
    }

    /// Load the code on `device`.
    ///
    /// # Errors
    /// As [`Module::load`].
    pub fn load(&self, device: Device) -> Result<Module> {
        Module::load(device, &self.bytes)
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

/// Compile with `compiler`, adding `architecture` to the options (none:
/// for the current device, which the caller binds).
fn compile(compiler: rtc::Compiler, program: &Program, target: String, architecture: Option<String>) -> Result<Code> {
    let fail = |Failed { operation, status }, log: String| {
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
    // The compiler's table adds the portable prelude after these.
    let mut headers = Vec::with_capacity(program.headers.len());
    for (include, text) in &program.headers {
        let include = c_string("header name", include, program, &target)?;
        headers.push((include, c_string("header text", text, program, &target)?));
    }
    let handle = compiler.create(&source, &name, &headers).map_err(|failed| fail(failed, String::new()))?;
    let expressions = program
        .name_expressions
        .iter()
        .map(|e| c_string("name expression", e, program, &target))
        .collect::<Result<Vec<_>>>()?;
    for expression in &expressions {
        handle
            .add_name_expression(expression)
            .map_err(|failed| fail(failed, format!("name expression `{}`", expression.to_string_lossy())))?;
    }
    let mut options =
        program.options.iter().map(|o| c_string("option", o, program, &target)).collect::<Result<Vec<_>>>()?;
    if let Some(architecture) = &architecture {
        options.push(c_string("option", architecture, program, &target)?);
    }
    let compiled = handle.compile(&options);
    let log = handle.log();
    compiled.map_err(|failed| fail(failed, log.clone()))?;
    // SAFETY: compiled above.
    let bytes = unsafe { handle.code() }.map_err(|failed| fail(failed, log.clone()))?;
    // Lowered names belong to the program: read them before it goes.
    let mut lowered = Vec::with_capacity(expressions.len());
    for (expression, text) in expressions.iter().zip(&program.name_expressions) {
        // SAFETY: compiled above.
        let symbol = unsafe { handle.lowered_name(expression) }
            .map_err(|failed| fail(failed, format!("name expression `{text}`")))?;
        lowered.push((text.clone(), symbol));
    }
    drop(handle);
    Ok(Code { bytes, log, lowered, target })
}
