//! rocSPARSE: CSR matrices and sparse products.
//!
//! ```no_run
//! # // Runs in the workspace tests; here it needs an `amdgpu` array type.
//! ```
//!
//! [`CsrMatrix`] uploads and validates a host CSR matrix; [`spmv`]
//! computes `y = alpha * op(A) * x + beta * y` and [`spmm`] the same with
//! a dense matrix. Work runs on the output's stream, with this thread's
//! rocSPARSE handle for the output's device (see [`handle_stats`]).

mod csr;
mod handle;
mod spmv;

pub use csr::{CsrMatrix, SparseScalar};
pub use handle::handle_stats;
pub use spmv::{spmm, spmv, spmv_op, DenseOrder, Operation};
