//! rocSPARSE: CSR matrices and sparse products.
//!
//! (`amdgpu`'s `multi_gpu` example shows them with `DeviceArray`s.)
//!
//! [`CsrMatrix`] uploads and validates a host CSR matrix; [`spmv`]
//! computes `y = alpha * op(A) * x + beta * y` and [`spmm`] the same with
//! a dense matrix. Work runs on the output's stream, with this thread's
//! rocSPARSE handle for the output's device (see [`handle_stats`]).
//!
//! # Capture
//!
//! Products capture, except a matrix's first non-transposed `spmv` (its
//! analysis allocates and synchronizes) and the first call of a thread on
//! a device (its handle's five allocations and a synchronize), which are
//! refused inside a capture (`HipError::CaptureUnderway`): run one product
//! per matrix before capturing.

mod analysis;
mod csr;
mod handle;
mod raw;
mod spmv;

pub use csr::{CsrMatrix, SparseScalar};
pub use handle::{clear_idle_handles, handle_stats, warm_handle, with_raw_handle};
pub use spmv::{spmm, spmv, spmv_op, DenseOrder, Operation};
