//! MIOpen's status codes as results that name the function and status.

use crate::{LibError, Result};
use hip_sys::miopen::miopenStatus_t;

/// Status to result, naming the MIOpen function.
pub(crate) fn check(status: miopenStatus_t, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    let name = match status.0 {
        1 => "miopenStatusNotInitialized",
        2 => "miopenStatusInvalidValue",
        3 => "miopenStatusBadParm",
        4 => "miopenStatusAllocFailed",
        5 => "miopenStatusInternalError",
        6 => "miopenStatusNotImplemented",
        7 => "miopenStatusUnknownError",
        8 => "miopenStatusUnsupportedOp",
        9 => "miopenStatusGpuOperationsSkipped",
        10 => "miopenStatusVersionMismatch",
        _ => "an unknown miopenStatus_t",
    };
    Err(LibError::Status { library: "MIOpen", operation, status: status.0, name })
}
