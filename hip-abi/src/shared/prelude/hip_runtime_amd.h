// hip/hip_runtime.h for AMD's hipRTC: amdgpu-rs's portable kernel prelude.
//
// hipRTC compiles with its own runtime header built in (indices, atomics,
// shuffles, votes, math) and finds no hip/hip_runtime.h on disk, so a
// kernel that includes it stops there. This header is passed under that
// name and adds what hipRTC 5.x to 7.x lacks (portable.h, before this
// text), so the same source compiles with hipRTC and with NVRTC.
#pragma once

// The `_sync` warp intrinsics with explicit 64-bit masks: HIP's from
// ROCm 6.2 (hipRTC defines HIP_VERSION_MAJOR and _MINOR), unless
// HIP_DISABLE_WARP_SYNC_BUILTINS turns them off.
#if defined(HIP_VERSION_MAJOR) && (HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR) >= 602 && \
    !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)
#define AMDGPU_RS_WARP_SYNC 1
#else
#define AMDGPU_RS_WARP_SYNC 0
#endif

// hipRTC 5.x has no device assert of its own: a failed one traps, which
// faults the launch as HIP's own assert does.
#ifndef assert
#define assert(c) ((c) ? (void)0 : __builtin_trap())
#endif
