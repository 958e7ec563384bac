//! Error codes: CUDA's to HIP's and back, the thread's last error, and
//! the names of codes.
//!
//! # Translation
//!
//! The three tables are those of HIP's NVIDIA header
//! (`hipCUDAErrorTohipError`, `hipCUResultTohipError`,
//! `hipErrorToCudaError`, identical in HIP 5.2 and hipother 6.x). Every
//! CUDA code they do not list becomes `hipErrorUnknown`, as in HIP; every
//! HIP code the last one does not list becomes `cudaErrorUnknown`.
//!
//! # The last error
//!
//! HIP (ROCm 7) and CUDA keep a per-thread last error that a failing call
//! sets, a successful one leaves alone, and `hipGetLastError` returns and
//! clears. The CUDA runtime keeps one only for runtime calls: driver calls
//! (modules, launches, contexts, `hipMemsetD32`) never reach it. So this
//! backend keeps its own, in a Rust thread-local:
//!
//! - every entry point of the table records its status there when it is
//!   neither `hipSuccess` nor `hipErrorNotReady` (ROCm 7: "neither
//!   hipSuccess nor hipErrorNotReady is considered an error"), whether a
//!   runtime or a driver call produced it;
//! - `hipGetLastError` takes (returns and clears) that value and also
//!   drains the runtime's own with `cudaGetLastError`, so an error is never
//!   reported twice. It returns the recorded value if there is one, else
//!   the runtime's (which then comes from a runtime call made outside this
//!   table on this thread, e.g. by a CUDA library);
//! - `hipPeekAtLastError` does the same with `cudaPeekAtLastError` and
//!   clears nothing.
//!
//! A sticky CUDA error (an illegal address, a failed launch) keeps coming
//! back from every later call, so it is recorded again after being read,
//! as on CUDA.
//!
//! # Names
//!
//! `hipGetErrorName` and `hipGetErrorString` return **HIP's** names and
//! descriptions (`"hipErrorInvalidValue"`, `"invalid argument"`), the
//! same as the simulator's (including its `"hipErrorUnknown"` for the
//! 6.3/7.x codes clr's own table lacks), not CUDA's as HIP's NVIDIA header does
//! (`cudaGetErrorName(hipErrorToCudaError(e))`, which gives
//! `"cudaErrorInvalidValue"`). The codes this table returns are HIP codes,
//! and messages that name the HIP code read the same on every backend;
//! they need no CUDA call, so they also work before CUDA is initialised.

use std::cell::Cell;
use std::ffi::c_char;

use super::{fns, CuResult, CudaError};
use crate::bindings::error_names::describe_as_hip as describe;
use crate::bindings::hip::hipError_t as E;

/// `hipCUDAErrorTohipError`: the runtime's codes HIP names, and the HIP
/// code for each. All keep their number; the names differ for some
/// (noted).
pub(crate) const CUDA_TO_HIP: &[(CudaError, E)] = &[
    (0, E::hipSuccess),
    (1, E::hipErrorInvalidValue),
    (2, E::hipErrorOutOfMemory),    // cudaErrorMemoryAllocation
    (3, E::hipErrorNotInitialized), // cudaErrorInitializationError
    (4, E::hipErrorDeinitialized),  // cudaErrorCudartUnloading
    (5, E::hipErrorProfilerDisabled),
    (6, E::hipErrorProfilerNotInitialized),
    (7, E::hipErrorProfilerAlreadyStarted),
    (8, E::hipErrorProfilerAlreadyStopped),
    (9, E::hipErrorInvalidConfiguration),
    (12, E::hipErrorInvalidPitchValue),
    (13, E::hipErrorInvalidSymbol),
    (17, E::hipErrorInvalidDevicePointer),
    (21, E::hipErrorInvalidMemcpyDirection),
    (35, E::hipErrorInsufficientDriver),
    (52, E::hipErrorMissingConfiguration),
    (53, E::hipErrorPriorLaunchFailure),
    (98, E::hipErrorInvalidDeviceFunction),
    (100, E::hipErrorNoDevice),
    (101, E::hipErrorInvalidDevice),
    (200, E::hipErrorInvalidImage),   // cudaErrorInvalidKernelImage
    (201, E::hipErrorInvalidContext), // cudaErrorDeviceUninitialized
    (205, E::hipErrorMapFailed),      // cudaErrorMapBufferObjectFailed
    (206, E::hipErrorUnmapFailed),    // cudaErrorUnmapBufferObjectFailed
    (207, E::hipErrorArrayIsMapped),
    (208, E::hipErrorAlreadyMapped),
    (209, E::hipErrorNoBinaryForGpu), // cudaErrorNoKernelImageForDevice
    (210, E::hipErrorAlreadyAcquired),
    (211, E::hipErrorNotMapped),
    (212, E::hipErrorNotMappedAsArray),
    (213, E::hipErrorNotMappedAsPointer),
    (214, E::hipErrorECCNotCorrectable), // cudaErrorECCUncorrectable
    (215, E::hipErrorUnsupportedLimit),
    (216, E::hipErrorContextAlreadyInUse), // cudaErrorDeviceAlreadyInUse
    (217, E::hipErrorPeerAccessUnsupported),
    (218, E::hipErrorInvalidKernelFile), // cudaErrorInvalidPtx
    (219, E::hipErrorInvalidGraphicsContext),
    (300, E::hipErrorInvalidSource),
    (301, E::hipErrorFileNotFound),
    (302, E::hipErrorSharedObjectSymbolNotFound),
    (303, E::hipErrorSharedObjectInitFailed),
    (304, E::hipErrorOperatingSystem),
    (400, E::hipErrorInvalidHandle), // cudaErrorInvalidResourceHandle
    (401, E::hipErrorIllegalState),
    (500, E::hipErrorNotFound), // cudaErrorSymbolNotFound
    (600, E::hipErrorNotReady),
    (700, E::hipErrorIllegalAddress),
    (701, E::hipErrorLaunchOutOfResources),
    (702, E::hipErrorLaunchTimeOut),
    (704, E::hipErrorPeerAccessAlreadyEnabled),
    (705, E::hipErrorPeerAccessNotEnabled),
    (708, E::hipErrorSetOnActiveProcess),
    (709, E::hipErrorContextIsDestroyed),
    (710, E::hipErrorAssert),
    (712, E::hipErrorHostMemoryAlreadyRegistered),
    (713, E::hipErrorHostMemoryNotRegistered),
    (719, E::hipErrorLaunchFailure),
    (720, E::hipErrorCooperativeLaunchTooLarge),
    (801, E::hipErrorNotSupported),
    (900, E::hipErrorStreamCaptureUnsupported),
    (901, E::hipErrorStreamCaptureInvalidated),
    (902, E::hipErrorStreamCaptureMerge),
    (903, E::hipErrorStreamCaptureUnmatched),
    (904, E::hipErrorStreamCaptureUnjoined),
    (905, E::hipErrorStreamCaptureIsolation),
    (906, E::hipErrorStreamCaptureImplicit),
    (907, E::hipErrorCapturedEvent),
    (908, E::hipErrorStreamCaptureWrongThread),
    (910, E::hipErrorGraphExecUpdateFailure),
    (999, E::hipErrorUnknown),
];

/// `hipCUResultTohipError`: the driver's codes HIP names, and the HIP code
/// for each. All keep their number as well.
pub(crate) const CU_TO_HIP: &[(CuResult, E)] = &[
    (0, E::hipSuccess),
    (1, E::hipErrorInvalidValue),
    (2, E::hipErrorOutOfMemory),
    (3, E::hipErrorNotInitialized),
    (4, E::hipErrorDeinitialized),
    (5, E::hipErrorProfilerDisabled),
    (6, E::hipErrorProfilerNotInitialized),
    (7, E::hipErrorProfilerAlreadyStarted),
    (8, E::hipErrorProfilerAlreadyStopped),
    (100, E::hipErrorNoDevice),
    (101, E::hipErrorInvalidDevice),
    (200, E::hipErrorInvalidImage),
    (201, E::hipErrorInvalidContext),
    (202, E::hipErrorContextAlreadyCurrent),
    (205, E::hipErrorMapFailed),
    (206, E::hipErrorUnmapFailed),
    (207, E::hipErrorArrayIsMapped),
    (208, E::hipErrorAlreadyMapped),
    (209, E::hipErrorNoBinaryForGpu),
    (210, E::hipErrorAlreadyAcquired),
    (211, E::hipErrorNotMapped),
    (212, E::hipErrorNotMappedAsArray),
    (213, E::hipErrorNotMappedAsPointer),
    (214, E::hipErrorECCNotCorrectable),
    (215, E::hipErrorUnsupportedLimit),
    (216, E::hipErrorContextAlreadyInUse),
    (217, E::hipErrorPeerAccessUnsupported),
    (218, E::hipErrorInvalidKernelFile), // CUDA_ERROR_INVALID_PTX
    (219, E::hipErrorInvalidGraphicsContext),
    (300, E::hipErrorInvalidSource),
    (301, E::hipErrorFileNotFound),
    (302, E::hipErrorSharedObjectSymbolNotFound),
    (303, E::hipErrorSharedObjectInitFailed),
    (304, E::hipErrorOperatingSystem),
    (400, E::hipErrorInvalidHandle),
    (401, E::hipErrorIllegalState),
    (500, E::hipErrorNotFound),
    (600, E::hipErrorNotReady),
    (700, E::hipErrorIllegalAddress),
    (701, E::hipErrorLaunchOutOfResources),
    (702, E::hipErrorLaunchTimeOut),
    (704, E::hipErrorPeerAccessAlreadyEnabled),
    (705, E::hipErrorPeerAccessNotEnabled),
    (708, E::hipErrorSetOnActiveProcess), // CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE
    (709, E::hipErrorContextIsDestroyed),
    (710, E::hipErrorAssert),
    (712, E::hipErrorHostMemoryAlreadyRegistered),
    (713, E::hipErrorHostMemoryNotRegistered),
    (719, E::hipErrorLaunchFailure), // CUDA_ERROR_LAUNCH_FAILED
    (720, E::hipErrorCooperativeLaunchTooLarge),
    (801, E::hipErrorNotSupported),
    (900, E::hipErrorStreamCaptureUnsupported),
    (901, E::hipErrorStreamCaptureInvalidated),
    (902, E::hipErrorStreamCaptureMerge),
    (903, E::hipErrorStreamCaptureUnmatched),
    (904, E::hipErrorStreamCaptureUnjoined),
    (905, E::hipErrorStreamCaptureIsolation),
    (906, E::hipErrorStreamCaptureImplicit),
    (907, E::hipErrorCapturedEvent),
    (908, E::hipErrorStreamCaptureWrongThread),
    (910, E::hipErrorGraphExecUpdateFailure),
    (999, E::hipErrorUnknown),
];

/// `hipErrorToCudaError`: the HIP codes HIP maps to a runtime code.
pub(crate) const HIP_TO_CUDA: &[(E, CudaError)] = &[
    (E::hipSuccess, 0),
    (E::hipErrorInvalidValue, 1),
    (E::hipErrorOutOfMemory, 2),
    (E::hipErrorNotInitialized, 3),
    (E::hipErrorDeinitialized, 4),
    (E::hipErrorProfilerDisabled, 5),
    (E::hipErrorProfilerNotInitialized, 6),
    (E::hipErrorProfilerAlreadyStarted, 7),
    (E::hipErrorProfilerAlreadyStopped, 8),
    (E::hipErrorInvalidConfiguration, 9),
    (E::hipErrorInvalidPitchValue, 12),
    (E::hipErrorInvalidSymbol, 13),
    (E::hipErrorInvalidDevicePointer, 17),
    (E::hipErrorInvalidMemcpyDirection, 21),
    (E::hipErrorInsufficientDriver, 35),
    (E::hipErrorMissingConfiguration, 52),
    (E::hipErrorPriorLaunchFailure, 53),
    (E::hipErrorInvalidDeviceFunction, 98),
    (E::hipErrorNoDevice, 100),
    (E::hipErrorInvalidDevice, 101),
    (E::hipErrorInvalidImage, 200),
    (E::hipErrorInvalidContext, 201),
    (E::hipErrorMapFailed, 205),
    (E::hipErrorUnmapFailed, 206),
    (E::hipErrorArrayIsMapped, 207),
    (E::hipErrorAlreadyMapped, 208),
    (E::hipErrorNoBinaryForGpu, 209),
    (E::hipErrorAlreadyAcquired, 210),
    (E::hipErrorNotMapped, 211),
    (E::hipErrorNotMappedAsArray, 212),
    (E::hipErrorNotMappedAsPointer, 213),
    (E::hipErrorECCNotCorrectable, 214),
    (E::hipErrorUnsupportedLimit, 215),
    (E::hipErrorContextAlreadyInUse, 216),
    (E::hipErrorPeerAccessUnsupported, 217),
    (E::hipErrorInvalidKernelFile, 218),
    (E::hipErrorInvalidGraphicsContext, 219),
    (E::hipErrorInvalidSource, 300),
    (E::hipErrorFileNotFound, 301),
    (E::hipErrorSharedObjectSymbolNotFound, 302),
    (E::hipErrorSharedObjectInitFailed, 303),
    (E::hipErrorOperatingSystem, 304),
    (E::hipErrorInvalidHandle, 400),
    (E::hipErrorIllegalState, 401),
    (E::hipErrorNotFound, 500),
    (E::hipErrorNotReady, 600),
    (E::hipErrorIllegalAddress, 700),
    (E::hipErrorLaunchOutOfResources, 701),
    (E::hipErrorLaunchTimeOut, 702),
    (E::hipErrorPeerAccessAlreadyEnabled, 704),
    (E::hipErrorPeerAccessNotEnabled, 705),
    (E::hipErrorSetOnActiveProcess, 708),
    (E::hipErrorContextIsDestroyed, 709),
    (E::hipErrorAssert, 710),
    (E::hipErrorHostMemoryAlreadyRegistered, 712),
    (E::hipErrorHostMemoryNotRegistered, 713),
    (E::hipErrorLaunchFailure, 719),
    (E::hipErrorCooperativeLaunchTooLarge, 720),
    (E::hipErrorNotSupported, 801),
    (E::hipErrorStreamCaptureUnsupported, 900),
    (E::hipErrorStreamCaptureInvalidated, 901),
    (E::hipErrorStreamCaptureMerge, 902),
    (E::hipErrorStreamCaptureUnmatched, 903),
    (E::hipErrorStreamCaptureUnjoined, 904),
    (E::hipErrorStreamCaptureIsolation, 905),
    (E::hipErrorStreamCaptureImplicit, 906),
    (E::hipErrorCapturedEvent, 907),
    (E::hipErrorStreamCaptureWrongThread, 908),
    (E::hipErrorGraphExecUpdateFailure, 910),
];

/// `cudaErrorUnknown`.
pub const CUDA_ERROR_UNKNOWN: CudaError = 999;

/// A CUDA runtime status (`cudaError_t`) as HIP's NVIDIA header translates
/// it (`hipCUDAErrorTohipError`); unlisted codes become `hipErrorUnknown`.
///
/// Inline, so that success (every call on the hot paths) costs a compare
/// and not a call; failures look the table up out of line.
#[inline]
pub fn cuda_error_to_hip(code: CudaError) -> E {
    if code == 0 {
        return E::hipSuccess;
    }
    cuda_failure_to_hip(code)
}

#[cold]
fn cuda_failure_to_hip(code: CudaError) -> E {
    CUDA_TO_HIP.iter().find(|(c, _)| *c == code).map_or(E::hipErrorUnknown, |(_, h)| *h)
}

/// A CUDA driver status (`CUresult`) as HIP's NVIDIA header translates it
/// (`hipCUResultTohipError`); unlisted codes become `hipErrorUnknown`.
///
/// Inline on success, as [`cuda_error_to_hip`].
#[inline]
pub fn cu_result_to_hip(code: CuResult) -> E {
    if code == 0 {
        return E::hipSuccess;
    }
    cu_failure_to_hip(code)
}

#[cold]
fn cu_failure_to_hip(code: CuResult) -> E {
    CU_TO_HIP.iter().find(|(c, _)| *c == code).map_or(E::hipErrorUnknown, |(_, h)| *h)
}

/// A HIP status as the CUDA runtime code HIP's NVIDIA header gives it
/// (`hipErrorToCudaError`); unlisted codes (among them
/// `hipErrorRuntimeMemory`, `hipErrorRuntimeOther`, `hipErrorTbd`,
/// `hipErrorContextAlreadyCurrent`) become `cudaErrorUnknown` (999).
pub fn hip_to_cuda_error(error: E) -> CudaError {
    HIP_TO_CUDA.iter().find(|(h, _)| *h == error).map_or(CUDA_ERROR_UNKNOWN, |(_, c)| *c)
}

thread_local! {
    /// The thread's last error, as recorded by this backend's entry points.
    static LAST_ERROR: Cell<E> = const { Cell::new(E::hipSuccess) };
}

/// Record `status` as the thread's last error if it is one (not success,
/// not `hipErrorNotReady`).
pub(super) fn record_last_error(status: E) {
    if status != E::hipSuccess && status != E::hipErrorNotReady {
        // A thread being torn down has no last error to keep.
        let _ = LAST_ERROR.try_with(|l| l.set(status));
    }
}

/// The recorded error if there is one, else the runtime's.
fn combine(recorded: E, runtime: E) -> E {
    if recorded != E::hipSuccess {
        recorded
    } else {
        runtime
    }
}

pub(super) unsafe extern "C" fn hipGetLastError() -> E {
    let recorded = LAST_ERROR.try_with(|l| l.replace(E::hipSuccess)).unwrap_or(E::hipSuccess);
    let runtime = fns().map_or(E::hipSuccess, |f| {
        // SAFETY: a function of the loaded runtime, taking no arguments.
        cuda_error_to_hip(unsafe { (f.rt.cudaGetLastError)() })
    });
    combine(recorded, runtime)
}

pub(super) unsafe extern "C" fn hipPeekAtLastError() -> E {
    let recorded = LAST_ERROR.try_with(Cell::get).unwrap_or(E::hipSuccess);
    let runtime = fns().map_or(E::hipSuccess, |f| {
        // SAFETY: a function of the loaded runtime, taking no arguments.
        cuda_error_to_hip(unsafe { (f.rt.cudaPeekAtLastError)() })
    });
    combine(recorded, runtime)
}

pub(super) unsafe extern "C" fn hipGetErrorName(error: E) -> *const c_char {
    describe(error).map_or(c"hipErrorUnknown".as_ptr(), |(name, _)| name.as_ptr())
}

pub(super) unsafe extern "C" fn hipGetErrorString(error: E) -> *const c_char {
    describe(error).map_or(c"unknown error".as_ptr(), |(_, text)| text.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `cudaError_t` value of CUDA 12.9's `driver_types.h`.
    const ALL_CUDA_ERRORS: &[CudaError] = &[
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 31, 32, 34, 35, 36,
        37, 43, 44, 45, 46, 49, 52, 53, 65, 66, 67, 68, 69, 98, 100, 101, 102, 103, 127, 200, 201, 205, 206, 207, 208,
        209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 300, 301, 302, 303,
        304, 400, 401, 402, 500, 600, 700, 701, 702, 703, 704, 705, 708, 709, 710, 711, 712, 713, 714, 715, 716, 717,
        718, 719, 720, 721, 800, 801, 802, 803, 804, 805, 806, 807, 808, 809, 810, 811, 812, 900, 901, 902, 903, 904,
        905, 906, 907, 908, 909, 910, 911, 912, 913, 914, 915, 999, 10000,
    ];

    /// Every `CUresult` value of CUDA 12.9's `cuda.h`.
    const ALL_CU_RESULTS: &[CuResult] = &[
        0, 1, 2, 3, 4, 5, 6, 7, 8, 34, 46, 100, 101, 102, 200, 201, 202, 205, 206, 207, 208, 209, 210, 211, 212, 213,
        214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 300, 301, 302, 303, 304, 400, 401, 402, 500,
        600, 700, 701, 702, 703, 704, 705, 708, 709, 710, 711, 712, 713, 714, 715, 716, 717, 718, 719, 720, 721, 800,
        801, 802, 803, 804, 805, 806, 807, 808, 809, 810, 811, 812, 900, 901, 902, 903, 904, 905, 906, 907, 908, 909,
        910, 911, 912, 913, 914, 915, 916, 999,
    ];

    #[test]
    fn known_cuda_runtime_codes_translate() {
        assert_eq!(cuda_error_to_hip(0), E::hipSuccess);
        assert_eq!(cuda_error_to_hip(2), E::hipErrorOutOfMemory);
        assert_eq!(cuda_error_to_hip(3), E::hipErrorNotInitialized);
        assert_eq!(cuda_error_to_hip(4), E::hipErrorDeinitialized);
        assert_eq!(cuda_error_to_hip(101), E::hipErrorInvalidDevice);
        assert_eq!(cuda_error_to_hip(200), E::hipErrorInvalidImage);
        assert_eq!(cuda_error_to_hip(201), E::hipErrorInvalidContext);
        assert_eq!(cuda_error_to_hip(209), E::hipErrorNoBinaryForGpu);
        assert_eq!(cuda_error_to_hip(216), E::hipErrorContextAlreadyInUse);
        assert_eq!(cuda_error_to_hip(218), E::hipErrorInvalidKernelFile);
        assert_eq!(cuda_error_to_hip(400), E::hipErrorInvalidHandle);
        assert_eq!(cuda_error_to_hip(500), E::hipErrorNotFound);
        assert_eq!(cuda_error_to_hip(600), E::hipErrorNotReady);
        assert_eq!(cuda_error_to_hip(700), E::hipErrorIllegalAddress);
    }

    #[test]
    fn known_cuda_driver_codes_translate() {
        assert_eq!(cu_result_to_hip(0), E::hipSuccess);
        assert_eq!(cu_result_to_hip(1), E::hipErrorInvalidValue);
        assert_eq!(cu_result_to_hip(3), E::hipErrorNotInitialized);
        assert_eq!(cu_result_to_hip(201), E::hipErrorInvalidContext);
        assert_eq!(cu_result_to_hip(202), E::hipErrorContextAlreadyCurrent);
        assert_eq!(cu_result_to_hip(218), E::hipErrorInvalidKernelFile);
        assert_eq!(cu_result_to_hip(400), E::hipErrorInvalidHandle);
        assert_eq!(cu_result_to_hip(500), E::hipErrorNotFound);
        assert_eq!(cu_result_to_hip(708), E::hipErrorSetOnActiveProcess);
        assert_eq!(cu_result_to_hip(719), E::hipErrorLaunchFailure);
    }

    #[test]
    fn unlisted_cuda_codes_become_unknown() {
        for &code in ALL_CUDA_ERRORS {
            if !CUDA_TO_HIP.iter().any(|(c, _)| *c == code) {
                assert_eq!(cuda_error_to_hip(code), E::hipErrorUnknown, "cudaError_t {code}");
            }
        }
        for &code in ALL_CU_RESULTS {
            if !CU_TO_HIP.iter().any(|(c, _)| *c == code) {
                assert_eq!(cu_result_to_hip(code), E::hipErrorUnknown, "CUresult {code}");
            }
        }
        // The examples of hip_semantics §5, and values no CUDA defines.
        for code in [714, 715, 716, 717, 718, 800, 909, 34, -1, 12345] {
            assert_eq!(cuda_error_to_hip(code), E::hipErrorUnknown, "{code}");
            assert_eq!(cu_result_to_hip(code), E::hipErrorUnknown, "{code}");
        }
    }

    #[test]
    fn tables_list_only_real_cuda_codes() {
        for (c, _) in CUDA_TO_HIP {
            assert!(ALL_CUDA_ERRORS.contains(c), "cudaError_t {c}");
        }
        for (c, _) in CU_TO_HIP {
            assert!(ALL_CU_RESULTS.contains(c), "CUresult {c}");
        }
    }

    #[test]
    fn hip_codes_translate_back_to_cuda() {
        assert_eq!(hip_to_cuda_error(E::hipSuccess), 0);
        assert_eq!(hip_to_cuda_error(E::hipErrorOutOfMemory), 2);
        assert_eq!(hip_to_cuda_error(E::hipErrorInvalidHandle), 400);
        assert_eq!(hip_to_cuda_error(E::hipErrorInvalidKernelFile), 218);
        for unlisted in [
            E::hipErrorUnknown,
            E::hipErrorRuntimeMemory,
            E::hipErrorRuntimeOther,
            E::hipErrorTbd,
            E::hipErrorContextAlreadyCurrent,
            E(123_456),
        ] {
            assert_eq!(hip_to_cuda_error(unlisted), CUDA_ERROR_UNKNOWN, "{unlisted:?}");
        }
    }

    #[test]
    fn codes_hip_maps_one_to_one_round_trip() {
        for &(hip, cuda) in HIP_TO_CUDA {
            assert_eq!(cuda_error_to_hip(cuda), hip, "{hip:?} -> {cuda}");
        }
        for &(cuda, hip) in CUDA_TO_HIP {
            if hip != E::hipErrorUnknown {
                assert_eq!(hip_to_cuda_error(hip), cuda, "{cuda} -> {hip:?}");
            }
        }
    }

    #[test]
    fn last_error_keeps_the_latest_failure_until_read() {
        std::thread::spawn(|| {
            record_last_error(E::hipErrorInvalidValue);
            record_last_error(E::hipSuccess);
            record_last_error(E::hipErrorNotReady);
            assert_eq!(LAST_ERROR.with(Cell::get), E::hipErrorInvalidValue);
            record_last_error(E::hipErrorInvalidContext);
            // No CUDA is loaded in unit tests: the runtime's part is clear.
            // SAFETY: takes no arguments.
            assert_eq!(unsafe { hipPeekAtLastError() }, E::hipErrorInvalidContext);
            // SAFETY: as above.
            assert_eq!(unsafe { hipGetLastError() }, E::hipErrorInvalidContext);
            // SAFETY: as above.
            assert_eq!(unsafe { hipGetLastError() }, E::hipSuccess);
        })
        .join()
        .expect("thread");
    }

    #[test]
    fn error_names_are_hips() {
        // SAFETY: the returned pointers are static NUL-terminated strings.
        let name = |e| unsafe { std::ffi::CStr::from_ptr(hipGetErrorName(e)) };
        // SAFETY: as above.
        let text = |e| unsafe { std::ffi::CStr::from_ptr(hipGetErrorString(e)) };
        assert_eq!(name(E::hipErrorInvalidValue), c"hipErrorInvalidValue");
        assert_eq!(name(E::hipSuccess), c"hipSuccess");
        assert_eq!(text(E::hipErrorOutOfMemory), c"out of memory");
        assert_eq!(name(E(4242)), c"hipErrorUnknown");
    }
}
