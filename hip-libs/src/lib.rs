//! rocBLAS, rocSPARSE, rocFFT, MIOpen, rocRAND, rocSOLVER and RCCL for amdgpu-rs.
//!
//! - [`blas`]: GEMM (also strided batched, f16 and bf16), GEMV, `axpy`,
//!   `scal`, `dot`, `nrm2`.
//! - [`sparse`]: [`sparse::CsrMatrix`], `spmv`, `spmm` (f32, f64).
//! - [`fft`]: complex and real FFTs in 1-3 dimensions with a bounded plan
//!   cache.
//! - [`dnn`]: softmax, activations and 2-D convolution.
//! - [`rand`]: uniform, normal, log-normal and Poisson fills and raw bits,
//!   from rocRAND's Philox4x32-10, XORWOW or MRG32k3a per thread
//!   ([`rand::set_engine`]), and the project's own portable Philox
//!   ([`rand::Philox`]), the same numbers on every backend.
//! - [`solver`]: LU, Cholesky and QR factorizations and solves, the
//!   symmetric / Hermitian eigensolver and the SVD (rocSOLVER), one matrix
//!   at a time, as strided batches or as batches of separate matrices
//!   ([`solver::MatrixBatch`]); their `info` kept on the device until
//!   asked for.
//! - [`collective`]: RCCL's (NCCL's) communicators and collectives across
//!   GPUs, from one thread driving every device to one process a rank.
//!
//! Operands are anything that implements [`DeviceData`] (amdgpu's
//! `DeviceArray` and `DeviceSlice` do). Work runs on the output's stream,
//! all operands must be on one device, and lengths are checked before any
//! library call. Library handles are cached per (thread, device) and go
//! back to an idle list keyed by the device they were made on when their
//! thread exits; plans and handles are destroyed under their own device.
//! The libraries are loaded when first used: AMD's on the `amd` backend,
//! cuBLAS, cuSPARSE, cuFFT, cuDNN, cuRAND, cuSOLVER and NCCL behind the
//! same tables on the `nvidia` backend, the simulator's on `sim`. Where a library cannot be loaded,
//! calls fail with [`LibError::Unavailable`] and [`available`] says so up
//! front.

pub mod blas;
pub mod collective;
mod data;
pub mod dnn;
mod error;
pub mod fft;
mod handle_cache;
mod memory;
pub mod rand;
pub mod solver;
pub mod sparse;

pub use data::{DeviceData, DeviceDataMut};
pub use error::{Breakdown, LibError, Result};
pub use handle_cache::HandleStats;
pub use hip_sys::Library;

/// Whether `library` can be used with this process's backend.
pub fn available(library: Library) -> bool {
    hip_sys::available(library)
}
