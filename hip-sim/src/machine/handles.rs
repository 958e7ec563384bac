//! Handle values for the simulator's objects.

use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(0x5000_0000);

/// A fresh, never reused handle value (streams, events, modules, pools,
/// programs and library objects alike).
pub(crate) fn new_handle() -> usize {
    NEXT_HANDLE.fetch_add(0x10, Ordering::Relaxed)
}
