//! The simulator's rocSPARSE table.

use super::handles::*;
use super::spmm::rocsparse_spmm;
use super::spmv::{rocsparse_spmv, rocsparse_spmv_ex};
use crate::bindings::rocsparse::RocsparseApi;

/// The simulator's rocSPARSE table.
pub(crate) static SIM_ROCSPARSE: RocsparseApi = RocsparseApi {
    rocsparse_get_version,
    rocsparse_create_handle,
    rocsparse_destroy_handle,
    rocsparse_set_stream,
    rocsparse_get_stream,
    rocsparse_set_pointer_mode,
    rocsparse_create_csr_descr,
    rocsparse_destroy_spmat_descr,
    rocsparse_create_dnvec_descr,
    rocsparse_destroy_dnvec_descr,
    rocsparse_create_dnmat_descr,
    rocsparse_destroy_dnmat_descr,
    rocsparse_spmv,
    rocsparse_spmv_ex,
    rocsparse_spmm,
};
