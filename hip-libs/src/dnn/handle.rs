//! The MIOpen handle and status codes.

use super::conv::Conv2d;
use super::tensor::Shape4;
use crate::handle_cache::{HandleCache, HandleStats, LibHandle, ThreadHandles};
use crate::{LibError, Result};
use hip_core::raw::on_device;
use hip_core::{Device, Stream};
use hip_sys::miopen::{miopenConvFwdAlgorithm_t, miopenHandle_t, miopenStatus_t};
use std::cell::RefCell;
use std::collections::HashMap;

/// Status to result, naming the MIOpen function.
pub(crate) fn check(status: miopenStatus_t, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    let name = match status.0 {
        1 => "miopenStatusNotInitialized",
        2 => "miopenStatusInvalidValue",
        3 => "miopenStatusBadParm",
        4 => "miopenStatusAllocFailed",
        5 => "miopenStatusInternalError",
        6 => "miopenStatusNotImplemented",
        7 => "miopenStatusUnknownError",
        8 => "miopenStatusUnsupportedOp",
        9 => "miopenStatusGpuOperationsSkipped",
        10 => "miopenStatusVersionMismatch",
        _ => "an unknown miopenStatus_t",
    };
    Err(LibError::Status { library: "MIOpen", operation, status: status.0, name })
}

/// An MIOpen handle of one device.
pub(crate) struct DnnHandle {
    pub raw: miopenHandle_t,
    device: Device,
    /// The convolution algorithms the search found **on this handle**.
    /// MIOpen registers the search's invokers in the handle that ran it,
    /// and forward on another handle fails ("No invoker was registered
    /// ... Was find executed?"), so the answers live with the handle and
    /// go when it does.
    /// Each with the workspace it needs (the search's `memory`), so later
    /// calls need neither a size query nor a search.
    pub algorithms: RefCell<HashMap<ConvProblem, (miopenConvFwdAlgorithm_t, usize)>>,
}

/// A forward convolution problem: input and filter shapes and the
/// convolution's parameters (the output follows from them).
pub(crate) type ConvProblem = (Shape4, Shape4, Conv2d);

// SAFETY: the cache gives a handle to one thread at a time; it may move.
unsafe impl Send for DnnHandle {}

static CACHE: HandleCache<DnnHandle> = HandleCache::new(16);

thread_local! {
    pub(crate) static HANDLES: RefCell<ThreadHandles<DnnHandle>> = const { RefCell::new(ThreadHandles::new()) };
}

impl LibHandle for DnnHandle {
    fn create(device: Device) -> Result<Self> {
        let api = hip_sys::miopen()?;
        let mut raw: miopenHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; MIOpen records the current device, `device` here.
        on_device(device, || check(unsafe { (api.miopenCreate)(&mut raw) }, "miopenCreate"))??;
        Ok(DnnHandle { raw, device, algorithms: RefCell::new(HashMap::new()) })
    }

    fn set_stream(&self, stream: &Stream) -> Result<()> {
        let api = hip_sys::miopen()?;
        on_device(self.device, || {
            // SAFETY: a live handle and a stream of its device.
            check(unsafe { (api.miopenSetStream)(self.raw, stream.as_raw().cast()) }, "miopenSetStream")
        })?
    }

    fn destroy(self) -> Result<()> {
        let api = hip_sys::miopen()?;
        // SAFETY: a live handle, destroyed once, under its device.
        on_device(self.device, || check(unsafe { (api.miopenDestroy)(self.raw) }, "miopenDestroy"))?
    }

    fn device(&self) -> Device {
        self.device
    }

    fn cache() -> &'static HandleCache<Self> {
        &CACHE
    }
}

/// Counters of the MIOpen handle cache.
pub fn handle_stats() -> HandleStats {
    CACHE.stats()
}

/// Destroy the idle MIOpen handles (each under its own device). Handles in
/// use by live threads are kept.
pub fn clear_idle_handles() {
    CACHE.clear();
}
