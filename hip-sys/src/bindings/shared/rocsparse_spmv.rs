//! rocSPARSE's two SpMV forms, each served over the other: the unstaged
//! `rocsparse_spmv` of 2.x over a staged function (for rocSPARSE 3.x and
//! 4.x and the nvidia backend's mapping onto cuSPARSE, which have only the
//! staged call), and the staged call over the unstaged function (for
//! rocSPARSE 2.0 to 2.3, which lack `rocsparse_spmv_ex`). See
//! [`crate::libraries::sparse`] for which version has which.

use std::ffi::c_void;
use std::sync::OnceLock;

use crate::rocsparse::*;

/// The signature of the staged SpMV (5.x `rocsparse_spmv_ex`, 6.x `rocsparse_spmv`).
pub(crate) type SpmvStaged = unsafe extern "C" fn(
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
pub(crate) type SpmvUnstaged = unsafe extern "C" fn(
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
/// [`spmv_unstaged_shim`] over `staged`, for a library that has only the
/// staged call (rocSPARSE 3.x and 4.x, and the nvidia backend's mapping).
pub(crate) fn unstaged_spmv_over(staged: SpmvStaged) -> SpmvUnstaged {
    REAL_SPMV_STAGED.get_or_init(|| staged);
    spmv_unstaged_shim
}

/// The library's unstaged `rocsparse_spmv` (2.x without `_ex`), for [`spmv_staged_shim`].
static REAL_SPMV_UNSTAGED: OnceLock<SpmvUnstaged> = OnceLock::new();

/// Serve the table's staged `rocsparse_spmv_ex` field with
/// [`spmv_staged_shim`] over `unstaged`, for a rocSPARSE 2.x that lacks
/// `rocsparse_spmv_ex` (2.0 to 2.3).
pub(crate) fn staged_spmv_over(unstaged: SpmvUnstaged) -> SpmvStaged {
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

#[cfg(test)]
#[cfg(feature = "sim")]
mod tests {
    use super::*;

    /// The version shims, run over the simulator's rocSPARSE standing in
    /// for the library: a 2.x table without `rocsparse_spmv_ex` (staged
    /// shim over the unstaged function) and a 3.x table (unstaged shim over
    /// the staged function) compute the same SpMV as the simulator.
    #[test]
    #[allow(non_snake_case)]
    fn spmv_shims_compute_like_the_library() {
        let (hipMemcpyHostToDevice, hipMemcpyDeviceToHost) = (
            crate::bindings::hip::hipMemcpyKind::hipMemcpyHostToDevice,
            crate::bindings::hip::hipMemcpyKind::hipMemcpyDeviceToHost,
        );
        let _guard = crate::sim::exclusive();
        let sim_table = *crate::sim::rocsparse_api();
        REAL_SPMV_UNSTAGED.get_or_init(|| sim_table.rocsparse_spmv);
        REAL_SPMV_STAGED.get_or_init(|| sim_table.rocsparse_spmv_ex);
        let mut v2 = sim_table;
        v2.rocsparse_spmv_ex = spmv_staged_shim;
        let mut v3 = sim_table;
        v3.rocsparse_spmv = spmv_unstaged_shim;
        let hip = crate::sim::api();
        let upload = |bytes: &[u8]| {
            let mut p = std::ptr::null_mut();
            // SAFETY: valid out-pointer; `bytes` is readable for its length.
            unsafe {
                assert_eq!((hip.hipMalloc)(&mut p, bytes.len()), crate::bindings::hip::hipError_t::hipSuccess);
                let status = (hip.hipMemcpy)(p, bytes.as_ptr().cast(), bytes.len(), hipMemcpyHostToDevice);
                assert_eq!(status, crate::bindings::hip::hipError_t::hipSuccess);
            }
            p
        };
        let i32s = |v: &[i32]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        // [[2, 0], [1, 3]] times [1, 2] = [2, 7].
        let (offsets, cols, vals) =
            (upload(&i32s(&[0, 1, 3])), upload(&i32s(&[0, 0, 1])), upload(&f64s(&[2.0, 1.0, 3.0])));
        let (xp, yp) = (upload(&f64s(&[1.0, 2.0])), upload(&f64s(&[0.0, 0.0])));
        let buffer = upload(&[0u8; crate::sim::ROCSPARSE_BUFFER_SIZE]);
        let f64t = rocsparse_datatype::rocsparse_datatype_f64_r;
        let i32t = rocsparse_indextype::rocsparse_indextype_i32;
        let (mut handle, mut mat, mut x, mut y) =
            (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        let zero = rocsparse_index_base::rocsparse_index_base_zero;
        let ok = rocsparse_status::rocsparse_status_success;
        // SAFETY: valid out-pointers and device arrays of the declared sizes.
        unsafe {
            assert_eq!((sim_table.rocsparse_create_handle)(&mut handle), ok);
            let status =
                (sim_table.rocsparse_create_csr_descr)(&mut mat, 2, 2, 3, offsets, cols, vals, i32t, i32t, zero, f64t);
            assert_eq!(status, ok);
            assert_eq!((sim_table.rocsparse_create_dnvec_descr)(&mut x, 2, xp, f64t), ok);
            assert_eq!((sim_table.rocsparse_create_dnvec_descr)(&mut y, 2, yp, f64t), ok);
        }
        let (one, nought) = (1.0f64, 0.0f64);
        let (alpha, beta) = ((&one as *const f64).cast(), (&nought as *const f64).cast());
        let none = rocsparse_operation::rocsparse_operation_none;
        let alg = rocsparse_spmv_alg::rocsparse_spmv_alg_default;
        let read_y = || {
            let mut out = [0f64; 2];
            // SAFETY: `yp` holds two doubles; the copy waits for prior work.
            let status = unsafe { (hip.hipMemcpy)(out.as_mut_ptr().cast(), yp, 16, hipMemcpyDeviceToHost) };
            assert_eq!(status, crate::bindings::hip::hipError_t::hipSuccess);
            out
        };
        for table in [&v2, &v3] {
            let mut size = 0;
            for stage in [1, 2, 3] {
                let temp = if stage == 1 { std::ptr::null_mut() } else { buffer };
                let stage = rocsparse_spmv_stage(stage);
                // SAFETY: the arguments satisfy the C contract.
                let status = unsafe {
                    crate::rocsparse_spmv_staged(
                        table, handle, none, alpha, mat, x, beta, y, f64t, alg, stage, &mut size, temp,
                    )
                };
                assert_eq!(status, ok);
            }
            assert_eq!(size, crate::sim::ROCSPARSE_BUFFER_SIZE);
            assert_eq!(read_y(), [2.0, 7.0]);
            // The unstaged field: size first, then compute.
            let mut size = 0;
            // SAFETY: as above.
            unsafe {
                let status = (table.rocsparse_spmv)(
                    handle,
                    none,
                    alpha,
                    mat,
                    x,
                    alpha,
                    y,
                    f64t,
                    alg,
                    &mut size,
                    std::ptr::null_mut(),
                );
                assert_eq!(status, ok);
                let status =
                    (table.rocsparse_spmv)(handle, none, alpha, mat, x, alpha, y, f64t, alg, &mut size, buffer);
                assert_eq!(status, ok);
            }
            assert_eq!(read_y(), [4.0, 14.0]);
            // SAFETY: `yp` holds 16 bytes.
            assert_eq!(unsafe { (hip.hipMemset)(yp, 0, 16) }, crate::bindings::hip::hipError_t::hipSuccess);
        }
        // SAFETY: objects created above, destroyed once.
        unsafe {
            (sim_table.rocsparse_destroy_dnvec_descr)(x);
            (sim_table.rocsparse_destroy_dnvec_descr)(y);
            (sim_table.rocsparse_destroy_spmat_descr)(mat);
            (sim_table.rocsparse_destroy_handle)(handle);
            for p in [offsets, cols, vals, xp, yp, buffer] {
                assert_eq!((hip.hipFree)(p), crate::bindings::hip::hipError_t::hipSuccess);
            }
        }
    }
}
