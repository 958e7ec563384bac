//! `DeviceSliceMut`: a view of part of a [`DeviceArray`] that copies may
//! write, and the range arithmetic every view shares.

use crate::{Device, DeviceArray, DeviceCopy, DeviceSlice, Error, Result};
use std::ops::{Bound, RangeBounds};

/// `range` over `len` elements as `start..end`; `Err((start, end))` when it
/// does not fit.
pub(crate) fn bounds(
    range: impl RangeBounds<usize>,
    len: usize,
) -> std::result::Result<(usize, usize), (usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        Err((start, end))
    } else {
        Ok((start, end))
    }
}

/// A view of part of a [`DeviceArray`] that copies write (made by
/// [`DeviceArray::slice_mut`], or from `&mut DeviceArray` for all of it).
pub struct DeviceSliceMut<'a, T: DeviceCopy> {
    pub(crate) array: &'a mut DeviceArray<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl<T: DeviceCopy> DeviceArray<T> {
    /// A view of `range` for writing (an error if it is out of bounds).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range starts after it ends or ends
    /// past the array.
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let stream = Stream::new()?;
    /// let input = HostBuffer::from_slice(&[5.0f32, 6.0])?;
    /// let mut array = DeviceArray::<f32>::zeros(4)?;
    /// array.slice_mut(2..)?.copy_from_host_async(&input, &stream)?;
    /// assert_eq!(array.to_vec()?, [0.0, 0.0, 5.0, 6.0]); // ordered after the copy
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let len = self.len();
        let (start, end) = bounds(range, len).map_err(|(start, end)| Error::OutOfBounds { start, end, len })?;
        Ok(DeviceSliceMut { array: self, start, len: end - start })
    }
}

impl<T: DeviceCopy> DeviceSliceMut<'_, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device of the array.
    pub fn device(&self) -> Device {
        self.array.device()
    }

    /// The device address of the view's first element.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.array.as_mut_ptr().wrapping_add(self.start)
    }

    /// The view, read-only.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        // In bounds: the view was checked when made.
        match self.array.slice(self.start..self.start + self.len) {
            Ok(slice) => slice,
            Err(_) => self.array.as_slice(),
        }
    }
}

// SAFETY: the view covers `len` elements inside its array's buffer, from
// element `start` (checked when it was made).
unsafe impl<T: DeviceCopy> hip_libs::DeviceData<T> for DeviceSliceMut<'_, T> {
    fn device_ptr(&self) -> *const std::ffi::c_void {
        self.array.as_ptr().wrapping_add(self.start).cast()
    }
    fn len(&self) -> usize {
        self.len
    }
    fn device(&self) -> Device {
        self.array.device()
    }
    fn buffer(&self) -> &hip_pool::Buffer {
        self.array.buffer()
    }
}

// SAFETY: the view borrows its array mutably, so it has the only access
// to its elements.
unsafe impl<T: DeviceCopy> hip_libs::DeviceDataMut<T> for DeviceSliceMut<'_, T> {
    fn device_ptr_mut(&mut self) -> *mut std::ffi::c_void {
        self.as_mut_ptr().cast()
    }
}

impl<'a, T: DeviceCopy> From<&'a mut DeviceArray<T>> for DeviceSliceMut<'a, T> {
    fn from(array: &'a mut DeviceArray<T>) -> Self {
        let len = array.len();
        DeviceSliceMut { array, start: 0, len }
    }
}

impl<'a, T: DeviceCopy> From<&'a DeviceArray<T>> for DeviceSlice<'a, T> {
    fn from(array: &'a DeviceArray<T>) -> Self {
        array.as_slice()
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceSliceMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceSliceMut<{}>({}..{} on {})",
            std::any::type_name::<T>(),
            self.start,
            self.start + self.len,
            self.device()
        )
    }
}
