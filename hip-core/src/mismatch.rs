//! The one device-mismatch error of every crate: an operand on another
//! device than the operation that uses it.

use crate::Device;

/// An operand (a stream, an event, an array, a kernel argument) on another
/// device than the operation that uses it; found before any HIP call.
///
/// Every crate reports a mismatch with this one type, in one place:
/// [`HipError::DeviceMismatch`](crate::HipError::DeviceMismatch). The
/// errors of the crates above (`hip_pool::PoolError`, `hip_libs::LibError`,
/// `amdgpu::Error`) carry it inside their `Hip` variant, never in a variant
/// of their own, so a mismatch has one shape however it reached you, and
/// `?` on a `Result<_, DeviceMismatch>` works in every crate. Each of those
/// errors has a `device_mismatch()` that finds it, however deep:
///
/// ```
/// use hip_core::{Device, DeviceMismatch, HipError};
///
/// if Device::count()? >= 2 {
///     let (d0, d1) = (Device::new(0)?, Device::new(1)?);
///     assert!(DeviceMismatch::check("Event::record", "the stream", d0, d0).is_ok());
///     let refused: HipError = DeviceMismatch::check("Event::record", "the stream", d0, d1).unwrap_err().into();
///     let mismatch = refused.device_mismatch().expect("a mismatch");
///     assert_eq!((mismatch.what, mismatch.expected, mismatch.found), ("the stream", d0, d1));
///     assert!(refused.to_string().contains("the stream is on device 1, but device 0 is required"));
/// }
/// # Ok::<(), HipError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error(
    "{operation}: {what} is on {found}, but {expected} is required \
     (an operation's operands and stream must all be on its device)"
)]
pub struct DeviceMismatch {
    /// The operation refused, e.g. `Event::record` or `gemm`.
    pub operation: &'static str,
    /// The operand on the wrong device, e.g. `the stream` or `A`.
    pub what: &'static str,
    /// The device the operation runs on.
    pub expected: Device,
    /// The device the operand is on.
    pub found: Device,
}

impl DeviceMismatch {
    /// `what` of `operation` is on `found`, but the operation runs on `expected`.
    pub fn new(operation: &'static str, what: &'static str, expected: Device, found: Device) -> DeviceMismatch {
        DeviceMismatch { operation, what, expected, found }
    }

    /// `Ok` if `found` is `expected`, else the mismatch of `what` in `operation`.
    ///
    /// # Errors
    /// The [`DeviceMismatch`] of `what` in `operation` when `found` is not
    /// `expected`; `?` turns it into a
    /// [`HipError::DeviceMismatch`](crate::HipError::DeviceMismatch).
    pub fn check(
        operation: &'static str,
        what: &'static str,
        expected: Device,
        found: Device,
    ) -> Result<(), DeviceMismatch> {
        if found == expected {
            Ok(())
        } else {
            Err(DeviceMismatch::new(operation, what, expected, found))
        }
    }
}
