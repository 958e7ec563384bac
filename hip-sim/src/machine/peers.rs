//! Peer access between devices: which pairs could reach each other's
//! memory, and for which kernels on one device may touch a peer's memory.

use super::lock::lock;
use std::collections::HashSet;
use std::sync::Mutex;

/// Pairs `(device, peer)` made unreachable by [`set_peer_reachable`].
static UNREACHABLE: Mutex<Option<HashSet<(usize, usize)>>> = Mutex::new(None);

/// Whether `device` could reach `peer`'s memory (clr's `p2pDevices_`):
/// every pair of distinct devices unless a test said otherwise; never a
/// device itself (clr answers 0 there).
pub(crate) fn peer_reachable(device: usize, peer: usize) -> bool {
    device != peer && !lock(&UNREACHABLE).as_ref().is_some_and(|u| u.contains(&(device, peer)))
}

/// Model a machine where `device` cannot reach `peer`'s memory (no
/// peer-to-peer link), or restore the link: `hipDeviceCanAccessPeer` then
/// answers 0 and `hipDeviceEnablePeerAccess` / `hipDeviceDisablePeerAccess`
/// refuse with `hipErrorInvalidDevice`, as clr does. Copies between the
/// two still work (HIP stages them). Not a HIP call; for tests, which
/// should hold [`exclusive`](crate::exclusive()) while they change it.
pub fn set_peer_reachable(device: usize, peer: usize, reachable: bool) {
    let mut unreachable = lock(&UNREACHABLE);
    let set = unreachable.get_or_insert_with(HashSet::new);
    if reachable {
        set.remove(&(device, peer));
    } else {
        set.insert((device, peer));
        if let Some(peers) = lock(&PEERS).as_mut() {
            peers.remove(&(device, peer));
        }
    }
}

/// Enabled peer access: `(device, peer)` means kernels on `device` may
/// touch `peer`'s memory.
static PEERS: Mutex<Option<HashSet<(usize, usize)>>> = Mutex::new(None);

/// Whether kernels running on `device` may touch memory of `peer`: always
/// for its own memory, else after `hipDeviceEnablePeerAccess(peer)` on
/// `device` (and until `hipDeviceDisablePeerAccess`).
pub(crate) fn peer_access_enabled(device: usize, peer: usize) -> bool {
    device == peer || lock(&PEERS).as_ref().is_some_and(|p| p.contains(&(device, peer)))
}

/// Let kernels on `device` touch `peer`'s memory; `false` if they could already.
pub(crate) fn enable(device: usize, peer: usize) -> bool {
    lock(&PEERS).get_or_insert_with(HashSet::new).insert((device, peer))
}

/// Stop kernels on `device` touching `peer`'s memory; `false` if they could not.
pub(crate) fn disable(device: usize, peer: usize) -> bool {
    lock(&PEERS).get_or_insert_with(HashSet::new).remove(&(device, peer))
}
