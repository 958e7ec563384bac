//! The simulator's function tables, whatever backend the process selected:
//! tests of the simulator itself call them directly.

use super::{hiprtc, miopen, rccl, rocblas, rocfft, rocrand, rocsolver, rocsparse};
use crate::bindings::hip::HipApi;

/// The simulator's function table, whatever backend the process selected:
/// tests of the simulator itself call it directly.
pub fn api() -> &'static HipApi {
    &super::hip::SIM_API
}

/// The simulator's rocSPARSE table (see the `rocsparse` module docs of
/// the simulator for what it implements).
pub fn rocsparse_api() -> &'static crate::bindings::rocsparse::RocsparseApi {
    &rocsparse::SIM_ROCSPARSE
}

/// The simulator's rocFFT table.
pub fn rocfft_api() -> &'static crate::bindings::rocfft::RocfftApi {
    &rocfft::SIM_ROCFFT
}

/// The simulator's rocRAND table (see the `rocrand` module docs of the
/// simulator for what it implements).
pub fn rocrand_api() -> &'static crate::bindings::rocrand::RocrandApi {
    &rocrand::SIM_ROCRAND
}

/// The simulator's rocSOLVER table (see the `rocsolver` module docs of the
/// simulator for what it implements).
pub fn rocsolver_api() -> &'static crate::bindings::rocsolver::RocsolverApi {
    &rocsolver::SIM_ROCSOLVER
}

/// The simulator's rocBLAS table.
pub fn rocblas_api() -> &'static crate::bindings::rocblas::RocblasApi {
    &rocblas::SIM_ROCBLAS
}

/// The simulator's hipRTC table: it compiles HIP source for the CPU with
/// the host's C++ compiler (see [`cxx_compiler`]), or says in the
/// program's log what to install (see `hip_sys::libraries::rtc`).
pub fn hiprtc_api() -> &'static crate::bindings::hiprtc::HiprtcApi {
    &hiprtc::SIM_HIPRTC
}

/// The simulator's compiler: its hipRTC table, reporting hipRTC's 9.0.
pub fn compiler() -> &'static crate::shared::compiler::Compiler {
    &hiprtc::SIM_COMPILER
}

/// The simulator's MIOpen table.
pub fn miopen_api() -> &'static crate::bindings::miopen::MiopenApi {
    &miopen::SIM_MIOPEN
}

/// The simulator's RCCL table (see the `rccl` module docs of the
/// simulator for what it models).
pub fn rccl_api() -> &'static crate::bindings::rccl::RcclApi {
    &rccl::SIM_RCCL
}

/// The host's C++ compiler the simulator compiles kernels with: its path
/// and version (`AMDGPU_SIM_CXX`, else `c++`, `g++` or `clang++` on
/// `PATH`).
///
/// # Errors
/// Why there is none, with what to install.
pub fn cxx_compiler() -> Result<(std::path::PathBuf, String), &'static str> {
    crate::cpu::compiler::find().map(|c| (c.path.clone(), c.version.clone()))
}
