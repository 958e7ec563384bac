//! The MIOpen handle: one per (thread, device), with the convolution
//! plans its searches made.

use super::conv_plan::ConvPlans;
use super::raw;
use crate::handle_cache::{HandleCache, HandleStats, LibHandle, ThreadHandles};
use crate::Result;
use hip_core::raw::on_device;
use hip_core::raw::run_on;
use hip_core::{Device, Stream};
use hip_sys::miopen::miopenHandle_t;
use std::cell::RefCell;

/// An MIOpen handle of one device.
pub(crate) struct DnnHandle {
    pub raw: miopenHandle_t,
    device: Device,
    /// The convolution plans made on this handle (see [`ConvPlans`]).
    pub convolutions: RefCell<ConvPlans>,
}

// SAFETY: the cache gives a handle to one thread at a time; it may move.
unsafe impl Send for DnnHandle {}

static CACHE: HandleCache<DnnHandle> = HandleCache::new(16);

thread_local! {
    pub(crate) static HANDLES: RefCell<ThreadHandles<DnnHandle>> = const { RefCell::new(ThreadHandles::new()) };
}

impl LibHandle for DnnHandle {
    const CREATE: &'static str = "miopenCreate";

    fn create(device: Device) -> Result<Self> {
        let api = hip_sys::miopen()?;
        // MIOpen records the current device, `device` here.
        let handle = on_device(device, || raw::create(api))??;
        Ok(DnnHandle { raw: handle, device, convolutions: RefCell::new(ConvPlans::default()) })
    }

    fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        let api = hip_sys::miopen()?;
        // SAFETY: a live handle and a stream of its device.
        run_on(self.device, || unsafe { raw::set_stream(api, self.raw, stream.as_raw()) })?
    }

    fn destroy(self) -> Result<()> {
        let api = hip_sys::miopen()?;
        // SAFETY: a live handle, destroyed once, under its device.
        on_device(self.device, || unsafe { raw::destroy(api, self.raw) })?
    }

    fn device(&self) -> Device {
        self.device
    }

    fn cache() -> &'static HandleCache<Self> {
        &CACHE
    }
}

/// Make sure this thread has its MIOpen handle for `stream`'s device,
/// bound to `stream`: made on first use (`miopenCreate`), then only looked up
/// and, if the thread's last call was on another stream, bound again
/// (`miopenSetStream`). Every wrapper does this first; calling it ahead of a
/// capture gives the capture a handle, which cannot be made inside one.
///
/// # Errors
/// [`LibError::Unavailable`](crate::LibError::Unavailable) without MIOpen;
/// [`LibError::Hip`](crate::LibError::Hip) with
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway) when
/// the handle would be made during a capture of this thread or a Global
/// one; [`LibError::Status`](crate::LibError::Status) with MIOpen's status of
/// `miopenCreate` or `miopenSetStream`.
///
/// # Examples
/// ```
/// let stream = hip_core::stream();
/// hip_libs::dnn::warm_handle(&stream)?;
/// assert!(hip_libs::dnn::handle_stats().created >= 1);
/// # Ok::<(), hip_libs::LibError>(())
/// ```
#[doc(alias = "miopenCreate")]
pub fn warm_handle(stream: &Stream) -> Result<()> {
    crate::handle_cache::warm(&HANDLES, stream)
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
