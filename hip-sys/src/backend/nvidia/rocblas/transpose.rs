//! The conjugate transpose of a device matrix on a handle's stream
//! (cuBLAS's `geam`), for mappings that must turn a matrix around:
//! rocSOLVER's SVD of a wide matrix over cuSOLVER's, which takes tall
//! ones only.

use super::*;

/// `dst` (`rows × cols`, leading dimension `ldd`) = `src`ᴴ, `src` being
/// `cols × rows` with `lds`, queued on the handle's stream. The handle's
/// pointer mode is host for the call and restored after it.
///
/// # Safety
/// A live handle; `src` and `dst` device memory of those extents on its
/// device, not overlapping.
pub(in crate::backend::nvidia) unsafe fn conj_transpose<T: Scalar>(
    handle: rocblas_handle,
    rows: c_int,
    cols: c_int,
    src: *const T,
    lds: c_int,
    dst: *mut T,
    ldd: c_int,
) -> Result<(), rocblas_status> {
    let h = live(handle)?;
    let f = fns()?;
    let mut mode: c_int = 0;
    // SAFETY: a live handle and a valid out-pointer.
    ok("cublasGetPointerMode_v2", unsafe { (f.api.cublasGetPointerMode)(h, &mut mode) })?;
    if mode != 0 {
        // SAFETY: a live handle; host mode is 0.
        ok("cublasSetPointerMode_v2", unsafe { (f.api.cublasSetPointerMode)(h, 0) })?;
    }
    // CUBLAS_OP_T 1 for reals, CUBLAS_OP_C 2 for complex.
    let op = if T::COMPLEX { 2 } else { 1 };
    // SAFETY: as the caller guarantees; host scalars in host pointer mode;
    // B is C with β = 0 and no operation, which cuBLAS documents as
    // supported.
    let status = unsafe { (f.of::<T>().geam)(h, op, 0, rows, cols, &T::ONE, src, lds, &T::ZERO, dst, ldd, dst, ldd) };
    let result = ok(cublas::<T>("geam"), status);
    if mode != 0 {
        // SAFETY: a live handle; the mode it had.
        ok("cublasSetPointerMode_v2", unsafe { (f.api.cublasSetPointerMode)(h, mode) })?;
    }
    result
}
