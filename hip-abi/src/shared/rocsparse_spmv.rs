//! rocSPARSE's two SpMV forms, each served over the other: the unstaged
//! `rocsparse_spmv` of 2.x over a staged function (for rocSPARSE 3.x and
//! 4.x and the nvidia backend's mapping onto cuSPARSE, which have only the
//! staged call), and the staged call over the unstaged function (for
//! rocSPARSE 2.0 to 2.3, which lack `rocsparse_spmv_ex`). See
//! `hip_sys::libraries` for which version has which.

use std::ffi::c_void;
use std::sync::OnceLock;

use crate::rocsparse::*;

/// The signature of the staged SpMV (5.x `rocsparse_spmv_ex`, 6.x `rocsparse_spmv`).
pub type SpmvStaged = unsafe extern "C" fn(
    rocsparse_handle,
    rocsparse_operation,
    *const c_void,
    rocsparse_spmat_descr,
    rocsparse_dnvec_descr,
    *const c_void,
    rocsparse_dnvec_descr,
    rocsparse_datatype,
    rocsparse_spmv_alg,
    rocsparse_spmv_stage,
    *mut usize,
    *mut c_void,
) -> rocsparse_status;
/// The signature of the unstaged 5.x `rocsparse_spmv`.
pub type SpmvUnstaged = unsafe extern "C" fn(
    rocsparse_handle,
    rocsparse_operation,
    *const c_void,
    rocsparse_spmat_descr,
    rocsparse_dnvec_descr,
    *const c_void,
    rocsparse_dnvec_descr,
    rocsparse_datatype,
    rocsparse_spmv_alg,
    *mut usize,
    *mut c_void,
) -> rocsparse_status;

/// The library's staged `rocsparse_spmv` (3.x, 4.x, or the nvidia
/// backend's over cuSPARSE), for [`spmv_unstaged_shim`].
static REAL_SPMV_STAGED: OnceLock<SpmvStaged> = OnceLock::new();

/// Serve the table's unstaged `rocsparse_spmv` field with
/// `spmv_unstaged_shim` over `staged`, for a library that has only the
/// staged call (rocSPARSE 3.x and 4.x, and the nvidia backend's mapping).
pub fn unstaged_spmv_over(staged: SpmvStaged) -> SpmvUnstaged {
    REAL_SPMV_STAGED.get_or_init(|| staged);
    spmv_unstaged_shim
}

/// The library's unstaged `rocsparse_spmv` (2.x without `_ex`), for [`spmv_staged_shim`].
static REAL_SPMV_UNSTAGED: OnceLock<SpmvUnstaged> = OnceLock::new();

/// Serve the table's staged `rocsparse_spmv_ex` field with
/// `spmv_staged_shim` over `unstaged`, for a rocSPARSE 2.x that lacks
/// `rocsparse_spmv_ex` (2.0 to 2.3).
pub fn staged_spmv_over(unstaged: SpmvUnstaged) -> SpmvStaged {
    REAL_SPMV_UNSTAGED.get_or_init(|| unstaged);
    spmv_staged_shim
}

/// The 5.x unstaged `rocsparse_spmv` on rocSPARSE 3.x and 4.x (and over
/// cuSPARSE on the nvidia backend), which have
/// no auto stage: the staged call's buffer size stage when `temp_buffer`
/// is null, otherwise its preprocess then compute stages (what the 2.x
/// unstaged call does).
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn spmv_unstaged_shim(
    handle: rocsparse_handle,
    trans: rocsparse_operation,
    alpha: *const c_void,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    beta: *const c_void,
    y: rocsparse_dnvec_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmv_alg,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> rocsparse_status {
    let Some(real) = REAL_SPMV_STAGED.get() else {
        return rocsparse_status::rocsparse_status_not_initialized;
    };
    let stages: &[rocsparse_spmv_stage] = if temp_buffer.is_null() {
        &[rocsparse_spmv_stage::rocsparse_spmv_stage_buffer_size]
    } else {
        &[rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute]
    };
    for &stage in stages {
        // SAFETY: `real` is the library's staged function; arguments as given.
        let status =
            unsafe { real(handle, trans, alpha, mat, x, beta, y, compute_type, alg, stage, buffer_size, temp_buffer) };
        if status != rocsparse_status::rocsparse_status_success {
            return status;
        }
    }
    rocsparse_status::rocsparse_status_success
}

/// The staged SpMV on rocSPARSE 2.0 to 2.3, which lack `rocsparse_spmv_ex`:
/// buffer size and auto without a buffer ask the unstaged call for the
/// size, preprocess does nothing, compute and auto with a buffer compute
/// (the unstaged call analyses the matrix itself).
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn spmv_staged_shim(
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
    let Some(real) = REAL_SPMV_UNSTAGED.get() else {
        return rocsparse_status::rocsparse_status_not_initialized;
    };
    let temp = match stage.0 {
        1 => std::ptr::null_mut(),
        2 => return rocsparse_status::rocsparse_status_success,
        0 | 3 => temp_buffer,
        _ => return rocsparse_status::rocsparse_status_invalid_value,
    };
    if stage.0 == 3 && temp.is_null() {
        return rocsparse_status::rocsparse_status_invalid_pointer;
    }
    // SAFETY: `real` is the library's unstaged function; arguments as given.
    unsafe { real(handle, trans, alpha, mat, x, beta, y, compute_type, alg, buffer_size, temp) }
}
