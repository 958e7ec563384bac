// hip/hip_runtime.h for NVRTC, built into amdgpu-rs's nvidia backend.
//
// The kernel-side names of the common HIP/CUDA subset, so that the same
// HIP kernel source compiles with hipRTC on AMD and with NVRTC on NVIDIA:
// thread and block indices and dimensions, __shared__, __syncthreads,
// atomics, HIP_DYNAMIC_SHARED, the fixed-width integer types. Everything
// CUDA spells the same way (__global__, __device__, __shared__,
// __syncthreads, atomicAdd, threadIdx, ...) is NVRTC's own.
#pragma once

#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1
#define __HIPCC_RTC__ 1

// Indices and dimensions, HIP's older spellings.
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

// Dynamic shared memory, sized by the launch.
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define __launch_bounds_hip__(...) __launch_bounds__(__VA_ARGS__)

// The fixed-width integer types hipRTC provides without <stdint.h>.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
