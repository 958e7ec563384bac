//! Views of part of a [`HostBuffer`], for copies of part of it.

use super::HostBuffer;
use crate::DeviceCopy;
use std::ops::Range;

/// Part of a [`HostBuffer`] that copies read (made by
/// [`HostBuffer::slice`], or from `&HostBuffer` for all of it).
pub struct HostSlice<'a, T: DeviceCopy> {
    pub(crate) buffer: &'a HostBuffer<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

/// Part of a [`HostBuffer`] that copies write (made by
/// [`HostBuffer::slice_mut`], or from `&mut HostBuffer` for all of it).
pub struct HostSliceMut<'a, T: DeviceCopy> {
    pub(crate) buffer: &'a mut HostBuffer<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl<'a, T: DeviceCopy> HostSlice<'a, T> {
    pub(crate) fn new(buffer: &'a HostBuffer<T>, start: usize, len: usize) -> Self {
        HostSlice { buffer, start, len }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn bytes(&self) -> Range<usize> {
        let size = std::mem::size_of::<T>();
        self.start * size..(self.start + self.len) * size
    }

    pub(crate) fn ptr(&self) -> *const T {
        self.buffer.raw().wrapping_add(self.start)
    }
}

impl<'a, T: DeviceCopy> HostSliceMut<'a, T> {
    pub(crate) fn new(buffer: &'a mut HostBuffer<T>, start: usize, len: usize) -> Self {
        HostSliceMut { buffer, start, len }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn bytes(&self) -> Range<usize> {
        let size = std::mem::size_of::<T>();
        self.start * size..(self.start + self.len) * size
    }

    pub(crate) fn ptr(&self) -> *mut T {
        self.buffer.raw().wrapping_add(self.start)
    }
}

impl<'a, T: DeviceCopy> From<&'a HostBuffer<T>> for HostSlice<'a, T> {
    fn from(buffer: &'a HostBuffer<T>) -> Self {
        let len = buffer.len();
        HostSlice::new(buffer, 0, len)
    }
}

impl<'a, T: DeviceCopy> From<&'a mut HostBuffer<T>> for HostSliceMut<'a, T> {
    fn from(buffer: &'a mut HostBuffer<T>) -> Self {
        let len = buffer.len();
        HostSliceMut::new(buffer, 0, len)
    }
}

impl<T: DeviceCopy> std::fmt::Debug for HostSlice<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostSlice<{}>({}..{})", std::any::type_name::<T>(), self.start, self.start + self.len)
    }
}

impl<T: DeviceCopy> std::fmt::Debug for HostSliceMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostSliceMut<{}>({}..{})", std::any::type_name::<T>(), self.start, self.start + self.len)
    }
}
