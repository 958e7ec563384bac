//! The one place this crate calls rocSOLVER: per element type, the typed
//! calls of the factorizations and solves ([`SolverScalar`], generated
//! from the bindings by `cargo xtask dispatch`), and rocSOLVER's statuses
//! (rocBLAS's) turned into errors.
//!
//! # References
//! rocSOLVER's [LAPACK functions](https://rocm.docs.amd.com/projects/rocSOLVER/en/latest/reference/lapack.html).

use crate::Result;
use hip_sys::rocsolver::rocblas_status;

// Generated: formatted by its generator, which `--check` compares byte
// for byte.
#[rustfmt::skip]
mod dispatch;

pub use dispatch::SolverScalar;

/// Status to result, naming the rocSOLVER function.
pub(crate) fn check(status: rocblas_status, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    Err(crate::LibError::Status {
        library: "rocSOLVER",
        operation,
        status: status.0,
        name: crate::blas::status_name(status),
    })
}
