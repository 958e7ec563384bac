//! Peer access between two devices.
//!
//! # References
//! HIP's [peer-to-peer](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html) reference.

use hip_sys::hipError_t;

use super::{api, forget_expected_failure, on_device};
use crate::{check, Device, Result};

/// `hipDeviceCanAccessPeer`: whether `device` can reach `peer`'s memory
/// directly once enabled (by ordinals).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceCanAccessPeer")]
pub fn can_access(device: Device, peer: Device) -> Result<bool> {
    let api = api()?;
    let mut can = 0;
    // SAFETY: a valid out-pointer; the ordinals are checked by HIP.
    let status = unsafe { (api.hipDeviceCanAccessPeer)(&mut can, device.ordinal() as i32, peer.ordinal() as i32) };
    check(status, "hipDeviceCanAccessPeer")?;
    Ok(can != 0)
}

/// `hipDeviceEnablePeerAccess`: let `device` reach `peer`'s memory (under
/// `device` through [`on_device`]). `Ok` also where the pair was enabled
/// before: that answer is forgotten as the thread's last error.
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceEnablePeerAccess")]
pub fn enable(device: Device, peer: Device) -> Result<()> {
    let api = api()?;
    let status = on_device(device, || {
        // SAFETY: plain integer arguments; flags must be 0.
        let status = unsafe { (api.hipDeviceEnablePeerAccess)(peer.ordinal() as i32, 0) };
        if status == hipError_t::hipErrorPeerAccessAlreadyEnabled {
            // Enabled before (by other code): what was asked for.
            forget_expected_failure(status);
            return hipError_t::hipSuccess;
        }
        status
    })?;
    check(status, "hipDeviceEnablePeerAccess")
}
