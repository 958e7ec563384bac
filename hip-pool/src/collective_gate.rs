//! The order of the pool's driver calls against collectives: a
//! `hipFree` or a device synchronize never runs while a collective of this
//! process is being launched, nor on a device where a collective waits
//! for a rank of this process that has not made its call.
//!
//! Why: a device synchronize (which `hipFree` makes) waits for the
//! device's queued work, and while it waits it holds back other launches
//! of the process (NCCL issue 48). A collective launched on device 0 that
//! waits for rank 1, whose launch is held back, never completes: the
//! process deadlocks. PyTorch takes a "free mutex" around its NCCL
//! launches for this; here the collectives say what is in flight and the
//! pool waits for it:
//!
//! - [`launching`] while NCCL launches (a group's end, an ungrouped call):
//!   the pool's driver calls wait for every such guard to go;
//! - [`set_waiting`] for a device on which a collective has been posted
//!   while another rank of this process has not posted its part yet: the
//!   pool's driver calls on that device wait until it is cleared.
//!
//! The wait is bounded ([`WAIT_LIMIT`]): a thread that frees on a device
//! before posting its own rank of a collective already posted there would
//! otherwise wait for itself. After the bound it goes on, and says so in
//! the log.

use hip_core::Device;
use hip_sys::sync::{CondvarExt, MutexExt};
use std::collections::HashSet;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a driver call waits for collectives before it goes on.
pub const WAIT_LIMIT: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Gate {
    launching: usize,
    waiting: HashSet<usize>,
}

static GATE: Mutex<Option<Gate>> = Mutex::new(None);
static CHANGED: Condvar = Condvar::new();

fn with<R>(f: impl FnOnce(&mut Gate) -> R) -> R {
    f(GATE.lock_unpoisoned().get_or_insert_with(Gate::default))
}

/// Held while collectives are being launched; see the module docs.
#[derive(Debug)]
#[must_use = "the launch is in flight only while the guard lives"]
pub struct LaunchGuard(());

/// Note that collectives are being launched until the guard drops.
pub fn launching() -> LaunchGuard {
    with(|g| g.launching += 1);
    LaunchGuard(())
}

impl Drop for LaunchGuard {
    fn drop(&mut self) {
        with(|g| g.launching = g.launching.saturating_sub(1));
        CHANGED.notify_all();
    }
}

/// Say whether a collective posted on `device` waits for a rank of this
/// process that has not made its call.
pub fn set_waiting(device: Device, waiting: bool) {
    set_waiting_ordinal(device.ordinal(), waiting);
}

fn set_waiting_ordinal(ordinal: usize, waiting: bool) {
    with(|g| {
        if waiting {
            g.waiting.insert(ordinal);
        } else {
            g.waiting.remove(&ordinal);
        }
    });
    if !waiting {
        CHANGED.notify_all();
    }
}

/// Whether a driver call that synchronizes `device` would wait now: a
/// launch is in flight, or a collective there waits for a rank of this
/// process.
pub fn waits(device: Device) -> bool {
    with(|g| g.launching > 0 || g.waiting.contains(&device.ordinal()))
}

/// Wait, at most [`WAIT_LIMIT`], until a driver call that synchronizes
/// `device` cannot deadlock a collective of this process.
pub(crate) fn before_driver_sync(device: Device) {
    wait_for(device.ordinal());
}

fn wait_for(ordinal: usize) {
    let started = Instant::now();
    let mut gate = GATE.lock_unpoisoned();
    loop {
        let g = gate.get_or_insert_with(Gate::default);
        if g.launching == 0 && !g.waiting.contains(&ordinal) {
            return;
        }
        let waited = started.elapsed();
        if waited >= WAIT_LIMIT {
            log::warn!(
                "a free or synchronize of device {ordinal} waited {waited:?} for collectives of this process (a rank that \
                 has not made its call): going on, which may deadlock on a GPU"
            );
            return;
        }
        gate = CHANGED.wait_timeout_unpoisoned(gate, WAIT_LIMIT - waited);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Ordinals far above any machine's, so that the pools of other tests
    // in this binary never wait on them.
    const A: usize = 1000;
    const B: usize = 1001;

    #[test]
    fn a_sync_waits_for_its_devices_collectives_only() {
        set_waiting_ordinal(A, true);
        let started = Instant::now();
        wait_for(B);
        assert!(started.elapsed() < Duration::from_secs(1), "another device does not wait");
        let clear = std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            set_waiting_ordinal(A, false);
        });
        wait_for(A);
        assert!(started.elapsed() >= Duration::from_millis(100), "its device waits until cleared");
        clear.join().expect("cleared");
    }

    #[test]
    fn a_launch_holds_every_device() {
        let guard = launching();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(guard);
        });
        let started = Instant::now();
        wait_for(B);
        assert!(started.elapsed() >= Duration::from_millis(100), "waited for the launch");
        release.join().expect("released");
    }
}
