//! The runtime compilers: the one that serves the process's backend
//! ([`compiler`], [`hiprtc`]), and each on its own, for compiling for a
//! named target with no device ([`compiler_of`]).
//!
//! - **AMD's hipRTC** ([`CompilerKind::Hiprtc`]): in its own library since
//!   ROCm 6.0 (`libhiprtc.so.6`, `libhiprtc.so.7`), part of
//!   `libamdhip64.so.5` in ROCm 5.x. On the amd backend it is the hipRTC
//!   of the loaded runtime's own installation (the directory the runtime
//!   was loaded from), whatever its `hiprtcVersion` says: that is a
//!   constant 9.0 in every ROCm release from 5.2 to 7.x. Without an amd
//!   runtime (no GPU, or a runtime too old for the backend) it is looked
//!   for on its own in `$ROCM_PATH/lib`, `/opt/rocm/lib` and the loader's
//!   path: compiling for a named AMD target needs no GPU, so Debian's
//!   `libamdhip64-5` on a laptop is enough.
//! - **NVRTC** ([`CompilerKind::Nvrtc`]): `libnvrtc.so.13`, `.12`, behind
//!   hipRTC's table (the nvidia backend's `hiprtc` module), compiling for the
//!   current device's compute capability or a named `sm_XY`.
//! - **The simulator's** ([`CompilerKind::Sim`]): HIP source compiled for
//!   the CPU by the machine's C++ compiler (`AMDGPU_SIM_CXX`, else `c++`,
//!   `g++` or `clang++`), into a code object whose kernels the simulator
//!   runs with GPU semantics. With no compiler, every compilation answers
//!   `HIPRTC_ERROR_COMPILATION` with a log that says what to install and
//!   names the built-in kernels, which load by name through
//!   [`crate::sim::code_object`](crate::sim).

use std::sync::OnceLock;

use crate::hiprtc::HiprtcApi;
use crate::BackendError;

pub use crate::shared::compiler::{Compiler, CompilerKind};
pub use crate::shared::hiprtc_names::hiprtc_status_name;

/// The compiler for the process's backend (loaded on first use).
pub fn compiler() -> Result<&'static Compiler, BackendError> {
    static COMPILER: OnceLock<Result<&'static Compiler, BackendError>> = OnceLock::new();
    COMPILER.get_or_init(|| (crate::backend::provider()?.hiprtc)()).clone()
}

/// The table of the process's compiler ([`compiler`]).
pub fn hiprtc() -> Result<&'static HiprtcApi, BackendError> {
    compiler().map(|c| c.api)
}

/// The compiler of `kind`, loaded on its own (once per process) whatever
/// the backend: AMD's hipRTC and NVRTC need no GPU to compile for a named
/// target. On the amd backend [`CompilerKind::Hiprtc`] is the backend's
/// own; on nvidia [`CompilerKind::Nvrtc`] is.
///
/// # Errors
/// [`BackendError::LibraryNotFound`] naming every file tried, with what to
/// install; [`BackendError::SymbolMissing`] for an incomplete library.
pub fn compiler_of(kind: CompilerKind) -> Result<&'static Compiler, BackendError> {
    match kind {
        CompilerKind::Hiprtc => crate::backend::hiprtc_compiler(),
        CompilerKind::Nvrtc => crate::backend::nvrtc_compiler(),
        #[cfg(feature = "sim")]
        CompilerKind::Sim => Ok(crate::sim::compiler()),
        #[cfg(not(feature = "sim"))]
        CompilerKind::Sim => Err(BackendError::BackendUnavailable {
            backend: crate::Backend::Sim,
            reason: "this build has no simulator (the `sim` feature is off)".to_owned(),
        }),
    }
}
