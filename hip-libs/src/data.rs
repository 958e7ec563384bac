//! What the wrappers accept as device operands.

use hip_core::{Device, DeviceMismatch, Stream};
use hip_pool::Buffer;
use std::ffi::c_void;

/// Typed device memory: `len()` elements of `T` at `device_ptr()` on
/// `device()`, inside the pool [`Buffer`] `buffer()`, whose own stream is
/// `stream()`. `amdgpu`'s `DeviceArray` and `DeviceSlice` implement it.
///
/// The operations declare their use of each operand's buffer
/// ([`Buffer::prepare`], [`Buffer::record`]): an operand whose own stream
/// is not the operation's is ordered on the GPU, and its memory is not
/// reused before the operation is done, even if it is dropped at once.
///
/// # Safety
/// `device_ptr()` must point to `len()` valid elements of `T` on
/// `device()`, inside `buffer()`'s memory, for as long as the value is
/// borrowed.
pub unsafe trait DeviceData<T> {
    /// The device address of the first element.
    fn device_ptr(&self) -> *const c_void;
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The device holding the memory.
    fn device(&self) -> Device;
    /// The pool buffer holding the memory: operations declare their uses
    /// of it there.
    fn buffer(&self) -> &Buffer;
    /// The buffer's own stream.
    fn stream(&self) -> &Stream {
        self.buffer().stream()
    }
}

/// [`DeviceData`] that may be written.
///
/// # Safety
/// As [`DeviceData`], and the memory may be written through
/// `device_ptr_mut()` while the value is mutably borrowed.
pub unsafe trait DeviceDataMut<T>: DeviceData<T> {
    /// The device address of the first element, for writing.
    fn device_ptr_mut(&mut self) -> *mut c_void;
}

/// `Ok` if every operand is on `expected`, the operation's device; else
/// the mismatch of the first that is not, by its name.
pub(crate) fn same_device(
    operation: &'static str,
    expected: Device,
    operands: &[(&'static str, Device)],
) -> crate::Result<()> {
    for (what, device) in operands {
        DeviceMismatch::check(operation, what, expected, *device)?;
    }
    Ok(())
}
