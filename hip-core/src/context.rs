//! Primary contexts: one per device, as HIP has them.

use crate::{raw, Device, Result};
use hip_sys::hipCtx_t;

/// The primary context of a device. HIP's contexts are 1:1 with devices
/// and are never destroyed by this crate; a `Context` is a device with the
/// context's handle, `Copy` and free to drop.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Context {
    device: Device,
    handle: hipCtx_t,
}

// SAFETY: a primary context handle is a process-wide identifier.
unsafe impl Send for Context {}
// SAFETY: as above.
unsafe impl Sync for Context {}

impl Context {
    /// The primary context of `device` (`hipDevicePrimaryCtxRetain`).
    ///
    /// # Errors
    /// HIP's status of `hipDevicePrimaryCtxRetain`, as
    /// [`HipError::Call`](crate::HipError::Call);
    /// [`HipError::Backend`](crate::HipError::Backend) when no backend loads.
    #[doc(alias = "hipDevicePrimaryCtxRetain")]
    pub fn primary(device: Device) -> Result<Context> {
        let handle = raw::context::primary(device)?;
        Ok(Context { device, handle })
    }

    /// The context's device.
    pub fn device(self) -> Device {
        self.device
    }

    /// The raw handle.
    pub fn as_raw(self) -> hipCtx_t {
        self.handle
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Context(device {})", self.device.ordinal())
    }
}
