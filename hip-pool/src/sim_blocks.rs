//! Telling the simulator which blocks are handed out, so that a kernel it
//! runs reaches exactly its buffer (a byte past it, or a block held free,
//! faults) and its race detector sees exactly the buffer's bytes. On
//! other backends, and without the `sim` feature, one relaxed load.
//!
//! This file is the pool's only mention of the simulator.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the process runs on the simulator (set with the first pool).
static ON: AtomicBool = AtomicBool::new(false);

/// Note the backend, once a pool exists.
pub(crate) fn from_backend() {
    ON.store(cfg!(feature = "sim") && hip_sys::backend() == hip_sys::Backend::Sim, Ordering::Relaxed);
}

/// Whether to tell the simulator (check first on hot paths).
#[inline(always)]
pub(crate) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// A buffer of `len` bytes at `ptr` was handed out.
#[cold]
pub(crate) fn handed_out(ptr: usize, len: usize) {
    #[cfg(feature = "sim")]
    hip_sys::sim::note_block(ptr, len);
    #[cfg(not(feature = "sim"))]
    let _ = (ptr, len);
}

/// The buffer at `ptr` went back to its pool.
#[cold]
pub(crate) fn given_back(ptr: usize) {
    #[cfg(feature = "sim")]
    hip_sys::sim::forget_block(ptr);
    #[cfg(not(feature = "sim"))]
    let _ = ptr;
}
