//! GEMV and the level 1 functions over cuBLAS.

use super::gemm::Scalar;
use super::*;

/// Read a host scalar where the pointer mode is host (`None` where it is
/// device: the scalar is not read, and only null pointers are checked).
///
/// # Safety
/// `ptr` is non-null and valid for a read of `S` in the handle's pointer mode.
unsafe fn host_scalar<S: Scalar>(h: Handle, ptr: *const S) -> Result<Option<S>, rocblas_status> {
    let mut mode: c_int = 0;
    // SAFETY: a live handle and a valid out-pointer.
    ok("cublasGetPointerMode_v2", unsafe { (fns()?.cublasGetPointerMode)(h, &mut mode) })?;
    // SAFETY: a host scalar in host mode (the caller's guarantee).
    Ok((mode == 0).then(|| unsafe { ptr.read_unaligned() }))
}

macro_rules! gemv_fn {
    ($name:ident, $t:ty, $cu:ident) => {
        pub(super) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            trans: rocblas_operation,
            m: rocblas_int,
            n: rocblas_int,
            alpha: *const $t,
            A: *const $t,
            lda: rocblas_int,
            x: *const $t,
            incx: rocblas_int,
            beta: *const $t,
            y: *mut $t,
            incy: rocblas_int,
        ) -> rocblas_status {
            entry(|| {
                let h = live(handle)?;
                if rules::gemv(trans, m, n, lda, incx, incy)? == Next::Done {
                    return Ok(());
                }
                if alpha.is_null() || beta.is_null() {
                    return Err(rocblas_status::rocblas_status_invalid_pointer);
                }
                // SAFETY: non-null scalars of the type (C contract).
                let (a, b) = unsafe { (host_scalar(h, alpha)?, host_scalar(h, beta)?) };
                let (alpha_zero, beta_one) = (a.is_some_and(Scalar::is_zero), b.is_some_and(Scalar::is_one));
                if rules::gemv_pointers(alpha_zero, beta_one, A.is_null(), x.is_null(), y.is_null())? == Next::Done {
                    return Ok(());
                }
                let op = operation(trans)?;
                // SAFETY: checked as rocBLAS checks; operands per the C contract.
                ok(stringify!($cu), unsafe { (fns()?.$cu)(h, op, m, n, alpha, A, lda, x, incx, beta, y, incy) })
            })
        }
    };
}

gemv_fn!(rocblas_sgemv, f32, cublasSgemv);
gemv_fn!(rocblas_dgemv, f64, cublasDgemv);
gemv_fn!(rocblas_cgemv, C32, cublasCgemv);
gemv_fn!(rocblas_zgemv, C64, cublasZgemv);

macro_rules! axpy_fn {
    ($name:ident, $t:ty, $cu:ident) => {
        pub(super) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            n: rocblas_int,
            alpha: *const $t,
            x: *const $t,
            incx: rocblas_int,
            y: *mut $t,
            incy: rocblas_int,
        ) -> rocblas_status {
            entry(|| {
                let h = live(handle)?;
                let a = if alpha.is_null() || n <= 0 {
                    None
                } else {
                    // SAFETY: a non-null scalar of the type (C contract).
                    Some(unsafe { host_scalar(h, alpha) }?.is_some_and(Scalar::is_zero))
                };
                if rules::axpy(n, a, x.is_null(), y.is_null())? == Next::Done {
                    return Ok(());
                }
                // SAFETY: checked as rocBLAS checks; operands per the C contract.
                ok(stringify!($cu), unsafe { (fns()?.$cu)(h, n, alpha, x, incx, y, incy) })
            })
        }
    };
}

axpy_fn!(rocblas_saxpy, f32, cublasSaxpy);
axpy_fn!(rocblas_daxpy, f64, cublasDaxpy);
axpy_fn!(rocblas_caxpy, C32, cublasCaxpy);
axpy_fn!(rocblas_zaxpy, C64, cublasZaxpy);

macro_rules! scal_fn {
    ($name:ident, $t:ty, $cu:ident) => {
        pub(super) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            n: rocblas_int,
            alpha: *const $t,
            x: *mut $t,
            incx: rocblas_int,
        ) -> rocblas_status {
            entry(|| {
                let h = live(handle)?;
                let a = if alpha.is_null() || n <= 0 || incx <= 0 {
                    None
                } else {
                    // SAFETY: a non-null scalar of the type (C contract).
                    Some(unsafe { host_scalar(h, alpha) }?.is_some_and(Scalar::is_one))
                };
                if rules::scal(n, incx, a, x.is_null())? == Next::Done {
                    return Ok(());
                }
                // SAFETY: checked as rocBLAS checks; operands per the C contract.
                ok(stringify!($cu), unsafe { (fns()?.$cu)(h, n, alpha, x, incx) })
            })
        }
    };
}

scal_fn!(rocblas_sscal, f32, cublasSscal);
scal_fn!(rocblas_dscal, f64, cublasDscal);
scal_fn!(rocblas_cscal, C32, cublasCscal);
scal_fn!(rocblas_zscal, C64, cublasZscal);

macro_rules! dot_fn {
    ($name:ident, $t:ty, $cu:ident) => {
        pub(super) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            n: rocblas_int,
            x: *const $t,
            incx: rocblas_int,
            y: *const $t,
            incy: rocblas_int,
            result: *mut $t,
        ) -> rocblas_status {
            entry(|| {
                let h = live(handle)?;
                // For n <= 0 rocBLAS writes 0 (`Next::Done`); cuBLAS does
                // too, in either pointer mode, so it is called all the same.
                rules::dot(n, x.is_null(), y.is_null(), result.is_null())?;
                // SAFETY: checked as rocBLAS checks; operands per the C contract.
                ok(stringify!($cu), unsafe { (fns()?.$cu)(h, n, x, incx, y, incy, result) })
            })
        }
    };
}

dot_fn!(rocblas_sdot, f32, cublasSdot);
dot_fn!(rocblas_ddot, f64, cublasDdot);
dot_fn!(rocblas_cdotu, C32, cublasCdotu);
dot_fn!(rocblas_zdotu, C64, cublasZdotu);
dot_fn!(rocblas_cdotc, C32, cublasCdotc);
dot_fn!(rocblas_zdotc, C64, cublasZdotc);

macro_rules! nrm2_fn {
    ($name:ident, $t:ty, $real:ty, $cu:ident) => {
        pub(super) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            n: rocblas_int,
            x: *const $t,
            incx: rocblas_int,
            result: *mut $real,
        ) -> rocblas_status {
            entry(|| {
                let h = live(handle)?;
                // For n <= 0 or incx <= 0 rocBLAS writes 0 (`Next::Done`);
                // cuBLAS does too, so it is called all the same.
                rules::nrm2(n, incx, x.is_null(), result.is_null())?;
                // SAFETY: checked as rocBLAS checks; operands per the C contract.
                ok(stringify!($cu), unsafe { (fns()?.$cu)(h, n, x, incx, result) })
            })
        }
    };
}

nrm2_fn!(rocblas_snrm2, f32, f32, cublasSnrm2);
nrm2_fn!(rocblas_dnrm2, f64, f64, cublasDnrm2);
nrm2_fn!(rocblas_scnrm2, C32, f32, cublasScnrm2);
nrm2_fn!(rocblas_dznrm2, C64, f64, cublasDznrm2);
