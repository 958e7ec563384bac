//! The strictness log: calls on an object of one device made while the
//! calling thread's current device was another.

use super::runtime::{current_device, lock};
use std::sync::Mutex;

/// One context violation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The HIP function called.
    pub function: &'static str,
    /// The device the object belongs to.
    pub object_device: usize,
    /// The calling thread's current device at the call.
    pub current_device: usize,
    /// The calling thread, by name or id.
    pub thread: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} on an object of device {} while thread {} was on device {}",
            self.function, self.object_device, self.thread, self.current_device
        )
    }
}

static LOG: Mutex<Vec<Violation>> = Mutex::new(Vec::new());

/// Every violation recorded so far in this process.
pub fn violations() -> Vec<Violation> {
    lock(&LOG).clone()
}

/// Forget the recorded violations (tests holding
/// [`exclusive`](super::exclusive) may start from a clean log).
pub fn clear_violations() {
    lock(&LOG).clear();
}

/// Record a violation if the calling thread is not on `object_device`.
pub(crate) fn check(function: &'static str, object_device: usize) {
    let current = current_device();
    if current != object_device {
        let thread = std::thread::current();
        let name = thread.name().map_or_else(|| format!("{:?}", thread.id()), str::to_string);
        log::debug!("hip simulator: context violation: {function} on device {object_device} from device {current}");
        lock(&LOG).push(Violation { function, object_device, current_device: current, thread: name });
    }
}
