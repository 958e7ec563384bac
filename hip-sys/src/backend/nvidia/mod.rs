//! The `nvidia` backend: HIP's NVIDIA platform done in Rust.
//!
//! On NVIDIA, HIP is a header of inline wrappers over CUDA with nothing to
//! load. This backend does the same work at run time, in the module
//! vocabulary every backend shares: `hip` (the runtime), `hiprtc` (over
//! NVRTC), `rocblas` (over cuBLAS), `rocsparse` (cuSPARSE), `rocfft`
//! (cuFFT) and `miopen` (cuDNN). Every entry of
//! [`HipApi`] is a Rust `extern "C"` function that calls the CUDA runtime
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
//! [`BackendError::SymbolMissing`] then, never a failure later) and kept in
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

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

use crate::bindings::hip::HipApi;
use crate::BackendError;

#[cfg(test)]
mod abi;
mod attributes;
mod call;
mod driver;
mod errors;
mod graphs;
mod hip;
pub(crate) mod objects;
mod provider;
mod types;

pub use errors::{cu_result_to_hip, cuda_error_to_hip, hip_to_cuda_error, CUDA_ERROR_UNKNOWN};

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

/// The runtime library's name in messages.
const CUDART: &str = "libcudart";
/// The driver library's name in messages.
const LIBCUDA: &str = "libcuda";

/// What to do when `libcudart` cannot be found.
const CUDART_HINT: &str = "install the CUDA runtime (CUDA 12 or 13; the toolkit or the \
     cuda-cudart package) and add its lib64 directory to LD_LIBRARY_PATH; \
     or set AMDGPU_BACKEND=sim to use the HIP simulator";
/// What to do when `libcuda` cannot be found.
const LIBCUDA_HINT: &str = "install the NVIDIA driver, which provides libcuda.so.1 \
     (on a container, run it with the GPU and driver libraries mounted); \
     or set AMDGPU_BACKEND=sim to use the HIP simulator";
/// What to do when a symbol is missing.
const SYMBOL_HINT: &str = "use CUDA 12 or 13 with a matching NVIDIA driver, \
     or set AMDGPU_BACKEND=sim to use the HIP simulator";

/// The files tried for a CUDA library of `names`, in order: each name
/// through the system loader path, then under `/usr/local/cuda/lib64`.
pub(crate) fn library_candidates(names: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    out.extend(names.iter().map(|n| format!("/usr/local/cuda/lib64/{n}")));
    out
}

/// The candidate files for `libcudart`, in the order they are tried.
pub(crate) fn cudart_candidates() -> Vec<String> {
    library_candidates(&["libcudart.so.13", "libcudart.so.12", "libcudart.so"])
}

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

/// The candidate files for `libcuda`, in the order they are tried.
pub(crate) fn libcuda_candidates() -> Vec<String> {
    vec!["libcuda.so.1".to_owned(), "libcuda.so".to_owned()]
}

/// Declares a table of C functions resolved from one library by name.
macro_rules! fn_table {
    (
        $(#[$meta:meta])*
        struct $name:ident {
            $(
                $(#[$doc:meta])*
                $field:ident = $symbol:literal: fn($($arg:ty),* $(,)?) -> $ret:ty;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name {
            $(
                $(#[$doc])*
                pub(crate) $field: unsafe extern "C" fn($($arg),*) -> $ret,
            )*
        }

        impl $name {
            /// The C symbol names, in field order.
            #[allow(dead_code)]
            pub(crate) const SYMBOLS: &'static [&'static str] = &[$($symbol),*];

            /// Resolve every function in `library`.
            ///
            /// # Safety
            /// `library` must export each symbol with the C signature
            /// declared for it.
            unsafe fn resolve(library: &crate::backend::loader::Opened) -> Result<Self, BackendError> {
                Ok(Self {
                    $(
                        $field: {
                            let p = library.symbol($symbol)?;
                            // SAFETY: `p` is a non-null function address
                            // of `$symbol`, whose C signature is the one
                            // declared (the caller's guarantee); function
                            // and data pointers have the same size here.
                            unsafe {
                                std::mem::transmute::<
                                    *const c_void,
                                    unsafe extern "C" fn($($arg),*) -> $ret,
                                >(p)
                            }
                        },
                    )*
                })
            }
        }
    };
}

// After `fn_table!`, which they use.
pub(crate) mod hiprtc;
pub(crate) mod miopen;
pub(crate) mod rccl;
pub(crate) mod rocblas;
pub(crate) mod rocfft;
pub(crate) mod rocrand;
pub(crate) mod rocsolver;
pub(crate) mod rocsparse;

fn_table! {
    /// The CUDA runtime API functions this backend calls
    /// (`cuda_runtime_api.h`, CUDA 12 and 13). Handles are opaque
    /// pointers; enums are `int`.
    struct Cudart {
        /// `cudaError_t cudaGetDeviceCount(int *count)`
        cudaGetDeviceCount = "cudaGetDeviceCount": fn(*mut c_int) -> CudaError;
        /// `cudaError_t cudaSetDevice(int device)`
        cudaSetDevice = "cudaSetDevice": fn(c_int) -> CudaError;
        /// `cudaError_t cudaGetDevice(int *device)`
        cudaGetDevice = "cudaGetDevice": fn(*mut c_int) -> CudaError;
        /// `cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)`
        cudaDeviceGetAttribute = "cudaDeviceGetAttribute": fn(*mut c_int, c_int, c_int) -> CudaError;
        /// `cudaError_t cudaDeviceSynchronize(void)`
        cudaDeviceSynchronize = "cudaDeviceSynchronize": fn() -> CudaError;
        /// `cudaError_t cudaDeviceReset(void)`
        cudaDeviceReset = "cudaDeviceReset": fn() -> CudaError;
        /// `cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)`
        cudaDeviceGetPCIBusId = "cudaDeviceGetPCIBusId": fn(*mut c_char, c_int, c_int) -> CudaError;
        /// `cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)`
        cudaDeviceGetStreamPriorityRange = "cudaDeviceGetStreamPriorityRange": fn(*mut c_int, *mut c_int) -> CudaError;
        /// `cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)`
        cudaDeviceCanAccessPeer = "cudaDeviceCanAccessPeer": fn(*mut c_int, c_int, c_int) -> CudaError;
        /// `cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)`
        cudaDeviceEnablePeerAccess = "cudaDeviceEnablePeerAccess": fn(c_int, c_uint) -> CudaError;
        /// `cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)`
        cudaDeviceDisablePeerAccess = "cudaDeviceDisablePeerAccess": fn(c_int) -> CudaError;
        /// `cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)`
        cudaStreamCreateWithPriority = "cudaStreamCreateWithPriority": fn(*mut Handle, c_uint, c_int) -> CudaError;
        /// `cudaError_t cudaStreamDestroy(cudaStream_t stream)`
        cudaStreamDestroy = "cudaStreamDestroy": fn(Handle) -> CudaError;
        /// `cudaError_t cudaStreamSynchronize(cudaStream_t stream)`
        cudaStreamSynchronize = "cudaStreamSynchronize": fn(Handle) -> CudaError;
        /// `cudaError_t cudaStreamQuery(cudaStream_t stream)`
        cudaStreamQuery = "cudaStreamQuery": fn(Handle) -> CudaError;
        /// `cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)`
        cudaStreamWaitEvent = "cudaStreamWaitEvent": fn(Handle, Handle, c_uint) -> CudaError;
        /// `cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)`
        cudaStreamGetPriority = "cudaStreamGetPriority": fn(Handle, *mut c_int) -> CudaError;
        /// `cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)`
        cudaStreamGetFlags = "cudaStreamGetFlags": fn(Handle, *mut c_uint) -> CudaError;
        /// `cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)`
        cudaEventCreateWithFlags = "cudaEventCreateWithFlags": fn(*mut Handle, c_uint) -> CudaError;
        /// `cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)`
        cudaEventRecord = "cudaEventRecord": fn(Handle, Handle) -> CudaError;
        /// `cudaError_t cudaEventSynchronize(cudaEvent_t event)`
        cudaEventSynchronize = "cudaEventSynchronize": fn(Handle) -> CudaError;
        /// `cudaError_t cudaEventQuery(cudaEvent_t event)`
        cudaEventQuery = "cudaEventQuery": fn(Handle) -> CudaError;
        /// `cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)`
        cudaEventElapsedTime = "cudaEventElapsedTime": fn(*mut f32, Handle, Handle) -> CudaError;
        /// `cudaError_t cudaEventDestroy(cudaEvent_t event)`
        cudaEventDestroy = "cudaEventDestroy": fn(Handle) -> CudaError;
        /// `cudaError_t cudaMalloc(void **devPtr, size_t size)`
        cudaMalloc = "cudaMalloc": fn(*mut *mut c_void, usize) -> CudaError;
        /// `cudaError_t cudaFree(void *devPtr)`
        cudaFree = "cudaFree": fn(*mut c_void) -> CudaError;
        /// `cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)`
        cudaHostAlloc = "cudaHostAlloc": fn(*mut *mut c_void, usize, c_uint) -> CudaError;
        /// `cudaError_t cudaFreeHost(void *ptr)`
        cudaFreeHost = "cudaFreeHost": fn(*mut c_void) -> CudaError;
        /// `cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)`
        cudaHostRegister = "cudaHostRegister": fn(*mut c_void, usize, c_uint) -> CudaError;
        /// `cudaError_t cudaHostUnregister(void *ptr)`
        cudaHostUnregister = "cudaHostUnregister": fn(*mut c_void) -> CudaError;
        /// `cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)`
        cudaLaunchHostFunc = "cudaLaunchHostFunc": fn(Handle, crate::bindings::hip::hipHostFn_t, *mut c_void) -> CudaError;
        /// `cudaError_t cudaMemGetInfo(size_t *free, size_t *total)`
        cudaMemGetInfo = "cudaMemGetInfo": fn(*mut usize, *mut usize) -> CudaError;
        /// `cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)`
        cudaPointerGetAttributes = "cudaPointerGetAttributes": fn(*mut types::CudaPointerAttributes, *const c_void) -> CudaError;
        /// `cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)`
        cudaMemcpy = "cudaMemcpy": fn(*mut c_void, *const c_void, usize, c_int) -> CudaError;
        /// `cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)`
        cudaMemcpyAsync = "cudaMemcpyAsync": fn(*mut c_void, *const c_void, usize, c_int, Handle) -> CudaError;
        /// `cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)`
        cudaMemcpyPeer = "cudaMemcpyPeer": fn(*mut c_void, c_int, *const c_void, c_int, usize) -> CudaError;
        /// `cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count, cudaStream_t stream)`
        cudaMemcpyPeerAsync = "cudaMemcpyPeerAsync": fn(*mut c_void, c_int, *const c_void, c_int, usize, Handle) -> CudaError;
        /// `cudaError_t cudaMemset(void *devPtr, int value, size_t count)`
        cudaMemset = "cudaMemset": fn(*mut c_void, c_int, usize) -> CudaError;
        /// `cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)`
        cudaMemsetAsync = "cudaMemsetAsync": fn(*mut c_void, c_int, usize, Handle) -> CudaError;
        /// `cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)`
        cudaMallocAsync = "cudaMallocAsync": fn(*mut *mut c_void, usize, Handle) -> CudaError;
        /// `cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)`
        cudaFreeAsync = "cudaFreeAsync": fn(*mut c_void, Handle) -> CudaError;
        /// `cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)`
        cudaMallocFromPoolAsync = "cudaMallocFromPoolAsync": fn(*mut *mut c_void, usize, Handle, Handle) -> CudaError;
        /// `cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)`
        cudaMemPoolCreate = "cudaMemPoolCreate": fn(*mut Handle, *const types::CudaMemPoolProps) -> CudaError;
        /// `cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)`
        cudaMemPoolDestroy = "cudaMemPoolDestroy": fn(Handle) -> CudaError;
        /// `cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)`
        cudaMemPoolTrimTo = "cudaMemPoolTrimTo": fn(Handle, usize) -> CudaError;
        /// `cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)`
        cudaMemPoolSetAttribute = "cudaMemPoolSetAttribute": fn(Handle, c_int, *mut c_void) -> CudaError;
        /// `cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)`
        cudaMemPoolGetAttribute = "cudaMemPoolGetAttribute": fn(Handle, c_int, *mut c_void) -> CudaError;
        /// `cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)`
        cudaDeviceGetDefaultMemPool = "cudaDeviceGetDefaultMemPool": fn(*mut Handle, c_int) -> CudaError;
        /// `cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)`
        cudaDeviceGetMemPool = "cudaDeviceGetMemPool": fn(*mut Handle, c_int) -> CudaError;
        /// `cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)`
        cudaDeviceSetMemPool = "cudaDeviceSetMemPool": fn(c_int, Handle) -> CudaError;
        /// `cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)`
        cudaStreamBeginCapture = "cudaStreamBeginCapture": fn(Handle, c_int) -> CudaError;
        /// `cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)`
        cudaStreamEndCapture = "cudaStreamEndCapture": fn(Handle, *mut Handle) -> CudaError;
        /// `cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)`
        cudaStreamIsCapturing = "cudaStreamIsCapturing": fn(Handle, *mut c_int) -> CudaError;
        /// `cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)`
        cudaThreadExchangeStreamCaptureMode = "cudaThreadExchangeStreamCaptureMode": fn(*mut c_int) -> CudaError;
        /// `cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)`
        cudaGraphCreate = "cudaGraphCreate": fn(*mut Handle, c_uint) -> CudaError;
        /// `cudaError_t cudaGraphDestroy(cudaGraph_t graph)`
        cudaGraphDestroy = "cudaGraphDestroy": fn(Handle) -> CudaError;
        /// `cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)`
        cudaGraphGetNodes = "cudaGraphGetNodes": fn(Handle, *mut Handle, *mut usize) -> CudaError;
        /// `cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags)`
        /// (CUDA 12 and 13; `cudaGraphInstantiate` changed its signature in 12 and is not used)
        cudaGraphInstantiateWithFlags = "cudaGraphInstantiateWithFlags": fn(*mut Handle, Handle, u64) -> CudaError;
        /// `cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)`
        cudaGraphLaunch = "cudaGraphLaunch": fn(Handle, Handle) -> CudaError;
        /// `cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)`
        cudaGraphUpload = "cudaGraphUpload": fn(Handle, Handle) -> CudaError;
        /// `cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)`
        cudaGraphExecDestroy = "cudaGraphExecDestroy": fn(Handle) -> CudaError;
        /// `cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphExecUpdateResultInfo *resultInfo)`
        /// (the CUDA 12 and 13 signature)
        cudaGraphExecUpdate = "cudaGraphExecUpdate": fn(Handle, Handle, *mut types::CudaGraphExecUpdateResultInfo) -> CudaError;
        /// `cudaError_t cudaDeviceGraphMemTrim(int device)`
        cudaDeviceGraphMemTrim = "cudaDeviceGraphMemTrim": fn(c_int) -> CudaError;
        /// `cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *pType)`
        cudaGraphNodeGetType = "cudaGraphNodeGetType": fn(Handle, *mut c_int) -> CudaError;
        /// `cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void *value)`
        cudaDeviceGetGraphMemAttribute = "cudaDeviceGetGraphMemAttribute": fn(c_int, c_int, *mut c_void) -> CudaError;
        /// `cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void *value)`
        cudaDeviceSetGraphMemAttribute = "cudaDeviceSetGraphMemAttribute": fn(c_int, c_int, *mut c_void) -> CudaError;
        /// `cudaError_t cudaGetLastError(void)`
        cudaGetLastError = "cudaGetLastError": fn() -> CudaError;
        /// `cudaError_t cudaPeekAtLastError(void)`
        cudaPeekAtLastError = "cudaPeekAtLastError": fn() -> CudaError;
        /// `cudaError_t cudaDriverGetVersion(int *driverVersion)`
        cudaDriverGetVersion = "cudaDriverGetVersion": fn(*mut c_int) -> CudaError;
        /// `cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)`
        cudaRuntimeGetVersion = "cudaRuntimeGetVersion": fn(*mut c_int) -> CudaError;
    }
}

fn_table! {
    /// The CUDA driver API functions this backend calls (`cuda.h`, CUDA 12
    /// and 13), under their versioned symbol names where `cuda.h` defines
    /// the plain name to a `_v2` one. The stream-taking functions are the
    /// legacy-default-stream symbols (not the `_ptsz`/`_ptds` ones), as
    /// the runtime functions above are.
    struct Driver {
        /// `CUresult cuInit(unsigned int Flags)`
        cuInit = "cuInit": fn(c_uint) -> CuResult;
        /// `CUresult cuDeviceGet(CUdevice *device, int ordinal)`
        cuDeviceGet = "cuDeviceGet": fn(*mut CuDevice, c_int) -> CuResult;
        /// `CUresult cuDeviceGetName(char *name, int len, CUdevice dev)`
        cuDeviceGetName = "cuDeviceGetName": fn(*mut c_char, c_int, CuDevice) -> CuResult;
        /// `CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)` (`cuDeviceTotalMem_v2`)
        cuDeviceTotalMem = "cuDeviceTotalMem_v2": fn(*mut usize, CuDevice) -> CuResult;
        /// `CUresult cuCtxGetCurrent(CUcontext *pctx)`
        cuCtxGetCurrent = "cuCtxGetCurrent": fn(*mut Handle) -> CuResult;
        /// `CUresult cuCtxSetCurrent(CUcontext ctx)`
        cuCtxSetCurrent = "cuCtxSetCurrent": fn(Handle) -> CuResult;
        /// `CUresult cuCtxGetDevice(CUdevice *device)`
        cuCtxGetDevice = "cuCtxGetDevice": fn(*mut CuDevice) -> CuResult;
        /// `CUresult cuCtxPushCurrent(CUcontext ctx)` (`cuCtxPushCurrent_v2`)
        cuCtxPushCurrent = "cuCtxPushCurrent_v2": fn(Handle) -> CuResult;
        /// `CUresult cuCtxPopCurrent(CUcontext *pctx)` (`cuCtxPopCurrent_v2`)
        cuCtxPopCurrent = "cuCtxPopCurrent_v2": fn(*mut Handle) -> CuResult;
        /// `CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)`
        cuDevicePrimaryCtxRetain = "cuDevicePrimaryCtxRetain": fn(*mut Handle, CuDevice) -> CuResult;
        /// `CUresult cuDevicePrimaryCtxRelease(CUdevice dev)` (`cuDevicePrimaryCtxRelease_v2`)
        cuDevicePrimaryCtxRelease = "cuDevicePrimaryCtxRelease_v2": fn(CuDevice) -> CuResult;
        /// `CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)`
        cuDevicePrimaryCtxGetState = "cuDevicePrimaryCtxGetState": fn(CuDevice, *mut c_uint, *mut c_int) -> CuResult;
        /// `CUresult cuModuleLoadData(CUmodule *module, const void *image)`
        cuModuleLoadData = "cuModuleLoadData": fn(*mut Handle, *const c_void) -> CuResult;
        /// `CUresult cuModuleUnload(CUmodule hmod)`
        cuModuleUnload = "cuModuleUnload": fn(Handle) -> CuResult;
        /// `CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)`
        cuModuleGetFunction = "cuModuleGetFunction": fn(*mut Handle, Handle, *const c_char) -> CuResult;
        /// `CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, gridDimY, gridDimZ,
        /// blockDimX, blockDimY, blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
        /// void **kernelParams, void **extra)`
        cuLaunchKernel = "cuLaunchKernel": fn(
            Handle, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, Handle,
            *mut *mut c_void, *mut *mut c_void,
        ) -> CuResult;
        /// `CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N)` (`cuMemsetD32_v2`)
        cuMemsetD32 = "cuMemsetD32_v2": fn(CuDevicePtr, c_uint, usize) -> CuResult;
        /// `CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)`
        cuMemsetD32Async = "cuMemsetD32Async": fn(CuDevicePtr, c_uint, usize, Handle) -> CuResult;
        /// `CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
        /// cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out,
        /// size_t *numDependencies_out)` (`cuStreamGetCaptureInfo_v2`: one symbol with one
        /// signature on CUDA 12 and 13 drivers, where the runtime's `cudaStreamGetCaptureInfo`
        /// changed its arguments in 13)
        cuStreamGetCaptureInfo = "cuStreamGetCaptureInfo_v2": fn(
            Handle, *mut c_int, *mut u64, *mut Handle, *mut *const Handle, *mut usize,
        ) -> CuResult;
    }
}

/// Every CUDA function the backend calls, resolved once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CudaFns {
    /// The runtime API.
    pub(crate) rt: Cudart,
    /// The driver API.
    pub(crate) drv: Driver,
    /// `cudaRuntimeGetVersion` of the loaded runtime (`1000 * major + 10 *
    /// minor`), for behaviour that changed between CUDA 12 and 13.
    pub(crate) runtime_version: c_int,
}

/// The process's CUDA functions, set by the first successful load.
static FNS: OnceLock<CudaFns> = OnceLock::new();

/// The loaded CUDA functions; `None` before the backend loaded (the table
/// is never handed out then).
pub(crate) fn fns() -> Option<&'static CudaFns> {
    FNS.get()
}

/// Open the first of `candidates` for a CUDA library (`name` in messages).
pub(crate) fn open(
    name: &str,
    candidates: &[String],
    hint: &str,
) -> Result<crate::backend::loader::Opened, BackendError> {
    crate::backend::loader::open_first(name, candidates, hint, SYMBOL_HINT)
}

/// Load the runtime from the first of `cudart` that opens and the driver
/// from the first of `libcuda` that opens, and resolve every function.
///
/// Both libraries stay loaded for the rest of the process on success.
pub(crate) fn load_from(cudart: &[String], libcuda: &[String]) -> Result<CudaFns, BackendError> {
    let rt_lib = open(CUDART, cudart, CUDART_HINT)?;
    // SAFETY: `rt_lib` is the CUDA runtime, whose exported functions have
    // the signatures declared in `Cudart` (CUDA 12 and 13 headers).
    let rt = unsafe { Cudart::resolve(&rt_lib) }?;
    let drv_lib = open(LIBCUDA, libcuda, LIBCUDA_HINT)?;
    // SAFETY: `drv_lib` is the CUDA driver, whose exported functions have
    // the signatures declared in `Driver`.
    let drv = unsafe { Driver::resolve(&drv_lib) }?;
    // Keep the code the pointers point into mapped until the process exits.
    let rt_path = rt_lib.keep();
    let drv_path = drv_lib.keep();
    let mut runtime_version: c_int = 0;
    // SAFETY: `runtime_version` is a valid, writable `int`.
    let status = unsafe { (rt.cudaRuntimeGetVersion)(&mut runtime_version) };
    if status != 0 {
        return Err(BackendError::BackendUnavailable {
            backend: super::Backend::Nvidia,
            reason: format!(
                "{rt_path} loaded but cudaRuntimeGetVersion failed (cudaError_t {status}). To fix: \
                 reinstall the CUDA runtime (CUDA 12 or 13), or set AMDGPU_BACKEND=sim to use the \
                 HIP simulator"
            ),
        });
    }
    log::debug!("nvidia backend: loaded {rt_path} (CUDA {}) and {drv_path}", types::version_string(runtime_version));
    Ok(CudaFns { rt, drv, runtime_version })
}

/// Load CUDA from the standard candidates, check that it reports at least
/// one device, and return the backend's table.
pub(crate) fn load() -> Result<&'static HipApi, BackendError> {
    let fns = match FNS.get() {
        Some(f) => *f,
        None => {
            let loaded = load_from(&cudart_candidates(), &libcuda_candidates())?;
            *FNS.get_or_init(|| loaded)
        }
    };
    let mut count: c_int = 0;
    // SAFETY: `count` is a valid, writable `int`.
    let status = unsafe { (fns.rt.cudaGetDeviceCount)(&mut count) };
    if status != 0 || count < 1 {
        let mut version: c_int = 0;
        // SAFETY: `version` is a valid, writable `int`.
        let _ = unsafe { (fns.rt.cudaDriverGetVersion)(&mut version) };
        return Err(BackendError::BackendUnavailable {
            backend: super::Backend::Nvidia,
            reason: format!(
                "libcudart loaded but reports no NVIDIA GPU (cudaGetDeviceCount: \
                 cudaError_t {status}, count {count}; driver {}). To fix: check that the GPU \
                 is visible (nvidia-smi, CUDA_VISIBLE_DEVICES not empty) and that the \
                 driver is at least as new as the CUDA runtime, or set AMDGPU_BACKEND=sim \
                 to use the HIP simulator",
                types::version_string(version)
            ),
        });
    }
    Ok(&NVIDIA_API)
}

/// Every [`HipApi`] entry, implemented over CUDA.
static NVIDIA_API: HipApi = HipApi {
    hipInit: driver::hipInit,
    hipDriverGetVersion: hip::hipDriverGetVersion,
    hipRuntimeGetVersion: hip::hipRuntimeGetVersion,
    hipGetDeviceCount: hip::hipGetDeviceCount,
    hipSetDevice: hip::hipSetDevice,
    hipGetDevice: hip::hipGetDevice,
    hipDeviceGet: driver::hipDeviceGet,
    hipDeviceGetName: driver::hipDeviceGetName,
    hipDeviceGetAttribute: attributes::hipDeviceGetAttribute,
    hipDeviceTotalMem: driver::hipDeviceTotalMem,
    hipDeviceSynchronize: hip::hipDeviceSynchronize,
    hipDeviceReset: hip::hipDeviceReset,
    hipDeviceGetPCIBusId: hip::hipDeviceGetPCIBusId,
    hipDeviceGetStreamPriorityRange: hip::hipDeviceGetStreamPriorityRange,
    hipDeviceCanAccessPeer: hip::hipDeviceCanAccessPeer,
    hipDeviceEnablePeerAccess: hip::hipDeviceEnablePeerAccess,
    hipDeviceDisablePeerAccess: hip::hipDeviceDisablePeerAccess,
    hipCtxGetCurrent: driver::hipCtxGetCurrent,
    hipCtxSetCurrent: driver::hipCtxSetCurrent,
    hipCtxGetDevice: driver::hipCtxGetDevice,
    hipCtxPushCurrent: driver::hipCtxPushCurrent,
    hipCtxPopCurrent: driver::hipCtxPopCurrent,
    hipDevicePrimaryCtxRetain: driver::hipDevicePrimaryCtxRetain,
    hipDevicePrimaryCtxRelease: driver::hipDevicePrimaryCtxRelease,
    hipDevicePrimaryCtxGetState: driver::hipDevicePrimaryCtxGetState,
    hipStreamCreate: hip::hipStreamCreate,
    hipStreamCreateWithFlags: hip::hipStreamCreateWithFlags,
    hipStreamCreateWithPriority: hip::hipStreamCreateWithPriority,
    hipStreamDestroy: hip::hipStreamDestroy,
    hipStreamSynchronize: hip::hipStreamSynchronize,
    hipStreamQuery: hip::hipStreamQuery,
    hipStreamWaitEvent: hip::hipStreamWaitEvent,
    hipStreamGetPriority: hip::hipStreamGetPriority,
    hipStreamGetFlags: hip::hipStreamGetFlags,
    hipLaunchHostFunc: hip::hipLaunchHostFunc,
    hipEventCreate: hip::hipEventCreate,
    hipEventCreateWithFlags: hip::hipEventCreateWithFlags,
    hipEventRecord: hip::hipEventRecord,
    hipEventSynchronize: hip::hipEventSynchronize,
    hipEventQuery: hip::hipEventQuery,
    hipEventElapsedTime: hip::hipEventElapsedTime,
    hipEventDestroy: hip::hipEventDestroy,
    hipMalloc: hip::hipMalloc,
    hipFree: hip::hipFree,
    hipHostMalloc: hip::hipHostMalloc,
    hipHostFree: hip::hipHostFree,
    hipHostRegister: hip::hipHostRegister,
    hipHostUnregister: hip::hipHostUnregister,
    hipMemGetInfo: hip::hipMemGetInfo,
    hipPointerGetAttributes: hip::hipPointerGetAttributes,
    hipMemcpy: hip::hipMemcpy,
    hipMemcpyAsync: hip::hipMemcpyAsync,
    hipMemcpyPeer: hip::hipMemcpyPeer,
    hipMemcpyPeerAsync: hip::hipMemcpyPeerAsync,
    hipMemset: hip::hipMemset,
    hipMemsetAsync: hip::hipMemsetAsync,
    hipMemsetD32: driver::hipMemsetD32,
    hipMemsetD32Async: driver::hipMemsetD32Async,
    hipMallocAsync: hip::hipMallocAsync,
    hipFreeAsync: hip::hipFreeAsync,
    hipMallocFromPoolAsync: hip::hipMallocFromPoolAsync,
    hipMemPoolCreate: hip::hipMemPoolCreate,
    hipMemPoolDestroy: hip::hipMemPoolDestroy,
    hipMemPoolTrimTo: hip::hipMemPoolTrimTo,
    hipMemPoolSetAttribute: hip::hipMemPoolSetAttribute,
    hipMemPoolGetAttribute: hip::hipMemPoolGetAttribute,
    hipDeviceGetDefaultMemPool: hip::hipDeviceGetDefaultMemPool,
    hipDeviceGetMemPool: hip::hipDeviceGetMemPool,
    hipDeviceSetMemPool: hip::hipDeviceSetMemPool,
    hipStreamBeginCapture: graphs::hipStreamBeginCapture,
    hipStreamEndCapture: graphs::hipStreamEndCapture,
    hipStreamIsCapturing: graphs::hipStreamIsCapturing,
    hipStreamGetCaptureInfo: graphs::hipStreamGetCaptureInfo,
    hipStreamGetCaptureInfo_v2: graphs::hipStreamGetCaptureInfo_v2,
    hipThreadExchangeStreamCaptureMode: graphs::hipThreadExchangeStreamCaptureMode,
    hipGraphCreate: graphs::hipGraphCreate,
    hipGraphDestroy: graphs::hipGraphDestroy,
    hipGraphGetNodes: graphs::hipGraphGetNodes,
    hipGraphInstantiate: graphs::hipGraphInstantiate,
    hipGraphInstantiateWithFlags: graphs::hipGraphInstantiateWithFlags,
    hipGraphLaunch: graphs::hipGraphLaunch,
    hipGraphUpload: graphs::hipGraphUpload,
    hipGraphExecDestroy: graphs::hipGraphExecDestroy,
    hipGraphExecUpdate: graphs::hipGraphExecUpdate,
    hipGraphNodeGetType: graphs::hipGraphNodeGetType,
    hipDeviceGraphMemTrim: graphs::hipDeviceGraphMemTrim,
    hipDeviceGetGraphMemAttribute: graphs::hipDeviceGetGraphMemAttribute,
    hipDeviceSetGraphMemAttribute: graphs::hipDeviceSetGraphMemAttribute,
    hipModuleLoadData: driver::hipModuleLoadData,
    hipModuleUnload: driver::hipModuleUnload,
    hipModuleGetFunction: driver::hipModuleGetFunction,
    hipModuleLaunchKernel: driver::hipModuleLaunchKernel,
    hipGetLastError: errors::hipGetLastError,
    hipPeekAtLastError: errors::hipPeekAtLastError,
    hipGetErrorName: errors::hipGetErrorName,
    hipGetErrorString: errors::hipGetErrorString,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonexistent_paths_give_library_not_found_naming_libcudart() {
        let cudart =
            vec!["/nonexistent/amdgpu-rs/libcudart.so.13".to_owned(), "libcudart-does-not-exist.so.99".to_owned()];
        let err = load_from(&cudart, &libcuda_candidates()).expect_err("nothing loads");
        let BackendError::LibraryNotFound { library, tried, .. } = &err else {
            panic!("expected LibraryNotFound, got {err:?}");
        };
        assert_eq!(library, "libcudart");
        assert_eq!(tried.len(), cudart.len());
        let message = err.to_string();
        for p in &cudart {
            assert!(message.contains(p.as_str()), "{message} names {p}");
        }
        assert!(message.contains("LD_LIBRARY_PATH"), "{message}");
        assert!(message.contains("AMDGPU_BACKEND=sim"), "{message}");
    }

    #[test]
    fn library_without_cuda_symbols_gives_symbol_missing() {
        let err = load_from(&["libm.so.6".to_owned()], &[]).expect_err("libm is not CUDA");
        let BackendError::SymbolMissing { library, symbol, .. } = &err else {
            panic!("expected SymbolMissing, got {err:?}");
        };
        assert_eq!(library, "libm.so.6");
        assert_eq!(symbol, Cudart::SYMBOLS[0]);
    }

    #[test]
    fn candidates_try_cuda_13_then_12_then_unversioned() {
        let c = cudart_candidates();
        assert_eq!(&c[..3], ["libcudart.so.13", "libcudart.so.12", "libcudart.so"]);
        assert!(c[3..].iter().all(|p| p.starts_with("/usr/local/cuda/lib64/")));
        assert_eq!(libcuda_candidates()[0], "libcuda.so.1");
    }

    #[test]
    fn driver_symbols_use_the_versioned_names() {
        for name in [
            "cuDeviceTotalMem_v2",
            "cuCtxPushCurrent_v2",
            "cuCtxPopCurrent_v2",
            "cuDevicePrimaryCtxRelease_v2",
            "cuMemsetD32_v2",
        ] {
            assert!(Driver::SYMBOLS.contains(&name), "{name}");
        }
        assert!(!Driver::SYMBOLS.iter().any(|s| s.ends_with("_ptsz") || s.ends_with("_ptds")));
    }
}
