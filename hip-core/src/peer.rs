//! Peer access between devices: whether a device can reach another's
//! memory, and enabling it, once per pair.

use crate::{raw, Device, HipError, Result};
use std::sync::atomic::{AtomicU64, Ordering};

/// Devices whose enabled peers are remembered (a bit per peer below 64).
const REMEMBERED: usize = 64;

#[allow(clippy::declare_interior_mutable_const)] // the array initializer only
const NONE: AtomicU64 = AtomicU64::new(0);
/// Bit `peer` of entry `device`: this process enabled `device`'s access
/// to `peer`'s memory.
static ENABLED: [AtomicU64; REMEMBERED] = [NONE; REMEMBERED];

fn remembered(device: Device, peer: Device) -> bool {
    peer.ordinal() < 64
        && ENABLED.get(device.ordinal()).is_some_and(|bits| bits.load(Ordering::Acquire) >> peer.ordinal() & 1 == 1)
}

fn remember(device: Device, peer: Device) {
    if let Some(bits) = ENABLED.get(device.ordinal()) {
        if peer.ordinal() < 64 {
            bits.fetch_or(1 << peer.ordinal(), Ordering::AcqRel);
        }
    }
}

impl Device {
    /// Whether kernels and copies on this device can reach `peer`'s memory
    /// directly once [`Device::enable_peer_access`] has run
    /// (`hipDeviceCanAccessPeer`). True for the device itself, which HIP
    /// answers with 0: a device always reaches its own memory.
    ///
    /// # Errors
    /// HIP's status of `hipDeviceCanAccessPeer` ([`HipError::Call`]), e.g.
    /// for an ordinal HIP does not know; [`HipError::Backend`] when no
    /// backend loads. No call, and no error, for the device itself.
    #[doc(alias = "hipDeviceCanAccessPeer")]
    pub fn can_access_peer(self, peer: Device) -> Result<bool> {
        if self == peer {
            return Ok(true);
        }
        raw::peer::can_access(self, peer)
    }

    /// Let this device reach `peer`'s memory directly
    /// (`hipDeviceEnablePeerAccess` under this device, whatever the
    /// thread's device is). Idempotent: enabling an enabled pair, or a
    /// device for itself, is `Ok`. Where the hardware has no path
    /// ([`Device::can_access_peer`] is false) it is
    /// [`HipError::PeerAccessUnsupported`], naming both devices; copies
    /// between them still work, staged by the runtime.
    ///
    /// The process remembers the pairs it enabled; disabling one behind
    /// this crate's back (a raw `hipDeviceDisablePeerAccess`) is not seen.
    ///
    /// # Errors
    /// As [`Device::can_access_peer`]; [`HipError::PeerAccessUnsupported`]
    /// where it says no; else HIP's status of `hipDeviceEnablePeerAccess`,
    /// or of binding this device (`hipErrorPeerAccessAlreadyEnabled` is `Ok`).
    #[doc(alias = "hipDeviceEnablePeerAccess")]
    pub fn enable_peer_access(self, peer: Device) -> Result<()> {
        if self == peer {
            return Ok(());
        }
        if !self.can_access_peer(peer)? {
            return Err(HipError::PeerAccessUnsupported { device: self.ordinal() as u32, peer: peer.ordinal() as u32 });
        }
        if remembered(self, peer) {
            return Ok(());
        }
        raw::peer::enable(self, peer)?;
        remember(self, peer);
        Ok(())
    }
}
