//! rocSOLVER's table: AMD's library, the simulator's, or the mapping onto
//! cuSOLVER's dense API.
//!
//! **rocSOLVER** reports its version as a string, `major.minor.patch.tweak`:
//! 3.21 in ROCm 5.5, 3.2x in later 5.x and 6.x releases. Every function of
//! the table has the same signature in the 5.5 headers the bindings come
//! from and in the 6.x headers. Supported: rocSOLVER 3.x; a later major
//! version is refused until its headers are read.
//!
//! A rocSOLVER call takes a **rocBLAS handle** (the same
//! [`rocblas_handle`](crate::rocblas::rocblas_handle)) and its stream, and
//! takes its workspace from that handle's device memory: a caller that
//! gave the handle a workspace (`rocblas_set_workspace`) asks how much a
//! call needs with `rocblas_start_device_memory_size_query`, the call, and
//! `rocblas_stop_device_memory_size_query`, and gives it that much.
//!
//! On the nvidia backend the table maps onto cuSOLVER's dense functions
//! (`cusolverDn*`), with one cuSOLVER handle per cuBLAS handle.

use std::sync::OnceLock;

use crate::rocsolver::RocsolverApi;
use crate::BackendError;

/// The process's rocSOLVER table.
pub fn rocsolver() -> Result<&'static RocsolverApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocsolverApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.rocsolver)()).clone()
}
