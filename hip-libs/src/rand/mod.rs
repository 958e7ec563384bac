//! rocRAND: uniform, normal and log-normal numbers, and raw 32-bit words,
//! written into device memory on its stream.
//!
//! Each thread has one Philox4x32-10 generator per device, made on first
//! use and destroyed when the thread exits (never handed to another
//! thread: it carries its position in the stream). A thread's stream
//! starts where rocRAND's host API starts, at seed 0 and offset 0, and
//! every fill continues it; [`set_seed`] and [`set_offset`] restart it.
//! Two threads that set no seed therefore draw the same numbers: give each
//! its own seed or offset.
//!
//! # Reproducibility
//!
//! On AMD and in the simulator the numbers are rocRAND's: the simulator
//! computes rocRAND's Philox stream and its uniforms bit for bit, and its
//! normals to a few ulps (the GPU's `sin`, `cos` and `log` are
//! approximations the CPU does not share). On the nvidia backend the
//! numbers are cuRAND's: its Philox sequences and conversions differ from
//! rocRAND's for the same seed, so numbers are reproducible within a
//! backend, not across them. cuRAND's rule that normal counts be even is
//! the mapping's to meet: any count works everywhere.
//!
//! # Capture
//!
//! Fills capture: the graph replays the same numbers at each launch
//! (rocRAND advances its stream when a fill is enqueued, not when it
//! runs). Making the thread's generator is refused inside a capture; call
//! [`warm_handle`] first.

mod fill;
mod generator;
mod raw;

pub use fill::{bits, log_normal, normal, set_offset, set_seed, uniform, RandFloat};
pub use generator::{handle_stats, warm_handle};
