//! rocBLAS: GEMM (f32, f64, complex, and f16 / bf16 with f32 compute),
//! strided batched GEMM, GEMV, and the level 1 `axpy`, `scal`, `dot`,
//! `dotc`, `nrm2`.
//!
//! Matrices are column-major, as in every BLAS: element (i, j) of a matrix
//! with leading dimension `ld` is at `i + j * ld`. Complex numbers are
//! `[re, im]` pairs. Every size, leading dimension and length is checked
//! before rocBLAS is called, and an error names the value; operands must be
//! on one device; the work runs on the output's stream (for `dot` and
//! `nrm2`, whose result comes back to the host, on x's stream, and the call
//! waits for it).
//!
//! # Capture
//!
//! GEMM, batched GEMM, GEMV, `axpy` and `scal` capture. Inside
//! `Stream::capture` their kernels are recorded with a workspace of the
//! capture's own, from its private pool, not the handle's: every graph has
//! its own, so graphs captured on one thread's handle replay at once on
//! different streams, and none holds back the handle's eager calls (calls
//! on one stream of a capture reuse one workspace, in capture order). It
//! is the handle's size ([`workspace_size`], 32 MiB by default) a graph;
//! captures into one shared `hip_pool::GraphPool` on one stream share it
//! too, their graphs being replayed one at a time, as PyTorch's graphs
//! sharing a pool do. `dot`, `dotc` and
//! `nrm2` return their result to the host and wait for it, so inside a
//! capture they are refused before any call (`HipError::CaptureUnderway`),
//! as is making this thread's first handle for a device: make one call
//! before capturing.
//!
//! Each (thread, device) has its own rocBLAS handle, made on first use and
//! returned, when the thread exits, to an idle list of the device it was
//! made on ([`handle_stats`]). Each handle has a workspace of
//! [`workspace_size`] bytes from the device's pool, so pool statistics
//! and limits see it; when a handle moves to another stream, the old
//! stream's use of the workspace is ordered before the new one's on the GPU.
//!
//! On the nvidia backend rocBLAS is mapped onto cuBLAS; on the simulator it
//! is computed on the CPU in the operands' precision.

mod gemm;
mod handle;
mod raw;
mod vector;

pub use gemm::{gemm, gemm_strided_batched, Batch, Gemm, Math};
pub use handle::{
    clear_idle_handles, default_workspace_size, handle_stats, warm_handle, with_raw_handle, workspace_size,
};
pub use raw::scalar::{BlasScalar, GemmScalar};
pub use vector::{axpy, dot, dotc, gemv, nrm2, scal};

pub(crate) use handle::on_handle_sized;
pub(crate) use raw::status_name;

use crate::{LibError, Result};
use hip_sys::rocblas::rocblas_operation;

/// What a BLAS function does to a matrix operand before using it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Op {
    /// `A`.
    #[default]
    None,
    /// `Aᵀ`.
    Transpose,
    /// `Aᴴ`, the conjugate transpose (`Aᵀ` for real types).
    ConjTranspose,
}

impl Op {
    pub(crate) fn raw(self) -> rocblas_operation {
        match self {
            Op::None => rocblas_operation::rocblas_operation_none,
            Op::Transpose => rocblas_operation::rocblas_operation_transpose,
            Op::ConjTranspose => rocblas_operation::rocblas_operation_conjugate_transpose,
        }
    }
}

/// A size as rocBLAS's 32-bit `rocblas_int`, or an error naming it.
fn dim(op: &'static str, name: &str, value: usize) -> Result<i32> {
    i32::try_from(value).map_err(|_| {
        LibError::invalid(op, format!("{name} = {value} exceeds rocBLAS's 32-bit sizes (at most {})", i32::MAX))
    })
}

/// The elements a column-major `rows` × `cols` matrix with leading
/// dimension `ld` spans.
fn matrix_len(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1).saturating_mul(ld).saturating_add(rows)
    }
}
