//! Locking the simulator's mutexes.

use crate::sync::MutexExt;
use std::sync::{Mutex, MutexGuard};

/// Lock a mutex, ignoring poisoning: the simulator's invariants hold
/// between statements, and a panicking test must not break later tests.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock_unpoisoned()
}
