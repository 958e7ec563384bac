//! One error type for the facade: every error of the crates below
//! converts into it with `?`, so users need no error type of their own.

use crate::Device;
use hip_core::DeviceMismatch;

/// The result of an `amdgpu` operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an `amdgpu` operation failed: the facade's own checks, and every
/// error of the crates below (HIP, the pool, the libraries, the backend
/// loader), each convertible with `?`.
///
/// An operand or a stream on another device than the operation's is a
/// [`DeviceMismatch`] in every crate, always inside a
/// [`HipError::DeviceMismatch`](hip_core::HipError::DeviceMismatch),
/// whichever layer found it: [`Error::device_mismatch`] finds it without
/// nested matches.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A HIP call or a device rule failed, the backend could not be
    /// loaded, or an operand is on another device than the operation's.
    #[error(transparent)]
    Hip(#[from] hip_core::HipError),
    /// The memory pool could not serve a request.
    #[error(transparent)]
    Pool(#[from] hip_pool::PoolError),
    /// A library operation (rocBLAS, rocSPARSE, rocFFT, MIOpen) failed or is not
    /// available; see [`Error::is_unavailable`].
    #[error(transparent)]
    Lib(#[from] hip_libs::LibError),
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
    /// A DLPack tensor that cannot be made of an array, or taken as one.
    #[error("DLPack: {problem}")]
    DlPack {
        /// What does not fit, and what to do.
        problem: String,
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
    /// A copy between views of different lengths.
    #[error(
        "{operation}: the source has {source_len} elements but the destination {destination_len}: \
         copy between views of equal length (slice the longer one)"
    )]
    SizeMismatch {
        /// The operation refused.
        operation: &'static str,
        /// Elements in the source.
        source_len: usize,
        /// Elements in the destination.
        destination_len: usize,
    },
    /// A range outside a host buffer.
    #[error("range {start}..{end} is out of bounds for a host buffer of {len} elements")]
    HostRangeOutOfBounds {
        /// Start of the range.
        start: usize,
        /// End of the range.
        end: usize,
        /// The buffer's length.
        len: usize,
    },
    /// A copy between two devices that the runtime has no path for.
    #[error(
        "copy from {from} to {to}: the runtime has no path between the two devices ({cause}); \
         copy through pinned host memory instead (copy_to_host_async into a HostBuffer, then \
         copy_from_host_async from it)"
    )]
    NoPeerPath {
        /// The source's device.
        from: Device,
        /// The destination's device.
        to: Device,
        /// What the runtime answered.
        cause: hip_core::HipError,
    },
    /// A copy using a host buffer could not be tracked and the device
    /// failed while waiting for it: the buffer's memory is kept (never
    /// freed) and host access is refused, since the copy may still run.
    #[error(
        "this host buffer was lost: a copy using it could not be tracked and the device failed; \
         its memory is leaked rather than freed under a copy (the device needs a reset)"
    )]
    HostBufferLost,
    /// The device pages no managed memory (`ManagedArray`).
    #[error(
        "{device} has no managed memory (hipDeviceAttributeManagedMemory is 0); use a DeviceArray and copy \
         through a HostBuffer instead"
    )]
    NoManagedMemory {
        /// The device.
        device: Device,
    },
    /// A kernel argument shorter than what the kernel's declaration says
    /// the kernel touches.
    #[error(
        "kernel `{kernel}`: argument {argument} has {len} elements, but the launch needs at least {needed} ({}); \
         pass a longer array or launch over fewer elements",
        bound_text(bound)
    )]
    ArgumentTooShort {
        /// The kernel.
        kernel: String,
        /// The argument's position (0-based).
        argument: usize,
        /// Its elements.
        len: usize,
        /// The elements the launch needs (a launch's threads may pass
        /// `u64::MAX`).
        needed: u128,
        /// The rule that says so.
        bound: crate::kernel::Bound,
    },
    /// A kernel declaration that cannot be checked.
    #[error("kernel `{kernel}`: {problem}")]
    KernelDeclaration {
        /// The kernel.
        kernel: String,
        /// What is wrong, and the fix.
        problem: String,
    },
}

fn bound_text(bound: &crate::kernel::Bound) -> String {
    match bound {
        crate::kernel::Bound::Len => "the Len argument".to_owned(),
        crate::kernel::Bound::Threads => "one per thread of the launch".to_owned(),
        crate::kernel::Bound::Blocks => "one per block of the launch".to_owned(),
        crate::kernel::Bound::AtLeast(n) => format!("the declared {n}"),
    }
}

impl Error {
    /// Whether the error says a library cannot be used here (not loaded,
    /// or not on this backend), rather than that an operation failed: the
    /// case to skip, not to report.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Error::Lib(hip_libs::LibError::Unavailable(_)))
    }

    /// The device mismatch this error reports (an operand or the stream on
    /// another device than the operation's), whichever crate found it.
    pub fn device_mismatch(&self) -> Option<&DeviceMismatch> {
        match self {
            Error::Hip(error) => error.device_mismatch(),
            Error::Pool(error) => error.device_mismatch(),
            Error::Lib(error) => error.device_mismatch(),
            _ => None,
        }
    }
}

/// A mismatch is a [`HipError::DeviceMismatch`](hip_core::HipError::DeviceMismatch),
/// here as in every crate.
impl From<DeviceMismatch> for Error {
    fn from(mismatch: DeviceMismatch) -> Self {
        Error::Hip(mismatch.into())
    }
}

impl From<hip_sys::BackendError> for Error {
    fn from(error: hip_sys::BackendError) -> Self {
        Error::Hip(error.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hip_libs::LibError;

    fn library_call(fail: LibError) -> std::result::Result<(), LibError> {
        Err(fail)
    }

    /// A user's function returning `amdgpu::Result` can call the libraries
    /// with `?` and tell "not here" from "failed".
    fn users_code(fail: LibError) -> Result<()> {
        library_call(fail)?;
        Ok(())
    }

    #[test]
    fn library_errors_convert_and_keep_their_message() {
        let unavailable = LibError::Unavailable(hip_sys::BackendError::LibraryUnavailable {
            library: "rocFFT".into(),
            hint: "not on this backend".into(),
        });
        let error = users_code(unavailable.clone()).unwrap_err();
        assert!(error.is_unavailable());
        assert_eq!(error.to_string(), unavailable.to_string());
        let invalid = LibError::InvalidInput { operation: "fft::c2c", problem: "shape [0]".into() };
        let error = users_code(invalid).unwrap_err();
        assert!(!error.is_unavailable());
        assert!(error.to_string().contains("fft::c2c") && error.to_string().contains("shape [0]"), "{error}");
    }
}
