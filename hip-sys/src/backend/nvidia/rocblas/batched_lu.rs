//! cuBLAS's batched LU (`getrfBatched`, `getrsBatched`), for the
//! rocSOLVER mapping's strided batches of small square matrices: one
//! launch for the whole batch, where cuSOLVER would take one call per
//! matrix. Both take arrays of device pointers (see the rocSOLVER
//! mapping's `pointers`).

use super::*;

/// `cublas?getrfBatched`: each `n × n` matrix of `a` factored in place,
/// `n` pivots per matrix one after another in `ipiv`, an `info` per
/// matrix (device memory).
///
/// # Safety
/// A live handle; `a` a device array of `batch` device pointers to
/// matrices of that shape; `ipiv` and `info` device memory of `n × batch`
/// and `batch` ints.
pub(in crate::backend::nvidia) unsafe fn getrf<T: Element>(
    handle: rocblas_handle,
    n: c_int,
    a: *const *mut T,
    lda: c_int,
    ipiv: *mut c_int,
    info: *mut c_int,
    batch: c_int,
) -> Result<(), rocblas_status> {
    let h = live(handle)?;
    // SAFETY: as the caller guarantees.
    ok(cublas::<T>("getrfBatched"), unsafe { (fns()?.of::<T>().getrf_batched)(h, n, a, lda, ipiv, info, batch) })
}

/// `cublas?getrsBatched` with cuBLAS's operation `trans`: each `B` solved
/// in place with its factors and pivots (`n` per matrix, one after
/// another); `info` is a host int that only argument errors set.
///
/// # Safety
/// A live handle; `a` and `b` device arrays of `batch` device pointers to
/// matrices of those shapes; `ipiv` device memory of `n × batch` ints,
/// each in `1..=n`.
#[allow(clippy::too_many_arguments)]
pub(in crate::backend::nvidia) unsafe fn getrs<T: Element>(
    handle: rocblas_handle,
    trans: c_int,
    n: c_int,
    nrhs: c_int,
    a: *const *const T,
    lda: c_int,
    ipiv: *const c_int,
    b: *const *mut T,
    ldb: c_int,
    batch: c_int,
) -> Result<(), rocblas_status> {
    let h = live(handle)?;
    let mut info: c_int = 0;
    let name = cublas::<T>("getrsBatched");
    // SAFETY: as the caller guarantees; `info` is a host int.
    ok(name, unsafe { (fns()?.of::<T>().getrs_batched)(h, trans, n, nrhs, a, lda, ipiv, b, ldb, &mut info, batch) })?;
    host_info(name, info)
}

/// The host `info` of cuBLAS's batched LU and QR: 0, or the argument it
/// refused, which the rules should have caught.
pub(super) fn host_info(name: Name, info: c_int) -> Result<(), rocblas_status> {
    if info != 0 {
        // The rules checked every argument cuBLAS checks.
        log::error!("amdgpu nvidia rocSOLVER: {name} refused argument {}", -info);
        return Err(rocblas_status::rocblas_status_internal_error);
    }
    Ok(())
}
