//! cuDNN's statuses as MIOpen's, and the frame of every entry point.

use std::ffi::CStr;

use super::library::{fns, CudnnStatus};
use crate::backend::nvidia::catch_status;
use crate::miopen::miopenStatus_t;

/// A cuDNN status as the MIOpen status of the same meaning.
pub(super) fn to_miopen(status: CudnnStatus) -> miopenStatus_t {
    // cuDNN 9 numbers statuses by category in thousands; cuDNN 8 used 1-14.
    let category = match status {
        0 => 0,
        s if s >= 1000 => s / 1000,
        1 => 1,
        2 => 4, // ALLOC_FAILED: an internal (allocation) failure
        3 | 5 => 2,
        6 | 9 | 11 => 3,
        _ => 4,
    };
    match (status, category) {
        (0, _) => miopenStatus_t::miopenStatusSuccess,
        // cuDNN 9's device-allocation failure, and cuDNN 8's.
        (4004 | 4003 | 2, _) => miopenStatus_t::miopenStatusAllocFailed,
        (_, 1) => miopenStatus_t::miopenStatusNotInitialized,
        (_, 2) => miopenStatus_t::miopenStatusBadParm,
        (_, 3) => miopenStatus_t::miopenStatusNotImplemented,
        (_, 4) => miopenStatus_t::miopenStatusInternalError,
        _ => miopenStatus_t::miopenStatusUnknownError,
    }
}

pub(super) fn ok(function: &str, status: CudnnStatus) -> Result<(), miopenStatus_t> {
    if status == 0 {
        return Ok(());
    }
    let text = fns().ok().map_or_else(String::new, |f| {
        // SAFETY: cuDNN returns a static NUL-terminated string for any status.
        let p = unsafe { (f.cudnnGetErrorString)(status) };
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: non-null and NUL-terminated.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    });
    log::error!("MIOpen over cuDNN: {function} failed with {text} ({status})");
    Err(to_miopen(status))
}

/// Run one entry point, never unwinding into C.
pub(super) fn entry(body: impl FnOnce() -> Result<(), miopenStatus_t>) -> miopenStatus_t {
    catch_status(
        "MIOpen over cuDNN",
        miopenStatus_t::miopenStatusSuccess,
        miopenStatus_t::miopenStatusInternalError,
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_by_category_for_cudnn_8_and_9() {
        assert_eq!(to_miopen(0), miopenStatus_t::miopenStatusSuccess);
        assert_eq!(to_miopen(2000), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(to_miopen(2002), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(to_miopen(3003), miopenStatus_t::miopenStatusNotImplemented);
        assert_eq!(to_miopen(4000), miopenStatus_t::miopenStatusInternalError);
        assert_eq!(to_miopen(4004), miopenStatus_t::miopenStatusAllocFailed);
        assert_eq!(to_miopen(1001), miopenStatus_t::miopenStatusNotInitialized);
        assert_eq!(to_miopen(5000), miopenStatus_t::miopenStatusUnknownError);
        // cuDNN 8: BAD_PARAM 3, NOT_SUPPORTED 9, ALLOC_FAILED 2.
        assert_eq!(to_miopen(3), miopenStatus_t::miopenStatusBadParm);
        assert_eq!(to_miopen(9), miopenStatus_t::miopenStatusNotImplemented);
        assert_eq!(to_miopen(2), miopenStatus_t::miopenStatusAllocFailed);
    }
}
