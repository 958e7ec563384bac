//! The rocSPARSE table over cuSPARSE, made once cuSPARSE is loaded.

use std::sync::OnceLock;

use super::descriptors::*;
use super::handles::*;
use super::library;
use super::products::{rocsparse_spmm, rocsparse_spmv_ex};
use crate::rocsparse::RocsparseApi;
use crate::BackendError;

static TABLE: OnceLock<RocsparseApi> = OnceLock::new();

/// Load cuSPARSE from `candidates` and return the rocSPARSE table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static RocsparseApi, BackendError> {
    library::load_once(candidates).map(|_| TABLE.get_or_init(table))
}

/// The rocSPARSE table over cuSPARSE. Its unstaged `rocsparse_spmv` is
/// the crate's shim over the staged one ([`crate::libraries`]), set at load.
fn table() -> RocsparseApi {
    RocsparseApi {
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
        rocsparse_spmv: crate::shared::rocsparse_spmv::unstaged_spmv_over(rocsparse_spmv_ex),
        rocsparse_spmv_ex,
        rocsparse_spmm,
    }
}
