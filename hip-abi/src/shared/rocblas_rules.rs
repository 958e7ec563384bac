//! rocBLAS's argument checks, in rocBLAS's order, for every function of
//! [`RocblasApi`](crate::rocblas::RocblasApi): the simulator's rocBLAS and
//! the nvidia backend's mapping onto cuBLAS both run them before any work,
//! so a bad argument gets the status AMD's library gives on every backend
//! (cuBLAS would answer most of them with one `CUBLAS_STATUS_INVALID_VALUE`).
//!
//! Per rocBLAS (2.x to 5.x, `rocblas_*_arg_check` and the level 1 entry
//! points): a null handle is `invalid_handle`; an operation that is not
//! none, transpose or conjugate transpose is `invalid_value`; negative
//! sizes and leading dimensions shorter than the rows they hold are
//! `invalid_size`; an empty problem returns success before any pointer is
//! looked at; then null scalars, and null matrices the computation would
//! read or write, are `invalid_pointer`. With host scalars, `alpha == 0`
//! (or `k == 0`) and `beta == 1` leave C as it is and return early too.

use crate::rocblas::{rocblas_operation, rocblas_status};

type Status = rocblas_status;

/// What a call does after its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Compute.
    Run,
    /// Nothing to compute: return success.
    Done,
}

/// Whether `op` transposes; `invalid_value` for an unknown operation.
pub fn transposes(op: rocblas_operation) -> Result<bool, Status> {
    match op {
        rocblas_operation::rocblas_operation_none => Ok(false),
        rocblas_operation::rocblas_operation_transpose | rocblas_operation::rocblas_operation_conjugate_transpose => {
            Ok(true)
        }
        _ => Err(rocblas_status::rocblas_status_invalid_value),
    }
}

/// The sizes of one GEMM (`C = α op(A) op(B) + β C`, `op(A)` m × k).
#[derive(Debug, Clone, Copy)]
pub struct GemmShape {
    /// `op(A)`.
    pub trans_a: rocblas_operation,
    /// `op(B)`.
    pub trans_b: rocblas_operation,
    /// Rows of `op(A)` and C.
    pub m: i32,
    /// Columns of `op(B)` and C.
    pub n: i32,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: i32,
    /// A's leading dimension.
    pub lda: i32,
    /// B's leading dimension.
    pub ldb: i32,
    /// C's leading dimension.
    pub ldc: i32,
    /// `ldd` of `gemm_ex` (the output D); `ldc` for the plain GEMMs.
    pub ldd: i32,
    /// 1 for the plain GEMMs.
    pub batch: i32,
}

impl GemmShape {
    /// The operations, sizes and leading dimensions (`rocblas_gemm_arg_check`).
    pub fn check(&self) -> Result<Next, Status> {
        let ta = transposes(self.trans_a)?;
        let tb = transposes(self.trans_b)?;
        let a_rows = if ta { self.k } else { self.m };
        let b_rows = if tb { self.n } else { self.k };
        if self.m < 0
            || self.n < 0
            || self.k < 0
            || self.batch < 0
            || self.lda < a_rows
            || self.ldb < b_rows
            || self.ldc < self.m
            || self.ldd < self.m
        {
            return Err(rocblas_status::rocblas_status_invalid_size);
        }
        if self.m == 0 || self.n == 0 || self.batch == 0 {
            return Ok(Next::Done);
        }
        Ok(Next::Run)
    }

    /// The pointers, once the shape passed and the host scalars were read:
    /// `alpha_zero` and `beta_one` are `*alpha == 0` and `*beta == 1`.
    pub fn check_pointers(
        &self,
        alpha_zero: bool,
        beta_one: bool,
        a_null: bool,
        b_null: bool,
        c_null: bool,
    ) -> Result<Next, Status> {
        let products = self.k != 0 && !alpha_zero;
        if !products && beta_one {
            return Ok(Next::Done);
        }
        if c_null || (products && (a_null || b_null)) {
            return Err(rocblas_status::rocblas_status_invalid_pointer);
        }
        Ok(Next::Run)
    }
}

/// `rocblas_gemv_arg_check`: `y = α op(A) x + β y` with A m × n.
pub fn gemv(op: rocblas_operation, m: i32, n: i32, lda: i32, incx: i32, incy: i32) -> Result<Next, Status> {
    transposes(op)?;
    if m < 0 || n < 0 || lda < m || lda < 1 || incx == 0 || incy == 0 {
        return Err(rocblas_status::rocblas_status_invalid_size);
    }
    if m == 0 || n == 0 {
        return Ok(Next::Done);
    }
    Ok(Next::Run)
}

/// The pointers of a GEMV once its scalars were read.
pub fn gemv_pointers(
    alpha_zero: bool,
    beta_one: bool,
    a_null: bool,
    x_null: bool,
    y_null: bool,
) -> Result<Next, Status> {
    if alpha_zero && beta_one {
        return Ok(Next::Done);
    }
    if y_null || (!alpha_zero && (a_null || x_null)) {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    Ok(Next::Run)
}

/// `axpy` (`y += α x`): nothing for `n <= 0`; a null alpha, then (unless
/// `α == 0`) a null x or y, is `invalid_pointer`.
pub fn axpy(n: i32, alpha: Option<bool>, x_null: bool, y_null: bool) -> Result<Next, Status> {
    if n <= 0 {
        return Ok(Next::Done);
    }
    let alpha_zero = alpha.ok_or(rocblas_status::rocblas_status_invalid_pointer)?;
    if alpha_zero {
        return Ok(Next::Done);
    }
    if x_null || y_null {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    Ok(Next::Run)
}

/// `scal` (`x *= α`): nothing for `n <= 0` or `incx <= 0`; a null alpha,
/// then (unless `α == 1`) a null x, is `invalid_pointer`.
pub fn scal(n: i32, incx: i32, alpha: Option<bool>, x_null: bool) -> Result<Next, Status> {
    if n <= 0 || incx <= 0 {
        return Ok(Next::Done);
    }
    let alpha_one = alpha.ok_or(rocblas_status::rocblas_status_invalid_pointer)?;
    if alpha_one {
        return Ok(Next::Done);
    }
    if x_null {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    Ok(Next::Run)
}

/// `dot`: a null result is `invalid_pointer`; `n <= 0` writes 0 and
/// returns ([`Next::Done`], the caller writes the zero); null x or y is
/// `invalid_pointer`.
pub fn dot(n: i32, x_null: bool, y_null: bool, result_null: bool) -> Result<Next, Status> {
    if result_null {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    if n <= 0 {
        return Ok(Next::Done);
    }
    if x_null || y_null {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    Ok(Next::Run)
}

/// `nrm2`: a null result is `invalid_pointer`; `n <= 0` or `incx <= 0`
/// writes 0 ([`Next::Done`]); a null x is `invalid_pointer`.
pub fn nrm2(n: i32, incx: i32, x_null: bool, result_null: bool) -> Result<Next, Status> {
    if result_null {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    if n <= 0 || incx <= 0 {
        return Ok(Next::Done);
    }
    if x_null {
        return Err(rocblas_status::rocblas_status_invalid_pointer);
    }
    Ok(Next::Run)
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: rocblas_operation = rocblas_operation::rocblas_operation_none;
    const T: rocblas_operation = rocblas_operation::rocblas_operation_transpose;
    const SIZE: Status = rocblas_status::rocblas_status_invalid_size;
    const POINTER: Status = rocblas_status::rocblas_status_invalid_pointer;

    fn shape(trans_a: rocblas_operation, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32) -> GemmShape {
        GemmShape { trans_a, trans_b: N, m, n, k, lda, ldb, ldc, ldd: ldc, batch: 1 }
    }

    #[test]
    fn gemm_checks_operations_then_sizes_then_quick_returns() {
        let bad_op = GemmShape { trans_b: rocblas_operation(7), ..shape(N, 2, 2, 2, 2, 2, 2) };
        assert_eq!(bad_op.check(), Err(rocblas_status::rocblas_status_invalid_value));
        assert_eq!(shape(N, 4, 2, 3, 3, 3, 4).check(), Err(SIZE), "lda < m");
        assert_eq!(shape(T, 4, 2, 3, 3, 3, 4).check(), Ok(Next::Run), "transposed A needs lda >= k");
        assert_eq!(shape(T, 4, 2, 5, 4, 5, 4).check(), Err(SIZE), "lda < k");
        assert_eq!(shape(N, 4, 2, 3, 4, 2, 4).check(), Err(SIZE), "ldb < k");
        assert_eq!(shape(N, 4, 2, 3, 4, 3, 3).check(), Err(SIZE), "ldc < m");
        assert_eq!(shape(N, -1, 2, 3, 4, 3, 4).check(), Err(SIZE));
        assert_eq!(shape(N, 0, 2, 3, 4, 3, 4).check(), Ok(Next::Done));
        assert_eq!(GemmShape { batch: 0, ..shape(N, 4, 2, 3, 4, 3, 4) }.check(), Ok(Next::Done));
    }

    #[test]
    fn gemm_pointers_are_checked_only_where_used() {
        let s = shape(N, 4, 2, 3, 4, 3, 4);
        assert_eq!(s.check_pointers(true, true, true, true, true), Ok(Next::Done), "alpha 0, beta 1: C unchanged");
        assert_eq!(s.check_pointers(true, false, true, true, false), Ok(Next::Run), "alpha 0 reads neither A nor B");
        assert_eq!(s.check_pointers(false, false, true, false, false), Err(POINTER));
        assert_eq!(s.check_pointers(false, false, false, false, true), Err(POINTER));
        let k0 = shape(N, 4, 2, 0, 4, 1, 4);
        assert_eq!(k0.check(), Ok(Next::Run), "k = 0 still scales C by beta");
        assert_eq!(k0.check_pointers(false, false, true, true, false), Ok(Next::Run));
    }

    #[test]
    fn level_1_and_2_follow_rocblas() {
        assert_eq!(gemv(N, 3, 2, 2, 1, 1), Err(SIZE), "lda < m");
        assert_eq!(gemv(N, 3, 2, 3, 0, 1), Err(SIZE), "incx 0");
        assert_eq!(gemv(N, 0, 2, 1, 1, 1), Ok(Next::Done));
        assert_eq!(gemv_pointers(false, false, false, false, true), Err(POINTER));
        assert_eq!(axpy(0, None, true, true), Ok(Next::Done), "n = 0 looks at nothing");
        assert_eq!(axpy(3, None, false, false), Err(POINTER));
        assert_eq!(axpy(3, Some(true), true, true), Ok(Next::Done));
        assert_eq!(scal(3, 1, Some(false), true), Err(POINTER));
        assert_eq!(dot(0, true, true, true), Err(POINTER), "the result is checked first");
        assert_eq!(dot(0, true, true, false), Ok(Next::Done));
        assert_eq!(nrm2(3, 0, true, false), Ok(Next::Done));
    }
}
