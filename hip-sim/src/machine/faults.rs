//! Fault injection: fail the Nth call of a function, or fail everything.

use super::calls::index_of_runtime;
use super::lock::lock;
use crate::bindings::hip::hipError_t;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// An injected failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The HIP function, by its C name (`"hipMalloc"`).
    pub function: String,
    /// Which call fails, counted from the injection: 1 is the next call.
    pub nth: u64,
    /// What that call returns.
    pub error: hipError_t,
}

struct Armed {
    index: usize,
    remaining: u64,
    error: hipError_t,
}

static ARMED: Mutex<Vec<Armed>> = Mutex::new(Vec::new());
static ANY_ARMED: AtomicBool = AtomicBool::new(false);
static STICKY: Mutex<Option<hipError_t>> = Mutex::new(None);
static ANY_STICKY: AtomicBool = AtomicBool::new(false);

/// Make the `fault.nth` next call of `fault.function` fail with
/// `fault.error` (once). Returns `false`, injecting nothing, when the name
/// is not a function of the table or `nth` is 0.
pub fn inject_fault(fault: Fault) -> bool {
    let Some(index) = index_of_runtime(&fault.function) else {
        return false;
    };
    if fault.nth == 0 {
        return false;
    }
    lock(&ARMED).push(Armed { index, remaining: fault.nth, error: fault.error });
    ANY_ARMED.store(true, Ordering::SeqCst);
    true
}

/// A sticky device fault, as after a GPU memory fault under ROCm 7: from
/// now on every call on every thread returns `error`, until
/// [`reset_faults`].
pub fn inject_sticky_fault(error: hipError_t) {
    *lock(&STICKY) = Some(error);
    ANY_STICKY.store(true, Ordering::SeqCst);
}

/// Clear every injected and sticky fault.
pub fn reset_faults() {
    lock(&ARMED).clear();
    ANY_ARMED.store(false, Ordering::SeqCst);
    *lock(&STICKY) = None;
    ANY_STICKY.store(false, Ordering::SeqCst);
}

pub(crate) fn sticky() -> Option<hipError_t> {
    if !ANY_STICKY.load(Ordering::Relaxed) {
        return None;
    }
    *lock(&STICKY)
}

/// Count this call against the armed faults; the error if one fires.
pub(crate) fn injected(index: usize) -> Option<hipError_t> {
    if !ANY_ARMED.load(Ordering::Relaxed) {
        return None;
    }
    let mut armed = lock(&ARMED);
    let mut fired = None;
    armed.retain_mut(|a| {
        if a.index != index {
            return true;
        }
        a.remaining -= 1;
        if a.remaining == 0 && fired.is_none() {
            fired = Some(a.error);
            false
        } else {
            a.remaining > 0
        }
    });
    fired
}
