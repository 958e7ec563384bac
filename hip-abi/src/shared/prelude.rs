//! The portable kernel prelude: headers passed by name to every
//! compilation, so that one HIP source compiles with AMD's hipRTC (ROCm 5.x
//! to 7.x) and with NVRTC.
//!
//! | include name | hipRTC (AMD) | NVRTC |
//! |---|---|---|
//! | `hip/hip_runtime.h` | HIP's older index names (`hipThreadIdx_x`, ...), `HIP_DYNAMIC_SHARED`, the fixed-width integers (gone from hipRTC's globals in ROCm 7.0), a device `assert` that traps (hipRTC 5.x has none) | the same, plus HIP's mask-less shuffles (`__shfl`, `__shfl_up`, `__shfl_down`, `__shfl_xor`, with width) and votes (`__ballot`, 64 bits wide, `__any`, `__all`) over the active lanes, and `__lane_id` |
//! | `hip/hip_fp16.h` | before ROCm 6, nothing: hipRTC has `__half` built in and no such file; from 6, hipRTC's own | (none: NVRTC's `cuda_fp16.h` is not reachable by name; half precision is not portable through the prelude yet) |
//! | `hip/hip_cooperative_groups.h` | the thread block: `this_thread_block`, `sync`, `thread_rank`, `size`, the indices | the same |
//! | `type_traits` | before ROCm 7, what hipRTC lacks beside its own part of `std` (whose definitions the host's `<type_traits>` repeats, a "redefinition of 'integral_constant'"): the cv and reference edits, `conditional`, `decay`, the categories, the `_t` and `_v` forms; from ROCm 7, the host's header | constants, `is_same`, the type categories, the cv and reference edits, `enable_if`, `conditional`, `decay`, with `_t` and `_v` forms |
//! | `limits` | (the host's, which hipRTC finds) | `numeric_limits` of the arithmetic types |
//!
//! [`SURFACE`] is the one list of what a kernel may use on every compiler,
//! the simulator's included; [`surface_program`] uses all of it, and each
//! compiler's tests compile that program.
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
//! intrinsics, the `_sync` intrinsics with explicit masks where
//! `AMDGPU_RS_WARP_SYNC` is 0 (every prelude defines it: 1 under NVRTC,
//! under hipRTC from ROCm 6.2, and on the simulator as HIP 7; their masks
//! are 64-bit integers, as HIP requires), grid-wide and multi-grid cooperative groups and tiled partitions,
//! inline assembly, texture objects, and the C++ standard library
//! beyond the two headers above (hipRTC before ROCm 7 may find the host's
//! libstdc++ headers, whose `<cstdint>` conflicts with its own
//! definitions).

mod surface;
pub use surface::{surface_entry_at, surface_program, Provided, SURFACE};

use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::OnceLock;

use super::compiler::CompilerKind;
use crate::hiprtc::hiprtcResult;

/// A header given to the compiler by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    /// The name a source includes it by (`hip/hip_runtime.h`).
    pub name: &'static str,
    /// Its text.
    pub text: &'static str,
}

/// The thread-block part of cooperative groups, the same on both.
const COOPERATIVE_GROUPS: Header =
    Header { name: "hip/hip_cooperative_groups.h", text: include_str!("prelude/hip_cooperative_groups.h") };

/// The headers every compiler gets the same text of, the simulator's
/// compiler for the CPU included (after its own `hip/hip_runtime.h`).
pub const SHARED: &[Header] = &[COOPERATIVE_GROUPS];

// Each compiler's hip/hip_runtime.h is the part both share, then its own,
// in one text: hipRTC 5.x finds no named header from inside another.
const AMD: &[Header] = &[
    Header {
        name: "hip/hip_runtime.h",
        text: concat!(include_str!("prelude/portable.h"), include_str!("prelude/hip_runtime_amd.h")),
    },
    COOPERATIVE_GROUPS,
    Header { name: "hip/hip_fp16.h", text: include_str!("prelude/hip_fp16_hiprtc.h") },
    Header {
        name: "type_traits",
        text: concat!(
            include_str!("prelude/type_traits_hiprtc.h"),
            include_str!("prelude/type_traits_rest.h"),
            "#else\n#include_next <type_traits>\n#endif\n"
        ),
    },
];

const NVRTC: &[Header] = &[
    Header {
        name: "hip/hip_runtime.h",
        text: concat!(include_str!("prelude/portable.h"), include_str!("prelude/hip_runtime_nvrtc.h")),
    },
    COOPERATIVE_GROUPS,
    Header {
        name: "type_traits",
        text: concat!(include_str!("prelude/type_traits_nvrtc.h"), include_str!("prelude/type_traits_rest.h")),
    },
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

/// The prelude of `kind` as C strings, (include name, text), made once.
fn c_headers(kind: CompilerKind) -> &'static [(CString, CString)] {
    static AMD_C: OnceLock<Vec<(CString, CString)>> = OnceLock::new();
    static NVRTC_C: OnceLock<Vec<(CString, CString)>> = OnceLock::new();
    let cell = match kind {
        CompilerKind::Hiprtc => &AMD_C,
        CompilerKind::Nvrtc => &NVRTC_C,
        CompilerKind::Sim => return &[],
    };
    cell.get_or_init(|| {
        prelude(kind).iter().filter_map(|h| Some((CString::new(h.name).ok()?, CString::new(h.text).ok()?))).collect()
    })
}

/// The header arrays `hiprtcCreateProgram` takes, with the prelude in.
pub struct Headers {
    /// The texts: the caller's, then the prelude's it did not give.
    pub texts: Vec<*const c_char>,
    /// Their include names, in the same order.
    pub names: Vec<*const c_char>,
}

impl Headers {
    /// How many there are, as hipRTC counts them.
    pub fn count(&self) -> c_int {
        self.texts.len() as c_int
    }
}

/// The caller's `count` headers with the prelude of `kind` after them,
/// each prelude header unless the caller gives one of its name: what the
/// hipRTC tables of the amd and nvidia backends pass to the compiler, so
/// every program, from the safe API or the raw table, gets the prelude.
/// A null array, text or name is `HIPRTC_ERROR_INVALID_INPUT`.
///
/// # Safety
/// Non-null `texts` and `names` hold `count` entries each, and each
/// non-null name is NUL-terminated (hipRTC's contract).
pub unsafe fn with_prelude(
    kind: CompilerKind,
    count: c_int,
    texts: *const *const c_char,
    names: *const *const c_char,
) -> Result<Headers, hiprtcResult> {
    let count = usize::try_from(count).map_err(|_| hiprtcResult::HIPRTC_ERROR_INVALID_INPUT)?;
    if count > 0 && (texts.is_null() || names.is_null()) {
        return Err(hiprtcResult::HIPRTC_ERROR_INVALID_INPUT);
    }
    let prelude = c_headers(kind);
    let mut out =
        Headers { texts: Vec::with_capacity(count + prelude.len()), names: Vec::with_capacity(count + prelude.len()) };
    let mut given = vec![false; prelude.len()];
    for i in 0..count {
        // SAFETY: both arrays hold `count` entries (the caller's promise).
        let (text, name) = unsafe { (*texts.add(i), *names.add(i)) };
        if text.is_null() || name.is_null() {
            return Err(hiprtcResult::HIPRTC_ERROR_INVALID_INPUT);
        }
        // SAFETY: a non-null include name is NUL-terminated.
        let name_text = unsafe { CStr::from_ptr(name) };
        for (slot, (prelude_name, _)) in given.iter_mut().zip(prelude) {
            *slot |= name_text == prelude_name.as_c_str();
        }
        out.texts.push(text);
        out.names.push(name);
    }
    for ((name, text), _) in prelude.iter().zip(&given).filter(|(_, given)| !**given) {
        out.texts.push(text.as_ptr());
        out.names.push(name.as_ptr());
    }
    Ok(out)
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

    #[test]
    fn the_callers_headers_come_first_and_win_by_name() {
        let (text, name) = (c"#define MINE 1", c"hip/hip_runtime.h");
        let (texts, names) = ([text.as_ptr()], [name.as_ptr()]);
        // SAFETY: one entry each, NUL-terminated.
        let merged = unsafe { with_prelude(CompilerKind::Nvrtc, 1, texts.as_ptr(), names.as_ptr()) }.expect("valid");
        assert_eq!(merged.count() as usize, prelude(CompilerKind::Nvrtc).len(), "the caller's replaces one");
        assert_eq!(merged.texts[0], text.as_ptr());
        // SAFETY: the prelude's names are static C strings.
        let rest: Vec<&CStr> = merged.names[1..].iter().map(|n| unsafe { CStr::from_ptr(*n) }).collect();
        assert!(!rest.contains(&name), "no second hip/hip_runtime.h");
        // SAFETY: no arrays for no headers.
        let none = unsafe { with_prelude(CompilerKind::Hiprtc, 0, std::ptr::null(), std::ptr::null()) }.expect("valid");
        assert_eq!(none.count() as usize, prelude(CompilerKind::Hiprtc).len());
        let null = [std::ptr::null()];
        // SAFETY: one (null) entry each, which is refused.
        let refused = unsafe { with_prelude(CompilerKind::Nvrtc, 1, null.as_ptr(), names.as_ptr()) };
        assert!(matches!(refused, Err(hiprtcResult::HIPRTC_ERROR_INVALID_INPUT)));
        // SAFETY: a negative count is refused before any read.
        assert!(unsafe { with_prelude(CompilerKind::Nvrtc, -1, texts.as_ptr(), names.as_ptr()) }.is_err());
    }
}
