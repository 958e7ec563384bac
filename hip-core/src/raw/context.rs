//! Primary contexts.
//!
//! # References
//! HIP's [runtime API](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/modules.html) reference.

use hip_sys::hipCtx_t;

use super::api;
use crate::{check, Device, Result};

/// `hipDevicePrimaryCtxRetain`: the handle of `device`'s primary context
/// (by ordinal). This crate never releases it: `Context` is `Copy`.
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDevicePrimaryCtxRetain")]
pub fn primary(device: Device) -> Result<hipCtx_t> {
    let api = api()?;
    let mut handle: hipCtx_t = std::ptr::null_mut();
    check(
        // SAFETY: a valid out-pointer. On AMD, retain is not reference counted; on NVIDIA the primary context lives as long as the process.
        unsafe { (api.hipDevicePrimaryCtxRetain)(&mut handle, device.ordinal() as i32) },
        "hipDevicePrimaryCtxRetain",
    )?;
    Ok(handle)
}
