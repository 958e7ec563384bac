//! rocRAND: uniform, normal, log-normal and Poisson numbers, and raw
//! 32-bit words, written into device memory on its stream.
//!
//! Each thread has one generator per device, made on first use and
//! destroyed when the thread exits (never handed to another thread: it
//! carries its position in the stream). Its [`Engine`] is Philox4x32-10
//! unless [`set_engine`] chose XORWOW or MRG32k3a for that thread and
//! device. A thread's stream
//! starts where rocRAND's host API starts, at seed 0 and offset 0, and
//! every fill continues it; [`set_seed`] and [`set_offset`] restart it.
//! Two threads that set no seed therefore draw the same numbers: give each
//! its own seed or offset.
//!
//! # Reproducibility
//!
//! On AMD and in the simulator the numbers are rocRAND's: the simulator
//! computes every engine's stream as rocRAND's host generators lay it
//! out, its uniforms, words and Poisson numbers bit for bit, and its
//! normals to a few ulps (the GPU's `sin`, `cos` and `log` are
//! approximations the CPU does not share). On the nvidia backend the
//! numbers are cuRAND's: its Philox sequences and conversions differ from
//! rocRAND's for the same seed, so numbers are reproducible within a
//! backend, not across them. cuRAND's rule that normal counts be even is
//! the mapping's to meet: any count works everywhere.
//!
//! # The same numbers on every backend
//!
//! [`Philox`] is the project's own counter-based Philox4x32-10, computed by
//! a kernel of its own (hipRTC, NVRTC, a simulator built-in) with integer
//! arithmetic and exact conversions: the same seed and position give the
//! same bits on AMD, NVIDIA and the simulator, where rocRAND and cuRAND
//! differ. It has the raw words and uniforms; normals are not offered yet
//! (they need transcendental functions, which differ between GPUs'
//! math libraries).
//!
//! # Capture
//!
//! Fills capture, but what a replay draws differs between the libraries:
//! rocRAND (AMD, the simulator) hands the stream's position to its kernel
//! when the fill is enqueued, so every replay draws the numbers the
//! capture baked in; cuRAND (the nvidia backend) keeps the position where
//! its kernel moves it on, so each replay draws new ones. A graph that
//! needs fresh numbers at every replay on every backend (dropout in a
//! replayed training step) cannot get them from these fills yet.
//!
//! Making the thread's generator, and [`set_seed`] and [`set_offset`]
//! (which make its state again, an allocation on cuRAND), are refused
//! inside a capture; call [`warm_handle`] first.

mod fill;
mod generator;
mod portable;
mod raw;

pub use fill::{bits, log_normal, normal, poisson, set_offset, set_seed, uniform, RandFloat, POISSON_LAMBDA_MAX};
pub use generator::{engine, handle_stats, set_engine, warm_handle, Engine};
pub use portable::{Philox, PortableFloat};
