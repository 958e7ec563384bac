//! The simulator's rocSOLVER table: one C entry point per function and
//! precision, each a call of the generic one in [`super::calls`].

#![allow(clippy::too_many_arguments)]

use super::calls::{self, Instances, C32, C64};
use crate::bindings::rocblas::{
    rocblas_double_complex, rocblas_float_complex, rocblas_handle, rocblas_status, rocblas_stride,
};
use crate::bindings::rocsolver::{
    rocblas_evect, rocblas_fill, rocblas_operation, rocblas_svect, rocblas_workmode, RocsolverApi,
};
use crate::bindings::shared::version_string;
use crate::library::call;
use std::ffi::{c_char, c_int};

/// The version the simulator reports: the rocSOLVER whose rules and
/// workspace sizes it follows.
const VERSION: &str = "3.21.0.sim";

macro_rules! entry_points {
    ($(
        $t:ty => $c:ty, $real:ty:
        $getrf:ident, $getrs:ident, $potrf:ident, $potrs:ident, $syevd:ident, $geqrf:ident, $orgqr:ident,
        $gesvd:ident;
        $getrf_sb:ident, $getrs_sb:ident, $potrf_sb:ident, $potrs_sb:ident, $geqrf_sb:ident, $syevd_sb:ident,
        $gesvd_sb:ident;
        $getrf_b:ident, $getrs_b:ident, $potrf_b:ident, $potrs_b:ident, $geqrf_b:ident, $syevd_b:ident,
        $gesvd_b:ident;
    )*) => {$(
        unsafe extern "C" fn $syevd_b(
            handle: rocblas_handle, evect: rocblas_evect, uplo: rocblas_fill, n: c_int, a: *const *mut $t,
            lda: c_int, d: *mut $real, stride_d: rocblas_stride, e: *mut $real, stride_e: rocblas_stride,
            info: *mut c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::eigen_pointers(batch_count, stride_d, stride_e);
            calls::syevd::<$c>(
                stringify!($syevd_b), handle, evect, uplo, n, a as *mut $c, lda, d.cast(), e.cast(), info, batch,
            )
        }
        unsafe extern "C" fn $gesvd_b(
            handle: rocblas_handle, left: rocblas_svect, right: rocblas_svect, m: c_int, n: c_int,
            a: *const *mut $t, lda: c_int, s: *mut $real, stride_s: rocblas_stride, u: *mut $t, ldu: c_int,
            stride_u: rocblas_stride, v: *mut $t, ldv: c_int, stride_v: rocblas_stride, e: *mut $real,
            stride_e: rocblas_stride, fast_alg: rocblas_workmode, info: *mut c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::svd_pointers(batch_count, [0, stride_s, stride_u, stride_v, stride_e]);
            calls::gesvd::<$c>(
                stringify!($gesvd_b), handle, left, right, m, n, a as *mut $c, lda, s.cast(), u.cast(), ldu,
                v.cast(), ldv, e.cast(), fast_alg, info, batch,
            )
        }
        unsafe extern "C" fn $getrf_b(
            handle: rocblas_handle, m: c_int, n: c_int, a: *const *mut $t, lda: c_int, ipiv: *mut c_int,
            stride_p: rocblas_stride, info: *mut c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::pointers(batch_count, stride_p);
            calls::getrf::<$c>(stringify!($getrf_b), handle, m, n, a as *mut $c, lda, ipiv, info, batch)
        }
        unsafe extern "C" fn $getrs_b(
            handle: rocblas_handle, trans: rocblas_operation, n: c_int, nrhs: c_int, a: *const *mut $t, lda: c_int,
            ipiv: *const c_int, stride_p: rocblas_stride, b: *const *mut $t, ldb: c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::pointers(batch_count, stride_p);
            calls::getrs::<$c>(
                stringify!($getrs_b), handle, trans, n, nrhs, a as *mut $c, lda, ipiv, b as *mut $c, ldb, batch,
            )
        }
        unsafe extern "C" fn $potrf_b(
            handle: rocblas_handle, uplo: rocblas_fill, n: c_int, a: *const *mut $t, lda: c_int, info: *mut c_int,
            batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::pointers(batch_count, 0);
            calls::potrf::<$c>(stringify!($potrf_b), handle, uplo, n, a as *mut $c, lda, info, batch)
        }
        unsafe extern "C" fn $potrs_b(
            handle: rocblas_handle, uplo: rocblas_fill, n: c_int, nrhs: c_int, a: *const *mut $t, lda: c_int,
            b: *const *mut $t, ldb: c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::pointers(batch_count, 0);
            calls::potrs::<$c>(
                stringify!($potrs_b), handle, uplo, n, nrhs, a as *mut $c, lda, b as *mut $c, ldb, batch,
            )
        }
        unsafe extern "C" fn $geqrf_b(
            handle: rocblas_handle, m: c_int, n: c_int, a: *const *mut $t, lda: c_int, tau: *mut $t,
            stride_p: rocblas_stride, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::pointers(batch_count, stride_p);
            calls::geqrf::<$c>(stringify!($geqrf_b), handle, m, n, a as *mut $c, lda, tau.cast(), batch)
        }
        unsafe extern "C" fn $gesvd_sb(
            handle: rocblas_handle, left: rocblas_svect, right: rocblas_svect, m: c_int, n: c_int, a: *mut $t,
            lda: c_int, stride_a: rocblas_stride, s: *mut $real, stride_s: rocblas_stride, u: *mut $t, ldu: c_int,
            stride_u: rocblas_stride, v: *mut $t, ldv: c_int, stride_v: rocblas_stride, e: *mut $real,
            stride_e: rocblas_stride, fast_alg: rocblas_workmode, info: *mut c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::svd(batch_count, [stride_a, stride_s, stride_u, stride_v, stride_e]);
            calls::gesvd::<$c>(
                stringify!($gesvd_sb), handle, left, right, m, n, a.cast(), lda, s.cast(), u.cast(), ldu, v.cast(),
                ldv, e.cast(), fast_alg, info, batch,
            )
        }
        unsafe extern "C" fn $syevd_sb(
            handle: rocblas_handle, evect: rocblas_evect, uplo: rocblas_fill, n: c_int, a: *mut $t, lda: c_int,
            stride_a: rocblas_stride, d: *mut $real, stride_d: rocblas_stride, e: *mut $real,
            stride_e: rocblas_stride, info: *mut c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::eigen(batch_count, stride_a, stride_d, stride_e);
            calls::syevd::<$c>(
                stringify!($syevd_sb), handle, evect, uplo, n, a.cast(), lda, d.cast(), e.cast(), info, batch,
            )
        }
        unsafe extern "C" fn $getrf_sb(
            handle: rocblas_handle, m: c_int, n: c_int, a: *mut $t, lda: c_int, stride_a: rocblas_stride,
            ipiv: *mut c_int, stride_p: rocblas_stride, info: *mut c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::strided(batch_count, stride_a, stride_p, 0);
            calls::getrf::<$c>(stringify!($getrf_sb), handle, m, n, a.cast(), lda, ipiv, info, batch)
        }
        unsafe extern "C" fn $getrs_sb(
            handle: rocblas_handle, trans: rocblas_operation, n: c_int, nrhs: c_int, a: *mut $t, lda: c_int,
            stride_a: rocblas_stride, ipiv: *const c_int, stride_p: rocblas_stride, b: *mut $t, ldb: c_int,
            stride_b: rocblas_stride, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::strided(batch_count, stride_a, stride_p, stride_b);
            calls::getrs::<$c>(
                stringify!($getrs_sb), handle, trans, n, nrhs, a.cast(), lda, ipiv, b.cast(), ldb, batch,
            )
        }
        unsafe extern "C" fn $potrf_sb(
            handle: rocblas_handle, uplo: rocblas_fill, n: c_int, a: *mut $t, lda: c_int, stride_a: rocblas_stride,
            info: *mut c_int, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::strided(batch_count, stride_a, 0, 0);
            calls::potrf::<$c>(stringify!($potrf_sb), handle, uplo, n, a.cast(), lda, info, batch)
        }
        unsafe extern "C" fn $potrs_sb(
            handle: rocblas_handle, uplo: rocblas_fill, n: c_int, nrhs: c_int, a: *mut $t, lda: c_int,
            stride_a: rocblas_stride, b: *mut $t, ldb: c_int, stride_b: rocblas_stride, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::strided(batch_count, stride_a, 0, stride_b);
            calls::potrs::<$c>(stringify!($potrs_sb), handle, uplo, n, nrhs, a.cast(), lda, b.cast(), ldb, batch)
        }
        unsafe extern "C" fn $geqrf_sb(
            handle: rocblas_handle, m: c_int, n: c_int, a: *mut $t, lda: c_int, stride_a: rocblas_stride,
            tau: *mut $t, stride_p: rocblas_stride, batch_count: c_int,
        ) -> rocblas_status {
            let batch = Instances::strided(batch_count, stride_a, stride_p, 0);
            calls::geqrf::<$c>(stringify!($geqrf_sb), handle, m, n, a.cast(), lda, tau.cast(), batch)
        }
        unsafe extern "C" fn $gesvd(
            handle: rocblas_handle, left: rocblas_svect, right: rocblas_svect, m: c_int, n: c_int, a: *mut $t,
            lda: c_int, s: *mut $real, u: *mut $t, ldu: c_int, v: *mut $t, ldv: c_int, e: *mut $real,
            fast_alg: rocblas_workmode, info: *mut c_int,
        ) -> rocblas_status {
            calls::gesvd::<$c>(
                stringify!($gesvd), handle, left, right, m, n, a.cast(), lda, s.cast(), u.cast(), ldu, v.cast(), ldv,
                e.cast(), fast_alg, info, Instances::ONE,
            )
        }
        unsafe extern "C" fn $geqrf(
            handle: rocblas_handle, m: c_int, n: c_int, a: *mut $t, lda: c_int, tau: *mut $t,
        ) -> rocblas_status {
            calls::geqrf::<$c>(stringify!($geqrf), handle, m, n, a.cast(), lda, tau.cast(), Instances::ONE)
        }
        unsafe extern "C" fn $orgqr(
            handle: rocblas_handle, m: c_int, n: c_int, k: c_int, a: *mut $t, lda: c_int, tau: *mut $t,
        ) -> rocblas_status {
            calls::orgqr::<$c>(stringify!($orgqr), handle, m, n, k, a.cast(), lda, tau.cast())
        }
        unsafe extern "C" fn $getrf(
            handle: rocblas_handle, m: c_int, n: c_int, a: *mut $t, lda: c_int, ipiv: *mut c_int, info: *mut c_int,
        ) -> rocblas_status {
            calls::getrf::<$c>(stringify!($getrf), handle, m, n, a.cast(), lda, ipiv, info, Instances::ONE)
        }
        unsafe extern "C" fn $getrs(
            handle: rocblas_handle, trans: rocblas_operation, n: c_int, nrhs: c_int, a: *mut $t, lda: c_int,
            ipiv: *const c_int, b: *mut $t, ldb: c_int,
        ) -> rocblas_status {
            calls::getrs::<$c>(
                stringify!($getrs), handle, trans, n, nrhs, a.cast(), lda, ipiv, b.cast(), ldb, Instances::ONE,
            )
        }
        unsafe extern "C" fn $potrf(
            handle: rocblas_handle, uplo: rocblas_fill, n: c_int, a: *mut $t, lda: c_int, info: *mut c_int,
        ) -> rocblas_status {
            calls::potrf::<$c>(stringify!($potrf), handle, uplo, n, a.cast(), lda, info, Instances::ONE)
        }
        unsafe extern "C" fn $potrs(
            handle: rocblas_handle, uplo: rocblas_fill, n: c_int, nrhs: c_int, a: *mut $t, lda: c_int,
            b: *mut $t, ldb: c_int,
        ) -> rocblas_status {
            calls::potrs::<$c>(
                stringify!($potrs), handle, uplo, n, nrhs, a.cast(), lda, b.cast(), ldb, Instances::ONE,
            )
        }
        unsafe extern "C" fn $syevd(
            handle: rocblas_handle, evect: rocblas_evect, uplo: rocblas_fill, n: c_int, a: *mut $t, lda: c_int,
            d: *mut $real, e: *mut $real, info: *mut c_int,
        ) -> rocblas_status {
            calls::syevd::<$c>(
                stringify!($syevd), handle, evect, uplo, n, a.cast(), lda, d.cast(), e.cast(), info, Instances::ONE,
            )
        }
    )*};
}

entry_points! {
    f32 => f32, f32: rocsolver_sgetrf, rocsolver_sgetrs, rocsolver_spotrf, rocsolver_spotrs, rocsolver_ssyevd,
        rocsolver_sgeqrf, rocsolver_sorgqr, rocsolver_sgesvd;
        rocsolver_sgetrf_strided_batched, rocsolver_sgetrs_strided_batched, rocsolver_spotrf_strided_batched,
        rocsolver_spotrs_strided_batched, rocsolver_sgeqrf_strided_batched, rocsolver_ssyevd_strided_batched,
        rocsolver_sgesvd_strided_batched;
        rocsolver_sgetrf_batched, rocsolver_sgetrs_batched, rocsolver_spotrf_batched, rocsolver_spotrs_batched,
        rocsolver_sgeqrf_batched, rocsolver_ssyevd_batched, rocsolver_sgesvd_batched;
    f64 => f64, f64: rocsolver_dgetrf, rocsolver_dgetrs, rocsolver_dpotrf, rocsolver_dpotrs, rocsolver_dsyevd,
        rocsolver_dgeqrf, rocsolver_dorgqr, rocsolver_dgesvd;
        rocsolver_dgetrf_strided_batched, rocsolver_dgetrs_strided_batched, rocsolver_dpotrf_strided_batched,
        rocsolver_dpotrs_strided_batched, rocsolver_dgeqrf_strided_batched, rocsolver_dsyevd_strided_batched,
        rocsolver_dgesvd_strided_batched;
        rocsolver_dgetrf_batched, rocsolver_dgetrs_batched, rocsolver_dpotrf_batched, rocsolver_dpotrs_batched,
        rocsolver_dgeqrf_batched, rocsolver_dsyevd_batched, rocsolver_dgesvd_batched;
    rocblas_float_complex => C32, f32:
        rocsolver_cgetrf, rocsolver_cgetrs, rocsolver_cpotrf, rocsolver_cpotrs, rocsolver_cheevd,
        rocsolver_cgeqrf, rocsolver_cungqr, rocsolver_cgesvd;
        rocsolver_cgetrf_strided_batched, rocsolver_cgetrs_strided_batched, rocsolver_cpotrf_strided_batched,
        rocsolver_cpotrs_strided_batched, rocsolver_cgeqrf_strided_batched, rocsolver_cheevd_strided_batched,
        rocsolver_cgesvd_strided_batched;
        rocsolver_cgetrf_batched, rocsolver_cgetrs_batched, rocsolver_cpotrf_batched, rocsolver_cpotrs_batched,
        rocsolver_cgeqrf_batched, rocsolver_cheevd_batched, rocsolver_cgesvd_batched;
    rocblas_double_complex => C64, f64:
        rocsolver_zgetrf, rocsolver_zgetrs, rocsolver_zpotrf, rocsolver_zpotrs, rocsolver_zheevd,
        rocsolver_zgeqrf, rocsolver_zungqr, rocsolver_zgesvd;
        rocsolver_zgetrf_strided_batched, rocsolver_zgetrs_strided_batched, rocsolver_zpotrf_strided_batched,
        rocsolver_zpotrs_strided_batched, rocsolver_zgeqrf_strided_batched, rocsolver_zheevd_strided_batched,
        rocsolver_zgesvd_strided_batched;
        rocsolver_zgetrf_batched, rocsolver_zgetrs_batched, rocsolver_zpotrf_batched, rocsolver_zpotrs_batched,
        rocsolver_zgeqrf_batched, rocsolver_zheevd_batched, rocsolver_zgesvd_batched;
}

unsafe extern "C" fn rocsolver_get_version_string_size(len: *mut usize) -> rocblas_status {
    let (ok, internal) = (rocblas_status::rocblas_status_success, rocblas_status::rocblas_status_internal_error);
    // SAFETY: null or valid for a write (C contract).
    call("rocsolver_get_version_string_size", ok, internal, || unsafe { version_string::size(VERSION, len) })
}

unsafe extern "C" fn rocsolver_get_version_string(buf: *mut c_char, len: usize) -> rocblas_status {
    let (ok, internal) = (rocblas_status::rocblas_status_success, rocblas_status::rocblas_status_internal_error);
    // SAFETY: null or valid for `len` bytes (C contract).
    call("rocsolver_get_version_string", ok, internal, || unsafe { version_string::write(VERSION, buf, len) })
}

/// The simulator's rocSOLVER table.
pub(crate) static SIM_ROCSOLVER: RocsolverApi = RocsolverApi {
    rocsolver_get_version_string,
    rocsolver_get_version_string_size,
    rocsolver_sgetrf,
    rocsolver_dgetrf,
    rocsolver_cgetrf,
    rocsolver_zgetrf,
    rocsolver_sgetrs,
    rocsolver_dgetrs,
    rocsolver_cgetrs,
    rocsolver_zgetrs,
    rocsolver_spotrf,
    rocsolver_dpotrf,
    rocsolver_cpotrf,
    rocsolver_zpotrf,
    rocsolver_spotrs,
    rocsolver_dpotrs,
    rocsolver_cpotrs,
    rocsolver_zpotrs,
    rocsolver_ssyevd,
    rocsolver_dsyevd,
    rocsolver_cheevd,
    rocsolver_zheevd,
    rocsolver_sgeqrf,
    rocsolver_dgeqrf,
    rocsolver_cgeqrf,
    rocsolver_zgeqrf,
    rocsolver_sorgqr,
    rocsolver_dorgqr,
    rocsolver_cungqr,
    rocsolver_zungqr,
    rocsolver_sgesvd,
    rocsolver_dgesvd,
    rocsolver_cgesvd,
    rocsolver_zgesvd,
    rocsolver_sgetrf_strided_batched,
    rocsolver_dgetrf_strided_batched,
    rocsolver_cgetrf_strided_batched,
    rocsolver_zgetrf_strided_batched,
    rocsolver_sgetrs_strided_batched,
    rocsolver_dgetrs_strided_batched,
    rocsolver_cgetrs_strided_batched,
    rocsolver_zgetrs_strided_batched,
    rocsolver_spotrf_strided_batched,
    rocsolver_dpotrf_strided_batched,
    rocsolver_cpotrf_strided_batched,
    rocsolver_zpotrf_strided_batched,
    rocsolver_spotrs_strided_batched,
    rocsolver_dpotrs_strided_batched,
    rocsolver_cpotrs_strided_batched,
    rocsolver_zpotrs_strided_batched,
    rocsolver_sgeqrf_strided_batched,
    rocsolver_dgeqrf_strided_batched,
    rocsolver_cgeqrf_strided_batched,
    rocsolver_zgeqrf_strided_batched,
    rocsolver_ssyevd_strided_batched,
    rocsolver_dsyevd_strided_batched,
    rocsolver_cheevd_strided_batched,
    rocsolver_zheevd_strided_batched,
    rocsolver_sgesvd_strided_batched,
    rocsolver_dgesvd_strided_batched,
    rocsolver_cgesvd_strided_batched,
    rocsolver_zgesvd_strided_batched,
    rocsolver_sgetrf_batched,
    rocsolver_dgetrf_batched,
    rocsolver_cgetrf_batched,
    rocsolver_zgetrf_batched,
    rocsolver_sgetrs_batched,
    rocsolver_dgetrs_batched,
    rocsolver_cgetrs_batched,
    rocsolver_zgetrs_batched,
    rocsolver_spotrf_batched,
    rocsolver_dpotrf_batched,
    rocsolver_cpotrf_batched,
    rocsolver_zpotrf_batched,
    rocsolver_spotrs_batched,
    rocsolver_dpotrs_batched,
    rocsolver_cpotrs_batched,
    rocsolver_zpotrs_batched,
    rocsolver_sgeqrf_batched,
    rocsolver_dgeqrf_batched,
    rocsolver_cgeqrf_batched,
    rocsolver_zgeqrf_batched,
    rocsolver_ssyevd_batched,
    rocsolver_dsyevd_batched,
    rocsolver_cheevd_batched,
    rocsolver_zheevd_batched,
    rocsolver_sgesvd_batched,
    rocsolver_dgesvd_batched,
    rocsolver_cgesvd_batched,
    rocsolver_zgesvd_batched,
};
