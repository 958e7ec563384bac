//! rocSPARSE's table: AMD's library, the simulator's, or the mapping onto
//! cuSPARSE.
//!
//! **rocSPARSE** reports its own version through `rocsparse_get_version`
//! (`major * 100000 + minor * 100 + patch`): 2.x in ROCm 5.x, 3.x in ROCm
//! 6.x, 4.x in ROCm 7.x. The call needs a handle, so the loader creates
//! one under the calling thread's current device, reads the version and
//! destroys it. Per the rocSPARSE changelog:
//! - `rocsparse_spmv` had no stage argument through 2.x; 2.x (from ROCm
//!   5.4) has the staged form as `rocsparse_spmv_ex`. In 3.0 (ROCm 6.0)
//!   the unstaged `rocsparse_spmv` was removed, `rocsparse_spmv` itself
//!   took the staged signature (with `const` descriptors, the same ABI)
//!   and `rocsparse_spmv_ex` was deprecated; 4.x keeps that `rocsparse_spmv`.
//!   The table's `rocsparse_spmv_ex` field therefore always holds the
//!   staged function: `rocsparse_spmv_ex` on 2.x (or, before ROCm 5.4
//!   where it is absent, a shim over the unstaged `rocsparse_spmv`), and
//!   the library's `rocsparse_spmv` on 3.x and 4.x. The table's unstaged
//!   `rocsparse_spmv` field is, on 3.x and 4.x, a shim over the staged
//!   function with explicit stages: buffer size when `temp_buffer` is
//!   null, otherwise preprocess then compute (what 2.x's unstaged call
//!   does). 3.0 removed the auto stage (`rocsparse_spmv_stage_auto`, 0,
//!   and the same for SpMM): 3.x and 4.x reject it with `invalid_value`,
//!   so nothing here passes it on those versions; the bindings' constant
//!   exists for 2.x only. [`rocsparse_spmv_staged`] is the one entry point
//!   to use.
//! - `rocsparse_spmm` has had its stage argument since 2.0 (ROCm 5.0;
//!   1.x had it only in `rocsparse_spmm_ex`, deprecated in 2.0 and removed
//!   in 3.0); 3.x made the A and B descriptors `const`, the same ABI. It
//!   is resolved as it is; as for SpMV, 3.x and 4.x have no auto stage,
//!   so callers run buffer size, preprocess and compute.
//! - Handles, streams, pointer mode and the CSR, dense vector and dense
//!   matrix descriptors kept their signatures from 2.0 to 4.x.
//!
//! Supported: rocSPARSE 2.x, 3.x and 4.x.
use std::ffi::c_void;
use std::sync::OnceLock;

use crate::rocsparse::*;
use crate::BackendError;

/// The process's rocSPARSE table.
pub fn rocsparse() -> Result<&'static RocsparseApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocsparseApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.rocsparse)()).clone()
}

/// SpMV with a stage, whatever the rocSPARSE version: calls the table's
/// `rocsparse_spmv_ex` field, which the loaders fill with the staged
/// function of the library's version (`rocsparse_spmv_ex` on rocSPARSE
/// 2.x, the staged `rocsparse_spmv` on 3.x and 4.x, the simulator's
/// `rocsparse_spmv_ex`; see the [module docs](mod@self)).
///
/// `stage` buffer size writes the size of the temporary buffer to
/// `buffer_size`; preprocess (the matrix analysis, once per matrix) and
/// compute need that buffer. Pass only these three: the auto stage exists
/// on rocSPARSE 2.x alone, and 3.x and 4.x reject it (`invalid_value`).
///
/// # Safety
/// `api` comes from [`rocsparse()`] or the simulator (a table built
/// elsewhere must hold the staged function in that field); the arguments
/// satisfy the C contract of `rocsparse_spmv_ex`: a valid handle and
/// descriptors, host or device scalars as the handle's pointer mode says,
/// `buffer_size` valid for a write (or null where the stage does not use
/// it), `temp_buffer` null or device memory of at least the reported size.
#[allow(clippy::too_many_arguments)]
pub unsafe fn rocsparse_spmv_staged(
    api: &RocsparseApi,
    handle: rocsparse_handle,
    trans: rocsparse_operation,
    alpha: *const c_void,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    beta: *const c_void,
    y: rocsparse_dnvec_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmv_alg,
    stage: rocsparse_spmv_stage,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> rocsparse_status {
    // SAFETY: the field holds the staged function of this library version
    // (the loader's guarantee); the arguments are the caller's.
    unsafe {
        (api.rocsparse_spmv_ex)(
            handle,
            trans,
            alpha,
            mat,
            x,
            beta,
            y,
            compute_type,
            alg,
            stage,
            buffer_size,
            temp_buffer,
        )
    }
}
