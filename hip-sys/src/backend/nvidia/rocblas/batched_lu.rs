//! cuBLAS's batched LU (`getrfBatched`, `getrsBatched`), for the
//! rocSOLVER mapping's strided batches of small square matrices: one
//! launch for the whole batch, where cuSOLVER would take one call per
//! matrix. Both take arrays of device pointers (see the rocSOLVER
//! mapping's `pointers`).

use super::*;

/// An element type of cuBLAS's batched LU.
pub(in crate::backend::nvidia) trait BatchedLu: Copy {
    /// `cublas?getrfBatched`: each `n × n` matrix of `a` factored in
    /// place, `n` pivots per matrix one after another in `ipiv`, an `info`
    /// per matrix (device memory).
    ///
    /// # Safety
    /// A live handle; `a` a device array of `batch` device pointers to
    /// matrices of that shape; `ipiv` and `info` device memory of
    /// `n × batch` and `batch` ints.
    #[allow(clippy::too_many_arguments)]
    unsafe fn getrf_batched(
        handle: rocblas_handle,
        n: c_int,
        a: *const *mut Self,
        lda: c_int,
        ipiv: *mut c_int,
        info: *mut c_int,
        batch: c_int,
    ) -> Result<(), rocblas_status>;

    /// `cublas?getrsBatched` with cuBLAS's operation `trans`: each `B`
    /// solved in place with its factors and pivots (`n` per matrix, one
    /// after another); `info` is a host int that only argument errors set.
    ///
    /// # Safety
    /// A live handle; `a` and `b` device arrays of `batch` device pointers
    /// to matrices of those shapes; `ipiv` device memory of `n × batch`
    /// ints, each in `1..=n`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn getrs_batched(
        handle: rocblas_handle,
        trans: c_int,
        n: c_int,
        nrhs: c_int,
        a: *const *const Self,
        lda: c_int,
        ipiv: *const c_int,
        b: *const *mut Self,
        ldb: c_int,
        batch: c_int,
    ) -> Result<(), rocblas_status>;
}

macro_rules! batched_lu {
    ($t:ty, $getrf:ident, $getrs:ident) => {
        impl BatchedLu for $t {
            unsafe fn getrf_batched(
                handle: rocblas_handle,
                n: c_int,
                a: *const *mut Self,
                lda: c_int,
                ipiv: *mut c_int,
                info: *mut c_int,
                batch: c_int,
            ) -> Result<(), rocblas_status> {
                let h = live(handle)?;
                // SAFETY: as the caller guarantees.
                ok(stringify!($getrf), unsafe { (fns()?.$getrf)(h, n, a, lda, ipiv, info, batch) })
            }

            unsafe fn getrs_batched(
                handle: rocblas_handle,
                trans: c_int,
                n: c_int,
                nrhs: c_int,
                a: *const *const Self,
                lda: c_int,
                ipiv: *const c_int,
                b: *const *mut Self,
                ldb: c_int,
                batch: c_int,
            ) -> Result<(), rocblas_status> {
                let h = live(handle)?;
                let mut info: c_int = 0;
                // SAFETY: as the caller guarantees; `info` is a host int.
                ok(stringify!($getrs), unsafe {
                    (fns()?.$getrs)(h, trans, n, nrhs, a, lda, ipiv, b, ldb, &mut info, batch)
                })?;
                if info != 0 {
                    // The rules checked every argument cuBLAS checks.
                    log::error!("amdgpu nvidia rocSOLVER: {} refused argument {}", stringify!($getrs), -info);
                    return Err(rocblas_status::rocblas_status_internal_error);
                }
                Ok(())
            }
        }
    };
}

batched_lu!(f32, cublasSgetrfBatched, cublasSgetrsBatched);
batched_lu!(f64, cublasDgetrfBatched, cublasDgetrsBatched);
batched_lu!(C32, cublasCgetrfBatched, cublasCgetrsBatched);
batched_lu!(C64, cublasZgetrfBatched, cublasZgetrsBatched);
