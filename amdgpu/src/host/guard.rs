//! Host access to a [`HostBuffer`]: guards that graph replays respect.
//!
//! Copies enqueued directly borrow the buffer (`&` to read it, `&mut` to
//! write it), so the borrow checker keeps them from host code. A graph
//! replay runs captured copies with no borrow at all, so host access is a
//! guard that counts itself on the buffer's tracker while it lives: a
//! replay that would write the memory under a [`HostRef`], or touch it
//! under a [`HostRefMut`], is refused with
//! [`HipError::HostBorrowed`](hip_core::HipError::HostBorrowed) instead of
//! racing. A guard forgotten with `std::mem::forget` keeps refusing those
//! replays: a failure, never a race.

use super::HostBuffer;
use crate::DeviceCopy;
use hip_pool::Access;
use std::ops::{Deref, DerefMut};

/// The values of a [`HostBuffer`], read on the host (made by
/// [`HostBuffer::as_slice`]). While it lives, graph replays that would
/// write the buffer are refused.
pub struct HostRef<'a, T: DeviceCopy> {
    buffer: &'a HostBuffer<T>,
}

/// The values of a [`HostBuffer`], written on the host (made by
/// [`HostBuffer::as_mut_slice`]). While it lives, graph replays that
/// would touch the buffer are refused.
pub struct HostRefMut<'a, T: DeviceCopy> {
    buffer: &'a mut HostBuffer<T>,
}

impl<'a, T: DeviceCopy> HostRef<'a, T> {
    /// A guard over `buffer`, whose view with [`Access::Read`] has begun.
    pub(super) fn new(buffer: &'a HostBuffer<T>) -> Self {
        HostRef { buffer }
    }
}

impl<'a, T: DeviceCopy> HostRefMut<'a, T> {
    /// A guard over `buffer`, whose view with [`Access::Write`] has begun.
    pub(super) fn new(buffer: &'a mut HostBuffer<T>) -> Self {
        HostRefMut { buffer }
    }
}

impl<T: DeviceCopy> Deref for HostRef<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialized values owned by the buffer; no copy
        // writes them while the view lives (waited for when it began, new
        // direct copies need `&mut` of the buffer, and replays that write
        // it are refused while it is counted).
        unsafe { std::slice::from_raw_parts(self.buffer.raw(), self.buffer.len()) }
    }
}

impl<T: DeviceCopy> Deref for HostRefMut<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: as in `deref_mut`, shared.
        unsafe { std::slice::from_raw_parts(self.buffer.raw(), self.buffer.len()) }
    }
}

impl<T: DeviceCopy> DerefMut for HostRefMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: `len` initialized values owned by the buffer; no copy
        // touches them while the view lives (waited for when it began,
        // `&mut` keeps new direct copies out, and every replay that touches
        // the buffer is refused while it is counted).
        unsafe { std::slice::from_raw_parts_mut(self.buffer.raw(), self.buffer.len()) }
    }
}

impl<T: DeviceCopy> Drop for HostRef<'_, T> {
    fn drop(&mut self) {
        self.buffer.uses.end_view(Access::Read);
    }
}

impl<T: DeviceCopy> Drop for HostRefMut<'_, T> {
    fn drop(&mut self) {
        self.buffer.uses.end_view(Access::Write);
    }
}

impl<T: DeviceCopy + std::fmt::Debug> std::fmt::Debug for HostRef<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: DeviceCopy + std::fmt::Debug> std::fmt::Debug for HostRefMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// Comparisons with what a slice compares with, so that a guard reads as
/// the slice it stands for (`assert_eq!(out.as_slice()?, [1.0, 2.0])`).
macro_rules! compare_as_slice {
    ($guard:ident) => {
        impl<T: DeviceCopy + PartialEq> PartialEq<[T]> for $guard<'_, T> {
            fn eq(&self, other: &[T]) -> bool {
                **self == *other
            }
        }
        impl<T: DeviceCopy + PartialEq> PartialEq<&[T]> for $guard<'_, T> {
            fn eq(&self, other: &&[T]) -> bool {
                **self == **other
            }
        }
        impl<T: DeviceCopy + PartialEq, const N: usize> PartialEq<[T; N]> for $guard<'_, T> {
            fn eq(&self, other: &[T; N]) -> bool {
                **self == other[..]
            }
        }
        impl<T: DeviceCopy + PartialEq> PartialEq<Vec<T>> for $guard<'_, T> {
            fn eq(&self, other: &Vec<T>) -> bool {
                **self == other[..]
            }
        }
    };
}

compare_as_slice!(HostRef);
compare_as_slice!(HostRefMut);
