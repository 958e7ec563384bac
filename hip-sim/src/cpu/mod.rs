//! Kernels compiled for the CPU: HIP source built by the host's C++
//! compiler into a shared object and run by the simulator with GPU
//! semantics.
//!
//! - [`compiler`]: finding the host's C++ compiler (`AMDGPU_SIM_CXX`, else
//!   `c++`, `g++`, `clang++` on `PATH`) and its version.
//! - [`source`]: what the simulator reads of a source before compiling it:
//!   its kernels (`extern "C"` `__global__` functions, and name
//!   expressions for templates), and `extern __shared__` arrays, which
//!   become the block's dynamic shared memory.
//! - [`build`]: one compilation in a private directory, without a shell,
//!   through the headers of [`HEADERS`] (the CPU flavour of the prelude,
//!   `hip_runtime_cpu.h`, the kernel's language; half precision; bfloat16;
//!   the launcher, `launch.h`); compiled objects are kept in memory by
//!   source, options, headers and compiler.
//! - [`object`]: the code object that carries the shared object, as
//!   `hipModuleLoadData` takes it.
//! - [`module`]: a loaded shared object and its kernels.
//! - [`cores`]: host threads kept for the process, which run a launch's
//!   blocks beside the stream's own thread.
//! - [`run`]: one launch: the device memory its pointer arguments reach,
//!   staged between guard pages, the grid run, the memory written back,
//!   and a fault turned into a violation and a sticky error.
//! - [`staged`]: a buffer's bytes between guard pages, the mappings kept
//!   from launch to launch, and a buffer nothing wrote since it was last
//!   staged taken back with no copy.
//! - [`watchdog`]: a launch past its limit (`AMDGPU_SIM_WATCHDOG`)
//!   stopped, its running threads faulted where they are in the kernel.
//! - [`statics`]: the object's thread-locals by name, so that a
//!   shared-memory race found by the race check (`racecheck.h`,
//!   `AMDGPU_SIM_RACECHECK`) names its `__shared__` variable.
//!
//! The launcher runs a grid's blocks on the host's cores
//! (`AMDGPU_SIM_CORES`), each block on one host thread; a block's threads
//! are fibers that run until a barrier, a warp
//! intrinsic or their end, so `__syncthreads` and the warp intrinsics
//! (at the device's wavefront width) see them in lockstep.

pub(crate) mod build;
pub(crate) mod compiler;
pub(crate) mod cores;
pub(crate) mod module;
pub(crate) mod object;
pub(crate) mod run;
pub(crate) mod source;
pub(crate) mod staged;
pub(crate) mod statics;
pub(crate) mod watchdog;

use crate::shared::prelude::Header;

/// The headers a compilation for the CPU gets by name, beside the ones
/// every compiler shares (`shared::prelude::SHARED`): the CPU flavour of
/// the prelude (`hip/hip_runtime.h`), of half precision and bfloat16, and
/// the launcher, included after the program's source. Written into the
/// compiler's include directory, and part of each compiled object's key.
pub(crate) const HEADERS: &[Header] = &[
    Header { name: "hip/hip_runtime.h", text: include_str!("hip_runtime_cpu.h") },
    Header { name: "hip/hip_fp16.h", text: include_str!("hip_fp16_cpu.h") },
    Header { name: "hip/hip_bf16.h", text: include_str!("hip_bf16_cpu.h") },
    Header { name: "amdgpu_sim_launch.h", text: include_str!("launch.h") },
    Header { name: "amdgpu_sim_racecheck.h", text: include_str!("racecheck.h") },
];
