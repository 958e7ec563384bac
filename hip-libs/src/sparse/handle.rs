//! The rocSPARSE handle and its status codes.

use crate::handle_cache::{HandleCache, HandleStats, LibHandle, ThreadHandles};
use crate::{LibError, Result};
use hip_core::raw::on_device;
use hip_core::raw::run_on;
use hip_core::{Device, DeviceMismatch, Stream};
use hip_sys::rocsparse::{rocsparse_handle, rocsparse_status};
use std::cell::RefCell;

/// Status to result, naming the rocSPARSE function.
pub(crate) fn check(status: rocsparse_status, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    Err(LibError::Status { library: "rocSPARSE", operation, status: status.0, name: status_name(status) })
}

/// rocSPARSE's name for `status`: the packaged header's (generated with
/// the bindings), then the value of newer versions (`continue`, 14, from
/// 3.0 on).
pub(crate) fn status_name(status: rocsparse_status) -> &'static str {
    status.name().unwrap_or(match status.0 {
        14 => "rocsparse_status_continue",
        _ => "an unknown rocsparse_status",
    })
}

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
    fn create(device: Device) -> Result<Self> {
        let api = hip_sys::rocsparse()?;
        let mut raw: rocsparse_handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the handle binds to `device`, current here.
        on_device(device, || check(unsafe { (api.rocsparse_create_handle)(&mut raw) }, "rocsparse_create_handle"))??;
        Ok(SparseHandle { raw, device })
    }

    fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        let api = hip_sys::rocsparse()?;
        run_on(self.device, || {
            // SAFETY: a live handle and stream of its device.
            check(unsafe { (api.rocsparse_set_stream)(self.raw, stream.as_raw()) }, "rocsparse_set_stream")
        })?
    }

    fn destroy(self) -> Result<()> {
        let api = hip_sys::rocsparse()?;
        on_device(self.device, || {
            // SAFETY: a live handle, destroyed once, under its device.
            check(unsafe { (api.rocsparse_destroy_handle)(self.raw) }, "rocsparse_destroy_handle")
        })?
    }

    fn device(&self) -> Device {
        self.device
    }

    fn cache() -> &'static HandleCache<Self> {
        &CACHE
    }
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
pub fn with_raw_handle<R>(device: Device, stream: &Stream, f: impl FnOnce(rocsparse_handle) -> R) -> Result<R> {
    DeviceMismatch::check("sparse::with_raw_handle", "the stream", device, stream.device())?;
    let api = hip_sys::rocsparse()?;
    crate::handle_cache::with_handle::<SparseHandle, _>(&HANDLES, device, stream, |handle| {
        run_on(device, || {
            let result = f(handle.raw);
            // SAFETY: a live handle of `device`, and a stream of it.
            check(unsafe { (api.rocsparse_set_stream)(handle.raw, stream.as_raw()) }, "rocsparse_set_stream")?;
            check(
                // SAFETY: a live handle.
                unsafe {
                    (api.rocsparse_set_pointer_mode)(
                        handle.raw,
                        hip_sys::rocsparse::rocsparse_pointer_mode::rocsparse_pointer_mode_host,
                    )
                },
                "rocsparse_set_pointer_mode",
            )?;
            Ok(result)
        })?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rocsparse_status_has_its_name() {
        let names: Vec<&str> = (0..=14).map(|v| status_name(rocsparse_status(v))).collect();
        assert_eq!(names[12], "rocsparse_status_requires_sorted_storage");
        assert_eq!(names[13], "rocsparse_status_thrown_exception");
        assert_eq!(names[14], "rocsparse_status_continue");
        for (value, name) in names.iter().enumerate() {
            assert!(name.starts_with("rocsparse_status_"), "{value}: {name}");
        }
        assert_eq!(status_name(rocsparse_status(15)), "an unknown rocsparse_status");
        let error = check(rocsparse_status(14), "rocsparse_spmv").unwrap_err().to_string();
        assert!(error.contains("rocsparse_status_continue"), "{error}");
    }
}
