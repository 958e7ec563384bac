//! The CUDA table: the runtime and driver functions this backend calls,
//! resolved once when it loads, and where the process keeps them.

use super::types::{self, CuMemAccessDesc, CuMemAllocationProp, CudaMemLocation};
use super::{CuDevice, CuDevicePtr, CuResult, CudaError, Handle};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

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
        /// `cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)`
        cudaMallocManaged = "cudaMallocManaged": fn(*mut *mut c_void, usize, c_uint) -> CudaError;
        /// `cudaError_t cudaMemGetInfo(size_t *free, size_t *total)`
        cudaMemGetInfo = "cudaMemGetInfo": fn(*mut usize, *mut usize) -> CudaError;
        /// `cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)`; the
        /// handle is 64 bytes, as HIP's
        cudaIpcGetMemHandle = "cudaIpcGetMemHandle": fn(*mut crate::bindings::hip::hipIpcMemHandle_t, *mut c_void) -> CudaError;
        /// `cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)`
        cudaIpcOpenMemHandle = "cudaIpcOpenMemHandle": fn(*mut *mut c_void, crate::bindings::hip::hipIpcMemHandle_t, c_uint) -> CudaError;
        /// `cudaError_t cudaIpcCloseMemHandle(void *devPtr)`
        cudaIpcCloseMemHandle = "cudaIpcCloseMemHandle": fn(*mut c_void) -> CudaError;
        /// `cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)`
        cudaIpcGetEventHandle = "cudaIpcGetEventHandle": fn(*mut crate::bindings::hip::hipIpcEventHandle_t, Handle) -> CudaError;
        /// `cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)`
        cudaIpcOpenEventHandle = "cudaIpcOpenEventHandle": fn(*mut Handle, crate::bindings::hip::hipIpcEventHandle_t) -> CudaError;
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
        /// `CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)`
        cuDeviceGetAttribute = "cuDeviceGetAttribute": fn(*mut c_int, c_int, CuDevice) -> CuResult;
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
        /// `CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)` (`_v2`)
        cuMemGetAddressRange = "cuMemGetAddressRange_v2": fn(*mut CuDevicePtr, *mut usize, CuDevicePtr) -> CuResult;
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
        /// `CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
        /// unsigned int flags, CUstream hStream)` (CUDA 12.2 and later; the legacy-stream symbol)
        cuMemPrefetchAsync = "cuMemPrefetchAsync_v2": fn(CuDevicePtr, usize, CudaMemLocation, c_uint, Handle) -> CuResult;
        /// `CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
        /// CUmemLocation location)` (CUDA 12.2 and later)
        cuMemAdvise = "cuMemAdvise_v2": fn(CuDevicePtr, usize, c_int, CudaMemLocation) -> CuResult;
        /// `CUresult cuMemRangeGetAttribute(void *data, size_t dataSize,
        /// CUmem_range_attribute attribute, CUdeviceptr devPtr, size_t count)`
        cuMemRangeGetAttribute = "cuMemRangeGetAttribute": fn(*mut c_void, usize, c_int, CuDevicePtr, usize) -> CuResult;
        /// `CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
        /// CUdeviceptr addr, unsigned long long flags)`
        cuMemAddressReserve = "cuMemAddressReserve": fn(*mut CuDevicePtr, usize, usize, CuDevicePtr, u64) -> CuResult;
        /// `CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)`
        cuMemAddressFree = "cuMemAddressFree": fn(CuDevicePtr, usize) -> CuResult;
        /// `CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
        /// const CUmemAllocationProp *prop, unsigned long long flags)`
        cuMemCreate = "cuMemCreate": fn(*mut u64, usize, *const CuMemAllocationProp, u64) -> CuResult;
        /// `CUresult cuMemRelease(CUmemGenericAllocationHandle handle)`
        cuMemRelease = "cuMemRelease": fn(u64) -> CuResult;
        /// `CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
        /// CUmemGenericAllocationHandle handle, unsigned long long flags)`
        cuMemMap = "cuMemMap": fn(CuDevicePtr, usize, usize, u64, u64) -> CuResult;
        /// `CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)`
        cuMemUnmap = "cuMemUnmap": fn(CuDevicePtr, usize) -> CuResult;
        /// `CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
        /// size_t count)`
        cuMemSetAccess = "cuMemSetAccess": fn(CuDevicePtr, usize, *const CuMemAccessDesc, usize) -> CuResult;
        /// `CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location,
        /// CUdeviceptr ptr)`
        cuMemGetAccess = "cuMemGetAccess": fn(*mut u64, *const CudaMemLocation, CuDevicePtr) -> CuResult;
        /// `CUresult cuMemGetAllocationGranularity(size_t *granularity,
        /// const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option)`
        cuMemGetAllocationGranularity = "cuMemGetAllocationGranularity":
            fn(*mut usize, *const CuMemAllocationProp, c_int) -> CuResult;
        /// `CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
        /// CUmemGenericAllocationHandle handle)`
        cuMemGetAllocationPropertiesFromHandle = "cuMemGetAllocationPropertiesFromHandle":
            fn(*mut CuMemAllocationProp, u64) -> CuResult;
        /// `CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)`
        cuMemRetainAllocationHandle = "cuMemRetainAllocationHandle": fn(*mut u64, *mut c_void) -> CuResult;
        /// `CUresult cuMemExportToShareableHandle(void *shareableHandle,
        /// CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType,
        /// unsigned long long flags)`
        cuMemExportToShareableHandle = "cuMemExportToShareableHandle": fn(*mut c_void, u64, c_int, u64) -> CuResult;
        /// `CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
        /// void *osHandle, CUmemAllocationHandleType shHandleType)`
        cuMemImportFromShareableHandle = "cuMemImportFromShareableHandle": fn(*mut u64, *mut c_void, c_int) -> CuResult;
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

/// Keep `fns` for the rest of the process (the first load wins) and
/// return what is kept.
pub(crate) fn keep(fns: CudaFns) -> CudaFns {
    *FNS.get_or_init(|| fns)
}
