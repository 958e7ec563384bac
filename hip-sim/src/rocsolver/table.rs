//! The simulator's rocSOLVER table: one C entry point per function,
//! generic over the precision (the table holds each function's four
//! instances), each a call of the generic one in [`super::calls`] with
//! the problems its batch form describes.

#![allow(clippy::too_many_arguments)]

use super::calls::{self, Instances, C32, C64};
use super::scalar::Scalar;
use crate::bindings::rocblas::{
    rocblas_double_complex, rocblas_float_complex, rocblas_handle, rocblas_status, rocblas_stride,
};
use crate::bindings::rocsolver::{
    rocblas_evect, rocblas_fill, rocblas_operation, rocblas_svect, rocblas_workmode, RocsolverApi,
};
use crate::library::{call, function_name};
use crate::shared::version_string;
use std::ffi::{c_char, c_int};

/// The version the simulator reports: the rocSOLVER whose rules and
/// workspace sizes it follows.
const VERSION: &str = "3.21.0.sim";

/// One precision of the table: the element type the computation uses
/// (`Self`), the C element type of its functions, its real type, and how
/// its functions are named.
trait Precision: Scalar {
    /// The element type of the C functions.
    type C;
    /// The real type (eigenvalues, singular values).
    type Real;
    /// The prefix of its functions: `s`, `d`, `c` or `z`.
    const PREFIX: char;
    /// Whether the operations named apart for complex types (`heevd`,
    /// `ungqr`) take their complex name.
    const COMPLEX: bool;
}

impl Precision for f32 {
    type C = f32;
    type Real = f32;
    const PREFIX: char = 's';
    const COMPLEX: bool = false;
}

impl Precision for f64 {
    type C = f64;
    type Real = f64;
    const PREFIX: char = 'd';
    const COMPLEX: bool = false;
}

impl Precision for C32 {
    type C = rocblas_float_complex;
    type Real = f32;
    const PREFIX: char = 'c';
    const COMPLEX: bool = true;
}

impl Precision for C64 {
    type C = rocblas_double_complex;
    type Real = f64;
    const PREFIX: char = 'z';
    const COMPLEX: bool = true;
}

/// The C name of `operation` (its real name, and its complex one) for
/// `P`: `rocsolver_cheevd_batched` for `C32` and `("syevd", "heevd")`
/// with `"_batched"`.
fn name<P: Precision>(operation: (&str, &str), suffix: &str) -> &'static str {
    let base = if P::COMPLEX { operation.1 } else { operation.0 };
    function_name(format_args!("rocsolver_{}{base}{suffix}", P::PREFIX))
}

const GETRF: (&str, &str) = ("getrf", "getrf");
const GETRS: (&str, &str) = ("getrs", "getrs");
const POTRF: (&str, &str) = ("potrf", "potrf");
const POTRS: (&str, &str) = ("potrs", "potrs");
const GEQRF: (&str, &str) = ("geqrf", "geqrf");
const ORGQR: (&str, &str) = ("orgqr", "ungqr");
const SYEVD: (&str, &str) = ("syevd", "heevd");
const GESVD: (&str, &str) = ("gesvd", "gesvd");
const STRIDED: &str = "_strided_batched";
const BATCHED: &str = "_batched";

unsafe extern "C" fn getrf<P: Precision>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    ipiv: *mut c_int,
    info: *mut c_int,
) -> rocblas_status {
    calls::getrf::<P>(name::<P>(GETRF, ""), handle, m, n, a.cast(), lda, ipiv, info, Instances::ONE)
}

unsafe extern "C" fn getrs<P: Precision>(
    handle: rocblas_handle,
    trans: rocblas_operation,
    n: c_int,
    nrhs: c_int,
    a: *mut P::C,
    lda: c_int,
    ipiv: *const c_int,
    b: *mut P::C,
    ldb: c_int,
) -> rocblas_status {
    let name = name::<P>(GETRS, "");
    calls::getrs::<P>(name, handle, trans, n, nrhs, a.cast(), lda, ipiv, b.cast(), ldb, Instances::ONE)
}

unsafe extern "C" fn potrf<P: Precision>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    info: *mut c_int,
) -> rocblas_status {
    calls::potrf::<P>(name::<P>(POTRF, ""), handle, uplo, n, a.cast(), lda, info, Instances::ONE)
}

unsafe extern "C" fn potrs<P: Precision>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    nrhs: c_int,
    a: *mut P::C,
    lda: c_int,
    b: *mut P::C,
    ldb: c_int,
) -> rocblas_status {
    calls::potrs::<P>(name::<P>(POTRS, ""), handle, uplo, n, nrhs, a.cast(), lda, b.cast(), ldb, Instances::ONE)
}

unsafe extern "C" fn geqrf<P: Precision>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    tau: *mut P::C,
) -> rocblas_status {
    calls::geqrf::<P>(name::<P>(GEQRF, ""), handle, m, n, a.cast(), lda, tau.cast(), Instances::ONE)
}

unsafe extern "C" fn orgqr<P: Precision>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    k: c_int,
    a: *mut P::C,
    lda: c_int,
    tau: *mut P::C,
) -> rocblas_status {
    calls::orgqr::<P>(name::<P>(ORGQR, ""), handle, m, n, k, a.cast(), lda, tau.cast())
}

unsafe extern "C" fn syevd<P: Precision>(
    handle: rocblas_handle,
    evect: rocblas_evect,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    d: *mut P::Real,
    e: *mut P::Real,
    info: *mut c_int,
) -> rocblas_status {
    let name = name::<P>(SYEVD, "");
    calls::syevd::<P>(name, handle, evect, uplo, n, a.cast(), lda, d.cast(), e.cast(), info, Instances::ONE)
}

unsafe extern "C" fn gesvd<P: Precision>(
    handle: rocblas_handle,
    left: rocblas_svect,
    right: rocblas_svect,
    m: c_int,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    s: *mut P::Real,
    u: *mut P::C,
    ldu: c_int,
    v: *mut P::C,
    ldv: c_int,
    e: *mut P::Real,
    fast_alg: rocblas_workmode,
    info: *mut c_int,
) -> rocblas_status {
    let (a, s, u, v, e) = (a.cast(), s.cast(), u.cast(), v.cast(), e.cast());
    let name = name::<P>(GESVD, "");
    calls::gesvd::<P>(name, handle, left, right, m, n, a, lda, s, u, ldu, v, ldv, e, fast_alg, info, Instances::ONE)
}

unsafe extern "C" fn getrf_strided<P: Precision>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    stride_a: rocblas_stride,
    ipiv: *mut c_int,
    stride_p: rocblas_stride,
    info: *mut c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::strided(batch_count, stride_a, stride_p, 0);
    calls::getrf::<P>(name::<P>(GETRF, STRIDED), handle, m, n, a.cast(), lda, ipiv, info, batch)
}

unsafe extern "C" fn getrs_strided<P: Precision>(
    handle: rocblas_handle,
    trans: rocblas_operation,
    n: c_int,
    nrhs: c_int,
    a: *mut P::C,
    lda: c_int,
    stride_a: rocblas_stride,
    ipiv: *const c_int,
    stride_p: rocblas_stride,
    b: *mut P::C,
    ldb: c_int,
    stride_b: rocblas_stride,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::strided(batch_count, stride_a, stride_p, stride_b);
    let name = name::<P>(GETRS, STRIDED);
    calls::getrs::<P>(name, handle, trans, n, nrhs, a.cast(), lda, ipiv, b.cast(), ldb, batch)
}

unsafe extern "C" fn potrf_strided<P: Precision>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    stride_a: rocblas_stride,
    info: *mut c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::strided(batch_count, stride_a, 0, 0);
    calls::potrf::<P>(name::<P>(POTRF, STRIDED), handle, uplo, n, a.cast(), lda, info, batch)
}

unsafe extern "C" fn potrs_strided<P: Precision>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    nrhs: c_int,
    a: *mut P::C,
    lda: c_int,
    stride_a: rocblas_stride,
    b: *mut P::C,
    ldb: c_int,
    stride_b: rocblas_stride,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::strided(batch_count, stride_a, 0, stride_b);
    calls::potrs::<P>(name::<P>(POTRS, STRIDED), handle, uplo, n, nrhs, a.cast(), lda, b.cast(), ldb, batch)
}

unsafe extern "C" fn geqrf_strided<P: Precision>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    stride_a: rocblas_stride,
    tau: *mut P::C,
    stride_p: rocblas_stride,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::strided(batch_count, stride_a, stride_p, 0);
    calls::geqrf::<P>(name::<P>(GEQRF, STRIDED), handle, m, n, a.cast(), lda, tau.cast(), batch)
}

unsafe extern "C" fn syevd_strided<P: Precision>(
    handle: rocblas_handle,
    evect: rocblas_evect,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    stride_a: rocblas_stride,
    d: *mut P::Real,
    stride_d: rocblas_stride,
    e: *mut P::Real,
    stride_e: rocblas_stride,
    info: *mut c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::eigen(batch_count, stride_a, stride_d, stride_e);
    let name = name::<P>(SYEVD, STRIDED);
    calls::syevd::<P>(name, handle, evect, uplo, n, a.cast(), lda, d.cast(), e.cast(), info, batch)
}

unsafe extern "C" fn gesvd_strided<P: Precision>(
    handle: rocblas_handle,
    left: rocblas_svect,
    right: rocblas_svect,
    m: c_int,
    n: c_int,
    a: *mut P::C,
    lda: c_int,
    stride_a: rocblas_stride,
    s: *mut P::Real,
    stride_s: rocblas_stride,
    u: *mut P::C,
    ldu: c_int,
    stride_u: rocblas_stride,
    v: *mut P::C,
    ldv: c_int,
    stride_v: rocblas_stride,
    e: *mut P::Real,
    stride_e: rocblas_stride,
    fast_alg: rocblas_workmode,
    info: *mut c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::svd(batch_count, [stride_a, stride_s, stride_u, stride_v, stride_e]);
    let (a, s, u, v, e) = (a.cast(), s.cast(), u.cast(), v.cast(), e.cast());
    let name = name::<P>(GESVD, STRIDED);
    calls::gesvd::<P>(name, handle, left, right, m, n, a, lda, s, u, ldu, v, ldv, e, fast_alg, info, batch)
}

unsafe extern "C" fn getrf_batched<P: Precision>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *const *mut P::C,
    lda: c_int,
    ipiv: *mut c_int,
    stride_p: rocblas_stride,
    info: *mut c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::pointers(batch_count, stride_p);
    calls::getrf::<P>(name::<P>(GETRF, BATCHED), handle, m, n, a as *mut P, lda, ipiv, info, batch)
}

unsafe extern "C" fn getrs_batched<P: Precision>(
    handle: rocblas_handle,
    trans: rocblas_operation,
    n: c_int,
    nrhs: c_int,
    a: *const *mut P::C,
    lda: c_int,
    ipiv: *const c_int,
    stride_p: rocblas_stride,
    b: *const *mut P::C,
    ldb: c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::pointers(batch_count, stride_p);
    let name = name::<P>(GETRS, BATCHED);
    calls::getrs::<P>(name, handle, trans, n, nrhs, a as *mut P, lda, ipiv, b as *mut P, ldb, batch)
}

unsafe extern "C" fn potrf_batched<P: Precision>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    a: *const *mut P::C,
    lda: c_int,
    info: *mut c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::pointers(batch_count, 0);
    calls::potrf::<P>(name::<P>(POTRF, BATCHED), handle, uplo, n, a as *mut P, lda, info, batch)
}

unsafe extern "C" fn potrs_batched<P: Precision>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    nrhs: c_int,
    a: *const *mut P::C,
    lda: c_int,
    b: *const *mut P::C,
    ldb: c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::pointers(batch_count, 0);
    let name = name::<P>(POTRS, BATCHED);
    calls::potrs::<P>(name, handle, uplo, n, nrhs, a as *mut P, lda, b as *mut P, ldb, batch)
}

unsafe extern "C" fn geqrf_batched<P: Precision>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *const *mut P::C,
    lda: c_int,
    tau: *mut P::C,
    stride_p: rocblas_stride,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::pointers(batch_count, stride_p);
    calls::geqrf::<P>(name::<P>(GEQRF, BATCHED), handle, m, n, a as *mut P, lda, tau.cast(), batch)
}

unsafe extern "C" fn syevd_batched<P: Precision>(
    handle: rocblas_handle,
    evect: rocblas_evect,
    uplo: rocblas_fill,
    n: c_int,
    a: *const *mut P::C,
    lda: c_int,
    d: *mut P::Real,
    stride_d: rocblas_stride,
    e: *mut P::Real,
    stride_e: rocblas_stride,
    info: *mut c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::eigen_pointers(batch_count, stride_d, stride_e);
    let name = name::<P>(SYEVD, BATCHED);
    calls::syevd::<P>(name, handle, evect, uplo, n, a as *mut P, lda, d.cast(), e.cast(), info, batch)
}

unsafe extern "C" fn gesvd_batched<P: Precision>(
    handle: rocblas_handle,
    left: rocblas_svect,
    right: rocblas_svect,
    m: c_int,
    n: c_int,
    a: *const *mut P::C,
    lda: c_int,
    s: *mut P::Real,
    stride_s: rocblas_stride,
    u: *mut P::C,
    ldu: c_int,
    stride_u: rocblas_stride,
    v: *mut P::C,
    ldv: c_int,
    stride_v: rocblas_stride,
    e: *mut P::Real,
    stride_e: rocblas_stride,
    fast_alg: rocblas_workmode,
    info: *mut c_int,
    batch_count: c_int,
) -> rocblas_status {
    let batch = Instances::svd_pointers(batch_count, [0, stride_s, stride_u, stride_v, stride_e]);
    let (a, s, u, v, e) = (a as *mut P, s.cast(), u.cast(), v.cast(), e.cast());
    let name = name::<P>(GESVD, BATCHED);
    calls::gesvd::<P>(name, handle, left, right, m, n, a, lda, s, u, ldu, v, ldv, e, fast_alg, info, batch)
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
    rocsolver_sgetrf: getrf::<f32>,
    rocsolver_dgetrf: getrf::<f64>,
    rocsolver_cgetrf: getrf::<C32>,
    rocsolver_zgetrf: getrf::<C64>,
    rocsolver_sgetrs: getrs::<f32>,
    rocsolver_dgetrs: getrs::<f64>,
    rocsolver_cgetrs: getrs::<C32>,
    rocsolver_zgetrs: getrs::<C64>,
    rocsolver_spotrf: potrf::<f32>,
    rocsolver_dpotrf: potrf::<f64>,
    rocsolver_cpotrf: potrf::<C32>,
    rocsolver_zpotrf: potrf::<C64>,
    rocsolver_spotrs: potrs::<f32>,
    rocsolver_dpotrs: potrs::<f64>,
    rocsolver_cpotrs: potrs::<C32>,
    rocsolver_zpotrs: potrs::<C64>,
    rocsolver_ssyevd: syevd::<f32>,
    rocsolver_dsyevd: syevd::<f64>,
    rocsolver_cheevd: syevd::<C32>,
    rocsolver_zheevd: syevd::<C64>,
    rocsolver_sgeqrf: geqrf::<f32>,
    rocsolver_dgeqrf: geqrf::<f64>,
    rocsolver_cgeqrf: geqrf::<C32>,
    rocsolver_zgeqrf: geqrf::<C64>,
    rocsolver_sorgqr: orgqr::<f32>,
    rocsolver_dorgqr: orgqr::<f64>,
    rocsolver_cungqr: orgqr::<C32>,
    rocsolver_zungqr: orgqr::<C64>,
    rocsolver_sgesvd: gesvd::<f32>,
    rocsolver_dgesvd: gesvd::<f64>,
    rocsolver_cgesvd: gesvd::<C32>,
    rocsolver_zgesvd: gesvd::<C64>,
    rocsolver_sgetrf_strided_batched: getrf_strided::<f32>,
    rocsolver_dgetrf_strided_batched: getrf_strided::<f64>,
    rocsolver_cgetrf_strided_batched: getrf_strided::<C32>,
    rocsolver_zgetrf_strided_batched: getrf_strided::<C64>,
    rocsolver_sgetrs_strided_batched: getrs_strided::<f32>,
    rocsolver_dgetrs_strided_batched: getrs_strided::<f64>,
    rocsolver_cgetrs_strided_batched: getrs_strided::<C32>,
    rocsolver_zgetrs_strided_batched: getrs_strided::<C64>,
    rocsolver_spotrf_strided_batched: potrf_strided::<f32>,
    rocsolver_dpotrf_strided_batched: potrf_strided::<f64>,
    rocsolver_cpotrf_strided_batched: potrf_strided::<C32>,
    rocsolver_zpotrf_strided_batched: potrf_strided::<C64>,
    rocsolver_spotrs_strided_batched: potrs_strided::<f32>,
    rocsolver_dpotrs_strided_batched: potrs_strided::<f64>,
    rocsolver_cpotrs_strided_batched: potrs_strided::<C32>,
    rocsolver_zpotrs_strided_batched: potrs_strided::<C64>,
    rocsolver_sgeqrf_strided_batched: geqrf_strided::<f32>,
    rocsolver_dgeqrf_strided_batched: geqrf_strided::<f64>,
    rocsolver_cgeqrf_strided_batched: geqrf_strided::<C32>,
    rocsolver_zgeqrf_strided_batched: geqrf_strided::<C64>,
    rocsolver_ssyevd_strided_batched: syevd_strided::<f32>,
    rocsolver_dsyevd_strided_batched: syevd_strided::<f64>,
    rocsolver_cheevd_strided_batched: syevd_strided::<C32>,
    rocsolver_zheevd_strided_batched: syevd_strided::<C64>,
    rocsolver_sgesvd_strided_batched: gesvd_strided::<f32>,
    rocsolver_dgesvd_strided_batched: gesvd_strided::<f64>,
    rocsolver_cgesvd_strided_batched: gesvd_strided::<C32>,
    rocsolver_zgesvd_strided_batched: gesvd_strided::<C64>,
    rocsolver_sgetrf_batched: getrf_batched::<f32>,
    rocsolver_dgetrf_batched: getrf_batched::<f64>,
    rocsolver_cgetrf_batched: getrf_batched::<C32>,
    rocsolver_zgetrf_batched: getrf_batched::<C64>,
    rocsolver_sgetrs_batched: getrs_batched::<f32>,
    rocsolver_dgetrs_batched: getrs_batched::<f64>,
    rocsolver_cgetrs_batched: getrs_batched::<C32>,
    rocsolver_zgetrs_batched: getrs_batched::<C64>,
    rocsolver_spotrf_batched: potrf_batched::<f32>,
    rocsolver_dpotrf_batched: potrf_batched::<f64>,
    rocsolver_cpotrf_batched: potrf_batched::<C32>,
    rocsolver_zpotrf_batched: potrf_batched::<C64>,
    rocsolver_spotrs_batched: potrs_batched::<f32>,
    rocsolver_dpotrs_batched: potrs_batched::<f64>,
    rocsolver_cpotrs_batched: potrs_batched::<C32>,
    rocsolver_zpotrs_batched: potrs_batched::<C64>,
    rocsolver_sgeqrf_batched: geqrf_batched::<f32>,
    rocsolver_dgeqrf_batched: geqrf_batched::<f64>,
    rocsolver_cgeqrf_batched: geqrf_batched::<C32>,
    rocsolver_zgeqrf_batched: geqrf_batched::<C64>,
    rocsolver_ssyevd_batched: syevd_batched::<f32>,
    rocsolver_dsyevd_batched: syevd_batched::<f64>,
    rocsolver_cheevd_batched: syevd_batched::<C32>,
    rocsolver_zheevd_batched: syevd_batched::<C64>,
    rocsolver_sgesvd_batched: gesvd_batched::<f32>,
    rocsolver_dgesvd_batched: gesvd_batched::<f64>,
    rocsolver_cgesvd_batched: gesvd_batched::<C32>,
    rocsolver_zgesvd_batched: gesvd_batched::<C64>,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_rocsolver_per_precision_and_are_made_once() {
        assert_eq!(name::<f32>(SYEVD, ""), "rocsolver_ssyevd");
        assert_eq!(name::<C32>(SYEVD, BATCHED), "rocsolver_cheevd_batched");
        assert_eq!(name::<C64>(ORGQR, ""), "rocsolver_zungqr");
        assert_eq!(name::<f64>(GESVD, STRIDED), "rocsolver_dgesvd_strided_batched");
        let (first, again) = (name::<C64>(GETRF, STRIDED), name::<C64>(GETRF, STRIDED));
        assert!(std::ptr::eq(first, again), "one allocation per name");
    }
}
