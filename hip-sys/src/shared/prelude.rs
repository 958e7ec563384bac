//! The portable kernel prelude: headers passed by name to every
//! compilation, so that one HIP source compiles with AMD's hipRTC (ROCm 5.x
//! to 7.x) and with NVRTC.
//!
//! | include name | hipRTC (AMD) | NVRTC |
//! |---|---|---|
//! | `hip/hip_runtime.h` | HIP's older index names (`hipThreadIdx_x`, ...), `HIP_DYNAMIC_SHARED`, the fixed-width integers (gone from hipRTC's globals in ROCm 7.0) | the same, plus HIP's mask-less shuffles (`__shfl`, `__shfl_up`, `__shfl_down`, `__shfl_xor`, with width) and votes (`__ballot`, 64 bits wide, `__any`, `__all`) over the active lanes, and `__lane_id` |
//! | `hip/hip_cooperative_groups.h` | the thread block: `this_thread_block`, `sync`, `thread_rank`, `size`, the indices | the same |
//! | `type_traits` | (hipRTC's own) | constants, `is_same`, the type categories, the cv and reference edits, `enable_if`, `conditional`, `decay`, with `_t` and `_v` forms |
//! | `limits` | (hipRTC's own) | `numeric_limits` of the arithmetic types |
//!
//! What both compilers already spell alike is theirs: `__global__`,
//! `__device__`, `__shared__`, `threadIdx`/`blockIdx`/`blockDim`/`gridDim`,
//! `warpSize` (read at run time: 64 on CDNA, 32 on RDNA in wave32 and on
//! NVIDIA), `__syncthreads`, `__threadfence`, the atomics (`atomicAdd`,
//! `atomicCAS`, `atomicExch`, `atomicMin`, `atomicMax` on 32 and 64 bits),
//! the bit intrinsics (`__popc`, `__clz`, `__ffs`, `__brev` and their `ll`
//! forms), the math functions, `__launch_bounds__`, templates and name
//! expressions. A header of the same name passed with the program wins
//! over the prelude's.
//!
//! Not portable through it: wavefront-size assumptions (a `__ballot`'s
//! upper 32 bits, 64-lane shuffles), AMD's DPP and `__builtin_amdgcn_*`
//! intrinsics, CUDA's `_sync` intrinsics with explicit masks on AMD,
//! grid-wide and multi-grid cooperative groups and tiled partitions,
//! inline assembly, texture objects, and the C++ standard library
//! beyond the two headers above (hipRTC on ROCm 5.x may find the host's
//! libstdc++ headers, whose `<cstdint>` and `<type_traits>` conflict with
//! its own definitions).

use super::compiler::CompilerKind;

/// A header given to the compiler by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The name a source includes it by (`hip/hip_runtime.h`).
    pub name: &'static str,
    /// Its text.
    pub text: &'static str,
}

/// The thread-block part of cooperative groups, the same on both.
const COOPERATIVE_GROUPS: Header =
    Header { name: "hip/hip_cooperative_groups.h", text: include_str!("prelude/hip_cooperative_groups.h") };

// Each compiler's hip/hip_runtime.h is the part both share, then its own,
// in one text: hipRTC 5.x finds no named header from inside another.
const AMD: &[Header] = &[
    Header {
        name: "hip/hip_runtime.h",
        text: concat!(include_str!("prelude/portable.h"), include_str!("prelude/hip_runtime_amd.h")),
    },
    COOPERATIVE_GROUPS,
];

const NVRTC: &[Header] = &[
    Header {
        name: "hip/hip_runtime.h",
        text: concat!(include_str!("prelude/portable.h"), include_str!("prelude/hip_runtime_nvrtc.h")),
    },
    COOPERATIVE_GROUPS,
    Header { name: "type_traits", text: include_str!("prelude/type_traits_nvrtc.h") },
    Header { name: "limits", text: include_str!("prelude/limits_nvrtc.h") },
];

/// The prelude's headers for the compiler `kind` (none for the
/// simulator's, which compiles nothing).
pub fn prelude(kind: CompilerKind) -> &'static [Header] {
    match kind {
        CompilerKind::Hiprtc => AMD,
        CompilerKind::Nvrtc => NVRTC,
        CompilerKind::Sim => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_compiler_that_compiles_gets_hip_runtime_h() {
        for kind in [CompilerKind::Hiprtc, CompilerKind::Nvrtc] {
            let headers = prelude(kind);
            assert_eq!(headers[0].name, "hip/hip_runtime.h");
            assert!(headers[0].text.contains("HIP_DYNAMIC_SHARED") && headers[0].text.contains("uint64_t"));
            assert!(headers.iter().all(|h| !h.text.contains('\0')), "headers become C strings");
        }
        assert!(prelude(CompilerKind::Sim).is_empty());
    }
}
