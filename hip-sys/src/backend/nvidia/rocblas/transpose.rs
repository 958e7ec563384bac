//! The conjugate transpose of a device matrix on a handle's stream
//! (cuBLAS's `geam`), for mappings that must turn a matrix around:
//! rocSOLVER's SVD of a wide matrix over cuSOLVER's, which takes tall
//! ones only.

use super::*;

/// An element type cuBLAS's `geam` transposes.
pub(in crate::backend::nvidia) trait Transposable: Copy {
    /// `C = α op(A) + β B` with `op` the conjugate transpose
    /// (`cublas?geam`).
    ///
    /// # Safety
    /// As `cublas?geam`'s contract.
    #[allow(clippy::too_many_arguments)]
    unsafe fn geam_conj(
        h: Handle,
        rows: c_int,
        cols: c_int,
        a: *const Self,
        lda: c_int,
        c: *mut Self,
        ldc: c_int,
    ) -> Result<(), rocblas_status>;
}

macro_rules! transposable {
    ($t:ty, $one:expr, $zero:expr, $op:expr, $geam:ident) => {
        impl Transposable for $t {
            unsafe fn geam_conj(
                h: Handle,
                rows: c_int,
                cols: c_int,
                a: *const Self,
                lda: c_int,
                c: *mut Self,
                ldc: c_int,
            ) -> Result<(), rocblas_status> {
                let (one, zero): ($t, $t) = ($one, $zero);
                // SAFETY: as the caller guarantees; host scalars in host
                // pointer mode; B is C with β = 0 and no operation, which
                // cuBLAS documents as supported.
                ok(stringify!($geam), unsafe {
                    (fns()?.$geam)(h, $op, 0, rows, cols, &one, a, lda, &zero, c, ldc, c, ldc)
                })
            }
        }
    };
}

// CUBLAS_OP_T 1 for reals, CUBLAS_OP_C 2 for complex.
transposable!(f32, 1.0, 0.0, 1, cublasSgeam);
transposable!(f64, 1.0, 0.0, 1, cublasDgeam);
transposable!(C32, C32 { x: 1.0, y: 0.0 }, C32 { x: 0.0, y: 0.0 }, 2, cublasCgeam);
transposable!(C64, C64 { x: 1.0, y: 0.0 }, C64 { x: 0.0, y: 0.0 }, 2, cublasZgeam);

/// `dst` (`rows × cols`, leading dimension `ldd`) = `src`ᴴ, `src` being
/// `cols × rows` with `lds`, queued on the handle's stream. The handle's
/// pointer mode is host for the call and restored after it.
///
/// # Safety
/// A live handle; `src` and `dst` device memory of those extents on its
/// device, not overlapping.
pub(in crate::backend::nvidia) unsafe fn conj_transpose<T: Transposable>(
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
    ok("cublasGetPointerMode_v2", unsafe { (f.cublasGetPointerMode)(h, &mut mode) })?;
    if mode != 0 {
        // SAFETY: a live handle; host mode is 0.
        ok("cublasSetPointerMode_v2", unsafe { (f.cublasSetPointerMode)(h, 0) })?;
    }
    // SAFETY: as the caller guarantees.
    let result = unsafe { T::geam_conj(h, rows, cols, src, lds, dst, ldd) };
    if mode != 0 {
        // SAFETY: a live handle; the mode it had.
        ok("cublasSetPointerMode_v2", unsafe { (f.cublasSetPointerMode)(h, mode) })?;
    }
    result
}
