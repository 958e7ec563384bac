//! The products: SpMV and SpMM, stage by stage.

use std::ffi::{c_int, c_void};

use super::enums::{datatype, default_spmm_alg, default_spmv_alg, operation};
use super::library::fns;
use super::status::{entry, ok};
use crate::backend::nvidia::Handle;
use crate::rocsparse::{
    rocsparse_datatype, rocsparse_dnmat_descr, rocsparse_dnvec_descr, rocsparse_handle, rocsparse_operation,
    rocsparse_spmat_descr, rocsparse_spmm_alg, rocsparse_spmm_stage, rocsparse_spmv_alg, rocsparse_spmv_stage,
    rocsparse_status,
};

/// The arguments of one SpMV, translated.
struct Spmv {
    handle: Handle,
    op: c_int,
    alpha: *const c_void,
    mat: Handle,
    x: Handle,
    beta: *const c_void,
    y: Handle,
    compute: c_int,
    alg: c_int,
}

/// Run one stage of an SpMV.
fn spmv_stage(
    s: &Spmv,
    stage: rocsparse_spmv_stage,
    buffer_size: *mut usize,
    temp: *mut c_void,
) -> Result<(), rocsparse_status> {
    let loaded = fns()?;
    let f = &loaded.fns;
    match stage {
        rocsparse_spmv_stage::rocsparse_spmv_stage_buffer_size => {
            if buffer_size.is_null() {
                return Err(rocsparse_status::rocsparse_status_invalid_pointer);
            }
            // SAFETY: live handle and descriptors (C contract); a valid out-pointer.
            ok("cusparseSpMV_bufferSize", unsafe {
                (f.cusparseSpMV_bufferSize)(
                    s.handle,
                    s.op,
                    s.alpha,
                    s.mat,
                    s.x,
                    s.beta,
                    s.y,
                    s.compute,
                    s.alg,
                    buffer_size,
                )
            })
        }
        rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess => match loaded.spmv_preprocess {
            // SAFETY: as above; `temp` holds the size the first stage gave.
            Some(pre) => ok("cusparseSpMV_preprocess", unsafe {
                pre(s.handle, s.op, s.alpha, s.mat, s.x, s.beta, s.y, s.compute, s.alg, temp)
            }),
            None => Ok(()),
        },
        rocsparse_spmv_stage::rocsparse_spmv_stage_compute => {
            // SAFETY: as above.
            ok("cusparseSpMV", unsafe {
                (f.cusparseSpMV)(s.handle, s.op, s.alpha, s.mat, s.x, s.beta, s.y, s.compute, s.alg, temp)
            })
        }
        // rocSPARSE 3.x removed the auto stage.
        _ => Err(rocsparse_status::rocsparse_status_invalid_value),
    }
}

#[allow(clippy::too_many_arguments)]
fn spmv_args(
    handle: rocsparse_handle,
    trans: rocsparse_operation,
    alpha: *const c_void,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    beta: *const c_void,
    y: rocsparse_dnvec_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmv_alg,
) -> Result<Spmv, rocsparse_status> {
    if handle.is_null() {
        return Err(rocsparse_status::rocsparse_status_invalid_handle);
    }
    if alpha.is_null() || beta.is_null() || mat.is_null() || x.is_null() || y.is_null() {
        return Err(rocsparse_status::rocsparse_status_invalid_pointer);
    }
    Ok(Spmv {
        handle: handle.cast(),
        op: operation(trans)?,
        alpha,
        mat: mat.cast(),
        x: x.cast(),
        beta,
        y: y.cast(),
        compute: datatype(compute_type)?,
        alg: default_spmv_alg(alg)?,
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn rocsparse_spmv_ex(
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
    entry(|| {
        let s = spmv_args(handle, trans, alpha, mat, x, beta, y, compute_type, alg)?;
        spmv_stage(&s, stage, buffer_size, temp_buffer)
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn rocsparse_spmm(
    handle: rocsparse_handle,
    trans_a: rocsparse_operation,
    trans_b: rocsparse_operation,
    alpha: *const c_void,
    mat_a: rocsparse_spmat_descr,
    mat_b: rocsparse_dnmat_descr,
    beta: *const c_void,
    mat_c: rocsparse_dnmat_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmm_alg,
    stage: rocsparse_spmm_stage,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> rocsparse_status {
    entry(|| {
        let f = &fns()?.fns;
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        if alpha.is_null() || beta.is_null() || mat_a.is_null() || mat_b.is_null() || mat_c.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        let (h, a, b, c) = (handle.cast::<c_void>(), mat_a.cast(), mat_b.cast(), mat_c.cast());
        let (op_a, op_b, compute, alg) =
            (operation(trans_a)?, operation(trans_b)?, datatype(compute_type)?, default_spmm_alg(alg)?);
        match stage {
            rocsparse_spmm_stage::rocsparse_spmm_stage_buffer_size => {
                if buffer_size.is_null() {
                    return Err(rocsparse_status::rocsparse_status_invalid_pointer);
                }
                // SAFETY: live handle and descriptors (C contract); a valid out-pointer.
                ok("cusparseSpMM_bufferSize", unsafe {
                    (f.cusparseSpMM_bufferSize)(h, op_a, op_b, alpha, a, b, beta, c, compute, alg, buffer_size)
                })
            }
            // SAFETY: as above; `temp_buffer` holds the size the first stage gave.
            rocsparse_spmm_stage::rocsparse_spmm_stage_preprocess => ok("cusparseSpMM_preprocess", unsafe {
                (f.cusparseSpMM_preprocess)(h, op_a, op_b, alpha, a, b, beta, c, compute, alg, temp_buffer)
            }),
            // SAFETY: as above.
            rocsparse_spmm_stage::rocsparse_spmm_stage_compute => ok("cusparseSpMM", unsafe {
                (f.cusparseSpMM)(h, op_a, op_b, alpha, a, b, beta, c, compute, alg, temp_buffer)
            }),
            // rocSPARSE 3.x removed the auto stage.
            _ => Err(rocsparse_status::rocsparse_status_invalid_value),
        }
    })
}
