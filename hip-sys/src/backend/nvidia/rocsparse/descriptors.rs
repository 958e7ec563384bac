//! Matrix and vector descriptors: sparse CSR, dense vectors, dense matrices.

use std::ffi::c_void;

use super::enums::{datatype, indextype, order};
use super::library::fns;
use super::status::{entry, ok};
use crate::rocsparse::{
    rocsparse_datatype, rocsparse_dnmat_descr, rocsparse_dnvec_descr, rocsparse_index_base, rocsparse_indextype,
    rocsparse_order, rocsparse_spmat_descr, rocsparse_status,
};

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn rocsparse_create_csr_descr(
    descr: *mut rocsparse_spmat_descr,
    rows: i64,
    cols: i64,
    nnz: i64,
    csr_row_ptr: *mut c_void,
    csr_col_ind: *mut c_void,
    csr_val: *mut c_void,
    row_ptr_type: rocsparse_indextype,
    col_ind_type: rocsparse_indextype,
    idx_base: rocsparse_index_base,
    data_type: rocsparse_datatype,
) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        let base = match idx_base {
            rocsparse_index_base::rocsparse_index_base_zero => 0,
            rocsparse_index_base::rocsparse_index_base_one => 1,
            _ => return Err(rocsparse_status::rocsparse_status_invalid_value),
        };
        let (rt, ct, dt) = (indextype(row_ptr_type)?, indextype(col_ind_type)?, datatype(data_type)?);
        // SAFETY: a valid out-pointer; the arrays are the caller's device
        // arrays of the sizes given (C contract).
        ok("cusparseCreateCsr", unsafe {
            (fns()?.fns.cusparseCreateCsr)(
                descr.cast(),
                rows,
                cols,
                nnz,
                csr_row_ptr,
                csr_col_ind,
                csr_val,
                rt,
                ct,
                base,
                dt,
            )
        })
    })
}

pub(super) unsafe extern "C" fn rocsparse_destroy_spmat_descr(descr: rocsparse_spmat_descr) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: a descriptor made by cusparseCreateCsr, destroyed once.
        ok("cusparseDestroySpMat", unsafe { (fns()?.fns.cusparseDestroySpMat)(descr.cast()) })
    })
}

pub(super) unsafe extern "C" fn rocsparse_create_dnvec_descr(
    descr: *mut rocsparse_dnvec_descr,
    size: i64,
    values: *mut c_void,
    data_type: rocsparse_datatype,
) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        let dt = datatype(data_type)?;
        // SAFETY: a valid out-pointer; `values` is the caller's device array.
        ok("cusparseCreateDnVec", unsafe { (fns()?.fns.cusparseCreateDnVec)(descr.cast(), size, values, dt) })
    })
}

pub(super) unsafe extern "C" fn rocsparse_destroy_dnvec_descr(descr: rocsparse_dnvec_descr) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: a descriptor made by cusparseCreateDnVec, destroyed once.
        ok("cusparseDestroyDnVec", unsafe { (fns()?.fns.cusparseDestroyDnVec)(descr.cast()) })
    })
}

pub(super) unsafe extern "C" fn rocsparse_create_dnmat_descr(
    descr: *mut rocsparse_dnmat_descr,
    rows: i64,
    cols: i64,
    ld: i64,
    values: *mut c_void,
    data_type: rocsparse_datatype,
    dense_order: rocsparse_order,
) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        let (dt, o) = (datatype(data_type)?, order(dense_order)?);
        // SAFETY: a valid out-pointer; `values` is the caller's device array.
        ok("cusparseCreateDnMat", unsafe {
            (fns()?.fns.cusparseCreateDnMat)(descr.cast(), rows, cols, ld, values, dt, o)
        })
    })
}

pub(super) unsafe extern "C" fn rocsparse_destroy_dnmat_descr(descr: rocsparse_dnmat_descr) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: a descriptor made by cusparseCreateDnMat, destroyed once.
        ok("cusparseDestroyDnMat", unsafe { (fns()?.fns.cusparseDestroyDnMat)(descr.cast()) })
    })
}
