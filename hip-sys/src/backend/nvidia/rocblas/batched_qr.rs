//! cuBLAS's batched QR (`geqrfBatched`), for the rocSOLVER mapping's
//! strided batches of small matrices: one launch for the whole batch,
//! where cuSOLVER would take one call per matrix. It takes arrays of
//! device pointers to the matrices and to their Householder scalars (see
//! the rocSOLVER mapping's `pointers`).

use super::batched_lu::host_info;
use super::*;

/// `cublas?geqrfBatched`: each `m × n` matrix of `a` factored in place as
/// `Q R`, its `min(m, n)` scalars where `tau`'s pointer says; the `info`
/// cuBLAS takes is a host int that only argument errors set.
///
/// # Safety
/// A live handle; `a` and `tau` device arrays of `batch` device pointers
/// to matrices of that shape and to `min(m, n)` elements.
pub(in crate::backend::nvidia) unsafe fn geqrf<T: Element>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *const *mut T,
    lda: c_int,
    tau: *const *mut T,
    batch: c_int,
) -> Result<(), rocblas_status> {
    let h = live(handle)?;
    let mut info: c_int = 0;
    let name = cublas::<T>("geqrfBatched");
    // SAFETY: as the caller guarantees; `info` is a host int.
    ok(name, unsafe { (fns()?.of::<T>().geqrf_batched)(h, m, n, a, lda, tau, &mut info, batch) })?;
    host_info(name, info)
}
