//! The objects behind rocFFT's handles, and the registry of live ones.

use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::Mutex;

use super::layout::{Kind, Layout};
use super::library::CufftHandle;
use crate::backend::nvidia::Handle;
use crate::sync::MutexExt;

/// A `rocfft_plan_description`.
#[derive(Debug, Default)]
pub(super) struct Description {
    pub(super) layout: Option<Layout>,
}

/// A `rocfft_plan`.
#[derive(Debug)]
pub(super) struct Plan {
    pub(super) handle: CufftHandle,
    pub(super) kind: Kind,
    pub(super) double: bool,
    pub(super) in_place: bool,
    pub(super) work_size: usize,
    /// Bytes to add to the input and output buffers (offsets of the layout).
    pub(super) in_offset_bytes: usize,
    pub(super) out_offset_bytes: usize,
    /// Held from binding the stream and work area to the cuFFT plan until
    /// the transform is enqueued. A rocFFT plan may be executed from many
    /// threads at once, each with its own execution info; a cuFFT plan
    /// keeps one stream and one work area, so without it two threads
    /// would run each other's transform on the wrong stream or in the
    /// wrong work area.
    pub(super) executing: Mutex<()>,
}

/// A `rocfft_execution_info`.
#[derive(Debug)]
pub(super) struct ExecutionInfo {
    pub(super) stream: Handle,
    pub(super) work: *mut c_void,
    pub(super) work_size: usize,
}

/// The live objects this backend made, by address: anything else passed
/// in is refused rather than read.
static LIVE: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

pub(super) fn register<T>(object: T) -> *mut T {
    let p = Box::into_raw(Box::new(object));
    LIVE.lock_unpoisoned().get_or_insert_with(HashSet::new).insert(p as usize);
    p
}

pub(super) fn is_live(p: usize) -> bool {
    p != 0 && LIVE.lock_unpoisoned().as_ref().is_some_and(|s| s.contains(&p))
}

/// Take back an object made by [`register`]; `None` if it is not live.
pub(super) fn unregister<T>(p: *mut T) -> Option<Box<T>> {
    let removed = LIVE.lock_unpoisoned().as_mut().is_some_and(|s| s.remove(&(p as usize)));
    // SAFETY: `p` was made by `register` with this `T` (each handle type
    // maps to one `T`) and was live: this is its only release.
    removed.then(|| unsafe { Box::from_raw(p) })
}
