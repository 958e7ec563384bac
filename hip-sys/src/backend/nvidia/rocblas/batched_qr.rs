//! cuBLAS's batched QR (`geqrfBatched`), for the rocSOLVER mapping's
//! strided batches of small matrices: one launch for the whole batch,
//! where cuSOLVER would take one call per matrix. It takes arrays of
//! device pointers to the matrices and to their Householder scalars (see
//! the rocSOLVER mapping's `pointers`).

use super::*;

/// An element type of cuBLAS's batched QR.
pub(in crate::backend::nvidia) trait BatchedQr: Copy {
    /// `cublas?geqrfBatched`: each `m × n` matrix of `a` factored in place
    /// as `Q R`, its `min(m, n)` scalars where `tau`'s pointer says; the
    /// `info` cuBLAS takes is a host int that only argument errors set.
    ///
    /// # Safety
    /// A live handle; `a` and `tau` device arrays of `batch` device
    /// pointers to matrices of that shape and to `min(m, n)` elements.
    #[allow(clippy::too_many_arguments)]
    unsafe fn geqrf_batched(
        handle: rocblas_handle,
        m: c_int,
        n: c_int,
        a: *const *mut Self,
        lda: c_int,
        tau: *const *mut Self,
        batch: c_int,
    ) -> Result<(), rocblas_status>;
}

macro_rules! batched_qr {
    ($t:ty, $geqrf:ident) => {
        impl BatchedQr for $t {
            unsafe fn geqrf_batched(
                handle: rocblas_handle,
                m: c_int,
                n: c_int,
                a: *const *mut Self,
                lda: c_int,
                tau: *const *mut Self,
                batch: c_int,
            ) -> Result<(), rocblas_status> {
                let h = live(handle)?;
                let mut info: c_int = 0;
                // SAFETY: as the caller guarantees; `info` is a host int.
                ok(stringify!($geqrf), unsafe { (fns()?.$geqrf)(h, m, n, a, lda, tau, &mut info, batch) })?;
                if info != 0 {
                    // The rules checked every argument cuBLAS checks.
                    log::error!("amdgpu nvidia rocSOLVER: {} refused argument {}", stringify!($geqrf), -info);
                    return Err(rocblas_status::rocblas_status_internal_error);
                }
                Ok(())
            }
        }
    };
}

batched_qr!(f32, cublasSgeqrfBatched);
batched_qr!(f64, cublasDgeqrfBatched);
batched_qr!(C32, cublasCgeqrfBatched);
batched_qr!(C64, cublasZgeqrfBatched);
