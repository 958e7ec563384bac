//! cuSOLVER itself: the dense functions the mapping calls, loading them,
//! and its statuses as rocBLAS's (rocSOLVER answers with rocBLAS's).

use std::ffi::{c_int, c_schar, c_void};
use std::sync::OnceLock;

use crate::backend::loader::Opened;
use crate::backend::nvidia::precision::{function, Element, Family, Name, Precisions};
use crate::backend::nvidia::{catch_status, library_candidates, open, Handle};
use crate::rocblas::rocblas_status;
use crate::BackendError;

/// `cusolverStatus_t`.
pub(super) type CusolverStatus = c_int;

fn_table! {
    /// cuSOLVER's functions of no precision (`cusolverDn.h`, cuSOLVER 11
    /// and 12); handles and streams are opaque pointers.
    struct Cusolver {
        /// `cusolverStatus_t cusolverGetProperty(libraryPropertyType type, int *value)`
        cusolverGetProperty = "cusolverGetProperty": fn(c_int, *mut c_int) -> CusolverStatus;
        /// `cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle)`
        cusolverDnCreate = "cusolverDnCreate": fn(*mut Handle) -> CusolverStatus;
        /// `cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)`
        cusolverDnDestroy = "cusolverDnDestroy": fn(Handle) -> CusolverStatus;
        /// `cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId)`
        cusolverDnSetStream = "cusolverDnSetStream": fn(Handle, *mut c_void) -> CusolverStatus;
    }
}

/// A cuSOLVER dense function of one precision, `cusolverDn` + letter + `stem`.
pub(super) fn dn_name<T: Element>(stem: &'static str) -> Name {
    Name::of::<T>("cusolverDn", stem)
}

/// The cuSOLVER dense functions this mapping calls, in the precision of
/// `T` (`cusolverDn.h`, cuSOLVER 11 and 12), each signature declared once.
/// Enums are `int` (`cublasOperation_t`, `cublasFillMode_t`,
/// `cusolverEigMode_t`); `cuComplex` and `cuDoubleComplex` have rocBLAS's
/// complex layout, and `T::Real` is the precision's real type.
pub(super) struct DenseFns<T: Element> {
    /// `cusolverDn?getrf_bufferSize(handle, int m, int n, T *A, int lda, int *Lwork)`
    pub getrf_buffer_size: unsafe extern "C" fn(Handle, c_int, c_int, *mut T, c_int, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?getrf(handle, int m, int n, T *A, int lda, T *Workspace, int *devIpiv, int *devInfo)`
    pub getrf:
        unsafe extern "C" fn(Handle, c_int, c_int, *mut T, c_int, *mut T, *mut c_int, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?getrs(handle, cublasOperation_t trans, int n, int nrhs, const T *A, int lda,
    /// const int *devIpiv, T *B, int ldb, int *devInfo)`
    pub getrs: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        *const T,
        c_int,
        *const c_int,
        *mut T,
        c_int,
        *mut c_int,
    ) -> CusolverStatus,
    /// `cusolverDn?potrf_bufferSize(handle, cublasFillMode_t uplo, int n, T *A, int lda, int *Lwork)`
    pub potrf_buffer_size: unsafe extern "C" fn(Handle, c_int, c_int, *mut T, c_int, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?potrf(handle, cublasFillMode_t uplo, int n, T *A, int lda, T *Workspace, int Lwork,
    /// int *devInfo)`
    pub potrf: unsafe extern "C" fn(Handle, c_int, c_int, *mut T, c_int, *mut T, c_int, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?potrs(handle, cublasFillMode_t uplo, int n, int nrhs, const T *A, int lda, T *B, int ldb,
    /// int *devInfo)`
    pub potrs:
        unsafe extern "C" fn(Handle, c_int, c_int, c_int, *const T, c_int, *mut T, c_int, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?potrfBatched(handle, cublasFillMode_t uplo, int n, T *Aarray[], int lda, int *infoArray,
    /// int batchSize)`
    pub potrf_batched:
        unsafe extern "C" fn(Handle, c_int, c_int, *const *mut T, c_int, *mut c_int, c_int) -> CusolverStatus,
    /// `cusolverDn?potrsBatched(handle, cublasFillMode_t uplo, int n, int nrhs (1 only), T *A[], int lda,
    /// T *B[], int ldb, int *d_info, int batchSize)`
    pub potrs_batched: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        *const *mut T,
        c_int,
        *const *mut T,
        c_int,
        *mut c_int,
        c_int,
    ) -> CusolverStatus,
    /// `cusolverDn?syevd_bufferSize` (`heevd` for complex `T`)`(handle, cusolverEigMode_t jobz,
    /// cublasFillMode_t uplo, int n, const T *A, int lda, const Real *W, int *lwork)`
    pub syevd_buffer_size: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        *const T,
        c_int,
        *const T::Real,
        *mut c_int,
    ) -> CusolverStatus,
    /// `cusolverDn?syevd` (`heevd`)`(handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A,
    /// int lda, Real *W, T *work, int lwork, int *devInfo)`
    pub syevd: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        *mut T,
        c_int,
        *mut T::Real,
        *mut T,
        c_int,
        *mut c_int,
    ) -> CusolverStatus,
    /// `cusolverDn?geqrf_bufferSize(handle, int m, int n, T *A, int lda, int *lwork)`
    pub geqrf_buffer_size: unsafe extern "C" fn(Handle, c_int, c_int, *mut T, c_int, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?geqrf(handle, int m, int n, T *A, int lda, T *TAU, T *Workspace, int Lwork, int *devInfo)`
    pub geqrf:
        unsafe extern "C" fn(Handle, c_int, c_int, *mut T, c_int, *mut T, *mut T, c_int, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?orgqr_bufferSize` (`ungqr` for complex `T`)`(handle, int m, int n, int k, const T *A,
    /// int lda, const T *tau, int *lwork)`
    pub orgqr_buffer_size:
        unsafe extern "C" fn(Handle, c_int, c_int, c_int, *const T, c_int, *const T, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?orgqr` (`ungqr`)`(handle, int m, int n, int k, T *A, int lda, const T *tau, T *work,
    /// int lwork, int *info)`
    pub orgqr: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        *mut T,
        c_int,
        *const T,
        *mut T,
        c_int,
        *mut c_int,
    ) -> CusolverStatus,
    /// `cusolverDn?gesvd_bufferSize(handle, int m, int n, int *lwork)`
    pub gesvd_buffer_size: unsafe extern "C" fn(Handle, c_int, c_int, *mut c_int) -> CusolverStatus,
    /// `cusolverDn?gesvd(handle, signed char jobu, signed char jobvt, int m, int n, T *A, int lda, Real *S,
    /// T *U, int ldu, T *VT, int ldvt, T *work, int lwork, Real *rwork, int *devInfo)`; `m ≥ n` only.
    pub gesvd: unsafe extern "C" fn(
        Handle,
        c_schar,
        c_schar,
        c_int,
        c_int,
        *mut T,
        c_int,
        *mut T::Real,
        *mut T,
        c_int,
        *mut T,
        c_int,
        *mut T,
        c_int,
        *mut T::Real,
        *mut c_int,
    ) -> CusolverStatus,
}

/// [`DenseFns`] as a [`Family`]: resolved in every precision.
pub(super) struct Dense;

impl Family for Dense {
    type Of<T: Element> = DenseFns<T>;

    unsafe fn resolve<T: Element>(library: &Opened) -> Result<DenseFns<T>, BackendError> {
        // SAFETY: cuSOLVER exports each name with the signature declared
        // for its field (the caller's guarantee).
        unsafe {
            Ok(DenseFns {
                getrf_buffer_size: function(library, dn_name::<T>("getrf_bufferSize"))?,
                getrf: function(library, dn_name::<T>("getrf"))?,
                getrs: function(library, dn_name::<T>("getrs"))?,
                potrf_buffer_size: function(library, dn_name::<T>("potrf_bufferSize"))?,
                potrf: function(library, dn_name::<T>("potrf"))?,
                potrs: function(library, dn_name::<T>("potrs"))?,
                potrf_batched: function(library, dn_name::<T>("potrfBatched"))?,
                potrs_batched: function(library, dn_name::<T>("potrsBatched"))?,
                syevd_buffer_size: function(
                    library,
                    dn_name::<T>(Name::stem::<T>("syevd_bufferSize", "heevd_bufferSize")),
                )?,
                syevd: function(library, dn_name::<T>(Name::stem::<T>("syevd", "heevd")))?,
                geqrf_buffer_size: function(library, dn_name::<T>("geqrf_bufferSize"))?,
                geqrf: function(library, dn_name::<T>("geqrf"))?,
                orgqr_buffer_size: function(
                    library,
                    dn_name::<T>(Name::stem::<T>("orgqr_bufferSize", "ungqr_bufferSize")),
                )?,
                orgqr: function(library, dn_name::<T>(Name::stem::<T>("orgqr", "ungqr")))?,
                gesvd_buffer_size: function(library, dn_name::<T>("gesvd_bufferSize"))?,
                gesvd: function(library, dn_name::<T>("gesvd"))?,
            })
        }
    }
}

/// cuSOLVER, loaded: its functions of no precision and its dense ones in
/// each precision.
pub(super) struct Library {
    pub api: Cusolver,
    pub dense: Precisions<Dense>,
}

/// The candidate files for cuSOLVER, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"])
}

const HINT: &str = "install cuSOLVER (CUDA 12 or 13: the toolkit, or the libcusolver package) and add its lib64 \
     directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's rocSOLVER";

static LOADED: OnceLock<Result<(Library, String), BackendError>> = OnceLock::new();

/// The loaded functions; `not_implemented` before a load.
pub(super) fn fns() -> Result<&'static Library, rocblas_status> {
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
            // the signatures declared in `Cusolver` and `DenseFns`
            // (cuSOLVER 11 and 12).
            let fns = unsafe { Library { api: Cusolver::resolve(&library)?, dense: Precisions::resolve(&library)? } };
            let mut v = [0 as c_int; 3];
            for (property, out) in v.iter_mut().enumerate() {
                // SAFETY: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2; a valid out-pointer.
                let _ = unsafe { (fns.api.cusolverGetProperty)(property as c_int, out) };
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

pub(super) fn ok(function: impl std::fmt::Display, status: CusolverStatus) -> Result<(), rocblas_status> {
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
