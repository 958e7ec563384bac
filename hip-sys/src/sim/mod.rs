//! The HIP simulator: a faithful, thread-safe software HIP runtime.
//!
//! It fills the same [`crate::HipApi`] table as the real backends,
//! so code above `hip-sys` cannot tell it apart from HIP, except that it is
//! **stricter**. It is the backend of the project's tests and of any machine
//! without a GPU (`AMDGPU_BACKEND=sim`, or detection finding no GPU).
//!
//! # Configuration
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `AMDGPU_SIM_DEVICES` | number of devices (0 gives HIP's no-device behaviour) | 2 |
//! | `AMDGPU_SIM_MEMORY` | bytes of memory per device (`1GiB`, `512MB`, `4096`) | 1 GiB |
//! | `AMDGPU_SIM_HIP_VERSION` | the HIP major version to behave as: `5`, `6` or `7` (the last error's semantics; `hipRuntimeGetVersion` reports 5.7.0, 6.4.0 or 7.0.0) | 7 |
//! | `AMDGPU_SIM_ROCFFT_VERSION` | the rocFFT version modelled (`1.0.x`): before `1.0.25` (ROCm 6.0), out-of-place R2C transforms overwrite their input, as that rocFFT's may (C2R ones always do); an invalid value makes rocFFT fail to load, saying why | `1.0.27` (ROCm 6.1) |
//! | `AMDGPU_SIM_ROCSPARSE_VERSION` | the rocSPARSE simulated: `2` (2.x, ROCm 5: SpMV/SpMM stage auto exists) or `3` (3.x, ROCm 6 and 7: no auto stage); see [`RocsparseVersion`] | 3 |
//!
//! Host memory is taken only for bytes actually allocated, and lazily by
//! the operating system's zeroed pages.
//!
//! # What it models (HIP 5.x/7.x behaviour, `reference/hip_semantics.md`)
//!
//! - **Per-thread state**: a current device per thread, lazily device 0;
//!   `hipSetDevice` affects only the calling thread; a context stack;
//!   primary contexts 1:1 with devices, and `hipCtxSetCurrent` changes what
//!   `hipGetDevice` returns. With no devices, every call returns
//!   `hipErrorNoDevice` (and `hipGetDeviceCount` writes 0).
//! - **Last error, per HIP version**: with HIP 7 (the default) a failing
//!   call (other than `hipErrorNotReady`) sets the thread's last error and
//!   successful calls do not clear it, as on CUDA; with HIP 5 and 6 every
//!   call stores its status, success included. `hipGetLastError` returns
//!   it and resets it to `hipSuccess`; `hipPeekAtLastError` returns it.
//! - **Memory**: each device's pointers lie in their own address range, so
//!   a pointer names its device. `hipMalloc` on the current device, out of
//!   memory at capacity, `hipFree` of null is a no-op, unknown or
//!   double-freed pointers give `hipErrorInvalidValue`; `hipMalloc(0)` gives
//!   null. `hipMemcpy*` take the direction from the pointers (the kind is
//!   only validated), copies past an allocation's end are
//!   `hipErrorInvalidValue`; `hipMemset*`, `hipMemGetInfo`,
//!   `hipPointerGetAttributes`, pinned host memory.
//! - **Stream-ordered memory**: `hipMallocAsync` on the stream's device,
//!   `hipFreeAsync` returning the block to its pool in stream order, one
//!   default pool per device plus created pools, the release threshold
//!   (memory above it is released at the next synchronization), reserved
//!   and used counters with high-water marks, `hipMemPoolTrimTo`.
//! - **Streams** run their work in order on worker threads, so work is
//!   really asynchronous (`hipStreamQuery` reports `hipErrorNotReady`
//!   while busy). Streams are bound to the device current at creation.
//!   The null stream of a device is synchronizing (legacy semantics): it
//!   waits for the device's blocking streams, and they wait for it.
//! - **Events** are bound to the device current at creation; recording on
//!   another device's stream is `hipErrorInvalidHandle`; elapsed time
//!   between two events of one device; `hipStreamWaitEvent` across devices.
//! - **Kernels**: a sim code object is NUL-terminated text naming kernels of
//!   a built-in registry of Rust kernels (see [`code_object`] and
//!   [`KERNELS`]); `hipModuleLoadData` loads it on the current device,
//!   `hipModuleLaunchKernel` runs the kernel over the grid on the stream's
//!   worker. A kernel that touches memory outside a live allocation raises
//!   a sticky `hipErrorIllegalAddress`, as ROCm 7 does after a GPU fault.
//!
//! # Stricter than HIP, on purpose
//!
//! Every call that acts on an object of device D (a pointer, stream, event,
//! module, function or pool) while the calling thread's current device is
//! not D is recorded as a [`Violation`], even where real HIP tolerates it
//! (`hipFree`, `hipStreamDestroy`, `hipEventDestroy` on AMD). Tests assert
//! that [`violations()`] stays empty. A module function looked up on a
//! device other than the one the module was loaded on is also an error
//! (`hipErrorInvalidDevice`), where real HIP aborts the process.
//!
//! # Not modelled
//!
//! Peer-access enforcement (copies between devices always work, as HIP's
//! staging path does), `hipDeviceReset` beyond synchronizing, stream
//! capture and graphs, managed memory, textures, the `extra` launch
//! argument (`hipErrorNotSupported`), real GPU timing (events measure the
//! simulator's own host time), and ROCm <7's last-error semantics.
//!
//! # Libraries
//!
//! rocSPARSE, rocFFT and MIOpen ([`rocsparse_api`], [`rocfft_api`],
//! [`miopen_api`]) are computed on the CPU over simulator memory, in stream
//! order, with the same device checks: handles and plans belong to the
//! device current at creation, and calls on them from another device are
//! violations. [`live_library_objects`] counts their live objects.
//! rocFFT is modelled down to what real rocFFT does to callers' data and
//! state: inputs it may overwrite are overwritten, single precision is
//! computed in single precision, and `rocfft_cleanup` invalidates the
//! plans it leaves behind (see [`rocfft_version`], [`set_rocfft_version`],
//! [`rocfft_setup_device`]).
//! rocSPARSE behaves as 3.x (ROCm 6 and 7) unless
//! `AMDGPU_SIM_ROCSPARSE_VERSION=2` or [`set_rocsparse_version`] says 2.x;
//! a CSR SpMV computed without its preprocess, which the real library
//! runs silently on a slower kernel, is recorded in
//! [`rocsparse_slow_paths`].
//!
//! # Introspection for tests
//!
//! [`violations`], [`live_allocations`], [`call_count`] (and the per-thread
//! [`thread_call_count`]), [`inject_fault`], [`inject_sticky_fault`],
//! [`reset_faults`]. Counters and faults are process-wide, while tests of
//! one binary run in parallel: a test that asserts exact counts, injects
//! faults or fills a device takes [`exclusive()`] first, and so should every
//! test of that binary that uses the simulator.

// The C entry points keep HIP's names.
#![allow(non_snake_case)]

mod api;
mod device;
mod entry;
pub(crate) mod errors;
mod events;
mod faults;
mod kernels;
mod libs;
mod memory;
mod modules;
mod pools;
mod runtime;
mod streams;
mod violations;

pub use errors::describe;
pub use faults::{inject_fault, inject_sticky_fault, reset_faults, Fault};
pub use kernels::{code_object, KernelInfo, KERNELS};
pub use libs::live_library_objects;
pub(crate) use libs::rocfft::env_version as rocfft_env_version;
pub use libs::rocfft::{
    parse_version as parse_rocfft_version, rocfft_version, set_rocfft_version, setup_device as rocfft_setup_device,
    DEFAULT_VERSION as DEFAULT_ROCFFT_VERSION, WORK_BUFFER_SIZE as ROCFFT_WORK_BUFFER_SIZE,
};
pub use libs::rocsparse::BUFFER_SIZE as ROCSPARSE_BUFFER_SIZE;
pub use libs::rocsparse_mode::{
    clear_rocsparse_slow_paths, parse_rocsparse_version, rocsparse_analyses, rocsparse_slow_paths, rocsparse_version,
    set_rocsparse_version, RocsparseVersion, SlowPath,
};
pub use runtime::{
    configured_devices, configured_memory, exclusive, parse_devices, parse_memory, Exclusive, SimConfig, MAX_DEVICES,
};
pub use violations::{clear_violations, violations, Violation};

pub(crate) use runtime::configure_from_env;

use crate::HipApi;

/// The simulator's function table, whatever backend the process selected:
/// tests of the simulator itself call it directly.
pub fn api() -> &'static HipApi {
    &api::SIM_API
}

/// The simulator's rocSPARSE table (see the `libs` module docs of the
/// simulator for what it implements).
pub fn rocsparse_api() -> &'static crate::rocsparse::RocsparseApi {
    &libs::rocsparse::SIM_ROCSPARSE
}

/// The simulator's rocFFT table.
pub fn rocfft_api() -> &'static crate::rocfft::RocfftApi {
    &libs::rocfft::SIM_ROCFFT
}

/// The simulator's MIOpen table.
pub fn miopen_api() -> &'static crate::miopen::MiopenApi {
    &libs::miopen::SIM_MIOPEN
}

/// Calls of the HIP function `name` made so far, on every thread.
///
/// `name` is the C name (`"hipMalloc"`); an unknown name counts 0.
pub fn call_count(name: &str) -> u64 {
    entry::call_count(name)
}

/// Calls of the HIP function `name` made so far by the calling thread.
pub fn thread_call_count(name: &str) -> u64 {
    entry::thread_call_count(name)
}

/// Number of live allocations on `device` (device memory, including blocks
/// held by stream-ordered pools); 0 for a device that does not exist.
pub fn live_allocations(device: usize) -> usize {
    memory::live_allocations(device)
}

/// Bytes in use on `device` (allocations plus pool reservations).
pub fn used_bytes(device: usize) -> usize {
    memory::used_bytes(device)
}
