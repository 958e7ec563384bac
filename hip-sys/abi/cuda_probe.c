/*
 * The CUDA ABI facts the nvidia backend relies on, printed from CUDA's own
 * headers: struct sizes and field offsets, and the numbers of every enum
 * value the backend passes to CUDA. Its output for each CUDA version is
 * committed beside it (cuda-<version>.txt) and checked against the
 * backend's declarations by the unit tests of `backend::nvidia::abi`.
 *
 * Build and run against a CUDA include directory (only headers are read;
 * nothing is linked):
 *
 *     cc -I<cuda>/include hip-sys/abi/cuda_probe.c -o /tmp/cuda_probe
 *     /tmp/cuda_probe > hip-sys/abi/cuda-<major>.<minor>.txt
 *
 * Each line is `name value`. A name the headers lack is simply absent, so
 * an enum value CUDA removed shows as a missing line (the test then
 * requires the backend to know that version does not have it).
 */
#include <stddef.h>
#include <stdio.h>

#include <cuda.h>
#include <driver_types.h>

#define SIZE(T) printf("sizeof(%s) %zu\n", #T, sizeof(T))
#define OFFSET(T, F) printf("offsetof(%s.%s) %zu\n", #T, #F, offsetof(T, F))
#define VALUE(V) printf("%s %lld\n", #V, (long long)(V))

int main(void) {
    printf("CUDA_VERSION %d\n", CUDA_VERSION);

    /* Structs the backend declares (types.rs). */
    SIZE(struct cudaPointerAttributes);
    OFFSET(struct cudaPointerAttributes, type);
    OFFSET(struct cudaPointerAttributes, device);
    OFFSET(struct cudaPointerAttributes, devicePointer);
    OFFSET(struct cudaPointerAttributes, hostPointer);
    SIZE(struct cudaMemLocation);
    OFFSET(struct cudaMemLocation, type);
    OFFSET(struct cudaMemLocation, id);
    SIZE(struct cudaMemPoolProps);
    OFFSET(struct cudaMemPoolProps, allocType);
    OFFSET(struct cudaMemPoolProps, handleTypes);
    OFFSET(struct cudaMemPoolProps, location);
    OFFSET(struct cudaMemPoolProps, win32SecurityAttributes);
    OFFSET(struct cudaMemPoolProps, maxSize);
    OFFSET(struct cudaMemPoolProps, usage);
    OFFSET(struct cudaMemPoolProps, reserved);
    SIZE(CUmemAllocationProp);
    OFFSET(CUmemAllocationProp, type);
    OFFSET(CUmemAllocationProp, requestedHandleTypes);
    OFFSET(CUmemAllocationProp, location);
    OFFSET(CUmemAllocationProp, win32HandleMetaData);
    OFFSET(CUmemAllocationProp, allocFlags.compressionType);
    OFFSET(CUmemAllocationProp, allocFlags.gpuDirectRDMACapable);
    OFFSET(CUmemAllocationProp, allocFlags.usage);
    OFFSET(CUmemAllocationProp, allocFlags.reserved);
    SIZE(CUmemAccessDesc);
    OFFSET(CUmemAccessDesc, location);
    OFFSET(CUmemAccessDesc, flags);
    SIZE(CUmemGenericAllocationHandle);

    /* Scalar types the backend declares as Rust integers. */
    SIZE(CUdevice);
    SIZE(CUdeviceptr);
    SIZE(CUresult);
    SIZE(cudaError_t);
    SIZE(enum cudaDeviceAttr);

    /* Memory types (types.rs: memory_type_from_cuda). */
    VALUE(cudaMemoryTypeUnregistered);
    VALUE(cudaMemoryTypeHost);
    VALUE(cudaMemoryTypeDevice);
    VALUE(cudaMemoryTypeManaged);

    /* Values that pass through with HIP's numbers. */
    VALUE(cudaMemcpyHostToHost);
    VALUE(cudaMemcpyHostToDevice);
    VALUE(cudaMemcpyDeviceToHost);
    VALUE(cudaMemcpyDeviceToDevice);
    VALUE(cudaMemcpyDefault);
    VALUE(cudaStreamDefault);
    VALUE(cudaStreamNonBlocking);
    VALUE(cudaEventDefault);
    VALUE(cudaEventBlockingSync);
    VALUE(cudaEventDisableTiming);
    VALUE(cudaEventInterprocess);
    VALUE(cudaHostAllocDefault);
    VALUE(cudaHostAllocPortable);
    VALUE(cudaHostAllocMapped);
    VALUE(cudaHostAllocWriteCombined);
    VALUE(cudaMemPoolReuseFollowEventDependencies);
    VALUE(cudaMemPoolReuseAllowOpportunistic);
    VALUE(cudaMemPoolReuseAllowInternalDependencies);
    VALUE(cudaMemPoolAttrReleaseThreshold);
    VALUE(cudaMemPoolAttrReservedMemCurrent);
    VALUE(cudaMemPoolAttrReservedMemHigh);
    VALUE(cudaMemPoolAttrUsedMemCurrent);
    VALUE(cudaMemPoolAttrUsedMemHigh);
    VALUE(cudaMemAllocationTypeInvalid);
    VALUE(cudaMemAllocationTypePinned);
    VALUE(cudaMemHandleTypeNone);
    VALUE(cudaMemHandleTypePosixFileDescriptor);
    VALUE(cudaMemHandleTypeWin32);
    VALUE(cudaMemHandleTypeWin32Kmt);
    VALUE(cudaMemLocationTypeInvalid);
    VALUE(cudaMemLocationTypeDevice);
    /* hipHostRegister's flags, passed through (runtime.rs), and the host
     * function type of hipLaunchHostFunc. */
    VALUE(cudaHostRegisterDefault);
    VALUE(cudaHostRegisterPortable);
    VALUE(cudaHostRegisterMapped);
    VALUE(cudaHostRegisterIoMemory);
    VALUE(cudaHostRegisterReadOnly);
    /* Virtual memory (vmm.rs): HIP's numbers pass through. */
    VALUE(CU_MEM_ACCESS_FLAGS_PROT_NONE);
    VALUE(CU_MEM_ACCESS_FLAGS_PROT_READ);
    VALUE(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    VALUE(CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    VALUE(CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
    VALUE(CU_MEM_ALLOCATION_TYPE_PINNED);
    VALUE(CU_MEM_LOCATION_TYPE_DEVICE);
    VALUE(CU_MEM_HANDLE_TYPE_NONE);
    VALUE(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    /* Managed memory (managed.rs): HIP's numbers pass through. */
    VALUE(cudaMemAttachGlobal);
    VALUE(cudaMemAttachHost);
    VALUE(CU_MEM_LOCATION_TYPE_HOST);
    VALUE(CU_MEM_ADVISE_SET_READ_MOSTLY);
    VALUE(CU_MEM_ADVISE_UNSET_READ_MOSTLY);
    VALUE(CU_MEM_ADVISE_SET_PREFERRED_LOCATION);
    VALUE(CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION);
    VALUE(CU_MEM_ADVISE_SET_ACCESSED_BY);
    VALUE(CU_MEM_ADVISE_UNSET_ACCESSED_BY);
    VALUE(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY);
    VALUE(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION);
    VALUE(CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY);
    VALUE(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION);
    VALUE(CU_DEVICE_CPU);
    VALUE(cudaInvalidDeviceId);
    /* Device attributes only the driver names (attributes.rs: TO_DRIVER). */
    VALUE(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
    SIZE(cudaHostFn_t);

    /* Device attributes (attributes.rs: TO_CUDA). */
#define A(N) printf("cudaDevAttr%s %d\n", #N, (int)cudaDevAttr##N)
    A(MaxThreadsPerBlock);
    A(MaxBlockDimX);
    A(MaxBlockDimY);
    A(MaxBlockDimZ);
    A(MaxGridDimX);
    A(MaxGridDimY);
    A(MaxGridDimZ);
    A(MaxSharedMemoryPerBlock);
    A(TotalConstantMemory);
    A(WarpSize);
    A(MaxPitch);
    A(MaxRegistersPerBlock);
    A(ClockRate);
    A(TextureAlignment);
    A(GpuOverlap);
    A(MultiProcessorCount);
    A(KernelExecTimeout);
    A(Integrated);
    A(CanMapHostMemory);
    A(ComputeMode);
    A(MaxTexture1DWidth);
    A(MaxTexture2DWidth);
    A(MaxTexture2DHeight);
    A(MaxTexture3DWidth);
    A(MaxTexture3DHeight);
    A(MaxTexture3DDepth);
    A(SurfaceAlignment);
    A(ConcurrentKernels);
    A(EccEnabled);
    A(PciBusId);
    A(PciDeviceId);
    A(TccDriver);
    A(MemoryClockRate);
    A(GlobalMemoryBusWidth);
    A(L2CacheSize);
    A(MaxThreadsPerMultiProcessor);
    A(AsyncEngineCount);
    A(UnifiedAddressing);
    A(PciDomainId);
    A(TexturePitchAlignment);
    A(MaxTextureCubemapWidth);
    A(MaxSurface1DWidth);
    A(MaxTexture1DLinearWidth);
    A(ComputeCapabilityMajor);
    A(ComputeCapabilityMinor);
    A(MaxTexture1DMipmappedWidth);
    A(StreamPrioritiesSupported);
    A(GlobalL1CacheSupported);
    A(LocalL1CacheSupported);
    A(MaxSharedMemoryPerMultiprocessor);
    A(MaxRegistersPerMultiprocessor);
    A(ManagedMemory);
    A(IsMultiGpuBoard);
    A(MultiGpuBoardGroupID);
    A(HostNativeAtomicSupported);
    A(SingleToDoublePrecisionPerfRatio);
    A(PageableMemoryAccess);
    A(ConcurrentManagedAccess);
    A(ComputePreemptionSupported);
    A(CanUseHostPointerForRegisteredMem);
    A(CooperativeLaunch);
#if CUDA_VERSION < 13000
    A(CooperativeMultiDeviceLaunch);
#endif
    A(MaxSharedMemoryPerBlockOptin);
    A(PageableMemoryAccessUsesHostPageTables);
    A(DirectManagedMemAccessFromHost);
    A(MaxBlocksPerMultiprocessor);
    A(MaxPersistingL2CacheSize);
    A(MaxAccessPolicyWindowSize);
    A(ReservedSharedMemoryPerBlock);
    A(MemoryPoolsSupported);
#undef A
    return 0;
}
