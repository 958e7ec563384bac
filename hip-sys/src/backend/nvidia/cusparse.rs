//! rocSPARSE over cuSPARSE: the nvidia backend's [`RocsparseApi`].
//!
//! As hipSPARSE does for NVIDIA, each rocSPARSE entry point the wrappers
//! use is a Rust function over cuSPARSE's generic API (`libcusparse.so.12`,
//! `.11`, loaded at run time).
//!
//! # The mapping
//!
//! - **Handles and descriptors** are cuSPARSE's own, passed through as
//!   rocSPARSE's opaque pointers. A handle belongs to the device current at
//!   `cusparseCreate`, as a rocSPARSE handle does; its stream and pointer
//!   mode are cuSPARSE's.
//! - **Enums** are translated: operations (111, 112, 113 to 0, 1, 2), data
//!   types (`f32_r` 151 to `CUDA_R_32F` 0, `f64_r` 152 to `CUDA_R_64F` 1,
//!   `f32_c` 154 to `CUDA_C_32F` 4, `f64_c` 155 to `CUDA_C_64F` 5), dense
//!   orders (row 0 to `CUSPARSE_ORDER_ROW` 2, column 1 to
//!   `CUSPARSE_ORDER_COL` 1). Index types, index bases and pointer modes
//!   have the same numbers. Statuses map to the rocSPARSE status of the
//!   same meaning, with cuSPARSE's name in the log.
//! - **Stages** are those of rocSPARSE 3.x (ROCm 6 and 7), the version
//!   `rocsparse_get_version` reports (3.0.0): buffer size, preprocess and
//!   compute go to `cusparseSpMV_bufferSize`, `cusparseSpMV_preprocess`
//!   and `cusparseSpMV` (likewise for SpMM); the `auto` stage, which 3.x
//!   removed, is `rocsparse_status_invalid_value`. cuSPARSE before 12.4
//!   has no `cusparseSpMV_preprocess`: there the stage succeeds and does
//!   nothing (compute needs no analysis). The unstaged `rocsparse_spmv` of
//!   the 5.7 bindings sizes the buffer when it is null and computes
//!   otherwise, as rocSPARSE 2.x's did.
//! - **Algorithms**: only the default ones are mapped; any other is
//!   `rocsparse_status_not_implemented` rather than a different algorithm.
//!
//! # Differences from rocSPARSE
//!
//! cuSPARSE needs no preprocess before compute (rocSPARSE falls back to a
//! slower kernel without it), and its buffer sizes differ; neither changes
//! a result. The simulator stays the strictest of the three.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use super::{catch_status, library_candidates, open, Handle};
use crate::rocsparse::{
    rocsparse_datatype, rocsparse_dnmat_descr, rocsparse_dnvec_descr, rocsparse_handle, rocsparse_index_base,
    rocsparse_indextype, rocsparse_operation, rocsparse_order, rocsparse_pointer_mode, rocsparse_spmat_descr,
    rocsparse_spmm_alg, rocsparse_spmm_stage, rocsparse_spmv_alg, rocsparse_spmv_stage, rocsparse_status, RocsparseApi,
};
use crate::{hipStream_t, BackendError};

/// `cusparseStatus_t`.
type CusparseStatus = c_int;

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
type SpmvPreprocess = unsafe extern "C" fn(
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

struct Loaded {
    fns: Cusparse,
    spmv_preprocess: Option<SpmvPreprocess>,
}

static LOADED: OnceLock<Result<Loaded, BackendError>> = OnceLock::new();
static TABLE: OnceLock<RocsparseApi> = OnceLock::new();

fn fns() -> Result<&'static Loaded, rocsparse_status> {
    LOADED.get().and_then(|l| l.as_ref().ok()).ok_or(rocsparse_status::rocsparse_status_not_initialized)
}

/// Load cuSPARSE from `candidates` and return the rocSPARSE table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static RocsparseApi, BackendError> {
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
        .map(|_| TABLE.get_or_init(table))
        .map_err(Clone::clone)
}

/// A `cusparseStatus_t`'s name (`cusparse.h`).
fn status_name(status: CusparseStatus) -> &'static str {
    match status {
        0 => "CUSPARSE_STATUS_SUCCESS",
        1 => "CUSPARSE_STATUS_NOT_INITIALIZED",
        2 => "CUSPARSE_STATUS_ALLOC_FAILED",
        3 => "CUSPARSE_STATUS_INVALID_VALUE",
        4 => "CUSPARSE_STATUS_ARCH_MISMATCH",
        5 => "CUSPARSE_STATUS_MAPPING_ERROR",
        6 => "CUSPARSE_STATUS_EXECUTION_FAILED",
        7 => "CUSPARSE_STATUS_INTERNAL_ERROR",
        8 => "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
        9 => "CUSPARSE_STATUS_ZERO_PIVOT",
        10 => "CUSPARSE_STATUS_NOT_SUPPORTED",
        11 => "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
        _ => "an unknown cusparseStatus_t",
    }
}

/// A cuSPARSE status as the rocSPARSE status of the same meaning.
fn to_rocsparse(status: CusparseStatus) -> rocsparse_status {
    match status {
        0 => rocsparse_status::rocsparse_status_success,
        1 => rocsparse_status::rocsparse_status_not_initialized,
        2 | 11 => rocsparse_status::rocsparse_status_memory_error,
        3 => rocsparse_status::rocsparse_status_invalid_value,
        4 => rocsparse_status::rocsparse_status_arch_mismatch,
        8 | 10 => rocsparse_status::rocsparse_status_not_implemented,
        9 => rocsparse_status::rocsparse_status_zero_pivot,
        _ => rocsparse_status::rocsparse_status_internal_error,
    }
}

fn ok(function: &str, status: CusparseStatus) -> Result<(), rocsparse_status> {
    if status == 0 {
        return Ok(());
    }
    log::error!("rocSPARSE over cuSPARSE: {function} failed with {} ({status})", status_name(status));
    Err(to_rocsparse(status))
}

/// Run one entry point, never unwinding into C.
fn entry(body: impl FnOnce() -> Result<(), rocsparse_status>) -> rocsparse_status {
    catch_status(
        "rocSPARSE over cuSPARSE",
        rocsparse_status::rocsparse_status_success,
        rocsparse_status::rocsparse_status_internal_error,
        body,
    )
}

/// `rocsparse_operation` as `cusparseOperation_t`.
fn operation(op: rocsparse_operation) -> Result<c_int, rocsparse_status> {
    match op {
        rocsparse_operation::rocsparse_operation_none => Ok(0),
        rocsparse_operation::rocsparse_operation_transpose => Ok(1),
        rocsparse_operation::rocsparse_operation_conjugate_transpose => Ok(2),
        _ => Err(rocsparse_status::rocsparse_status_invalid_value),
    }
}

/// `rocsparse_datatype` as `cudaDataType` (the floating types cuSPARSE's
/// SpMV and SpMM take).
fn datatype(t: rocsparse_datatype) -> Result<c_int, rocsparse_status> {
    match t {
        rocsparse_datatype::rocsparse_datatype_f32_r => Ok(0),
        rocsparse_datatype::rocsparse_datatype_f64_r => Ok(1),
        rocsparse_datatype::rocsparse_datatype_f32_c => Ok(4),
        rocsparse_datatype::rocsparse_datatype_f64_c => Ok(5),
        _ => Err(rocsparse_status::rocsparse_status_not_implemented),
    }
}

/// `rocsparse_order` as `cusparseOrder_t`.
fn order(o: rocsparse_order) -> Result<c_int, rocsparse_status> {
    match o {
        rocsparse_order::rocsparse_order_row => Ok(2),
        rocsparse_order::rocsparse_order_column => Ok(1),
        _ => Err(rocsparse_status::rocsparse_status_invalid_value),
    }
}

/// `rocsparse_indextype` as `cusparseIndexType_t` (same numbers).
fn indextype(t: rocsparse_indextype) -> Result<c_int, rocsparse_status> {
    match t.0 {
        1..=3 => Ok(t.0 as c_int),
        _ => Err(rocsparse_status::rocsparse_status_invalid_value),
    }
}

/// Only the default algorithms are mapped.
fn default_spmv_alg(alg: rocsparse_spmv_alg) -> Result<c_int, rocsparse_status> {
    if alg == rocsparse_spmv_alg::rocsparse_spmv_alg_default {
        Ok(0) // CUSPARSE_SPMV_ALG_DEFAULT
    } else {
        log::error!("rocSPARSE over cuSPARSE: SpMV algorithm {} is not mapped; use the default", alg.0);
        Err(rocsparse_status::rocsparse_status_not_implemented)
    }
}

fn default_spmm_alg(alg: rocsparse_spmm_alg) -> Result<c_int, rocsparse_status> {
    if alg == rocsparse_spmm_alg::rocsparse_spmm_alg_default {
        Ok(0) // CUSPARSE_SPMM_ALG_DEFAULT
    } else {
        log::error!("rocSPARSE over cuSPARSE: SpMM algorithm {} is not mapped; use the default", alg.0);
        Err(rocsparse_status::rocsparse_status_not_implemented)
    }
}

/// What `rocsparse_get_version` reports: 3.0.0, whose stages this mapping
/// follows.
const VERSION: c_int = 300_000;

unsafe extern "C" fn rocsparse_get_version(handle: rocsparse_handle, version: *mut c_int) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        if version.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { version.write(VERSION) };
        Ok(())
    })
}

unsafe extern "C" fn rocsparse_create_handle(handle: *mut rocsparse_handle) -> rocsparse_status {
    entry(|| {
        let f = &fns()?.fns;
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: non-null and valid for a write of a handle (C contract).
        ok("cusparseCreate", unsafe { (f.cusparseCreate)(handle.cast()) })
    })
}

unsafe extern "C" fn rocsparse_destroy_handle(handle: rocsparse_handle) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        // SAFETY: a handle made by cusparseCreate, destroyed once (C contract).
        ok("cusparseDestroy", unsafe { (fns()?.fns.cusparseDestroy)(handle.cast()) })
    })
}

unsafe extern "C" fn rocsparse_set_stream(handle: rocsparse_handle, stream: hipStream_t) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        // SAFETY: a live handle; on this backend a HIP stream is a CUDA stream.
        ok("cusparseSetStream", unsafe { (fns()?.fns.cusparseSetStream)(handle.cast(), stream.cast()) })
    })
}

unsafe extern "C" fn rocsparse_get_stream(handle: rocsparse_handle, stream: *mut hipStream_t) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        if stream.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: a live handle and a valid out-pointer.
        ok("cusparseGetStream", unsafe { (fns()?.fns.cusparseGetStream)(handle.cast(), stream.cast()) })
    })
}

unsafe extern "C" fn rocsparse_set_pointer_mode(
    handle: rocsparse_handle,
    mode: rocsparse_pointer_mode,
) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        let mode = match mode {
            rocsparse_pointer_mode::rocsparse_pointer_mode_host => 0,
            rocsparse_pointer_mode::rocsparse_pointer_mode_device => 1,
            _ => return Err(rocsparse_status::rocsparse_status_invalid_value),
        };
        // SAFETY: a live handle.
        ok("cusparseSetPointerMode", unsafe { (fns()?.fns.cusparseSetPointerMode)(handle.cast(), mode) })
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn rocsparse_create_csr_descr(
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

unsafe extern "C" fn rocsparse_destroy_spmat_descr(descr: rocsparse_spmat_descr) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: a descriptor made by cusparseCreateCsr, destroyed once.
        ok("cusparseDestroySpMat", unsafe { (fns()?.fns.cusparseDestroySpMat)(descr.cast()) })
    })
}

unsafe extern "C" fn rocsparse_create_dnvec_descr(
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

unsafe extern "C" fn rocsparse_destroy_dnvec_descr(descr: rocsparse_dnvec_descr) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: a descriptor made by cusparseCreateDnVec, destroyed once.
        ok("cusparseDestroyDnVec", unsafe { (fns()?.fns.cusparseDestroyDnVec)(descr.cast()) })
    })
}

unsafe extern "C" fn rocsparse_create_dnmat_descr(
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

unsafe extern "C" fn rocsparse_destroy_dnmat_descr(descr: rocsparse_dnmat_descr) -> rocsparse_status {
    entry(|| {
        if descr.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: a descriptor made by cusparseCreateDnMat, destroyed once.
        ok("cusparseDestroyDnMat", unsafe { (fns()?.fns.cusparseDestroyDnMat)(descr.cast()) })
    })
}

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
unsafe extern "C" fn rocsparse_spmv_ex(
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
unsafe extern "C" fn rocsparse_spmm(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_translate_to_cusparses_numbers() {
        assert_eq!(operation(rocsparse_operation::rocsparse_operation_none), Ok(0));
        assert_eq!(operation(rocsparse_operation::rocsparse_operation_transpose), Ok(1));
        assert_eq!(operation(rocsparse_operation::rocsparse_operation_conjugate_transpose), Ok(2));
        assert_eq!(operation(rocsparse_operation(0)), Err(rocsparse_status::rocsparse_status_invalid_value));
        assert_eq!(datatype(rocsparse_datatype::rocsparse_datatype_f32_r), Ok(0));
        assert_eq!(datatype(rocsparse_datatype::rocsparse_datatype_f64_r), Ok(1));
        assert_eq!(datatype(rocsparse_datatype::rocsparse_datatype_f32_c), Ok(4));
        assert_eq!(datatype(rocsparse_datatype::rocsparse_datatype_f64_c), Ok(5));
        assert_eq!(
            datatype(rocsparse_datatype::rocsparse_datatype_i8_r),
            Err(rocsparse_status::rocsparse_status_not_implemented)
        );
        assert_eq!(order(rocsparse_order::rocsparse_order_row), Ok(2));
        assert_eq!(order(rocsparse_order::rocsparse_order_column), Ok(1));
        assert_eq!(indextype(rocsparse_indextype::rocsparse_indextype_i32), Ok(2));
        assert_eq!(indextype(rocsparse_indextype(9)), Err(rocsparse_status::rocsparse_status_invalid_value));
    }

    #[test]
    fn statuses_keep_their_meaning() {
        assert_eq!(to_rocsparse(0), rocsparse_status::rocsparse_status_success);
        assert_eq!(to_rocsparse(2), rocsparse_status::rocsparse_status_memory_error);
        assert_eq!(to_rocsparse(3), rocsparse_status::rocsparse_status_invalid_value);
        assert_eq!(to_rocsparse(10), rocsparse_status::rocsparse_status_not_implemented);
        assert_eq!(to_rocsparse(99), rocsparse_status::rocsparse_status_internal_error);
        assert_eq!(status_name(3), "CUSPARSE_STATUS_INVALID_VALUE");
    }

    #[test]
    fn only_default_algorithms_are_mapped() {
        assert_eq!(default_spmv_alg(rocsparse_spmv_alg::rocsparse_spmv_alg_default), Ok(0));
        assert!(default_spmv_alg(rocsparse_spmv_alg::rocsparse_spmv_alg_csr_adaptive).is_err());
        assert_eq!(default_spmm_alg(rocsparse_spmm_alg::rocsparse_spmm_alg_default), Ok(0));
        assert!(default_spmm_alg(rocsparse_spmm_alg::rocsparse_spmm_alg_csr).is_err());
    }
}
