//! hipRTC (NVRTC on nvidia): the runtime compiler's calls.
//!
//! None of them binds a device: a compilation runs all of them under one
//! [`on_device`](super::on_device) of its device (see `Program::compile`).
//! A failed call is a [`Failed`], its name and status, which the caller
//! makes into a `CompileError` with the program, target and log.
//!
//! A compiler's program lives in a [`Handle`], destroyed on drop, so the
//! calls on it are safe but for the two that need it compiled. Two
//! wrappers make two calls each, a size and then the bytes
//! ([`Handle::log`], [`Handle::code`]): the second is sound only with the
//! first's answer, so they are one step.

use hip_sys::hiprtc::{hiprtcProgram, hiprtcResult, HiprtcApi};
use hip_sys::CompilerKind;
use std::ffi::{c_char, CStr, CString};

use crate::Result;

/// A hipRTC call that did not succeed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Failed {
    /// The call (`hiprtcCompileProgram`).
    pub(crate) operation: &'static str,
    /// Its status.
    pub(crate) status: hiprtcResult,
}

/// `Ok` for success, else the failure of `operation`.
fn check(status: hiprtcResult, operation: &'static str) -> std::result::Result<(), Failed> {
    if status == hiprtcResult::HIPRTC_SUCCESS {
        Ok(())
    } else {
        Err(Failed { operation, status })
    }
}

/// A loaded compiler: what it is, and its table.
#[derive(Clone, Copy)]
pub(crate) struct Compiler(&'static hip_sys::Compiler);

/// The compiler of the process's backend, or why there is none (loads its
/// table on first use).
pub(crate) fn compiler() -> Result<Compiler> {
    Ok(Compiler(hip_sys::compiler()?))
}

/// The compiler of `kind` on its own, whatever the backend.
pub(crate) fn compiler_of(kind: CompilerKind) -> Result<Compiler> {
    Ok(Compiler(hip_sys::compiler_of(kind)?))
}

impl Compiler {
    /// Which compiler this is.
    pub(crate) fn kind(self) -> CompilerKind {
        self.0.kind
    }

    /// The file it was loaded from.
    pub(crate) fn library(self) -> &'static str {
        self.0.library
    }

    /// What it knows of itself: which, where from, its version, the
    /// processors it compiles for.
    pub(crate) fn info(self) -> &'static hip_sys::Compiler {
        self.0
    }

    fn api(self) -> &'static HiprtcApi {
        self.0.api
    }

    /// The compiler's (major, minor) version (`hiprtcVersion`).
    pub(crate) fn version(self) -> std::result::Result<(i32, i32), Failed> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: valid out-pointers.
        check(unsafe { (self.api().hiprtcVersion)(&mut major, &mut minor) }, "hiprtcVersion")?;
        Ok((major, minor))
    }

    /// A program of `source` called `name`, with `headers` as (include
    /// name, text) pairs (`hiprtcCreateProgram`).
    pub(crate) fn create(
        self,
        source: &CStr,
        name: &CStr,
        headers: &[(CString, CString)],
    ) -> std::result::Result<Handle, Failed> {
        let mut text_ptrs: Vec<*const c_char> = headers.iter().map(|(_, text)| text.as_ptr()).collect();
        let mut name_ptrs: Vec<*const c_char> = headers.iter().map(|(include, _)| include.as_ptr()).collect();
        let mut program: hiprtcProgram = std::ptr::null_mut();
        // SAFETY: a valid out-pointer and C strings alive for the call; the
        // header arrays hold `len` entries each.
        let status = unsafe {
            (self.api().hiprtcCreateProgram)(
                &mut program,
                source.as_ptr(),
                name.as_ptr(),
                text_ptrs.len() as i32,
                text_ptrs.as_mut_ptr(),
                name_ptrs.as_mut_ptr(),
            )
        };
        check(status, "hiprtcCreateProgram")?;
        Ok(Handle { api: self.api(), program })
    }
}

/// A hipRTC program, destroyed on drop.
pub(crate) struct Handle {
    api: &'static HiprtcApi,
    program: hiprtcProgram,
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: a live program, destroyed once, here.
        let status = unsafe { (self.api.hiprtcDestroyProgram)(&mut self.program) };
        if status != hiprtcResult::HIPRTC_SUCCESS {
            log::error!("hiprtcDestroyProgram: status {}", status.0);
        }
    }
}

impl Handle {
    /// Ask for `expression` to be instantiated (`hiprtcAddNameExpression`).
    pub(crate) fn add_name_expression(&self, expression: &CStr) -> std::result::Result<(), Failed> {
        // SAFETY: a live program and a C string.
        check(
            unsafe { (self.api.hiprtcAddNameExpression)(self.program, expression.as_ptr()) },
            "hiprtcAddNameExpression",
        )
    }

    /// Compile with `options` (`hiprtcCompileProgram`).
    pub(crate) fn compile(&self, options: &[CString]) -> std::result::Result<(), Failed> {
        let mut option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: a live program and `len` C strings alive for the call.
        let status = unsafe {
            (self.api.hiprtcCompileProgram)(self.program, option_ptrs.len() as i32, option_ptrs.as_mut_ptr())
        };
        check(status, "hiprtcCompileProgram")
    }

    /// The compiler's log (`hiprtcGetProgramLogSize`, then
    /// `hiprtcGetProgramLog`), empty where there is none or either fails.
    pub(crate) fn log(&self) -> String {
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

    /// The compiled code (`hiprtcGetCodeSize`, then `hiprtcGetCode`).
    ///
    /// # Safety
    /// The program has been compiled successfully.
    pub(crate) unsafe fn code(&self) -> std::result::Result<Vec<u8>, Failed> {
        let mut size = 0;
        // SAFETY: a live, compiled program and a valid out-pointer.
        check(unsafe { (self.api.hiprtcGetCodeSize)(self.program, &mut size) }, "hiprtcGetCodeSize")?;
        let mut bytes = vec![0u8; size];
        // SAFETY: the buffer holds the size the library reported.
        check(unsafe { (self.api.hiprtcGetCode)(self.program, bytes.as_mut_ptr().cast()) }, "hiprtcGetCode")?;
        Ok(bytes)
    }

    /// The symbol of a name expression given before compiling
    /// (`hiprtcGetLoweredName`); a null answer fails too.
    ///
    /// # Safety
    /// The program has been compiled successfully.
    pub(crate) unsafe fn lowered_name(&self, expression: &CStr) -> std::result::Result<String, Failed> {
        let mut symbol: *const c_char = std::ptr::null();
        // SAFETY: a live, compiled program, a C string and an out-pointer.
        let status = unsafe { (self.api.hiprtcGetLoweredName)(self.program, expression.as_ptr(), &mut symbol) };
        if status != hiprtcResult::HIPRTC_SUCCESS || symbol.is_null() {
            return Err(Failed { operation: "hiprtcGetLoweredName", status });
        }
        // SAFETY: the library's NUL-terminated string, alive until the
        // program is destroyed (after this copy).
        Ok(unsafe { CStr::from_ptr(symbol) }.to_string_lossy().into_owned())
    }
}
