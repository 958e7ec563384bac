//! Errors of the safe HIP layer.

use crate::raw;
use crate::Device;
use hip_sys::{hipError_t, BackendError};

/// The result of a HIP operation.
pub type Result<T, E = HipError> = std::result::Result<T, E>;

/// Why a HIP operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HipError {
    /// A HIP call returned an error code.
    #[error("{operation} failed: {name} ({}): {description}", code.0)]
    Call {
        /// HIP's code, kept as returned (unknown codes too).
        code: hipError_t,
        /// HIP's name for the code, e.g. `hipErrorInvalidValue`.
        name: String,
        /// HIP's description of the code.
        description: String,
        /// The operation that failed, e.g. `hipMalloc`.
        operation: &'static str,
    },
    /// A device ordinal that does not exist.
    #[error("invalid device ordinal {ordinal}: this machine has {count} device(s) (ordinals 0..{count})")]
    InvalidDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices there are.
        count: usize,
    },
    /// Two objects that must share a device do not.
    #[error("{operation}: {what} is on device {found}, but device {expected} is required")]
    DeviceMismatch {
        /// The operation refused.
        operation: &'static str,
        /// The object on the wrong device.
        what: &'static str,
        /// The device that was needed.
        expected: usize,
        /// The device the object is on.
        found: usize,
    },
    /// No backend could be loaded.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

impl HipError {
    /// The HIP code, when a HIP call failed.
    pub fn code(&self) -> Option<hipError_t> {
        match self {
            HipError::Call { code, .. } => Some(*code),
            HipError::InvalidDevice { .. } => Some(hipError_t::hipErrorInvalidDevice),
            _ => None,
        }
    }

    /// Whether this is HIP's out-of-memory error.
    pub fn is_out_of_memory(&self) -> bool {
        self.code() == Some(hipError_t::hipErrorOutOfMemory)
    }

    /// A mismatch error for `what` being on `found` rather than `expected`.
    pub(crate) fn mismatch(
        operation: &'static str,
        what: &'static str,
        expected: Device,
        found: Device,
    ) -> Self {
        HipError::DeviceMismatch {
            operation,
            what,
            expected: expected.ordinal(),
            found: found.ordinal(),
        }
    }
}

/// Turn a HIP status into a `Result`, naming `operation` on failure.
pub fn check(status: hipError_t, operation: &'static str) -> Result<()> {
    if status == hipError_t::hipSuccess {
        return Ok(());
    }
    let (name, description) = raw::error_text(status);
    Err(HipError::Call {
        code: status,
        name,
        description,
        operation,
    })
}
