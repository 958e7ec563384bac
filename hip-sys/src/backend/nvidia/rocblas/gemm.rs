//! GEMM, strided batched GEMM and `gemm_ex` over cuBLAS.

use super::*;

/// Run rocBLAS's GEMM checks with scalars of type `S` (host pointer mode;
/// in device pointer mode the scalars are not read and only the shape and
/// null pointers are checked).
///
/// # Safety
/// `alpha` and `beta` are null or valid scalars of `S` in the handle's
/// pointer mode.
unsafe fn gemm_checks<S: Scalar>(
    h: Handle,
    shape: &GemmShape,
    alpha: *const c_void,
    beta: *const c_void,
    [a, b, c]: [bool; 3],
) -> Result<Next, rocblas_status> {
    if shape.check()? == Next::Done {
        return Ok(Next::Done);
    }
    if alpha.is_null() || beta.is_null() {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    let mut mode: c_int = 0;
    // SAFETY: a live handle and a valid out-pointer.
    ok("cublasGetPointerMode_v2", unsafe { (fns()?.api.cublasGetPointerMode)(h, &mut mode) })?;
    let (alpha_zero, beta_one) = if mode == 0 {
        // SAFETY: host scalars of `S` (the caller's guarantee).
        unsafe { (alpha.cast::<S>().read_unaligned().is_zero(), beta.cast::<S>().read_unaligned().is_one()) }
    } else {
        (false, false)
    };
    shape.check_pointers(alpha_zero, beta_one, a, b, c)
}

/// `rocblas_?gemm`: checked as rocBLAS checks, then `cublas?gemm_v2`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn gemm<T: Scalar>(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const T,
    A: *const T,
    lda: rocblas_int,
    B: *const T,
    ldb: rocblas_int,
    beta: *const T,
    C: *mut T,
    ldc: rocblas_int,
) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        let shape = GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd: ldc, batch: 1 };
        let nulls = [A.is_null(), B.is_null(), C.is_null()];
        // SAFETY: scalars as the C contract says.
        if unsafe { gemm_checks::<T>(h, &shape, alpha.cast(), beta.cast(), nulls) }? == Next::Done {
            return Ok(());
        }
        let (ta, tb) = (operation(transA)?, operation(transB)?);
        // SAFETY: checked as rocBLAS checks; the operands are the caller's (C contract).
        ok(cublas::<T>("gemm_v2"), unsafe {
            (fns()?.of::<T>().gemm)(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
        })
    })
}

/// `rocblas_?gemm_strided_batched`: checked as rocBLAS checks, then
/// `cublas?gemmStridedBatched`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn gemm_strided_batched<T: Scalar>(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const T,
    A: *const T,
    lda: rocblas_int,
    stride_a: rocblas_stride,
    B: *const T,
    ldb: rocblas_int,
    stride_b: rocblas_stride,
    beta: *const T,
    C: *mut T,
    ldc: rocblas_int,
    stride_c: rocblas_stride,
    batch_count: rocblas_int,
) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        let shape =
            GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd: ldc, batch: batch_count };
        let nulls = [A.is_null(), B.is_null(), C.is_null()];
        // SAFETY: scalars as the C contract says.
        if unsafe { gemm_checks::<T>(h, &shape, alpha.cast(), beta.cast(), nulls) }? == Next::Done {
            return Ok(());
        }
        let (ta, tb) = (operation(transA)?, operation(transB)?);
        // SAFETY: as above.
        ok(cublas::<T>("gemmStridedBatched"), unsafe {
            (fns()?.of::<T>().gemm_strided_batched)(
                h,
                ta,
                tb,
                m,
                n,
                k,
                alpha,
                A,
                lda,
                stride_a,
                B,
                ldb,
                stride_b,
                beta,
                C,
                ldc,
                stride_c,
                batch_count,
            )
        })
    })
}

/// The checks of a `gemm_ex`: algorithm, D = C, the types, then rocBLAS's
/// rules with scalars of the compute type.
///
/// # Safety
/// As [`gemm_checks`], for the compute type.
unsafe fn gemm_ex_checks(
    h: Handle,
    shape: &GemmShape,
    types: [rocblas_datatype; 5],
    algo: rocblas_gemm_algo,
    alpha: *const c_void,
    beta: *const c_void,
    [a, b, c, d]: [*const c_void; 4],
) -> Result<Option<c_int>, rocblas_status> {
    match algo {
        rocblas_gemm_algo::rocblas_gemm_algo_standard => {}
        rocblas_gemm_algo::rocblas_gemm_algo_solution_index => {
            return Err(rocblas_status::rocblas_status_not_implemented)
        }
        _ => return Err(rocblas_status::rocblas_status_invalid_value),
    }
    let compute = compute_type(types, xf32(h)?)?;
    let nulls = [a.is_null(), b.is_null(), c.is_null() || d.is_null()];
    // SAFETY: the scalars' type follows the compute type (C contract).
    let next = unsafe {
        match types[4] {
            rocblas_datatype::rocblas_datatype_f64_r => gemm_checks::<f64>(h, shape, alpha, beta, nulls),
            rocblas_datatype::rocblas_datatype_f32_c => gemm_checks::<C32>(h, shape, alpha, beta, nulls),
            rocblas_datatype::rocblas_datatype_f64_c => gemm_checks::<C64>(h, shape, alpha, beta, nulls),
            _ => gemm_checks::<f32>(h, shape, alpha, beta, nulls),
        }
    }?;
    if next == Next::Done {
        return Ok(None);
    }
    if c != d {
        return Err(rocblas_status::rocblas_status_not_implemented);
    }
    if shape.ldc != shape.ldd {
        return Err(rocblas_status::rocblas_status_invalid_size);
    }
    Ok(Some(compute))
}

/// `CUBLAS_GEMM_DEFAULT`.
pub(in crate::backend::nvidia) const GEMM_DEFAULT: c_int = -1;

pub(super) unsafe extern "C" fn rocblas_gemm_ex(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: rocblas_datatype,
    lda: rocblas_int,
    b: *const c_void,
    b_type: rocblas_datatype,
    ldb: rocblas_int,
    beta: *const c_void,
    c: *const c_void,
    c_type: rocblas_datatype,
    ldc: rocblas_int,
    d: *mut c_void,
    d_type: rocblas_datatype,
    ldd: rocblas_int,
    compute_type: rocblas_datatype,
    algo: rocblas_gemm_algo,
    _solution_index: i32,
    _flags: u32,
) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        let shape = GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd, batch: 1 };
        let types = [a_type, b_type, c_type, d_type, compute_type];
        // SAFETY: the scalars are of the compute type (C contract).
        let Some(compute) = (unsafe { gemm_ex_checks(h, &shape, types, algo, alpha, beta, [a, b, c, d]) })? else {
            return Ok(());
        };
        let (ta, tb) = (operation(transA)?, operation(transB)?);
        let (at, ct) = (datatype(a_type)?, datatype(c_type)?);
        // SAFETY: checked as rocBLAS checks; D = C, computed in place.
        ok("cublasGemmEx", unsafe {
            (fns()?.api.cublasGemmEx)(
                h,
                ta,
                tb,
                m,
                n,
                k,
                alpha,
                a,
                at,
                lda,
                b,
                at,
                ldb,
                beta,
                d,
                ct,
                ldc,
                compute,
                GEMM_DEFAULT,
            )
        })
    })
}

pub(super) unsafe extern "C" fn rocblas_gemm_strided_batched_ex(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: rocblas_datatype,
    lda: rocblas_int,
    stride_a: rocblas_stride,
    b: *const c_void,
    b_type: rocblas_datatype,
    ldb: rocblas_int,
    stride_b: rocblas_stride,
    beta: *const c_void,
    c: *const c_void,
    c_type: rocblas_datatype,
    ldc: rocblas_int,
    stride_c: rocblas_stride,
    d: *mut c_void,
    d_type: rocblas_datatype,
    ldd: rocblas_int,
    stride_d: rocblas_stride,
    batch_count: rocblas_int,
    compute_type: rocblas_datatype,
    algo: rocblas_gemm_algo,
    _solution_index: i32,
    _flags: u32,
) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        let shape = GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd, batch: batch_count };
        let types = [a_type, b_type, c_type, d_type, compute_type];
        // SAFETY: as above.
        let Some(compute) = (unsafe { gemm_ex_checks(h, &shape, types, algo, alpha, beta, [a, b, c, d]) })? else {
            return Ok(());
        };
        if stride_c != stride_d {
            return Err(rocblas_status::rocblas_status_not_implemented);
        }
        let (ta, tb) = (operation(transA)?, operation(transB)?);
        let (at, ct) = (datatype(a_type)?, datatype(c_type)?);
        // SAFETY: as above.
        ok("cublasGemmStridedBatchedEx", unsafe {
            (fns()?.api.cublasGemmStridedBatchedEx)(
                h,
                ta,
                tb,
                m,
                n,
                k,
                alpha,
                a,
                at,
                lda,
                stride_a,
                b,
                at,
                ldb,
                stride_b,
                beta,
                d,
                ct,
                ldc,
                stride_c,
                batch_count,
                compute,
                GEMM_DEFAULT,
            )
        })
    })
}
