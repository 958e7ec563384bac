//! GEMV and the level 1 functions over cuBLAS.

use super::*;
use crate::backend::nvidia::precision::Name;

/// Read a host scalar where the pointer mode is host (`None` where it is
/// device: the scalar is not read, and only null pointers are checked).
///
/// # Safety
/// `ptr` is non-null and valid for a read of `S` in the handle's pointer mode.
unsafe fn host_scalar<S: Scalar>(h: Handle, ptr: *const S) -> Result<Option<S>, rocblas_status> {
    let mut mode: c_int = 0;
    // SAFETY: a live handle and a valid out-pointer.
    ok("cublasGetPointerMode_v2", unsafe { (fns()?.api.cublasGetPointerMode)(h, &mut mode) })?;
    // SAFETY: a host scalar in host mode (the caller's guarantee).
    Ok((mode == 0).then(|| unsafe { ptr.read_unaligned() }))
}

/// `rocblas_?gemv`: checked as rocBLAS checks, then `cublas?gemv_v2`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn gemv<T: Scalar>(
    handle: rocblas_handle,
    trans: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    alpha: *const T,
    A: *const T,
    lda: rocblas_int,
    x: *const T,
    incx: rocblas_int,
    beta: *const T,
    y: *mut T,
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
        ok(cublas::<T>("gemv_v2"), unsafe {
            (fns()?.of::<T>().gemv)(h, op, m, n, alpha, A, lda, x, incx, beta, y, incy)
        })
    })
}

/// `rocblas_?axpy`: checked as rocBLAS checks, then `cublas?axpy_v2`.
pub(super) unsafe extern "C" fn axpy<T: Scalar>(
    handle: rocblas_handle,
    n: rocblas_int,
    alpha: *const T,
    x: *const T,
    incx: rocblas_int,
    y: *mut T,
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
        ok(cublas::<T>("axpy_v2"), unsafe { (fns()?.of::<T>().axpy)(h, n, alpha, x, incx, y, incy) })
    })
}

/// `rocblas_?scal`: checked as rocBLAS checks, then `cublas?scal_v2`.
pub(super) unsafe extern "C" fn scal<T: Scalar>(
    handle: rocblas_handle,
    n: rocblas_int,
    alpha: *const T,
    x: *mut T,
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
        ok(cublas::<T>("scal_v2"), unsafe { (fns()?.of::<T>().scal)(h, n, alpha, x, incx) })
    })
}

/// `rocblas_?dot` (`?dotu`), or `rocblas_?dotc` with `CONJ`: checked as
/// rocBLAS checks, then `cublas?dot_v2`, `?dotu_v2` or `?dotc_v2`.
pub(super) unsafe extern "C" fn dot<T: Scalar, const CONJ: bool>(
    handle: rocblas_handle,
    n: rocblas_int,
    x: *const T,
    incx: rocblas_int,
    y: *const T,
    incy: rocblas_int,
    result: *mut T,
) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        // For n <= 0 rocBLAS writes 0 (`Next::Done`); cuBLAS does too, in
        // either pointer mode, so it is called all the same.
        rules::dot(n, x.is_null(), y.is_null(), result.is_null())?;
        let typed = fns()?.of::<T>();
        let (name, call) = if CONJ {
            // Only the complex precisions' tables hold `dotc`.
            (cublas::<T>("dotc_v2"), typed.dotc.ok_or(rocblas_status::rocblas_status_not_implemented)?)
        } else {
            (cublas::<T>(Name::stem::<T>("dot_v2", "dotu_v2")), typed.dot)
        };
        // SAFETY: checked as rocBLAS checks; operands per the C contract.
        ok(name, unsafe { call(h, n, x, incx, y, incy, result) })
    })
}

/// `rocblas_?nrm2` (`scnrm2`, `dznrm2`): checked as rocBLAS checks, then
/// `cublas?nrm2_v2`.
pub(super) unsafe extern "C" fn nrm2<T: Scalar>(
    handle: rocblas_handle,
    n: rocblas_int,
    x: *const T,
    incx: rocblas_int,
    result: *mut T::Real,
) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        // For n <= 0 or incx <= 0 rocBLAS writes 0 (`Next::Done`);
        // cuBLAS does too, so it is called all the same.
        rules::nrm2(n, incx, x.is_null(), result.is_null())?;
        // SAFETY: checked as rocBLAS checks; operands per the C contract.
        ok(Name::to_real::<T>("cublas", "nrm2_v2"), unsafe { (fns()?.of::<T>().nrm2)(h, n, x, incx, result) })
    })
}
