//! The `nvidia` backend: HIP's NVIDIA platform done in Rust.
//!
//! On NVIDIA, HIP is a header of inline wrappers over CUDA with nothing to
//! load. This backend does the same work at run time, in the module
//! vocabulary every backend shares: `hip` (the runtime), `hiprtc` (over
//! NVRTC), `rocblas` (over cuBLAS), `rocsparse` (cuSPARSE), `rocfft`
//! (cuFFT), `miopen` (cuDNN) and `nvtx` (ROCTx over the NVTX tool that
//! Nsight attaches). Every entry of
//! [`HipApi`](crate::bindings::hip::HipApi) is a Rust `extern "C"` function that calls the CUDA runtime
//! (`libcudart`) or the driver (`libcuda`), translates enums on the way in
//! and error codes on the way out (`reference/hip_semantics.md` §5).
//!
//! # Libraries
//!
//! - The runtime: `libcudart.so.13`, `libcudart.so.12`, `libcudart.so`
//!   through the system loader path, then the same names under
//!   `/usr/local/cuda/lib64`.
//! - The driver: `libcuda.so.1`, then `libcuda.so`.
//!
//! Both stay loaded for the rest of the process; every function pointer
//! used is resolved when the backend loads (a missing one is a
//! [`BackendError::SymbolMissing`](crate::BackendError::SymbolMissing) then, never a failure later) and kept in
//! a process-wide `CudaFns`.
//!
//! # Behaviour that differs from the AMD runtime
//!
//! - **Which API serves a call.** Device, context, primary-context, module
//!   and launch calls and `hipMemsetD32*` go to the driver API, everything
//!   else to the runtime API, as HIP's NVIDIA header does.
//! - **A current context for driver calls.** The driver needs a current
//!   context where the runtime creates one lazily; see `driver.rs` for how a
//!   thread gets one before its first driver call.
//! - **The last error** follows HIP (ROCm 7) and CUDA semantics for every
//!   entry of the table, driver-backed ones included; see `errors.rs`.
//! - **Error names** are HIP's (`hipErrorInvalidValue`), not CUDA's; see
//!   `errors.rs`.
//! - **Versions.** `hipDriverGetVersion` and `hipRuntimeGetVersion` report
//!   CUDA's own numbers, `1000 * major + 10 * minor` (13000 for CUDA 13.0),
//!   as HIP on NVIDIA does, not HIP's `major * 10^7 + minor * 10^5 + patch`.
//! - **Attributes** without a CUDA counterpart give `hipErrorInvalidValue`;
//!   see `attributes.rs`.
//! - **Structs** follow CUDA 13's layout, which is a superset of CUDA 12's
//!   where they differ; `abi.rs` checks every struct, enum value and
//!   attribute number against both versions' headers.
//! - **hipRTC** is NVRTC (`libnvrtc.so.13`, `.12`) behind the hipRTC
//!   table, with the portable prelude pre-included; see `hiprtc.rs`.
//! - **Streams and events are handles, not CUDA objects.** HIP's NVIDIA
//!   header makes `hipStream_t` a `cudaStream_t`, so a destroyed stream
//!   reaches CUDA as a dangling pointer and may crash the process. Here a
//!   stream or event is a generation-tagged slot of a table of live
//!   objects (`objects.rs`): a destroyed or never-created one is clr's
//!   `hipErrorContextIsDestroyed`, at the cost of two atomic loads per
//!   handle. To hand one to CUDA or a CUDA library directly, take its CUDA
//!   object with [`cuda_stream`] or [`cuda_event`]; the null stream,
//!   `hipStreamPerThread` and CUDA's legacy stream (0, 2 and 1) are the
//!   same values in both.
//! - **Modules** are PTX or cubin images (`cuModuleLoadData`), not AMD code
//!   objects.

#![allow(non_snake_case)]

use std::ffi::{c_int, c_void};

// The tables of C functions that the CUDA table and each library mapping
// declare; before them, which use it. And the dense libraries' functions
// of the four precisions, each declared once over its element type.
#[macro_use]
mod fn_table;
mod precision;

// The CUDA side: its C types and the functions resolved from the runtime
// and the driver (checked against both CUDA versions' headers by `abi`).
#[cfg(test)]
mod abi;
mod cuda;
mod types;

// HIP's runtime over it: errors, a current context for driver calls,
// streams and events as handles, attributes, graphs, calls on a handle,
// managed and virtual memory.
mod attributes;
mod call;
mod driver;
mod errors;
mod graphs;
mod hip;
mod managed;
pub(crate) mod objects;
mod vmm;

// The HIP table that holds those entry points, the loader that hands it
// out, and the provider of the library tables.
mod loader;
mod provider;
mod table;

pub use errors::{cu_result_to_hip, cuda_error_to_hip, hip_to_cuda_error, CUDA_ERROR_UNKNOWN};

/// A HIP stream of this backend naming `stream`, a CUDA stream made
/// elsewhere in the process (a framework's), until [`forget_cuda_stream`]:
/// every HIP call takes the handle, and none destroys the CUDA stream
/// but `hipStreamDestroy`, which its maker's code must not be given.
///
/// # Errors
/// `hipErrorOutOfMemory` when the table of streams is full.
pub(crate) fn adopt_cuda_stream(
    stream: *mut c_void,
) -> Result<crate::bindings::hip::hipStream_t, crate::bindings::hip::hipError_t> {
    objects::STREAMS
        .insert(stream)
        .map(|handle| handle.cast())
        .ok_or(crate::bindings::hip::hipError_t::hipErrorOutOfMemory)
}

/// Give back a handle [`adopt_cuda_stream`] made, leaving the CUDA stream
/// alone.
///
/// # Errors
/// `hipErrorContextIsDestroyed` for a handle that names nothing (given
/// back already).
pub(crate) fn forget_cuda_stream(
    stream: crate::bindings::hip::hipStream_t,
) -> Result<(), crate::bindings::hip::hipError_t> {
    objects::STREAMS
        .remove(stream.cast())
        .map(drop)
        .map_err(|_| crate::bindings::hip::hipError_t::hipErrorContextIsDestroyed)
}

/// The CUDA stream (`cudaStream_t`, `CUstream`) of a HIP stream of this
/// backend, for CUDA calls made outside the table; a destroyed or
/// never-created stream is `hipErrorContextIsDestroyed`.
pub fn cuda_stream(stream: crate::bindings::hip::hipStream_t) -> Result<*mut c_void, crate::bindings::hip::hipError_t> {
    objects::stream_of(stream)
}

/// The CUDA event (`cudaEvent_t`) of a HIP event of this backend; a null
/// event is `hipErrorInvalidHandle`, a destroyed or never-created one
/// `hipErrorContextIsDestroyed`.
pub fn cuda_event(event: crate::bindings::hip::hipEvent_t) -> Result<*mut c_void, crate::bindings::hip::hipError_t> {
    objects::event_of(event)
}
/// The CUDA executable graph (`cudaGraphExec_t`) of a HIP executable
/// graph of this backend, for CUDA calls made outside the table (the
/// benchmarks' raw `cudaGraphLaunch`); a null, destroyed or never-made one
/// is `hipErrorInvalidValue`.
pub fn cuda_graph_exec(
    exec: crate::bindings::hip::hipGraphExec_t,
) -> Result<*mut c_void, crate::bindings::hip::hipError_t> {
    graphs::exec_of(exec)
}
pub(crate) use hiprtc::compiler as nvrtc_compiler;
pub(crate) use provider::PROVIDER;

/// A `cudaError_t` of the CUDA runtime API.
pub(crate) type CudaError = c_int;
/// A `CUresult` of the CUDA driver API.
pub(crate) type CuResult = c_int;
/// `CUdevice`: a device ordinal of the driver API.
pub(crate) type CuDevice = c_int;
/// `CUdeviceptr`: a device address as the driver API passes it.
pub(crate) type CuDevicePtr = u64;
/// Any CUDA handle (`cudaStream_t`, `cudaEvent_t`, `cudaMemPool_t`,
/// `CUcontext`, `CUmodule`, `CUfunction`): an opaque pointer.
pub(crate) type Handle = *mut c_void;

pub(crate) use cuda::{fns, CudaFns};
#[cfg(test)]
pub(crate) use loader::load_from;
pub(crate) use loader::{library_candidates, load, open};

/// Run one entry point of a library mapping (`library` names it in the
/// log): its `body`'s error status, `success`, or `on_panic` instead of
/// unwinding into the C caller.
pub(crate) fn catch_status<S>(library: &str, success: S, on_panic: S, body: impl FnOnce() -> Result<(), S>) -> S {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(())) => success,
        Ok(Err(status)) => status,
        Err(_) => {
            log::error!("{library}: internal panic in an entry point");
            on_panic
        }
    }
}

// The library mappings, each over its NVIDIA library.
pub(crate) mod hiprtc;
pub(crate) mod miopen;
pub(crate) mod nvtx;
pub(crate) mod rccl;
pub(crate) mod rocblas;
pub(crate) mod rocfft;
pub(crate) mod rocrand;
pub(crate) mod rocsolver;
pub(crate) mod rocsparse;

#[cfg(test)]
mod foreign_tests {
    use super::*;
    use crate::bindings::hip::hipError_t;

    #[test]
    fn an_adopted_cuda_stream_is_named_until_forgotten_and_never_destroyed() {
        // A stand-in for a framework's CUDA stream: only its value is used.
        let framework = 0x5eed_0000 as *mut c_void;
        let handle = adopt_cuda_stream(framework).unwrap();
        let again = adopt_cuda_stream(framework).unwrap();
        assert_ne!(handle, again, "each adoption is its own handle");
        assert_eq!(objects::stream_of(handle), Ok(framework));
        forget_cuda_stream(handle).unwrap();
        assert_eq!(objects::stream_of(handle), Err(hipError_t::hipErrorContextIsDestroyed));
        assert_eq!(objects::stream_of(again), Ok(framework), "the other adoption still names it");
        assert_eq!(forget_cuda_stream(handle), Err(hipError_t::hipErrorContextIsDestroyed));
        forget_cuda_stream(again).unwrap();
    }
}
