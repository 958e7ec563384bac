//! HIP's names and descriptions of its error codes, for every backend's
//! messages and for the `hipGetErrorName`/`hipGetErrorString` that the
//! simulator and the nvidia backend implement: one table, not a copy per
//! backend.

use crate::bindings::hip::hipError_t;
use std::ffi::CStr;

macro_rules! error_table {
    ($($name:ident => $text:literal,)*) => {
        /// HIP's name and description of `error`, if it is a known code:
        /// every `hipError_t` of HIP 5.7 through `hipErrorTbd` (1054), and
        /// the codes HIP 6.3 and 7.x added (911, 912, 914-916). The newest
        /// headers renumber `hipErrorTbd` to 1055 and give 1054 to
        /// `hipErrorInvalidClusterSize`; this table keeps the 5.7-7.0
        /// numbering of the bindings.
        pub fn describe(error: hipError_t) -> Option<(&'static CStr, &'static CStr)> {
            $(
                if error == hipError_t::$name {
                    return Some((
                        // SAFETY: a literal with one trailing NUL and no other.
                        unsafe { CStr::from_bytes_with_nul_unchecked(concat!(stringify!($name), "\0").as_bytes()) },
                        // SAFETY: as above.
                        unsafe { CStr::from_bytes_with_nul_unchecked(concat!($text, "\0").as_bytes()) },
                    ));
                }
            )*
            None
        }
    };
}

error_table! {
    hipSuccess => "no error",
    hipErrorInvalidValue => "invalid argument",
    hipErrorOutOfMemory => "out of memory",
    hipErrorNotInitialized => "initialization error",
    hipErrorDeinitialized => "driver shutting down",
    hipErrorProfilerDisabled => "profiler disabled while using external profiling tool",
    hipErrorProfilerNotInitialized => "profiler is not initialized",
    hipErrorProfilerAlreadyStarted => "profiler already started",
    hipErrorProfilerAlreadyStopped => "profiler already stopped",
    hipErrorInvalidConfiguration => "invalid configuration argument",
    hipErrorInvalidPitchValue => "invalid pitch argument",
    hipErrorInvalidSymbol => "invalid device symbol",
    hipErrorInvalidDevicePointer => "invalid device pointer",
    hipErrorInvalidMemcpyDirection => "invalid copy direction for memcpy",
    hipErrorInsufficientDriver => "driver version is insufficient for runtime version",
    hipErrorMissingConfiguration => "__global__ function call is not configured",
    hipErrorPriorLaunchFailure => "unspecified launch failure in prior launch",
    hipErrorInvalidDeviceFunction => "invalid device function",
    hipErrorNoDevice => "no ROCm-capable device is detected",
    hipErrorInvalidDevice => "invalid device ordinal",
    hipErrorInvalidImage => "device kernel image is invalid",
    hipErrorInvalidContext => "invalid device context",
    hipErrorContextAlreadyCurrent => "context is already current context",
    hipErrorMapFailed => "mapping of buffer object failed",
    hipErrorUnmapFailed => "unmapping of buffer object failed",
    hipErrorArrayIsMapped => "array is mapped",
    hipErrorAlreadyMapped => "resource already mapped",
    hipErrorNoBinaryForGpu => "no kernel image is available for execution on the device",
    hipErrorAlreadyAcquired => "resource already acquired",
    hipErrorNotMapped => "resource not mapped",
    hipErrorNotMappedAsArray => "resource not mapped as array",
    hipErrorNotMappedAsPointer => "resource not mapped as pointer",
    hipErrorECCNotCorrectable => "uncorrectable ECC error encountered",
    hipErrorUnsupportedLimit => "limit is not supported on this architecture",
    hipErrorContextAlreadyInUse => "exclusive-thread device already in use by a different thread",
    hipErrorPeerAccessUnsupported => "peer access is not supported between these two devices",
    hipErrorInvalidKernelFile => "invalid kernel file",
    hipErrorInvalidGraphicsContext => "invalid OpenGL or DirectX context",
    hipErrorInvalidSource => "device kernel image is invalid",
    hipErrorFileNotFound => "file not found",
    hipErrorSharedObjectSymbolNotFound => "shared object symbol not found",
    hipErrorSharedObjectInitFailed => "shared object initialization failed",
    hipErrorOperatingSystem => "OS call failed or operation not supported on this OS",
    hipErrorInvalidHandle => "invalid resource handle",
    hipErrorIllegalState => "the operation cannot be performed in the present state",
    hipErrorNotFound => "named symbol not found",
    hipErrorNotReady => "device not ready",
    hipErrorIllegalAddress => "an illegal memory access was encountered",
    hipErrorLaunchOutOfResources => "too many resources requested for launch",
    hipErrorLaunchTimeOut => "the launch timed out and was terminated",
    hipErrorPeerAccessAlreadyEnabled => "peer access is already enabled",
    hipErrorPeerAccessNotEnabled => "peer access has not been enabled",
    hipErrorSetOnActiveProcess => "cannot set while device is active in this process",
    hipErrorContextIsDestroyed => "context is destroyed",
    hipErrorAssert => "device-side assert triggered",
    hipErrorHostMemoryAlreadyRegistered => "part or all of the requested memory range is already mapped",
    hipErrorHostMemoryNotRegistered => "pointer does not correspond to a registered memory region",
    hipErrorLaunchFailure => "unspecified launch failure",
    hipErrorCooperativeLaunchTooLarge => "too many blocks in cooperative launch",
    hipErrorNotSupported => "operation not supported",
    hipErrorStreamCaptureUnsupported => "operation not permitted when stream is capturing",
    hipErrorStreamCaptureInvalidated => "operation failed due to a previous error during capture",
    hipErrorStreamCaptureMerge => "operation would result in a merge of separate capture sequences",
    hipErrorStreamCaptureUnmatched => "capture was not ended in the same stream as it began",
    hipErrorStreamCaptureUnjoined => "capturing stream has unjoined work",
    hipErrorStreamCaptureIsolation => "dependency created on uncaptured work in another stream",
    hipErrorStreamCaptureImplicit => "operation would make the legacy stream depend on a capturing blocking stream",
    hipErrorCapturedEvent => "operation not permitted on an event last recorded in a capturing stream",
    hipErrorStreamCaptureWrongThread => "attempt to terminate a thread-local capture sequence from another thread",
    hipErrorGraphExecUpdateFailure => "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update",
    hipErrorUnknown => "unknown error",
    hipErrorRuntimeMemory => "runtime memory call returned error",
    hipErrorRuntimeOther => "runtime call other than memory returned error",
    hipErrorTbd => "marker that more error codes are needed",
    hipErrorInvalidChannelDescriptor => "invalid channel descriptor",
    hipErrorInvalidTexture => "invalid texture",
    hipErrorInvalidResourceType => "invalid resource type",
    hipErrorInvalidResourceConfiguration => "invalid resource configuration",
    hipErrorStreamDetached => "stream is detached",
}

/// Codes of newer headers that clr's `ihipGetErrorName` and
/// `ihipGetErrorString` have no case for (checked through 7.x): HIP
/// answers them with its default, `"hipErrorUnknown"` and
/// `"unknown error"`, and so do the simulator and the nvidia backend. [`describe`] still names
/// them, for this crate's own messages.
const UNNAMED_BY_HIP: [hipError_t; 5] = [
    hipError_t::hipErrorInvalidChannelDescriptor,
    hipError_t::hipErrorInvalidTexture,
    hipError_t::hipErrorInvalidResourceType,
    hipError_t::hipErrorInvalidResourceConfiguration,
    hipError_t::hipErrorStreamDetached,
];

/// What the simulated `hipGetErrorName`/`hipGetErrorString` know.
pub fn describe_as_hip(error: hipError_t) -> Option<(&'static CStr, &'static CStr)> {
    describe(error).filter(|_| !UNNAMED_BY_HIP.contains(&error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_generated_ones_where_the_header_has_them() {
        let mut described = 0;
        for code in 0..1200 {
            let error = hipError_t(code);
            if let Some((name, _)) = describe(error) {
                match error.c_name() {
                    Some(generated) => assert_eq!(name, generated, "code {code}"),
                    // Newer than the packaged header: HIP 6.3 and 7.x.
                    None => {
                        assert!([911, 912, 914, 915, 916].contains(&code), "code {code} ({name:?}) is in no header")
                    }
                }
                described += 1;
            }
        }
        assert!(described >= 79, "only {described} codes described");
    }
}
