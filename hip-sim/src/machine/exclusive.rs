//! Tests that need the simulator's process-wide counts to themselves.

use super::faults::reset_faults;
use super::lock::lock;
use std::sync::{Mutex, MutexGuard};

static EXCLUSIVE: Mutex<()> = Mutex::new(());

/// A guard that serializes tests needing exact process-wide counts.
pub struct Exclusive {
    _guard: MutexGuard<'static, ()>,
}

impl std::fmt::Debug for Exclusive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Exclusive")
    }
}

/// Take the simulator for this test alone, among the tests that also call
/// `exclusive()`. Held until dropped; tolerant of a panicked holder. On
/// taking it, injected faults are cleared.
pub fn exclusive() -> Exclusive {
    let guard = lock(&EXCLUSIVE);
    reset_faults();
    Exclusive { _guard: guard }
}
