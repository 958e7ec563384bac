//! The element types of the BLAS wrappers and the rocBLAS function of each.
//!
//! Complex numbers are `[re, im]` pairs, as in [`crate::fft`]; their layout
//! is rocBLAS's `rocblas_float_complex` / `rocblas_double_complex`.

use half::{bf16, f16};
use hip_sys::rocblas::{
    rocblas_datatype, rocblas_double_complex, rocblas_float_complex, rocblas_gemm_algo, rocblas_handle,
    rocblas_operation, rocblas_status, RocblasApi,
};
use std::ffi::c_void;

mod sealed {
    pub trait Sealed {}
}

/// One GEMM's arguments as rocBLAS takes them (column-major, checked);
/// not nameable outside the crate.
#[doc(hidden)]
pub struct GemmArgs {
    pub handle: rocblas_handle,
    pub op_a: rocblas_operation,
    pub op_b: rocblas_operation,
    pub m: i32,
    pub n: i32,
    pub k: i32,
    pub a: *const c_void,
    pub lda: i32,
    pub b: *const c_void,
    pub ldb: i32,
    pub c: *mut c_void,
    pub ldc: i32,
    /// Elements between batches of A, B and C; with the batch count.
    pub strides: [i64; 3],
    pub batch: i32,
}

/// An element type GEMM takes: `f32`, `f64`, `[f32; 2]`, `[f64; 2]`,
/// [`half::f16`](struct@half::f16) and [`half::bf16`] (these two computed in f32, with f32 scalars,
/// through `rocblas_gemm_ex`).
pub trait GemmScalar: Copy + Send + Sync + 'static + sealed::Sealed {
    /// The type of α and β.
    type Scalar: Copy + Send + Sync + 'static;
    /// The type's name in messages.
    const NAME: &'static str;
    /// Whether TF32 (XF32) math applies: f32 only.
    const TF32_APPLIES: bool = false;

    /// Run one GEMM (strided batched when `args.batch` is not 1 or any
    /// stride is set).
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract for this type.
    #[doc(hidden)]
    unsafe fn gemm(api: &RocblasApi, args: &GemmArgs, alpha: &Self::Scalar, beta: &Self::Scalar) -> rocblas_status;
}

/// An element type of GEMV and the level 1 functions: `f32`, `f64`,
/// `[f32; 2]`, `[f64; 2]`.
pub trait BlasScalar: GemmScalar<Scalar = Self> + Default {
    /// The real type of norms (`f32` for `[f32; 2]`).
    type Real: Copy + Send + Sync + 'static + Default;

    /// `rocblas_?gemv`.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemv(
        api: &RocblasApi,
        handle: rocblas_handle,
        op: rocblas_operation,
        m: i32,
        n: i32,
        alpha: &Self,
        a: *const c_void,
        lda: i32,
        x: *const c_void,
        beta: &Self,
        y: *mut c_void,
    ) -> rocblas_status;

    /// `rocblas_?axpy` with unit increments.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    unsafe fn axpy(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        alpha: &Self,
        x: *const c_void,
        y: *mut c_void,
    ) -> rocblas_status;

    /// `rocblas_?scal` with a unit increment.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    unsafe fn scal(api: &RocblasApi, handle: rocblas_handle, n: i32, alpha: &Self, x: *mut c_void) -> rocblas_status;

    /// `rocblas_?dot` (`dotu` for complex; `dotc` with `conjugate`), the
    /// result to host memory.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    unsafe fn dot(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        x: *const c_void,
        y: *const c_void,
        conjugate: bool,
        result: &mut Self,
    ) -> rocblas_status;

    /// `rocblas_?nrm2`, the result to host memory.
    ///
    /// # Safety
    /// The arguments satisfy rocBLAS's contract.
    #[doc(hidden)]
    unsafe fn nrm2(
        api: &RocblasApi,
        handle: rocblas_handle,
        n: i32,
        x: *const c_void,
        result: &mut Self::Real,
    ) -> rocblas_status;
}

macro_rules! blas_scalar {
    ($t:ty, $c:ty, $real:ty, $name:literal, $tf32:literal,
     $gemm:ident, $batched:ident, $gemv:ident, $axpy:ident, $scal:ident, $dot:ident, $dotc:ident, $nrm2:ident) => {
        impl sealed::Sealed for $t {}

        impl GemmScalar for $t {
            type Scalar = $t;
            const NAME: &'static str = $name;
            const TF32_APPLIES: bool = $tf32;

            unsafe fn gemm(api: &RocblasApi, g: &GemmArgs, alpha: &$t, beta: &$t) -> rocblas_status {
                let (alpha, beta) = ((alpha as *const $t).cast::<$c>(), (beta as *const $t).cast::<$c>());
                // SAFETY: the caller's guarantee; `$t` and `$c` have one layout.
                unsafe {
                    if g.batch == 1 && g.strides == [0; 3] {
                        (api.$gemm)(
                            g.handle,
                            g.op_a,
                            g.op_b,
                            g.m,
                            g.n,
                            g.k,
                            alpha,
                            g.a.cast(),
                            g.lda,
                            g.b.cast(),
                            g.ldb,
                            beta,
                            g.c.cast(),
                            g.ldc,
                        )
                    } else {
                        (api.$batched)(
                            g.handle,
                            g.op_a,
                            g.op_b,
                            g.m,
                            g.n,
                            g.k,
                            alpha,
                            g.a.cast(),
                            g.lda,
                            g.strides[0],
                            g.b.cast(),
                            g.ldb,
                            g.strides[1],
                            beta,
                            g.c.cast(),
                            g.ldc,
                            g.strides[2],
                            g.batch,
                        )
                    }
                }
            }
        }

        impl BlasScalar for $t {
            type Real = $real;

            unsafe fn gemv(
                api: &RocblasApi,
                handle: rocblas_handle,
                op: rocblas_operation,
                m: i32,
                n: i32,
                alpha: &$t,
                a: *const c_void,
                lda: i32,
                x: *const c_void,
                beta: &$t,
                y: *mut c_void,
            ) -> rocblas_status {
                let (alpha, beta) = ((alpha as *const $t).cast::<$c>(), (beta as *const $t).cast::<$c>());
                // SAFETY: the caller's guarantee.
                unsafe { (api.$gemv)(handle, op, m, n, alpha, a.cast(), lda, x.cast(), 1, beta, y.cast(), 1) }
            }

            unsafe fn axpy(
                api: &RocblasApi,
                handle: rocblas_handle,
                n: i32,
                alpha: &$t,
                x: *const c_void,
                y: *mut c_void,
            ) -> rocblas_status {
                // SAFETY: the caller's guarantee.
                unsafe { (api.$axpy)(handle, n, (alpha as *const $t).cast(), x.cast(), 1, y.cast(), 1) }
            }

            unsafe fn scal(
                api: &RocblasApi,
                handle: rocblas_handle,
                n: i32,
                alpha: &$t,
                x: *mut c_void,
            ) -> rocblas_status {
                // SAFETY: the caller's guarantee.
                unsafe { (api.$scal)(handle, n, (alpha as *const $t).cast(), x.cast(), 1) }
            }

            unsafe fn dot(
                api: &RocblasApi,
                handle: rocblas_handle,
                n: i32,
                x: *const c_void,
                y: *const c_void,
                conjugate: bool,
                result: &mut $t,
            ) -> rocblas_status {
                let f = if conjugate { api.$dotc } else { api.$dot };
                // SAFETY: the caller's guarantee; `result` is host memory of the type.
                unsafe { f(handle, n, x.cast(), 1, y.cast(), 1, (result as *mut $t).cast()) }
            }

            unsafe fn nrm2(
                api: &RocblasApi,
                handle: rocblas_handle,
                n: i32,
                x: *const c_void,
                result: &mut $real,
            ) -> rocblas_status {
                // SAFETY: the caller's guarantee; `result` is host memory.
                unsafe { (api.$nrm2)(handle, n, x.cast(), 1, result) }
            }
        }
    };
}

blas_scalar!(
    f32,
    f32,
    f32,
    "f32",
    true,
    rocblas_sgemm,
    rocblas_sgemm_strided_batched,
    rocblas_sgemv,
    rocblas_saxpy,
    rocblas_sscal,
    rocblas_sdot,
    rocblas_sdot,
    rocblas_snrm2
);
blas_scalar!(
    f64,
    f64,
    f64,
    "f64",
    false,
    rocblas_dgemm,
    rocblas_dgemm_strided_batched,
    rocblas_dgemv,
    rocblas_daxpy,
    rocblas_dscal,
    rocblas_ddot,
    rocblas_ddot,
    rocblas_dnrm2
);
blas_scalar!(
    [f32; 2],
    rocblas_float_complex,
    f32,
    "complex f32",
    false,
    rocblas_cgemm,
    rocblas_cgemm_strided_batched,
    rocblas_cgemv,
    rocblas_caxpy,
    rocblas_cscal,
    rocblas_cdotu,
    rocblas_cdotc,
    rocblas_scnrm2
);
blas_scalar!(
    [f64; 2],
    rocblas_double_complex,
    f64,
    "complex f64",
    false,
    rocblas_zgemm,
    rocblas_zgemm_strided_batched,
    rocblas_zgemv,
    rocblas_zaxpy,
    rocblas_zscal,
    rocblas_zdotu,
    rocblas_zdotc,
    rocblas_dznrm2
);

/// The half types, through `rocblas_gemm_ex` with f32 compute.
macro_rules! half_scalar {
    ($t:ty, $datatype:ident, $name:literal) => {
        impl sealed::Sealed for $t {}

        impl GemmScalar for $t {
            type Scalar = f32;
            const NAME: &'static str = $name;

            unsafe fn gemm(api: &RocblasApi, g: &GemmArgs, alpha: &f32, beta: &f32) -> rocblas_status {
                let t = rocblas_datatype::$datatype;
                let f32t = rocblas_datatype::rocblas_datatype_f32_r;
                let standard = rocblas_gemm_algo::rocblas_gemm_algo_standard;
                let (alpha, beta) = ((alpha as *const f32).cast(), (beta as *const f32).cast());
                // SAFETY: the caller's guarantee; D = C, computed in place.
                unsafe {
                    if g.batch == 1 && g.strides == [0; 3] {
                        (api.rocblas_gemm_ex)(
                            g.handle, g.op_a, g.op_b, g.m, g.n, g.k, alpha, g.a, t, g.lda, g.b, t, g.ldb, beta, g.c, t,
                            g.ldc, g.c, t, g.ldc, f32t, standard, 0, 0,
                        )
                    } else {
                        (api.rocblas_gemm_strided_batched_ex)(
                            g.handle,
                            g.op_a,
                            g.op_b,
                            g.m,
                            g.n,
                            g.k,
                            alpha,
                            g.a,
                            t,
                            g.lda,
                            g.strides[0],
                            g.b,
                            t,
                            g.ldb,
                            g.strides[1],
                            beta,
                            g.c,
                            t,
                            g.ldc,
                            g.strides[2],
                            g.c,
                            t,
                            g.ldc,
                            g.strides[2],
                            g.batch,
                            f32t,
                            standard,
                            0,
                            0,
                        )
                    }
                }
            }
        }
    };
}

half_scalar!(f16, rocblas_datatype_f16_r, "f16");
half_scalar!(bf16, rocblas_datatype_bf16_r, "bf16");
