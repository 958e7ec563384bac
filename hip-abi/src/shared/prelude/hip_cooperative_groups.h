// hip/hip_cooperative_groups.h for hipRTC and NVRTC: the thread-block part
// of cooperative groups, from amdgpu-rs's portable kernel prelude.
//
// hipRTC 5.x and NVRTC cannot open a cooperative groups header of their
// own (hipRTC 5.x has none; NVRTC has no include path to CUDA's). This one
// covers the thread block (this_thread_block, sync, thread_rank, size and
// the indices), in the namespace HIP and CUDA both use; grid and
// multi-grid groups and tiled partitions are not portable through it, nor
// is `num_threads` (the thread block hipRTC 5.7 builds in has none).
#pragma once

// hipRTC of ROCm 6 and later builds AMD's own cooperative groups into its
// runtime header (whose include guard this is): use those there.
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H

namespace cooperative_groups {

class thread_block {
  public:
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned int thread_rank() const {
        return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    }
    __device__ unsigned int size() const { return blockDim.x * blockDim.y * blockDim.z; }
    __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
};

__device__ inline thread_block this_thread_block() { return thread_block(); }
__device__ inline void sync(const thread_block& block) { block.sync(); }

}  // namespace cooperative_groups

#endif  // HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H
