//! cuFFT's results as rocFFT's statuses, and the frame of every entry point.

use std::ffi::c_int;

use crate::backend::nvidia::catch_status;
use crate::rocfft::rocfft_status;

/// `cufftResult`.
pub(super) type CufftResult = c_int;

/// A `cufftResult`'s name (`cufft.h`).
pub(super) fn result_name(result: CufftResult) -> &'static str {
    match result {
        0x0 => "CUFFT_SUCCESS",
        0x1 => "CUFFT_INVALID_PLAN",
        0x2 => "CUFFT_ALLOC_FAILED",
        0x3 => "CUFFT_INVALID_TYPE",
        0x4 => "CUFFT_INVALID_VALUE",
        0x5 => "CUFFT_INTERNAL_ERROR",
        0x6 => "CUFFT_EXEC_FAILED",
        0x7 => "CUFFT_SETUP_FAILED",
        0x8 => "CUFFT_INVALID_SIZE",
        0x9 => "CUFFT_UNALIGNED_DATA",
        0xA => "CUFFT_INCOMPLETE_PARAMETER_LIST",
        0xB => "CUFFT_INVALID_DEVICE",
        0xC => "CUFFT_PARSE_ERROR",
        0xD => "CUFFT_NO_WORKSPACE",
        0xE => "CUFFT_NOT_IMPLEMENTED",
        0xF => "CUFFT_LICENSE_ERROR",
        0x10 => "CUFFT_NOT_SUPPORTED",
        _ => "an unknown cufftResult",
    }
}

/// A `cufftResult` as a `rocfft_status`, logging cuFFT's name for it.
pub(super) fn status(function: &str, result: CufftResult) -> rocfft_status {
    match result {
        0 => rocfft_status::rocfft_status_success,
        r => {
            log::error!("rocFFT over cuFFT: {function} failed with {} ({r})", result_name(r));
            match r {
                // Invalid value, size or type: what rocFFT calls a bad argument.
                0x3 | 0x4 | 0x8 => rocfft_status::rocfft_status_invalid_arg_value,
                0xD => rocfft_status::rocfft_status_invalid_work_buffer,
                _ => rocfft_status::rocfft_status_failure,
            }
        }
    }
}

/// Run one entry point, never unwinding into C.
pub(super) fn entry(body: impl FnOnce() -> Result<(), rocfft_status>) -> rocfft_status {
    catch_status("rocFFT over cuFFT", rocfft_status::rocfft_status_success, rocfft_status::rocfft_status_failure, body)
}

pub(super) fn ok(function: &str, result: CufftResult) -> Result<(), rocfft_status> {
    match status(function, result) {
        rocfft_status::rocfft_status_success => Ok(()),
        s => Err(s),
    }
}
