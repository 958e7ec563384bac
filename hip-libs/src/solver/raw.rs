//! The one place this crate calls rocSOLVER: per element type, the typed
//! calls of the factorizations and solves ([`SolverScalar`]), and
//! rocSOLVER's statuses (rocBLAS's) turned into errors.
//!
//! # References
//! rocSOLVER's [LAPACK functions](https://rocm.docs.amd.com/projects/rocSOLVER/en/latest/reference/lapack.html).

#![allow(clippy::too_many_arguments)]

use crate::Result;
use hip_sys::rocsolver::{
    rocblas_evect, rocblas_fill, rocblas_handle, rocblas_operation, rocblas_status, rocblas_svect, rocblas_workmode,
    RocsolverApi,
};

/// Status to result, naming the rocSOLVER function.
pub(crate) fn check(status: rocblas_status, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    Err(crate::LibError::Status {
        library: "rocSOLVER",
        operation,
        status: status.0,
        name: crate::blas::status_name(status),
    })
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for [f32; 2] {}
    impl Sealed for [f64; 2] {}
}

/// An element type of the solvers: `f32`, `f64`, and the complex
/// `[f32; 2]` and `[f64; 2]` (`[re, im]`).
pub trait SolverScalar: Copy + Send + Sync + 'static + sealed::Sealed {
    /// `f32`, `f64`, `complex f32` or `complex f64`, for messages.
    const NAME: &'static str;
    /// The prefix of its rocSOLVER functions: `s`, `d`, `c` or `z`.
    const PREFIX: char;
    /// The real type of its eigenvalues: `f32` or `f64`.
    type Real: Copy + Send + Sync + 'static;

    /// `rocsolver_?getrf`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn getrf(
        api: &RocsolverApi,
        handle: rocblas_handle,
        m: i32,
        n: i32,
        a: *mut Self,
        lda: i32,
        ipiv: *mut i32,
        info: *mut i32,
    ) -> rocblas_status;

    /// `rocsolver_?getrs`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn getrs(
        api: &RocsolverApi,
        handle: rocblas_handle,
        trans: rocblas_operation,
        n: i32,
        nrhs: i32,
        a: *mut Self,
        lda: i32,
        ipiv: *const i32,
        b: *mut Self,
        ldb: i32,
    ) -> rocblas_status;

    /// `rocsolver_?potrf`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn potrf(
        api: &RocsolverApi,
        handle: rocblas_handle,
        uplo: rocblas_fill,
        n: i32,
        a: *mut Self,
        lda: i32,
        info: *mut i32,
    ) -> rocblas_status;

    /// `rocsolver_?potrs`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn potrs(
        api: &RocsolverApi,
        handle: rocblas_handle,
        uplo: rocblas_fill,
        n: i32,
        nrhs: i32,
        a: *mut Self,
        lda: i32,
        b: *mut Self,
        ldb: i32,
    ) -> rocblas_status;

    /// `rocsolver_?geqrf`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn geqrf(
        api: &RocsolverApi,
        handle: rocblas_handle,
        m: i32,
        n: i32,
        a: *mut Self,
        lda: i32,
        tau: *mut Self,
    ) -> rocblas_status;

    /// `rocsolver_?orgqr` / `rocsolver_?ungqr`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn orgqr(
        api: &RocsolverApi,
        handle: rocblas_handle,
        m: i32,
        n: i32,
        k: i32,
        a: *mut Self,
        lda: i32,
        tau: *mut Self,
    ) -> rocblas_status;

    /// `rocsolver_?syevd` / `rocsolver_?heevd`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn syevd(
        api: &RocsolverApi,
        handle: rocblas_handle,
        evect: rocblas_evect,
        uplo: rocblas_fill,
        n: i32,
        a: *mut Self,
        lda: i32,
        d: *mut Self::Real,
        e: *mut Self::Real,
        info: *mut i32,
    ) -> rocblas_status;

    /// `rocsolver_?gesvd`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn gesvd(
        api: &RocsolverApi,
        handle: rocblas_handle,
        left: rocblas_svect,
        right: rocblas_svect,
        m: i32,
        n: i32,
        a: *mut Self,
        lda: i32,
        s: *mut Self::Real,
        u: *mut Self,
        ldu: i32,
        v: *mut Self,
        ldv: i32,
        e: *mut Self::Real,
        fast_alg: rocblas_workmode,
        info: *mut i32,
    ) -> rocblas_status;

    /// `rocsolver_?getrf_strided_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn getrf_strided_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        m: i32,
        n: i32,
        a: *mut Self,
        lda: i32,
        stride_a: i64,
        ipiv: *mut i32,
        stride_p: i64,
        info: *mut i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?getrs_strided_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn getrs_strided_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        trans: rocblas_operation,
        n: i32,
        nrhs: i32,
        a: *mut Self,
        lda: i32,
        stride_a: i64,
        ipiv: *const i32,
        stride_p: i64,
        b: *mut Self,
        ldb: i32,
        stride_b: i64,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?potrf_strided_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn potrf_strided_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        uplo: rocblas_fill,
        n: i32,
        a: *mut Self,
        lda: i32,
        stride_a: i64,
        info: *mut i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?potrs_strided_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn potrs_strided_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        uplo: rocblas_fill,
        n: i32,
        nrhs: i32,
        a: *mut Self,
        lda: i32,
        stride_a: i64,
        b: *mut Self,
        ldb: i32,
        stride_b: i64,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?geqrf_strided_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn geqrf_strided_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        m: i32,
        n: i32,
        a: *mut Self,
        lda: i32,
        stride_a: i64,
        tau: *mut Self,
        stride_p: i64,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?syevd_strided_batched` (`heevd` for complex).
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn syevd_strided_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        evect: rocblas_evect,
        uplo: rocblas_fill,
        n: i32,
        a: *mut Self,
        lda: i32,
        stride_a: i64,
        d: *mut Self::Real,
        stride_d: i64,
        e: *mut Self::Real,
        stride_e: i64,
        info: *mut i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?gesvd_strided_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gesvd_strided_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        left: rocblas_svect,
        right: rocblas_svect,
        m: i32,
        n: i32,
        a: *mut Self,
        lda: i32,
        stride_a: i64,
        s: *mut Self::Real,
        stride_s: i64,
        u: *mut Self,
        ldu: i32,
        stride_u: i64,
        v: *mut Self,
        ldv: i32,
        stride_v: i64,
        e: *mut Self::Real,
        stride_e: i64,
        fast_alg: rocblas_workmode,
        info: *mut i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?syevd_batched` (`heevd` for complex): A's problems at
    /// the addresses of the device pointer array `a`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn syevd_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        evect: rocblas_evect,
        uplo: rocblas_fill,
        n: i32,
        a: *const *mut Self,
        lda: i32,
        d: *mut Self::Real,
        stride_d: i64,
        e: *mut Self::Real,
        stride_e: i64,
        info: *mut i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?gesvd_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gesvd_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        left: rocblas_svect,
        right: rocblas_svect,
        m: i32,
        n: i32,
        a: *const *mut Self,
        lda: i32,
        s: *mut Self::Real,
        stride_s: i64,
        u: *mut Self,
        ldu: i32,
        stride_u: i64,
        v: *mut Self,
        ldv: i32,
        stride_v: i64,
        e: *mut Self::Real,
        stride_e: i64,
        fast_alg: rocblas_workmode,
        info: *mut i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?getrf_batched`: A's problems at the addresses of the
    /// device pointer array `a`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn getrf_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        m: i32,
        n: i32,
        a: *const *mut Self,
        lda: i32,
        ipiv: *mut i32,
        stride_p: i64,
        info: *mut i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?getrs_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn getrs_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        trans: rocblas_operation,
        n: i32,
        nrhs: i32,
        a: *const *mut Self,
        lda: i32,
        ipiv: *const i32,
        stride_p: i64,
        b: *const *mut Self,
        ldb: i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?potrf_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    unsafe fn potrf_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        uplo: rocblas_fill,
        n: i32,
        a: *const *mut Self,
        lda: i32,
        info: *mut i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?potrs_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn potrs_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        uplo: rocblas_fill,
        n: i32,
        nrhs: i32,
        a: *const *mut Self,
        lda: i32,
        b: *const *mut Self,
        ldb: i32,
        batch: i32,
    ) -> rocblas_status;

    /// `rocsolver_?geqrf_batched`.
    ///
    /// # Safety
    /// The arguments satisfy rocSOLVER's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn geqrf_batched(
        api: &RocsolverApi,
        handle: rocblas_handle,
        m: i32,
        n: i32,
        a: *const *mut Self,
        lda: i32,
        tau: *mut Self,
        stride_p: i64,
        batch: i32,
    ) -> rocblas_status;
}

macro_rules! scalar {
    (
        $t:ty, $c:ty, $real:ty, $name:literal, $prefix:literal,
        $getrf:ident, $getrs:ident, $potrf:ident, $potrs:ident, $syevd:ident, $geqrf:ident, $orgqr:ident,
        $gesvd:ident, $getrf_sb:ident, $getrs_sb:ident, $potrf_sb:ident, $potrs_sb:ident, $geqrf_sb:ident,
        $syevd_sb:ident, $gesvd_sb:ident, $getrf_b:ident, $getrs_b:ident, $potrf_b:ident, $potrs_b:ident,
        $geqrf_b:ident, $syevd_b:ident, $gesvd_b:ident
    ) => {
        impl SolverScalar for $t {
            const NAME: &'static str = $name;
            const PREFIX: char = $prefix;
            type Real = $real;
            unsafe fn getrf_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                m: i32,
                n: i32,
                a: *const *mut Self,
                lda: i32,
                ipiv: *mut i32,
                stride_p: i64,
                info: *mut i32,
                batch: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$getrf_b)(handle, m, n, a.cast(), lda, ipiv, stride_p, info, batch) }
            }
            unsafe fn getrs_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                trans: rocblas_operation,
                n: i32,
                nrhs: i32,
                a: *const *mut Self,
                lda: i32,
                ipiv: *const i32,
                stride_p: i64,
                b: *const *mut Self,
                ldb: i32,
                batch: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$getrs_b)(handle, trans, n, nrhs, a.cast(), lda, ipiv, stride_p, b.cast(), ldb, batch) }
            }
            unsafe fn potrf_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                uplo: rocblas_fill,
                n: i32,
                a: *const *mut Self,
                lda: i32,
                info: *mut i32,
                batch: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$potrf_b)(handle, uplo, n, a.cast(), lda, info, batch) }
            }
            unsafe fn potrs_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                uplo: rocblas_fill,
                n: i32,
                nrhs: i32,
                a: *const *mut Self,
                lda: i32,
                b: *const *mut Self,
                ldb: i32,
                batch: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$potrs_b)(handle, uplo, n, nrhs, a.cast(), lda, b.cast(), ldb, batch) }
            }
            unsafe fn geqrf_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                m: i32,
                n: i32,
                a: *const *mut Self,
                lda: i32,
                tau: *mut Self,
                stride_p: i64,
                batch: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$geqrf_b)(handle, m, n, a.cast(), lda, tau.cast::<$c>(), stride_p, batch) }
            }
            unsafe fn getrf_strided_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                m: i32,
                n: i32,
                a: *mut Self,
                lda: i32,
                stride_a: i64,
                ipiv: *mut i32,
                stride_p: i64,
                info: *mut i32,
                batch: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$getrf_sb)(handle, m, n, a.cast::<$c>(), lda, stride_a, ipiv, stride_p, info, batch) }
            }
            unsafe fn getrs_strided_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                trans: rocblas_operation,
                n: i32,
                nrhs: i32,
                a: *mut Self,
                lda: i32,
                stride_a: i64,
                ipiv: *const i32,
                stride_p: i64,
                b: *mut Self,
                ldb: i32,
                stride_b: i64,
                batch: i32,
            ) -> rocblas_status {
                let (a, b) = (a.cast::<$c>(), b.cast::<$c>());
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe {
                    (api.$getrs_sb)(handle, trans, n, nrhs, a, lda, stride_a, ipiv, stride_p, b, ldb, stride_b, batch)
                }
            }
            unsafe fn potrf_strided_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                uplo: rocblas_fill,
                n: i32,
                a: *mut Self,
                lda: i32,
                stride_a: i64,
                info: *mut i32,
                batch: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$potrf_sb)(handle, uplo, n, a.cast::<$c>(), lda, stride_a, info, batch) }
            }
            unsafe fn potrs_strided_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                uplo: rocblas_fill,
                n: i32,
                nrhs: i32,
                a: *mut Self,
                lda: i32,
                stride_a: i64,
                b: *mut Self,
                ldb: i32,
                stride_b: i64,
                batch: i32,
            ) -> rocblas_status {
                let (a, b) = (a.cast::<$c>(), b.cast::<$c>());
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$potrs_sb)(handle, uplo, n, nrhs, a, lda, stride_a, b, ldb, stride_b, batch) }
            }
            unsafe fn geqrf_strided_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                m: i32,
                n: i32,
                a: *mut Self,
                lda: i32,
                stride_a: i64,
                tau: *mut Self,
                stride_p: i64,
                batch: i32,
            ) -> rocblas_status {
                let (a, tau) = (a.cast::<$c>(), tau.cast::<$c>());
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$geqrf_sb)(handle, m, n, a, lda, stride_a, tau, stride_p, batch) }
            }
            unsafe fn syevd_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                evect: rocblas_evect,
                uplo: rocblas_fill,
                n: i32,
                a: *const *mut Self,
                lda: i32,
                d: *mut $real,
                stride_d: i64,
                e: *mut $real,
                stride_e: i64,
                info: *mut i32,
                batch: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$syevd_b)(handle, evect, uplo, n, a.cast(), lda, d, stride_d, e, stride_e, info, batch) }
            }
            unsafe fn gesvd_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                left: rocblas_svect,
                right: rocblas_svect,
                m: i32,
                n: i32,
                a: *const *mut Self,
                lda: i32,
                s: *mut $real,
                stride_s: i64,
                u: *mut Self,
                ldu: i32,
                stride_u: i64,
                v: *mut Self,
                ldv: i32,
                stride_v: i64,
                e: *mut $real,
                stride_e: i64,
                fast_alg: rocblas_workmode,
                info: *mut i32,
                batch: i32,
            ) -> rocblas_status {
                let (u, v) = (u.cast::<$c>(), v.cast::<$c>());
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe {
                    (api.$gesvd_b)(
                        handle,
                        left,
                        right,
                        m,
                        n,
                        a.cast(),
                        lda,
                        s,
                        stride_s,
                        u,
                        ldu,
                        stride_u,
                        v,
                        ldv,
                        stride_v,
                        e,
                        stride_e,
                        fast_alg,
                        info,
                        batch,
                    )
                }
            }
            unsafe fn syevd_strided_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                evect: rocblas_evect,
                uplo: rocblas_fill,
                n: i32,
                a: *mut Self,
                lda: i32,
                stride_a: i64,
                d: *mut $real,
                stride_d: i64,
                e: *mut $real,
                stride_e: i64,
                info: *mut i32,
                batch: i32,
            ) -> rocblas_status {
                let a = a.cast::<$c>();
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe {
                    (api.$syevd_sb)(handle, evect, uplo, n, a, lda, stride_a, d, stride_d, e, stride_e, info, batch)
                }
            }
            unsafe fn gesvd_strided_batched(
                api: &RocsolverApi,
                handle: rocblas_handle,
                left: rocblas_svect,
                right: rocblas_svect,
                m: i32,
                n: i32,
                a: *mut Self,
                lda: i32,
                stride_a: i64,
                s: *mut $real,
                stride_s: i64,
                u: *mut Self,
                ldu: i32,
                stride_u: i64,
                v: *mut Self,
                ldv: i32,
                stride_v: i64,
                e: *mut $real,
                stride_e: i64,
                fast_alg: rocblas_workmode,
                info: *mut i32,
                batch: i32,
            ) -> rocblas_status {
                let (a, u, v) = (a.cast::<$c>(), u.cast::<$c>(), v.cast::<$c>());
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe {
                    (api.$gesvd_sb)(
                        handle, left, right, m, n, a, lda, stride_a, s, stride_s, u, ldu, stride_u, v, ldv, stride_v,
                        e, stride_e, fast_alg, info, batch,
                    )
                }
            }
            unsafe fn gesvd(
                api: &RocsolverApi,
                handle: rocblas_handle,
                left: rocblas_svect,
                right: rocblas_svect,
                m: i32,
                n: i32,
                a: *mut Self,
                lda: i32,
                s: *mut $real,
                u: *mut Self,
                ldu: i32,
                v: *mut Self,
                ldv: i32,
                e: *mut $real,
                fast_alg: rocblas_workmode,
                info: *mut i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe {
                    (api.$gesvd)(
                        handle,
                        left,
                        right,
                        m,
                        n,
                        a.cast::<$c>(),
                        lda,
                        s,
                        u.cast::<$c>(),
                        ldu,
                        v.cast::<$c>(),
                        ldv,
                        e,
                        fast_alg,
                        info,
                    )
                }
            }
            unsafe fn geqrf(
                api: &RocsolverApi,
                handle: rocblas_handle,
                m: i32,
                n: i32,
                a: *mut Self,
                lda: i32,
                tau: *mut Self,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$geqrf)(handle, m, n, a.cast::<$c>(), lda, tau.cast::<$c>()) }
            }
            unsafe fn orgqr(
                api: &RocsolverApi,
                handle: rocblas_handle,
                m: i32,
                n: i32,
                k: i32,
                a: *mut Self,
                lda: i32,
                tau: *mut Self,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$orgqr)(handle, m, n, k, a.cast::<$c>(), lda, tau.cast::<$c>()) }
            }
            unsafe fn syevd(
                api: &RocsolverApi,
                handle: rocblas_handle,
                evect: rocblas_evect,
                uplo: rocblas_fill,
                n: i32,
                a: *mut Self,
                lda: i32,
                d: *mut $real,
                e: *mut $real,
                info: *mut i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$syevd)(handle, evect, uplo, n, a.cast::<$c>(), lda, d, e, info) }
            }
            unsafe fn getrf(
                api: &RocsolverApi,
                handle: rocblas_handle,
                m: i32,
                n: i32,
                a: *mut Self,
                lda: i32,
                ipiv: *mut i32,
                info: *mut i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$getrf)(handle, m, n, a.cast::<$c>(), lda, ipiv, info) }
            }
            unsafe fn getrs(
                api: &RocsolverApi,
                handle: rocblas_handle,
                trans: rocblas_operation,
                n: i32,
                nrhs: i32,
                a: *mut Self,
                lda: i32,
                ipiv: *const i32,
                b: *mut Self,
                ldb: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$getrs)(handle, trans, n, nrhs, a.cast::<$c>(), lda, ipiv, b.cast::<$c>(), ldb) }
            }
            unsafe fn potrf(
                api: &RocsolverApi,
                handle: rocblas_handle,
                uplo: rocblas_fill,
                n: i32,
                a: *mut Self,
                lda: i32,
                info: *mut i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$potrf)(handle, uplo, n, a.cast::<$c>(), lda, info) }
            }
            unsafe fn potrs(
                api: &RocsolverApi,
                handle: rocblas_handle,
                uplo: rocblas_fill,
                n: i32,
                nrhs: i32,
                a: *mut Self,
                lda: i32,
                b: *mut Self,
                ldb: i32,
            ) -> rocblas_status {
                // SAFETY: as the caller guarantees; the element types have one layout.
                unsafe { (api.$potrs)(handle, uplo, n, nrhs, a.cast::<$c>(), lda, b.cast::<$c>(), ldb) }
            }
        }
    };
}

use hip_sys::rocsolver::{rocblas_double_complex, rocblas_float_complex};

scalar!(
    f32,
    f32,
    f32,
    "f32",
    's',
    rocsolver_sgetrf,
    rocsolver_sgetrs,
    rocsolver_spotrf,
    rocsolver_spotrs,
    rocsolver_ssyevd,
    rocsolver_sgeqrf,
    rocsolver_sorgqr,
    rocsolver_sgesvd,
    rocsolver_sgetrf_strided_batched,
    rocsolver_sgetrs_strided_batched,
    rocsolver_spotrf_strided_batched,
    rocsolver_spotrs_strided_batched,
    rocsolver_sgeqrf_strided_batched,
    rocsolver_ssyevd_strided_batched,
    rocsolver_sgesvd_strided_batched,
    rocsolver_sgetrf_batched,
    rocsolver_sgetrs_batched,
    rocsolver_spotrf_batched,
    rocsolver_spotrs_batched,
    rocsolver_sgeqrf_batched,
    rocsolver_ssyevd_batched,
    rocsolver_sgesvd_batched
);
scalar!(
    f64,
    f64,
    f64,
    "f64",
    'd',
    rocsolver_dgetrf,
    rocsolver_dgetrs,
    rocsolver_dpotrf,
    rocsolver_dpotrs,
    rocsolver_dsyevd,
    rocsolver_dgeqrf,
    rocsolver_dorgqr,
    rocsolver_dgesvd,
    rocsolver_dgetrf_strided_batched,
    rocsolver_dgetrs_strided_batched,
    rocsolver_dpotrf_strided_batched,
    rocsolver_dpotrs_strided_batched,
    rocsolver_dgeqrf_strided_batched,
    rocsolver_dsyevd_strided_batched,
    rocsolver_dgesvd_strided_batched,
    rocsolver_dgetrf_batched,
    rocsolver_dgetrs_batched,
    rocsolver_dpotrf_batched,
    rocsolver_dpotrs_batched,
    rocsolver_dgeqrf_batched,
    rocsolver_dsyevd_batched,
    rocsolver_dgesvd_batched
);
scalar!(
    [f32; 2],
    rocblas_float_complex,
    f32,
    "complex f32",
    'c',
    rocsolver_cgetrf,
    rocsolver_cgetrs,
    rocsolver_cpotrf,
    rocsolver_cpotrs,
    rocsolver_cheevd,
    rocsolver_cgeqrf,
    rocsolver_cungqr,
    rocsolver_cgesvd,
    rocsolver_cgetrf_strided_batched,
    rocsolver_cgetrs_strided_batched,
    rocsolver_cpotrf_strided_batched,
    rocsolver_cpotrs_strided_batched,
    rocsolver_cgeqrf_strided_batched,
    rocsolver_cheevd_strided_batched,
    rocsolver_cgesvd_strided_batched,
    rocsolver_cgetrf_batched,
    rocsolver_cgetrs_batched,
    rocsolver_cpotrf_batched,
    rocsolver_cpotrs_batched,
    rocsolver_cgeqrf_batched,
    rocsolver_cheevd_batched,
    rocsolver_cgesvd_batched
);
scalar!(
    [f64; 2],
    rocblas_double_complex,
    f64,
    "complex f64",
    'z',
    rocsolver_zgetrf,
    rocsolver_zgetrs,
    rocsolver_zpotrf,
    rocsolver_zpotrs,
    rocsolver_zheevd,
    rocsolver_zgeqrf,
    rocsolver_zungqr,
    rocsolver_zgesvd,
    rocsolver_zgetrf_strided_batched,
    rocsolver_zgetrs_strided_batched,
    rocsolver_zpotrf_strided_batched,
    rocsolver_zpotrs_strided_batched,
    rocsolver_zgeqrf_strided_batched,
    rocsolver_zheevd_strided_batched,
    rocsolver_zgesvd_strided_batched,
    rocsolver_zgetrf_batched,
    rocsolver_zgetrs_batched,
    rocsolver_zpotrf_batched,
    rocsolver_zpotrs_batched,
    rocsolver_zgeqrf_batched,
    rocsolver_zheevd_batched,
    rocsolver_zgesvd_batched
);

const _: () = assert!(std::mem::size_of::<rocblas_float_complex>() == 8);
const _: () = assert!(std::mem::size_of::<rocblas_double_complex>() == 16);
