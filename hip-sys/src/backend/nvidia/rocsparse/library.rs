//! cuSPARSE itself: the functions the mapping calls, and loading them.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use crate::backend::nvidia::{library_candidates, open, Handle};
use crate::rocsparse::rocsparse_status;
use crate::BackendError;

/// `cusparseStatus_t`.
pub(super) type CusparseStatus = c_int;

fn_table! {
    /// The cuSPARSE functions this mapping calls (`cusparse.h`, cuSPARSE 11
    /// and 12). Enums are `int`; handles and descriptors opaque pointers.
    struct Cusparse {
        /// `cusparseStatus_t cusparseCreate(cusparseHandle_t *handle)`
        cusparseCreate = "cusparseCreate": fn(*mut Handle) -> CusparseStatus;
        /// `cusparseStatus_t cusparseDestroy(cusparseHandle_t handle)`
        cusparseDestroy = "cusparseDestroy": fn(Handle) -> CusparseStatus;
        /// `cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t streamId)`
        cusparseSetStream = "cusparseSetStream": fn(Handle, Handle) -> CusparseStatus;
        /// `cusparseStatus_t cusparseGetStream(cusparseHandle_t handle, cudaStream_t *streamId)`
        cusparseGetStream = "cusparseGetStream": fn(Handle, *mut Handle) -> CusparseStatus;
        /// `cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t mode)`
        cusparseSetPointerMode = "cusparseSetPointerMode": fn(Handle, c_int) -> CusparseStatus;
        /// `cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
        /// int64_t nnz, void *csrRowOffsets, void *csrColInd, void *csrValues, cusparseIndexType_t
        /// csrRowOffsetsType, cusparseIndexType_t csrColIndType, cusparseIndexBase_t idxBase, cudaDataType valueType)`
        cusparseCreateCsr = "cusparseCreateCsr": fn(
            *mut Handle, i64, i64, i64, *mut c_void, *mut c_void, *mut c_void, c_int, c_int, c_int, c_int,
        ) -> CusparseStatus;
        /// `cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr)`
        cusparseDestroySpMat = "cusparseDestroySpMat": fn(Handle) -> CusparseStatus;
        /// `cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *dnVecDescr, int64_t size, void *values,
        /// cudaDataType valueType)`
        cusparseCreateDnVec = "cusparseCreateDnVec": fn(*mut Handle, i64, *mut c_void, c_int) -> CusparseStatus;
        /// `cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t dnVecDescr)`
        cusparseDestroyDnVec = "cusparseDestroyDnVec": fn(Handle) -> CusparseStatus;
        /// `cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *dnMatDescr, int64_t rows, int64_t cols,
        /// int64_t ld, void *values, cudaDataType valueType, cusparseOrder_t order)`
        cusparseCreateDnMat = "cusparseCreateDnMat": fn(*mut Handle, i64, i64, i64, *mut c_void, c_int, c_int) -> CusparseStatus;
        /// `cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr)`
        cusparseDestroyDnMat = "cusparseDestroyDnMat": fn(Handle) -> CusparseStatus;
        /// `cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
        /// const void *alpha, cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX, const void *beta,
        /// cusparseDnVecDescr_t vecY, cudaDataType computeType, cusparseSpMVAlg_t alg, size_t *bufferSize)`
        cusparseSpMV_bufferSize = "cusparseSpMV_bufferSize": fn(
            Handle, c_int, *const c_void, Handle, Handle, *const c_void, Handle, c_int, c_int, *mut usize,
        ) -> CusparseStatus;
        /// `cusparseStatus_t cusparseSpMV(...same..., void *externalBuffer)`
        cusparseSpMV = "cusparseSpMV": fn(
            Handle, c_int, *const c_void, Handle, Handle, *const c_void, Handle, c_int, c_int, *mut c_void,
        ) -> CusparseStatus;
        /// `cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
        /// cusparseOperation_t opB, const void *alpha, cusparseConstSpMatDescr_t matA,
        /// cusparseConstDnMatDescr_t matB, const void *beta, cusparseDnMatDescr_t matC, cudaDataType
        /// computeType, cusparseSpMMAlg_t alg, size_t *bufferSize)`
        cusparseSpMM_bufferSize = "cusparseSpMM_bufferSize": fn(
            Handle, c_int, c_int, *const c_void, Handle, Handle, *const c_void, Handle, c_int, c_int, *mut usize,
        ) -> CusparseStatus;
        /// `cusparseStatus_t cusparseSpMM_preprocess(...same..., void *externalBuffer)`
        cusparseSpMM_preprocess = "cusparseSpMM_preprocess": fn(
            Handle, c_int, c_int, *const c_void, Handle, Handle, *const c_void, Handle, c_int, c_int, *mut c_void,
        ) -> CusparseStatus;
        /// `cusparseStatus_t cusparseSpMM(...same..., void *externalBuffer)`
        cusparseSpMM = "cusparseSpMM": fn(
            Handle, c_int, c_int, *const c_void, Handle, Handle, *const c_void, Handle, c_int, c_int, *mut c_void,
        ) -> CusparseStatus;
    }
}

/// `cusparseSpMV_preprocess` (cuSPARSE 12.4 and later), same arguments as
/// `cusparseSpMV`.
pub(super) type SpmvPreprocess = unsafe extern "C" fn(
    Handle,
    c_int,
    *const c_void,
    Handle,
    Handle,
    *const c_void,
    Handle,
    c_int,
    c_int,
    *mut c_void,
) -> CusparseStatus;

/// The candidate files for cuSPARSE, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libcusparse.so.12", "libcusparse.so.11", "libcusparse.so"])
}

const HINT: &str = "install cuSPARSE (CUDA 12 or 13: the toolkit, or the libcusparse package) and add \
     its lib64 directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's rocSPARSE";

/// The loaded cuSPARSE functions, and the optional preprocess of SpMV.
pub(super) struct Loaded {
    pub(super) fns: Cusparse,
    pub(super) spmv_preprocess: Option<SpmvPreprocess>,
}

static LOADED: OnceLock<Result<Loaded, BackendError>> = OnceLock::new();

/// The loaded functions; `not_initialized` before a successful load.
pub(super) fn fns() -> Result<&'static Loaded, rocsparse_status> {
    LOADED.get().and_then(|l| l.as_ref().ok()).ok_or(rocsparse_status::rocsparse_status_not_initialized)
}

/// Load cuSPARSE from `candidates`, once: later calls give the first
/// call's outcome.
pub(super) fn load_once(candidates: &[String]) -> Result<(), BackendError> {
    LOADED
        .get_or_init(|| {
            let library = open("libcusparse", candidates, HINT)?;
            let path = library.path().to_owned();
            // SAFETY: `library` is cuSPARSE, whose exported functions have
            // the signatures declared in `Cusparse` (cuSPARSE 11 and 12).
            let fns = unsafe { Cusparse::resolve(&library) }?;
            let spmv_preprocess = library.optional("cusparseSpMV_preprocess").map(|p| {
                // SAFETY: the symbol of cusparseSpMV_preprocess, whose C
                // signature is `SpmvPreprocess`.
                unsafe { std::mem::transmute::<*const c_void, SpmvPreprocess>(p) }
            });
            library.keep();
            log::debug!("rocSPARSE over {path}");
            Ok(Loaded { fns, spmv_preprocess })
        })
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}
