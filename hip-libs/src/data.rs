//! What the wrappers accept as device operands.

use hip_core::{Device, Stream};
use std::ffi::c_void;

/// Typed device memory: `len()` elements of `T` at `device_ptr()` on
/// `device()`, last used on `stream()`. `amdgpu`'s `DeviceArray` and
/// `DeviceSlice` implement it.
///
/// # Safety
/// `device_ptr()` must point to `len()` valid elements of `T` on
/// `device()` for as long as the value is borrowed.
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
    /// The stream the memory was last used on.
    fn stream(&self) -> &Stream;
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

/// Make `output`'s stream wait for the inputs' streams, so the operation
/// (run on the output's stream) sees their finished results.
pub(crate) fn order_inputs(stream: &Stream, inputs: &[&Stream]) -> hip_core::Result<()> {
    for input in inputs {
        if *input != stream {
            input.synchronize()?;
        }
    }
    Ok(())
}

/// The device all operands must share, or the first that differs.
pub(crate) fn same_device(
    operation: &'static str,
    expected: Device,
    operands: &[(&'static str, Device)],
) -> crate::Result<()> {
    for (what, device) in operands {
        if *device != expected {
            return Err(crate::LibError::wrong_device(operation, what, expected, *device));
        }
    }
    Ok(())
}
