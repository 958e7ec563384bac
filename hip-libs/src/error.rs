//! Errors of the library wrappers.

use hip_core::{DeviceMismatch, HipError};
use hip_pool::PoolError;
use hip_sys::BackendError;

/// The result of a library operation.
pub type Result<T, E = LibError> = std::result::Result<T, E>;

/// Why a library operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LibError {
    /// The library cannot be used with this backend or installation.
    #[error(transparent)]
    Unavailable(#[from] BackendError),
    /// A HIP call failed, or an operand or the stream is on another device
    /// than the operation's ([`HipError::DeviceMismatch`]; see
    /// [`LibError::device_mismatch`]).
    #[error(transparent)]
    Hip(#[from] HipError),
    /// The memory pool could not serve a work area.
    #[error(transparent)]
    Pool(#[from] PoolError),
    /// The library returned an error status.
    #[error("{library} {operation} failed with status {status} ({name})")]
    Status {
        /// `rocSPARSE`, `rocFFT` or `MIOpen`.
        library: &'static str,
        /// The function that failed.
        operation: &'static str,
        /// The status code.
        status: u32,
        /// The status's name in the library's header.
        name: &'static str,
    },
    /// Input the library would reject or misread, found before calling it.
    #[error("{operation}: {problem}")]
    InvalidInput {
        /// The operation refused.
        operation: &'static str,
        /// What is wrong, with the values.
        problem: String,
    },
    /// A factorization met a matrix it cannot factor, as its `info` says
    /// ([`solver::Info::check`](crate::solver::Info::check)).
    #[error("{operation}: {breakdown}")]
    Breakdown {
        /// The factorization.
        operation: &'static str,
        /// What its `info` reported.
        breakdown: Breakdown,
    },
    /// Problems of a strided batch met matrices they cannot factor, as the
    /// batch's `info` says ([`solver::Info::check`](crate::solver::Info::check));
    /// [`solver::Info::breakdowns`](crate::solver::Info::breakdowns) gives
    /// each problem's.
    #[error("{operation}: problem {problem} of {count} (0-based; {failed} failed in all): {breakdown}")]
    BatchBreakdown {
        /// The factorization.
        operation: &'static str,
        /// The first problem that failed, 0-based.
        problem: usize,
        /// How many problems failed.
        failed: usize,
        /// The problems in the batch.
        count: usize,
        /// What the first failed problem's `info` reported.
        breakdown: Breakdown,
    },
    /// A collective failed (RCCL, or NCCL on nvidia): the call itself, or
    /// the communicator's asynchronous error
    /// ([`collective::Communicator::check`](crate::collective::Communicator::check)).
    #[error("RCCL {operation} failed with {name} ({result}){}", if message.is_empty() { String::new() } else { format!(": {message}") })]
    Collective {
        /// The function that failed.
        operation: &'static str,
        /// The `ncclResult_t`.
        result: u32,
        /// Its name in the header.
        name: &'static str,
        /// What the library said (`ncclGetLastError`), if anything.
        message: String,
    },
    /// A collective did not complete within the timeout given to
    /// [`collective::Communicator::synchronize`](crate::collective::Communicator::synchronize);
    /// the communicator was aborted.
    #[error(
        "rank {rank}'s collectives did not complete within {waited:?}, so its communicator was aborted (a peer \
         never made its call, or is stuck){}", if message.is_empty() { String::new() } else { format!(": {message}") }
    )]
    CollectiveTimeout {
        /// The rank that waited.
        rank: usize,
        /// How long it waited.
        waited: std::time::Duration,
        /// What the library said, if anything.
        message: String,
    },
    /// The library has no implementation for this case (a data type, a
    /// mode); computing it anyway would give wrong results.
    #[error("{library} {operation}: {problem}")]
    Unsupported {
        /// `rocSPARSE`, `rocFFT` or `MIOpen`.
        library: &'static str,
        /// The operation refused.
        operation: &'static str,
        /// What is not supported, and what to do instead.
        problem: String,
    },
}

/// What a factorization's `info` reports when it is not 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Breakdown {
    /// LU: `U(column, column)` is exactly zero (1-based), so the matrix is
    /// singular and a solve with the factors would divide by zero.
    ZeroPivot {
        /// The first zero pivot's column, 1-based.
        column: usize,
    },
    /// Cholesky: the leading minor of this order is not positive definite
    /// (1-based), so the matrix is not.
    NotPositiveDefinite {
        /// The order of the first such leading minor.
        order: usize,
    },
    /// Eigensolver: the algorithm did not converge. rocSOLVER's `info`:
    /// the number of off-diagonal elements of the tridiagonal that did not
    /// converge to zero (rocSOLVER 3.21 counts them in every case; its
    /// documentation describes a submatrix encoding for the divide and
    /// conquer with vectors, and cuSOLVER's count is its own).
    NotConverged {
        /// rocSOLVER's `info`.
        info: usize,
    },
    /// SVD: the bidiagonal QR iteration did not converge. rocSOLVER's
    /// `info`: the number of the bidiagonal's superdiagonal elements that
    /// did not converge to zero (cuSOLVER's count is the same).
    SvdNotConverged {
        /// The superdiagonal elements that did not converge.
        superdiagonals: usize,
    },
}

impl std::fmt::Display for Breakdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Breakdown::ZeroPivot { column } => write!(
                f,
                "the matrix is singular: U({column}, {column}) is exactly zero (info = {column}); the factors are \
                 complete but a solve with them would divide by zero"
            ),
            Breakdown::NotPositiveDefinite { order } => write!(
                f,
                "the matrix is not positive definite: its leading minor of order {order} is not (info = {order}); \
                 the factor is valid only in its first {} columns",
                order.saturating_sub(1)
            ),
            Breakdown::NotConverged { info } => write!(
                f,
                "the eigensolver did not converge (info = {info}): the eigenvalues and vectors are not valid; a \
                 matrix with NaNs or infinities does this"
            ),
            Breakdown::SvdNotConverged { superdiagonals } => write!(
                f,
                "the SVD did not converge: {superdiagonals} superdiagonal elements of the bidiagonal are not zero \
                 (info = {superdiagonals}); the singular values and vectors are not valid, and a matrix with NaNs \
                 or infinities does this"
            ),
        }
    }
}

impl LibError {
    pub(crate) fn invalid(operation: &'static str, problem: impl Into<String>) -> LibError {
        LibError::InvalidInput { operation, problem: problem.into() }
    }

    /// The device mismatch this error reports (an operand or the stream on
    /// another device than the operation's), if it is one.
    pub fn device_mismatch(&self) -> Option<&DeviceMismatch> {
        match self {
            LibError::Hip(error) => error.device_mismatch(),
            LibError::Pool(error) => error.device_mismatch(),
            _ => None,
        }
    }
}

/// A mismatch is a [`HipError::DeviceMismatch`], here as in every crate.
impl From<DeviceMismatch> for LibError {
    fn from(mismatch: DeviceMismatch) -> Self {
        LibError::Hip(mismatch.into())
    }
}
