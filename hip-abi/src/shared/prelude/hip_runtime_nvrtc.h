// hip/hip_runtime.h for NVRTC: amdgpu-rs's portable kernel prelude.
//
// The kernel-side names of HIP that CUDA spells otherwise or not at all,
// so that the same HIP kernel source compiles with hipRTC on AMD (whose
// prelude is hip_runtime_amd.h) and with NVRTC: what both add alike
// (portable.h, before this text: HIP's older index names, HIP_DYNAMIC_SHARED, the
// fixed-width integer types), and HIP's mask-less shuffles and votes,
// which CUDA removed for sm_70 and later. Everything
// CUDA spells the same way (__global__, __device__, __shared__,
// __syncthreads, atomicAdd, threadIdx, warpSize, ...) is NVRTC's own.
#pragma once

#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1
#define __HIPCC_RTC__ 1

#define __launch_bounds_hip__(...) __launch_bounds__(__VA_ARGS__)

// The `_sync` warp intrinsics with explicit masks are CUDA's own.
#define AMDGPU_RS_WARP_SYNC 1

// HIP's lane index within the warp.
__device__ inline unsigned int __lane_id() {
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

// HIP's shuffles and votes take no mask: they act among the lanes that run
// the call, which on NVIDIA is the active mask. NVRTC still declares some
// of the mask-less names (deprecated, and refused by ptxas for sm_70 and
// later), so the prelude's versions are reached through macros.
template <typename T> __device__ inline T amdgpu_rs_shfl(T var, int src_lane, int width = warpSize) {
    return __shfl_sync(__activemask(), var, src_lane, width);
}
template <typename T> __device__ inline T amdgpu_rs_shfl_up(T var, unsigned int delta, int width = warpSize) {
    return __shfl_up_sync(__activemask(), var, delta, width);
}
template <typename T> __device__ inline T amdgpu_rs_shfl_down(T var, unsigned int delta, int width = warpSize) {
    return __shfl_down_sync(__activemask(), var, delta, width);
}
template <typename T> __device__ inline T amdgpu_rs_shfl_xor(T var, int lane_mask, int width = warpSize) {
    return __shfl_xor_sync(__activemask(), var, lane_mask, width);
}
// __ballot is 64 bits wide on every platform (AMD's wavefronts have 64
// lanes); on NVIDIA the upper half is 0.
__device__ inline unsigned long long amdgpu_rs_ballot(int predicate) {
    return static_cast<unsigned long long>(__ballot_sync(__activemask(), predicate));
}
__device__ inline int amdgpu_rs_any(int predicate) { return __any_sync(__activemask(), predicate); }
__device__ inline int amdgpu_rs_all(int predicate) { return __all_sync(__activemask(), predicate); }
#define __shfl(...) amdgpu_rs_shfl(__VA_ARGS__)
#define __shfl_up(...) amdgpu_rs_shfl_up(__VA_ARGS__)
#define __shfl_down(...) amdgpu_rs_shfl_down(__VA_ARGS__)
#define __shfl_xor(...) amdgpu_rs_shfl_xor(__VA_ARGS__)
#define __ballot(predicate) amdgpu_rs_ballot(predicate)
#define __any(predicate) amdgpu_rs_any(predicate)
#define __all(predicate) amdgpu_rs_all(predicate)
