//! The one place this crate calls rocSPARSE: a function per rocSPARSE
//! call, with rocSPARSE's statuses turned into errors.
//!
//! Each function makes one call and names it first in its docs; where the
//! call is sound only if the caller upholds something it is an `unsafe
//! fn` whose `# Safety` says what. None binds a device: the handle cache
//! and the wrappers run them under the handle's device.
//!
//! # References
//! rocSPARSE's [auxiliary functions](https://rocm.docs.amd.com/projects/rocSPARSE/en/latest/reference/auxiliary.html)
//! and [generic functions](https://rocm.docs.amd.com/projects/rocSPARSE/en/latest/reference/generic.html).

use hip_sys::hipStream_t;
use hip_sys::rocsparse::{
    rocsparse_datatype, rocsparse_dnmat_descr, rocsparse_dnvec_descr, rocsparse_handle, rocsparse_index_base,
    rocsparse_indextype, rocsparse_operation, rocsparse_order, rocsparse_pointer_mode, rocsparse_spmat_descr,
    rocsparse_spmm_alg, rocsparse_spmm_stage, rocsparse_spmv_alg, rocsparse_spmv_stage, rocsparse_status, RocsparseApi,
};
use std::ffi::c_void;

use crate::{LibError, Result};

/// Status to result, naming the rocSPARSE function.
pub(crate) fn check(status: rocsparse_status, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    Err(LibError::Status { library: "rocSPARSE", operation, status: status.0, name: status_name(status) })
}

/// rocSPARSE's name for `status`: the packaged header's (generated with
/// the bindings), then the value of newer versions (`continue`, 14, from
/// 3.0 on).
pub(crate) fn status_name(status: rocsparse_status) -> &'static str {
    status.name().unwrap_or(match status.0 {
        14 => "rocsparse_status_continue",
        _ => "an unknown rocsparse_status",
    })
}

/// `rocsparse_create_handle`: a new handle of HIP's current device.
pub(crate) fn create_handle(api: &RocsparseApi) -> Result<rocsparse_handle> {
    let mut handle: rocsparse_handle = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.rocsparse_create_handle)(&mut handle) }, "rocsparse_create_handle")?;
    Ok(handle)
}

/// `rocsparse_destroy_handle`.
///
/// # Safety
/// `handle` is live, destroyed once, under its device.
pub(crate) unsafe fn destroy_handle(api: &RocsparseApi, handle: rocsparse_handle) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocsparse_destroy_handle)(handle) }, "rocsparse_destroy_handle")
}

/// `rocsparse_set_stream`: later calls on `handle` run on `stream`.
///
/// # Safety
/// `handle` is live and `stream` is a live stream of its device (or null).
pub(crate) unsafe fn set_stream(api: &RocsparseApi, handle: rocsparse_handle, stream: hipStream_t) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocsparse_set_stream)(handle, stream) }, "rocsparse_set_stream")
}

/// `rocsparse_set_pointer_mode`.
///
/// # Safety
/// `handle` is live.
pub(crate) unsafe fn set_pointer_mode(
    api: &RocsparseApi,
    handle: rocsparse_handle,
    mode: rocsparse_pointer_mode,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocsparse_set_pointer_mode)(handle, mode) }, "rocsparse_set_pointer_mode")
}

/// The arrays of a CSR matrix with 32-bit indices and a zero base, as
/// device pointers.
pub(crate) struct CsrArrays {
    pub rows: i64,
    pub cols: i64,
    pub nnz: i64,
    pub row_ptr: *mut c_void,
    pub col_ind: *mut c_void,
    pub values: *mut c_void,
    pub datatype: rocsparse_datatype,
}

/// `rocsparse_create_csr_descr` (32-bit indices, base zero).
///
/// # Safety
/// The arrays are device memory holding a valid CSR matrix of the sizes
/// given, alive while the descriptor is used.
pub(crate) unsafe fn create_csr_descr(api: &RocsparseApi, csr: &CsrArrays) -> Result<rocsparse_spmat_descr> {
    let mut descr: rocsparse_spmat_descr = std::ptr::null_mut();
    let i32_index = rocsparse_indextype::rocsparse_indextype_i32;
    // SAFETY: as the caller guarantees; a valid out-pointer.
    let status = unsafe {
        (api.rocsparse_create_csr_descr)(
            &mut descr,
            csr.rows,
            csr.cols,
            csr.nnz,
            csr.row_ptr,
            csr.col_ind,
            csr.values,
            i32_index,
            i32_index,
            rocsparse_index_base::rocsparse_index_base_zero,
            csr.datatype,
        )
    };
    check(status, "rocsparse_create_csr_descr")?;
    Ok(descr)
}

/// `rocsparse_destroy_spmat_descr`.
///
/// # Safety
/// `descr` is live and destroyed once.
pub(crate) unsafe fn destroy_spmat_descr(api: &RocsparseApi, descr: rocsparse_spmat_descr) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocsparse_destroy_spmat_descr)(descr) }, "rocsparse_destroy_spmat_descr")
}

/// `rocsparse_create_dnvec_descr`: a dense vector of `len` elements.
///
/// # Safety
/// `values` is device memory of `len` elements of `datatype`, alive while
/// the descriptor is used.
pub(crate) unsafe fn create_dnvec_descr(
    api: &RocsparseApi,
    len: i64,
    values: *mut c_void,
    datatype: rocsparse_datatype,
) -> Result<rocsparse_dnvec_descr> {
    let mut descr: rocsparse_dnvec_descr = std::ptr::null_mut();
    // SAFETY: as the caller guarantees; a valid out-pointer.
    let status = unsafe { (api.rocsparse_create_dnvec_descr)(&mut descr, len, values, datatype) };
    check(status, "rocsparse_create_dnvec_descr")?;
    Ok(descr)
}

/// `rocsparse_destroy_dnvec_descr`.
///
/// # Safety
/// `descr` is live and destroyed once.
pub(crate) unsafe fn destroy_dnvec_descr(api: &RocsparseApi, descr: rocsparse_dnvec_descr) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocsparse_destroy_dnvec_descr)(descr) }, "rocsparse_destroy_dnvec_descr")
}

/// `rocsparse_create_dnmat_descr`: a dense `rows` × `cols` matrix with
/// leading dimension `ld` in `order`.
///
/// # Safety
/// `values` is device memory of the matrix, alive while the descriptor is
/// used.
pub(crate) unsafe fn create_dnmat_descr(
    api: &RocsparseApi,
    (rows, cols, ld): (i64, i64, i64),
    values: *mut c_void,
    datatype: rocsparse_datatype,
    order: rocsparse_order,
) -> Result<rocsparse_dnmat_descr> {
    let mut descr: rocsparse_dnmat_descr = std::ptr::null_mut();
    // SAFETY: as the caller guarantees; a valid out-pointer.
    let status = unsafe { (api.rocsparse_create_dnmat_descr)(&mut descr, rows, cols, ld, values, datatype, order) };
    check(status, "rocsparse_create_dnmat_descr")?;
    Ok(descr)
}

/// `rocsparse_destroy_dnmat_descr`.
///
/// # Safety
/// `descr` is live and destroyed once.
pub(crate) unsafe fn destroy_dnmat_descr(api: &RocsparseApi, descr: rocsparse_dnmat_descr) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocsparse_destroy_dnmat_descr)(descr) }, "rocsparse_destroy_dnmat_descr")
}

/// The operands of one sparse product, `y = alpha * op(A) * x + beta * y`
/// or `C = alpha * A * B + beta * C`, as rocSPARSE takes them.
pub(crate) struct Product<M, D> {
    pub handle: rocsparse_handle,
    pub op: rocsparse_operation,
    /// Host pointers to α and β of `datatype` (host pointer mode).
    pub alpha: *const c_void,
    pub beta: *const c_void,
    pub matrix: M,
    pub input: D,
    pub output: D,
    pub datatype: rocsparse_datatype,
}

/// `rocsparse_spmv` (with its stage, as rocSPARSE 2 has it, also on
/// rocSPARSE 3's `rocsparse_v2_spmv` and its buffer-size/compute split:
/// [`hip_sys::rocsparse_spmv_staged`]), with the default algorithm.
///
/// # Safety
/// The handle and descriptors are live, of one device; α and β point to
/// host values of the type; `temp` holds `*size` bytes of device memory
/// (or is null for the buffer-size stage).
pub(crate) unsafe fn spmv(
    api: &RocsparseApi,
    p: &Product<rocsparse_spmat_descr, rocsparse_dnvec_descr>,
    stage: rocsparse_spmv_stage,
    size: &mut usize,
    temp: *mut c_void,
) -> Result<()> {
    let alg = rocsparse_spmv_alg::rocsparse_spmv_alg_default;
    // SAFETY: as the caller guarantees.
    let status = unsafe {
        hip_sys::rocsparse_spmv_staged(
            api, p.handle, p.op, p.alpha, p.matrix, p.input, p.beta, p.output, p.datatype, alg, stage, size, temp,
        )
    };
    let operation = match stage {
        rocsparse_spmv_stage::rocsparse_spmv_stage_buffer_size => "rocsparse_spmv (buffer size)",
        rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess => "rocsparse_spmv (preprocess)",
        _ => "rocsparse_spmv (compute)",
    };
    check(status, operation)
}

/// `rocsparse_spmm` with its stage and the default algorithm; `p.op`
/// applies to `A`, `B` is taken as it is.
///
/// # Safety
/// As for [`spmv`], with dense matrix descriptors.
pub(crate) unsafe fn spmm(
    api: &RocsparseApi,
    p: &Product<rocsparse_spmat_descr, rocsparse_dnmat_descr>,
    stage: rocsparse_spmm_stage,
    size: &mut usize,
    temp: *mut c_void,
) -> Result<()> {
    let (alg, none) = (rocsparse_spmm_alg::rocsparse_spmm_alg_default, rocsparse_operation::rocsparse_operation_none);
    // SAFETY: as the caller guarantees.
    let status = unsafe {
        (api.rocsparse_spmm)(
            p.handle, p.op, none, p.alpha, p.matrix, p.input, p.beta, p.output, p.datatype, alg, stage, size, temp,
        )
    };
    let operation = match stage {
        rocsparse_spmm_stage::rocsparse_spmm_stage_buffer_size => "rocsparse_spmm (buffer size)",
        rocsparse_spmm_stage::rocsparse_spmm_stage_preprocess => "rocsparse_spmm (preprocess)",
        _ => "rocsparse_spmm (compute)",
    };
    check(status, operation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rocsparse_status_has_its_name() {
        let names: Vec<&str> = (0..=14).map(|v| status_name(rocsparse_status(v))).collect();
        assert_eq!(names[12], "rocsparse_status_requires_sorted_storage");
        assert_eq!(names[13], "rocsparse_status_thrown_exception");
        assert_eq!(names[14], "rocsparse_status_continue");
        for (value, name) in names.iter().enumerate() {
            assert!(name.starts_with("rocsparse_status_"), "{value}: {name}");
        }
        assert_eq!(status_name(rocsparse_status(15)), "an unknown rocsparse_status");
        let error = check(rocsparse_status(14), "rocsparse_spmv").unwrap_err().to_string();
        assert!(error.contains("rocsparse_status_continue"), "{error}");
    }
}
