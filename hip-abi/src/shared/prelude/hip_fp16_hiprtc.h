// hip/hip_fp16.h for AMD's hipRTC, from amdgpu-rs's portable kernel
// prelude. hipRTC before ROCm 6 has half precision (__half, __half2 and
// their intrinsics) built in and no file of this name, so a kernel that
// includes it stopped there; from ROCm 6 the name is hipRTC's own.
#pragma once

#if defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR >= 6
#include_next <hip/hip_fp16.h>
#endif
