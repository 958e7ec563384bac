//! Errors of the library wrappers.

use hip_core::{Device, HipError};
use hip_pool::PoolError;
use hip_sys::BackendError;

/// The result of a library operation.
pub type Result<T, E = LibError> = std::result::Result<T, E>;

/// Why a library operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LibError {
    /// The library cannot be used with this backend or installation.
    #[error(transparent)]
    Unavailable(#[from] BackendError),
    /// A HIP call failed.
    #[error(transparent)]
    Hip(#[from] HipError),
    /// The memory pool could not serve a work area.
    #[error(transparent)]
    Pool(#[from] PoolError),
    /// The library returned an error status.
    #[error("{library} {operation} failed with status {status} ({name})")]
    Status {
        /// `rocSPARSE`, `rocFFT` or `MIOpen`.
        library: &'static str,
        /// The function that failed.
        operation: &'static str,
        /// The status code.
        status: u32,
        /// The status's name in the library's header.
        name: &'static str,
    },
    /// Input the library would reject or misread, found before calling it.
    #[error("{operation}: {problem}")]
    InvalidInput {
        /// The operation refused.
        operation: &'static str,
        /// What is wrong, with the values.
        problem: String,
    },
    /// The library has no implementation for this case (a data type, a
    /// mode); computing it anyway would give wrong results.
    #[error("{library} {operation}: {problem}")]
    Unsupported {
        /// `rocSPARSE`, `rocFFT` or `MIOpen`.
        library: &'static str,
        /// The operation refused.
        operation: &'static str,
        /// What is not supported, and what to do instead.
        problem: String,
    },
    /// Operands on different devices.
    #[error("{operation}: {what} is on device {found}, but the operation runs on device {expected}")]
    WrongDevice {
        /// The operation refused.
        operation: &'static str,
        /// The operand.
        what: &'static str,
        /// The operation's device.
        expected: usize,
        /// The operand's device.
        found: usize,
    },
}

impl LibError {
    pub(crate) fn invalid(operation: &'static str, problem: impl Into<String>) -> LibError {
        LibError::InvalidInput { operation, problem: problem.into() }
    }

    pub(crate) fn wrong_device(
        operation: &'static str,
        what: &'static str,
        expected: Device,
        found: Device,
    ) -> LibError {
        LibError::WrongDevice { operation, what, expected: expected.ordinal(), found: found.ordinal() }
    }
}
