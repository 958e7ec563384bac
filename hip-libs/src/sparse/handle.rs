//! The rocSPARSE handle and its status codes.

use super::raw;
use crate::handle_cache::{HandleCache, HandleStats, LibHandle, ThreadHandles};
use crate::Result;
use hip_core::raw::on_device;
use hip_core::raw::run_on;
use hip_core::{Device, DeviceMismatch, Stream};
use hip_sys::rocsparse::rocsparse_handle;
use std::cell::RefCell;

/// A rocSPARSE handle of one device.
pub(crate) struct SparseHandle {
    pub raw: rocsparse_handle,
    device: Device,
}

// SAFETY: a rocSPARSE handle is used by one thread at a time (the cache
// hands it to one thread), and may move between threads.
unsafe impl Send for SparseHandle {}

static CACHE: HandleCache<SparseHandle> = HandleCache::new(16);

thread_local! {
    pub(crate) static HANDLES: RefCell<ThreadHandles<SparseHandle>> = const { RefCell::new(ThreadHandles::new()) };
}

impl LibHandle for SparseHandle {
    const CREATE: &'static str = "rocsparse_create_handle";

    fn create(device: Device) -> Result<Self> {
        let api = hip_sys::rocsparse()?;
        // The handle binds to `device`, current here.
        let raw = on_device(device, || raw::create_handle(api))??;
        Ok(SparseHandle { raw, device })
    }

    fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        let api = hip_sys::rocsparse()?;
        // SAFETY: a live handle and stream of its device.
        run_on(self.device, || unsafe { raw::set_stream(api, self.raw, stream.as_raw()) })?
    }

    fn destroy(self) -> Result<()> {
        let api = hip_sys::rocsparse()?;
        // SAFETY: a live handle, destroyed once, under its device.
        on_device(self.device, || unsafe { raw::destroy_handle(api, self.raw) })?
    }

    fn device(&self) -> Device {
        self.device
    }

    fn cache() -> &'static HandleCache<Self> {
        &CACHE
    }
}

/// Make sure this thread has its rocSPARSE handle for `stream`'s device,
/// bound to `stream`: made on first use (`rocsparse_create_handle`), then only looked up
/// and, if the thread's last call was on another stream, bound again
/// (`rocsparse_set_stream`). Every wrapper does this first; calling it ahead of a
/// capture gives the capture a handle, which cannot be made inside one.
///
/// # Errors
/// [`LibError::Unavailable`](crate::LibError::Unavailable) without rocSPARSE;
/// [`LibError::Hip`](crate::LibError::Hip) with
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway) when
/// the handle would be made during a capture of this thread or a Global
/// one; [`LibError::Status`](crate::LibError::Status) with rocSPARSE's status of
/// `rocsparse_create_handle` or `rocsparse_set_stream`.
///
/// # Examples
/// ```
/// let stream = hip_core::stream();
/// hip_libs::sparse::warm_handle(&stream)?;
/// assert!(hip_libs::sparse::handle_stats().created >= 1);
/// # Ok::<(), hip_libs::LibError>(())
/// ```
#[doc(alias = "rocsparse_create_handle")]
pub fn warm_handle(stream: &Stream) -> Result<()> {
    crate::handle_cache::warm(&HANDLES, stream)
}

/// Counters of the rocSPARSE handle cache: handles made, destroyed, and
/// idle per device.
pub fn handle_stats() -> HandleStats {
    CACHE.stats()
}

/// Destroy the idle rocSPARSE handles (each under its own device). Handles
/// in use by live threads are kept.
pub fn clear_idle_handles() {
    CACHE.clear();
}

/// Run `f` with this thread's rocSPARSE handle for `device`, bound to
/// `stream` (of that device), for rocSPARSE calls this crate does not wrap.
/// `f` runs with `device` current in HIP.
///
/// `f` may change the handle's stream or pointer mode: afterwards the
/// handle is bound to `stream` again and set to host pointer mode, which
/// is what the wrappers and the cache's record of its stream assume.
///
/// # Errors
/// [`LibError::Hip`](crate::LibError::Hip) with a device mismatch when
/// `stream` is not on `device` (`f` does not run);
/// [`LibError::Unavailable`](crate::LibError::Unavailable) without rocSPARSE;
/// [`LibError::Status`](crate::LibError::Status) with rocSPARSE's status of
/// `rocsparse_create_handle`, `rocsparse_set_stream` or
/// `rocsparse_set_pointer_mode`. What `f` returns is its own.
pub fn with_raw_handle<R>(device: Device, stream: &Stream, f: impl FnOnce(rocsparse_handle) -> R) -> Result<R> {
    DeviceMismatch::check("sparse::with_raw_handle", "the stream", device, stream.device())?;
    let api = hip_sys::rocsparse()?;
    crate::handle_cache::with_handle::<SparseHandle, _>(&HANDLES, device, stream, |handle| {
        run_on(device, || {
            let result = f(handle.raw);
            // SAFETY: a live handle of `device`, and a stream of it.
            unsafe { raw::set_stream(api, handle.raw, stream.as_raw()) }?;
            let host = hip_sys::rocsparse::rocsparse_pointer_mode::rocsparse_pointer_mode_host;
            // SAFETY: a live handle.
            unsafe { raw::set_pointer_mode(api, handle.raw, host) }?;
            Ok(result)
        })?
    })
}
