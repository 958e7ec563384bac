//! The C ABI of amdgpu-rs: the C types and function tables of HIP,
//! hipRTC, rocBLAS, rocSPARSE, rocFFT, rocRAND, rocSOLVER, RCCL, MIOpen
//! and ROCTx,
//! and what every backend that fills a table shares.
//!
//! This is the bottom crate: `hip-sys` (the loader, the backend selection
//! and the amd and nvidia backends) and `hip-sim` (the simulator) both
//! build on it, and `hip-sys` re-exports it, so the crates above name it
//! through `hip_sys` only.
//!
//! - [`bindings`]: the C API in one folder, and nothing else. The
//!   generated types and tables (`cargo xtask bindgen`, drift-checked),
//!   MIOpen's written by hand, HIP's names of later headers
//!   ([`bindings::newer`]) and of its statuses ([`error_names`]).
//! - [`shared`]: the rules every backend keeps the same way (rocBLAS's
//!   and rocSOLVER's argument rules, rocFFT's and NCCL's version facts,
//!   rocSPARSE's two SpMV forms, the portable kernel prelude and its
//!   headers, the runtime compiler's description).
//! - [`provider`]: what a backend hands the process for its math
//!   libraries and compiler ([`provider::Provider`]).
//! - [`Backend`] and [`BackendError`]: which backend serves a process, and
//!   why none could be set up.
//! - [`sync`] and [`units`]: locks that survive a panic, byte sizes in text.

// The rules in `shared` serve several backends each; a build with only
// some of them leaves parts unused there, not here.
#![allow(dead_code)]

pub mod bindings;
mod error;
mod kind;
pub mod provider;
pub mod shared;
pub mod sync;
pub mod units;

pub use bindings::error_names;
pub use bindings::{dlpack, hip, hiprtc, miopen, rccl, rocblas, rocfft, rocrand, rocsolver, rocsparse, roctx};
pub use error::BackendError;
pub use kind::Backend;
