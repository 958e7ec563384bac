//! cuBLAS's functions of one precision, each C signature declared once
//! over the element type `T` and resolved for `S`, `D`, `C` and `Z`.

use super::*;
use crate::backend::loader::Opened;
use crate::backend::nvidia::precision::{function, Element, Family, Name};

/// A cuBLAS function of one precision: `cublas` + letter + `stem`.
pub(super) fn cublas<T: Element>(stem: &'static str) -> Name {
    Name::of::<T>("cublas", stem)
}

/// The cuBLAS functions of precision `T` that the mappings call
/// (`cublas_api.h`, CUDA 12 and 13). Enums are `int`
/// (`cublasOperation_t`); scalars follow the handle's pointer mode.
pub(in crate::backend::nvidia) struct BlasFns<T: Element> {
    /// `cublas?gemm_v2(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)`
    pub gemm: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const T,
        *const T,
        c_int,
        *const T,
        c_int,
        *const T,
        *mut T,
        c_int,
    ) -> CublasStatus,
    /// `cublas?gemmStridedBatched(handle, transa, transb, m, n, k, alpha, A, lda, long long strideA, B, ldb,
    /// strideB, beta, C, ldc, strideC, batchCount)`
    pub gemm_strided_batched: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const T,
        *const T,
        c_int,
        c_longlong,
        *const T,
        c_int,
        c_longlong,
        *const T,
        *mut T,
        c_int,
        c_longlong,
        c_int,
    ) -> CublasStatus,
    /// `cublas?gemv_v2(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy)`
    pub gemv: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        *const T,
        *const T,
        c_int,
        *const T,
        c_int,
        *const T,
        *mut T,
        c_int,
    ) -> CublasStatus,
    /// `cublas?axpy_v2(handle, n, alpha, x, incx, y, incy)`
    pub axpy: unsafe extern "C" fn(Handle, c_int, *const T, *const T, c_int, *mut T, c_int) -> CublasStatus,
    /// `cublas?scal_v2(handle, n, alpha, x, incx)`
    pub scal: unsafe extern "C" fn(Handle, c_int, *const T, *mut T, c_int) -> CublasStatus,
    /// `cublas?dot_v2` (`?dotu_v2` for complex `T`)`(handle, n, x, incx, y, incy, result)`
    pub dot: Dot<T>,
    /// `cublas?dotc_v2`, for complex `T` only.
    pub dotc: Option<Dot<T>>,
    /// `cublas?nrm2_v2` (`Scnrm2`, `Dznrm2`)`(handle, n, x, incx, Real *result)`
    pub nrm2: unsafe extern "C" fn(Handle, c_int, *const T, c_int, *mut T::Real) -> CublasStatus,
    /// `cublas?geam(handle, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc)`
    pub geam: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        c_int,
        *const T,
        *const T,
        c_int,
        *const T,
        *const T,
        c_int,
        *mut T,
        c_int,
    ) -> CublasStatus,
    /// `cublas?getrfBatched(handle, int n, T *const A[], int lda, int *P, int *info, int batchSize)`
    pub getrf_batched:
        unsafe extern "C" fn(Handle, c_int, *const *mut T, c_int, *mut c_int, *mut c_int, c_int) -> CublasStatus,
    /// `cublas?getrsBatched(handle, cublasOperation_t trans, int n, int nrhs, const T *const A[], int lda,
    /// const int *devIpiv, T *const B[], int ldb, int *info, int batchSize)`, `info` on the host
    pub getrs_batched: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        *const *const T,
        c_int,
        *const c_int,
        *const *mut T,
        c_int,
        *mut c_int,
        c_int,
    ) -> CublasStatus,
    /// `cublas?geqrfBatched(handle, int m, int n, T *const Aarray[], int lda, T *const TauArray[], int *info,
    /// int batchSize)`, `info` on the host
    pub geqrf_batched: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        *const *mut T,
        c_int,
        *const *mut T,
        *mut c_int,
        c_int,
    ) -> CublasStatus,
}

/// `cublas?dot*_v2(handle, n, x, incx, y, incy, result)`.
pub(in crate::backend::nvidia) type Dot<T> =
    unsafe extern "C" fn(Handle, c_int, *const T, c_int, *const T, c_int, *mut T) -> CublasStatus;

/// [`BlasFns`] as a [`Family`]: resolved in every precision.
pub(in crate::backend::nvidia) struct Blas;

impl Family for Blas {
    type Of<T: Element> = BlasFns<T>;

    unsafe fn resolve<T: Element>(library: &Opened) -> Result<BlasFns<T>, BackendError> {
        // SAFETY: cuBLAS exports each name with the signature declared for
        // its field (the caller's guarantee).
        unsafe {
            Ok(BlasFns {
                gemm: function(library, cublas::<T>("gemm_v2"))?,
                gemm_strided_batched: function(library, cublas::<T>("gemmStridedBatched"))?,
                gemv: function(library, cublas::<T>("gemv_v2"))?,
                axpy: function(library, cublas::<T>("axpy_v2"))?,
                scal: function(library, cublas::<T>("scal_v2"))?,
                dot: function(library, cublas::<T>(Name::stem::<T>("dot_v2", "dotu_v2")))?,
                dotc: if T::COMPLEX { Some(function(library, cublas::<T>("dotc_v2"))?) } else { None },
                nrm2: function(library, Name::to_real::<T>("cublas", "nrm2_v2"))?,
                geam: function(library, cublas::<T>("geam"))?,
                getrf_batched: function(library, cublas::<T>("getrfBatched"))?,
                getrs_batched: function(library, cublas::<T>("getrsBatched"))?,
                geqrf_batched: function(library, cublas::<T>("geqrfBatched"))?,
            })
        }
    }
}

/// cuBLAS, loaded: its functions of no precision and its typed ones in
/// each precision.
pub(in crate::backend::nvidia) struct Library {
    pub api: Cublas,
    pub typed: Precisions<Blas>,
}

impl Library {
    /// The functions of precision `T`.
    pub(in crate::backend::nvidia) fn of<T: Element>(&self) -> &BlasFns<T> {
        self.typed.of::<T>()
    }
}

/// An element type of the mappings over cuBLAS: a precision, with the
/// scalars rocBLAS's checks compare against.
pub(in crate::backend::nvidia) trait Scalar: Element {
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Whether it is 0.
    fn is_zero(self) -> bool;
    /// Whether it is 1.
    fn is_one(self) -> bool;
}

impl Scalar for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn is_zero(self) -> bool {
        self == 0.0
    }
    fn is_one(self) -> bool {
        self == 1.0
    }
}

impl Scalar for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn is_zero(self) -> bool {
        self == 0.0
    }
    fn is_one(self) -> bool {
        self == 1.0
    }
}

impl Scalar for C32 {
    const ZERO: C32 = C32 { x: 0.0, y: 0.0 };
    const ONE: C32 = C32 { x: 1.0, y: 0.0 };
    fn is_zero(self) -> bool {
        self.x == 0.0 && self.y == 0.0
    }
    fn is_one(self) -> bool {
        self.x == 1.0 && self.y == 0.0
    }
}

impl Scalar for C64 {
    const ZERO: C64 = C64 { x: 0.0, y: 0.0 };
    const ONE: C64 = C64 { x: 1.0, y: 0.0 };
    fn is_zero(self) -> bool {
        self.x == 0.0 && self.y == 0.0
    }
    fn is_one(self) -> bool {
        self.x == 1.0 && self.y == 0.0
    }
}
