//! Host access to memory the host reads and writes in place (a
//! [`HostBuffer`]'s pinned memory, a [`ManagedArray`]'s managed memory):
//! guards that graph replays respect.
//!
//! Copies and kernels enqueued directly borrow the memory's owner (`&` to
//! read it, `&mut` to write it), so the borrow checker keeps them from
//! host code. A graph replay runs captured work with no borrow at all, so
//! host access is a guard that counts itself on the memory's use tracker
//! while it lives: a replay that would write the memory under a
//! [`HostRef`], or touch it under a [`HostRefMut`], is refused with
//! [`HipError::HostBorrowed`](hip_core::HipError::HostBorrowed) instead of
//! racing. A guard forgotten with `std::mem::forget` keeps refusing those
//! replays: a failure, never a race.
//!
//! [`HostBuffer`]: super::HostBuffer
//! [`ManagedArray`]: crate::ManagedArray

use crate::DeviceCopy;
use hip_pool::{Access, UseList};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Values read on the host (made by [`HostBuffer::as_slice`] or
/// [`ManagedArray::as_slice`]). While it lives, graph replays that would
/// write the memory are refused.
///
/// [`HostBuffer::as_slice`]: super::HostBuffer::as_slice
/// [`ManagedArray::as_slice`]: crate::ManagedArray::as_slice
pub struct HostRef<'a, T: DeviceCopy> {
    values: &'a [T],
    uses: Arc<UseList>,
}

/// Values written on the host (made by [`HostBuffer::as_mut_slice`] or
/// [`ManagedArray::as_mut_slice`]). While it lives, graph replays that
/// would touch the memory are refused.
///
/// [`HostBuffer::as_mut_slice`]: super::HostBuffer::as_mut_slice
/// [`ManagedArray::as_mut_slice`]: crate::ManagedArray::as_mut_slice
pub struct HostRefMut<'a, T: DeviceCopy> {
    values: &'a mut [T],
    uses: Arc<UseList>,
}

impl<'a, T: DeviceCopy> HostRef<'a, T> {
    /// A guard over `values`, whose view with [`Access::Read`] has begun
    /// on `uses`: no work writes them while it lives (waited for when it
    /// began, new direct work that writes needs `&mut` of their owner,
    /// and replays that write them are refused while it is counted).
    pub(crate) fn new(values: &'a [T], uses: Arc<UseList>) -> Self {
        HostRef { values, uses }
    }
}

impl<'a, T: DeviceCopy> HostRefMut<'a, T> {
    /// A guard over `values`, whose view with [`Access::Write`] has begun
    /// on `uses`: no work touches them while it lives (waited for when it
    /// began, `&mut` of their owner keeps new direct work out, and every
    /// replay that touches them is refused while it is counted).
    pub(crate) fn new(values: &'a mut [T], uses: Arc<UseList>) -> Self {
        HostRefMut { values, uses }
    }
}

impl<T: DeviceCopy> Deref for HostRef<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.values
    }
}

impl<T: DeviceCopy> Deref for HostRefMut<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.values
    }
}

impl<T: DeviceCopy> DerefMut for HostRefMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.values
    }
}

impl<T: DeviceCopy> Drop for HostRef<'_, T> {
    fn drop(&mut self) {
        self.uses.end_host_view(Access::Read);
    }
}

impl<T: DeviceCopy> Drop for HostRefMut<'_, T> {
    fn drop(&mut self) {
        self.uses.end_host_view(Access::Write);
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
