//! One error type for the facade.

use crate::Device;

/// The result of an `amdgpu` operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an `amdgpu` operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A HIP call or a device rule failed.
    #[error(transparent)]
    Hip(#[from] hip_core::HipError),
    /// The memory pool could not serve a request.
    #[error(transparent)]
    Pool(#[from] hip_pool::PoolError),
    /// Two lengths that must agree do not.
    #[error("{operation}: length mismatch: the device array has {device} elements, the host slice {host}")]
    LengthMismatch {
        /// The operation refused.
        operation: &'static str,
        /// Elements on the device side.
        device: usize,
        /// Elements on the host side.
        host: usize,
    },
    /// A range outside an array.
    #[error("range {start}..{end} is out of bounds for a device array of {len} elements")]
    OutOfBounds {
        /// Start of the range.
        start: usize,
        /// End of the range.
        end: usize,
        /// The array's length.
        len: usize,
    },
    /// An operand on the wrong device.
    #[error("{operation}: {what} is on {found}, but {expected} is required")]
    WrongDevice {
        /// The operation refused.
        operation: &'static str,
        /// The operand.
        what: &'static str,
        /// The device needed.
        expected: Device,
        /// The operand's device.
        found: Device,
    },
}

impl From<hip_sys::BackendError> for Error {
    fn from(error: hip_sys::BackendError) -> Self {
        Error::Hip(error.into())
    }
}
