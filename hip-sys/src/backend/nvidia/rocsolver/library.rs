//! cuSOLVER itself: the dense functions the mapping calls, loading them,
//! and its statuses as rocBLAS's (rocSOLVER answers with rocBLAS's).

use std::ffi::{c_int, c_schar, c_void};
use std::sync::OnceLock;

use crate::backend::nvidia::{catch_status, library_candidates, open, Handle};
use crate::rocblas::{rocblas_double_complex as C64, rocblas_float_complex as C32, rocblas_status};
use crate::BackendError;

/// `cusolverStatus_t`.
pub(super) type CusolverStatus = c_int;

fn_table! {
    /// The cuSOLVER dense functions this mapping calls (`cusolverDn.h`,
    /// cuSOLVER 11 and 12). Enums are `int` (`cublasOperation_t`,
    /// `cublasFillMode_t`); handles and streams opaque pointers;
    /// `cuComplex` and `cuDoubleComplex` have rocBLAS's complex layout.
    struct Cusolver {
        /// `cusolverStatus_t cusolverGetProperty(libraryPropertyType type, int *value)`
        cusolverGetProperty = "cusolverGetProperty": fn(c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle)`
        cusolverDnCreate = "cusolverDnCreate": fn(*mut Handle) -> CusolverStatus;
        /// `cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)`
        cusolverDnDestroy = "cusolverDnDestroy": fn(Handle) -> CusolverStatus;
        /// `cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId)`
        cusolverDnSetStream = "cusolverDnSetStream": fn(Handle, *mut c_void) -> CusolverStatus;
        /// `cusolverDnSgetrf_bufferSize(handle, int m, int n, float *A, int lda, int *Lwork)`
        cusolverDnSgetrf_bufferSize = "cusolverDnSgetrf_bufferSize": fn(Handle, c_int, c_int, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDgetrf_bufferSize = "cusolverDnDgetrf_bufferSize": fn(Handle, c_int, c_int, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCgetrf_bufferSize = "cusolverDnCgetrf_bufferSize": fn(Handle, c_int, c_int, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZgetrf_bufferSize = "cusolverDnZgetrf_bufferSize": fn(Handle, c_int, c_int, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnSgetrf(handle, int m, int n, float *A, int lda, float *Workspace, int *devIpiv, int *devInfo)`
        cusolverDnSgetrf = "cusolverDnSgetrf": fn(Handle, c_int, c_int, *mut f32, c_int, *mut f32, *mut c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDgetrf = "cusolverDnDgetrf": fn(Handle, c_int, c_int, *mut f64, c_int, *mut f64, *mut c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCgetrf = "cusolverDnCgetrf": fn(Handle, c_int, c_int, *mut C32, c_int, *mut C32, *mut c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZgetrf = "cusolverDnZgetrf": fn(Handle, c_int, c_int, *mut C64, c_int, *mut C64, *mut c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnSgetrs(handle, cublasOperation_t trans, int n, int nrhs, const float *A, int lda,
        /// const int *devIpiv, float *B, int ldb, int *devInfo)`
        cusolverDnSgetrs = "cusolverDnSgetrs": fn(Handle, c_int, c_int, c_int, *const f32, c_int, *const c_int, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDgetrs = "cusolverDnDgetrs": fn(Handle, c_int, c_int, c_int, *const f64, c_int, *const c_int, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCgetrs = "cusolverDnCgetrs": fn(Handle, c_int, c_int, c_int, *const C32, c_int, *const c_int, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZgetrs = "cusolverDnZgetrs": fn(Handle, c_int, c_int, c_int, *const C64, c_int, *const c_int, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnSpotrf_bufferSize(handle, cublasFillMode_t uplo, int n, float *A, int lda, int *Lwork)`
        cusolverDnSpotrf_bufferSize = "cusolverDnSpotrf_bufferSize": fn(Handle, c_int, c_int, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDpotrf_bufferSize = "cusolverDnDpotrf_bufferSize": fn(Handle, c_int, c_int, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCpotrf_bufferSize = "cusolverDnCpotrf_bufferSize": fn(Handle, c_int, c_int, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZpotrf_bufferSize = "cusolverDnZpotrf_bufferSize": fn(Handle, c_int, c_int, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnSpotrf(handle, cublasFillMode_t uplo, int n, float *A, int lda, float *Workspace,
        /// int Lwork, int *devInfo)`
        cusolverDnSpotrf = "cusolverDnSpotrf": fn(Handle, c_int, c_int, *mut f32, c_int, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDpotrf = "cusolverDnDpotrf": fn(Handle, c_int, c_int, *mut f64, c_int, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCpotrf = "cusolverDnCpotrf": fn(Handle, c_int, c_int, *mut C32, c_int, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZpotrf = "cusolverDnZpotrf": fn(Handle, c_int, c_int, *mut C64, c_int, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnSpotrs(handle, cublasFillMode_t uplo, int n, int nrhs, const float *A, int lda,
        /// float *B, int ldb, int *devInfo)`
        cusolverDnSpotrs = "cusolverDnSpotrs": fn(Handle, c_int, c_int, c_int, *const f32, c_int, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDpotrs = "cusolverDnDpotrs": fn(Handle, c_int, c_int, c_int, *const f64, c_int, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCpotrs = "cusolverDnCpotrs": fn(Handle, c_int, c_int, c_int, *const C32, c_int, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZpotrs = "cusolverDnZpotrs": fn(Handle, c_int, c_int, c_int, *const C64, c_int, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnDpotrfBatched(handle, cublasFillMode_t uplo, int n, double *Aarray[], int lda,
        /// int *infoArray, int batchSize)`
        cusolverDnSpotrfBatched = "cusolverDnSpotrfBatched": fn(Handle, c_int, c_int, *const *mut f32, c_int, *mut c_int, c_int) -> CusolverStatus;
        cusolverDnDpotrfBatched = "cusolverDnDpotrfBatched": fn(Handle, c_int, c_int, *const *mut f64, c_int, *mut c_int, c_int) -> CusolverStatus;
        cusolverDnCpotrfBatched = "cusolverDnCpotrfBatched": fn(Handle, c_int, c_int, *const *mut C32, c_int, *mut c_int, c_int) -> CusolverStatus;
        cusolverDnZpotrfBatched = "cusolverDnZpotrfBatched": fn(Handle, c_int, c_int, *const *mut C64, c_int, *mut c_int, c_int) -> CusolverStatus;
        /// `cusolverDnDpotrsBatched(handle, cublasFillMode_t uplo, int n, int nrhs (1 only), double *A[],
        /// int lda, double *B[], int ldb, int *d_info, int batchSize)`
        cusolverDnSpotrsBatched = "cusolverDnSpotrsBatched": fn(Handle, c_int, c_int, c_int, *const *mut f32, c_int, *const *mut f32, c_int, *mut c_int, c_int) -> CusolverStatus;
        cusolverDnDpotrsBatched = "cusolverDnDpotrsBatched": fn(Handle, c_int, c_int, c_int, *const *mut f64, c_int, *const *mut f64, c_int, *mut c_int, c_int) -> CusolverStatus;
        cusolverDnCpotrsBatched = "cusolverDnCpotrsBatched": fn(Handle, c_int, c_int, c_int, *const *mut C32, c_int, *const *mut C32, c_int, *mut c_int, c_int) -> CusolverStatus;
        cusolverDnZpotrsBatched = "cusolverDnZpotrsBatched": fn(Handle, c_int, c_int, c_int, *const *mut C64, c_int, *const *mut C64, c_int, *mut c_int, c_int) -> CusolverStatus;
        /// `cusolverDnDsyevd_bufferSize(handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
        /// const double *A, int lda, const double *W, int *lwork)`
        cusolverDnSsyevd_bufferSize = "cusolverDnSsyevd_bufferSize": fn(Handle, c_int, c_int, c_int, *const f32, c_int, *const f32, *mut c_int) -> CusolverStatus;
        cusolverDnDsyevd_bufferSize = "cusolverDnDsyevd_bufferSize": fn(Handle, c_int, c_int, c_int, *const f64, c_int, *const f64, *mut c_int) -> CusolverStatus;
        cusolverDnCheevd_bufferSize = "cusolverDnCheevd_bufferSize": fn(Handle, c_int, c_int, c_int, *const C32, c_int, *const f32, *mut c_int) -> CusolverStatus;
        cusolverDnZheevd_bufferSize = "cusolverDnZheevd_bufferSize": fn(Handle, c_int, c_int, c_int, *const C64, c_int, *const f64, *mut c_int) -> CusolverStatus;
        /// `cusolverDnDsyevd(handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, double *A, int lda,
        /// double *W, double *work, int lwork, int *devInfo)`
        cusolverDnSsyevd = "cusolverDnSsyevd": fn(Handle, c_int, c_int, c_int, *mut f32, c_int, *mut f32, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDsyevd = "cusolverDnDsyevd": fn(Handle, c_int, c_int, c_int, *mut f64, c_int, *mut f64, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCheevd = "cusolverDnCheevd": fn(Handle, c_int, c_int, c_int, *mut C32, c_int, *mut f32, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZheevd = "cusolverDnZheevd": fn(Handle, c_int, c_int, c_int, *mut C64, c_int, *mut f64, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnDgeqrf_bufferSize(handle, int m, int n, double *A, int lda, int *lwork)`
        cusolverDnSgeqrf_bufferSize = "cusolverDnSgeqrf_bufferSize": fn(Handle, c_int, c_int, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDgeqrf_bufferSize = "cusolverDnDgeqrf_bufferSize": fn(Handle, c_int, c_int, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCgeqrf_bufferSize = "cusolverDnCgeqrf_bufferSize": fn(Handle, c_int, c_int, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZgeqrf_bufferSize = "cusolverDnZgeqrf_bufferSize": fn(Handle, c_int, c_int, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnDgeqrf(handle, int m, int n, double *A, int lda, double *TAU, double *Workspace, int Lwork,
        /// int *devInfo)`
        cusolverDnSgeqrf = "cusolverDnSgeqrf": fn(Handle, c_int, c_int, *mut f32, c_int, *mut f32, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDgeqrf = "cusolverDnDgeqrf": fn(Handle, c_int, c_int, *mut f64, c_int, *mut f64, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCgeqrf = "cusolverDnCgeqrf": fn(Handle, c_int, c_int, *mut C32, c_int, *mut C32, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZgeqrf = "cusolverDnZgeqrf": fn(Handle, c_int, c_int, *mut C64, c_int, *mut C64, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnDorgqr_bufferSize(handle, int m, int n, int k, const double *A, int lda, const double *tau,
        /// int *lwork)`
        cusolverDnSorgqr_bufferSize = "cusolverDnSorgqr_bufferSize": fn(Handle, c_int, c_int, c_int, *const f32, c_int, *const f32, *mut c_int) -> CusolverStatus;
        cusolverDnDorgqr_bufferSize = "cusolverDnDorgqr_bufferSize": fn(Handle, c_int, c_int, c_int, *const f64, c_int, *const f64, *mut c_int) -> CusolverStatus;
        cusolverDnCungqr_bufferSize = "cusolverDnCungqr_bufferSize": fn(Handle, c_int, c_int, c_int, *const C32, c_int, *const C32, *mut c_int) -> CusolverStatus;
        cusolverDnZungqr_bufferSize = "cusolverDnZungqr_bufferSize": fn(Handle, c_int, c_int, c_int, *const C64, c_int, *const C64, *mut c_int) -> CusolverStatus;
        /// `cusolverDnDorgqr(handle, int m, int n, int k, double *A, int lda, const double *tau, double *work,
        /// int lwork, int *info)`
        cusolverDnSorgqr = "cusolverDnSorgqr": fn(Handle, c_int, c_int, c_int, *mut f32, c_int, *const f32, *mut f32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDorgqr = "cusolverDnDorgqr": fn(Handle, c_int, c_int, c_int, *mut f64, c_int, *const f64, *mut f64, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCungqr = "cusolverDnCungqr": fn(Handle, c_int, c_int, c_int, *mut C32, c_int, *const C32, *mut C32, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZungqr = "cusolverDnZungqr": fn(Handle, c_int, c_int, c_int, *mut C64, c_int, *const C64, *mut C64, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnDgesvd_bufferSize(handle, int m, int n, int *lwork)`
        cusolverDnSgesvd_bufferSize = "cusolverDnSgesvd_bufferSize": fn(Handle, c_int, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnDgesvd_bufferSize = "cusolverDnDgesvd_bufferSize": fn(Handle, c_int, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnCgesvd_bufferSize = "cusolverDnCgesvd_bufferSize": fn(Handle, c_int, c_int, *mut c_int) -> CusolverStatus;
        cusolverDnZgesvd_bufferSize = "cusolverDnZgesvd_bufferSize": fn(Handle, c_int, c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverDnDgesvd(handle, signed char jobu, signed char jobvt, int m, int n, double *A, int lda,
        /// double *S, double *U, int ldu, double *VT, int ldvt, double *work, int lwork, double *rwork,
        /// int *devInfo)`; `m ≥ n` only.
        cusolverDnSgesvd = "cusolverDnSgesvd": fn(Handle, c_schar, c_schar, c_int, c_int, *mut f32, c_int, *mut f32, *mut f32, c_int, *mut f32, c_int, *mut f32, c_int, *mut f32, *mut c_int) -> CusolverStatus;
        cusolverDnDgesvd = "cusolverDnDgesvd": fn(Handle, c_schar, c_schar, c_int, c_int, *mut f64, c_int, *mut f64, *mut f64, c_int, *mut f64, c_int, *mut f64, c_int, *mut f64, *mut c_int) -> CusolverStatus;
        cusolverDnCgesvd = "cusolverDnCgesvd": fn(Handle, c_schar, c_schar, c_int, c_int, *mut C32, c_int, *mut f32, *mut C32, c_int, *mut C32, c_int, *mut C32, c_int, *mut f32, *mut c_int) -> CusolverStatus;
        cusolverDnZgesvd = "cusolverDnZgesvd": fn(Handle, c_schar, c_schar, c_int, c_int, *mut C64, c_int, *mut f64, *mut C64, c_int, *mut C64, c_int, *mut C64, c_int, *mut f64, *mut c_int) -> CusolverStatus;
    }
}

/// The candidate files for cuSOLVER, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"])
}

const HINT: &str = "install cuSOLVER (CUDA 12 or 13: the toolkit, or the libcusolver package) and add its lib64 \
     directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's rocSOLVER";

static LOADED: OnceLock<Result<(Cusolver, String), BackendError>> = OnceLock::new();

/// The loaded functions; `not_implemented` before a load.
pub(super) fn fns() -> Result<&'static Cusolver, rocblas_status> {
    LOADED.get().and_then(|l| l.as_ref().ok()).map(|(f, _)| f).ok_or(rocblas_status::rocblas_status_not_implemented)
}

/// The version string the mapping reports: the rocSOLVER 3.21.0 whose
/// rules it keeps, with cuSOLVER's own version after it.
pub(super) fn version() -> Option<&'static str> {
    LOADED.get().and_then(|l| l.as_ref().ok()).map(|(_, v)| v.as_str())
}

/// Load cuSOLVER from `candidates`, once: later calls give the first
/// call's outcome.
pub(super) fn load_once(candidates: &[String]) -> Result<(), BackendError> {
    LOADED
        .get_or_init(|| {
            let library = open("libcusolver", candidates, HINT)?;
            // SAFETY: `library` is cuSOLVER, whose exported functions have
            // the signatures declared in `Cusolver` (cuSOLVER 11 and 12).
            let fns = unsafe { Cusolver::resolve(&library) }?;
            let mut v = [0 as c_int; 3];
            for (property, out) in v.iter_mut().enumerate() {
                // SAFETY: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2; a valid out-pointer.
                let _ = unsafe { (fns.cusolverGetProperty)(property as c_int, out) };
            }
            let path = library.keep();
            log::debug!("rocSOLVER over {path} (cuSOLVER {}.{}.{})", v[0], v[1], v[2]);
            Ok((fns, format!("3.21.0-cusolver-{}.{}.{}", v[0], v[1], v[2])))
        })
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}

/// A `cusolverStatus_t`'s name (`cusolver_common.h`).
pub(super) fn status_name(status: CusolverStatus) -> &'static str {
    match status {
        0 => "CUSOLVER_STATUS_SUCCESS",
        1 => "CUSOLVER_STATUS_NOT_INITIALIZED",
        2 => "CUSOLVER_STATUS_ALLOC_FAILED",
        3 => "CUSOLVER_STATUS_INVALID_VALUE",
        4 => "CUSOLVER_STATUS_ARCH_MISMATCH",
        5 => "CUSOLVER_STATUS_MAPPING_ERROR",
        6 => "CUSOLVER_STATUS_EXECUTION_FAILED",
        7 => "CUSOLVER_STATUS_INTERNAL_ERROR",
        8 => "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
        9 => "CUSOLVER_STATUS_NOT_SUPPORTED",
        _ => "an unknown cusolverStatus_t",
    }
}

/// A cuSOLVER status as the rocBLAS status of the same meaning.
pub(super) fn to_rocblas(status: CusolverStatus) -> rocblas_status {
    match status {
        0 => rocblas_status::rocblas_status_success,
        1 => rocblas_status::rocblas_status_invalid_handle,
        2 => rocblas_status::rocblas_status_memory_error,
        3 => rocblas_status::rocblas_status_invalid_value,
        4 | 8 | 9 => rocblas_status::rocblas_status_not_implemented,
        _ => rocblas_status::rocblas_status_internal_error,
    }
}

pub(super) fn ok(function: &str, status: CusolverStatus) -> Result<(), rocblas_status> {
    if status == 0 {
        return Ok(());
    }
    log::error!("rocSOLVER over cuSOLVER: {function} failed with {} ({status})", status_name(status));
    Err(to_rocblas(status))
}

/// Run one entry point, never unwinding into C.
pub(super) fn entry(body: impl FnOnce() -> Result<(), rocblas_status>) -> rocblas_status {
    catch_status(
        "rocSOLVER over cuSOLVER",
        rocblas_status::rocblas_status_success,
        rocblas_status::rocblas_status_internal_error,
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_rocblas() {
        assert_eq!(to_rocblas(2), rocblas_status::rocblas_status_memory_error);
        assert_eq!(to_rocblas(3), rocblas_status::rocblas_status_invalid_value);
        assert_eq!(to_rocblas(9), rocblas_status::rocblas_status_not_implemented);
        assert_eq!(to_rocblas(6), rocblas_status::rocblas_status_internal_error);
        assert_eq!(status_name(8), "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED");
    }
}
