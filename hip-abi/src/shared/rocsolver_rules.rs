//! rocSOLVER's argument checks, in rocSOLVER's order, for the functions of
//! [`RocsolverApi`](crate::rocsolver::RocsolverApi): the simulator and the
//! nvidia backend's mapping onto cuSOLVER both run them before any work, so
//! a bad argument gets the status AMD's library gives on every backend
//! (cuSOLVER answers most of them with `CUSOLVER_STATUS_INVALID_VALUE`,
//! and takes `lda = 0` for an empty matrix as an error where rocSOLVER
//! does not).
//!
//! Per rocSOLVER 3.x (`rocsolver_*_argCheck`): a null handle is
//! `invalid_handle`; an operation or fill that is not one the function
//! takes is `invalid_value`; negative sizes and leading dimensions shorter
//! than the rows they hold are `invalid_size`; during a device memory size
//! query the pointers are not looked at; then a null matrix, pivot or
//! `info` the call would use is `invalid_pointer`. An empty problem then
//! returns success: a factorization still sets `info` to 0.

use crate::rocblas::{rocblas_operation, rocblas_status};
use crate::rocsolver::{rocblas_evect, rocblas_fill, rocblas_svect};

type Status = rocblas_status;

/// What a call does after its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Compute.
    Run,
    /// Nothing to compute: return success (a factorization sets `info` to 0).
    Done,
}

const INVALID_VALUE: Status = rocblas_status::rocblas_status_invalid_value;
const INVALID_SIZE: Status = rocblas_status::rocblas_status_invalid_size;
const INVALID_POINTER: Status = rocblas_status::rocblas_status_invalid_pointer;

/// Whether each pointer of a call is non-null (`d` and `e`: the
/// eigensolver's eigenvalues and its off-diagonal scratch, or the SVD's
/// singular values and its bidiagonal scratch; `u` and `v`: the SVD's
/// singular vectors).
#[derive(Debug, Clone, Copy, Default)]
pub struct Given {
    /// The matrix (or its pointer array).
    pub a: bool,
    /// The pivots.
    pub ipiv: bool,
    /// The right-hand sides.
    pub b: bool,
    /// The info values.
    pub info: bool,
    /// The eigenvalues or singular values.
    pub d: bool,
    /// The off-diagonal or bidiagonal scratch.
    pub e: bool,
    /// The SVD's left singular vectors.
    pub u: bool,
    /// The SVD's right singular vectors.
    pub v: bool,
}

/// Whether `uplo` names the upper triangle; `invalid_value` unless it is
/// upper or lower (`rocblas_fill_full` too).
pub fn upper(uplo: rocblas_fill) -> Result<bool, Status> {
    match uplo {
        rocblas_fill::rocblas_fill_upper => Ok(true),
        rocblas_fill::rocblas_fill_lower => Ok(false),
        _ => Err(INVALID_VALUE),
    }
}

/// Which operation `trans` is (0 none, 1 transpose, 2 conjugate
/// transpose); `invalid_value` for any other.
pub fn operation(trans: rocblas_operation) -> Result<u8, Status> {
    match trans {
        rocblas_operation::rocblas_operation_none => Ok(0),
        rocblas_operation::rocblas_operation_transpose => Ok(1),
        rocblas_operation::rocblas_operation_conjugate_transpose => Ok(2),
        _ => Err(INVALID_VALUE),
    }
}

/// `getrf`: `batch` problems (1 for the plain call) of `m × n` A with
/// `lda`, pivots and `info` (`rocsolver_getf2_getrf_argCheck`).
pub fn getrf(m: i32, n: i32, lda: i32, batch: i32, given: Given, querying: bool) -> Result<Next, Status> {
    if m < 0 || n < 0 || lda < m || batch < 0 {
        return Err(INVALID_SIZE);
    }
    if !querying && ((m != 0 && n != 0 && (!given.a || !given.ipiv)) || (batch != 0 && !given.info)) {
        return Err(INVALID_POINTER);
    }
    Ok(if batch == 0 || m == 0 || n == 0 { Next::Done } else { Next::Run })
}

/// `getrs`: `batch` solves with the `n × n` factors in A with `lda`, the
/// pivots, and `n × nrhs` B with `ldb` (`rocsolver_getrs_argCheck`). No
/// `info`; the pointers are checked even for an empty batch.
#[allow(clippy::too_many_arguments)]
pub fn getrs(
    trans: rocblas_operation,
    n: i32,
    nrhs: i32,
    lda: i32,
    ldb: i32,
    batch: i32,
    given: Given,
    querying: bool,
) -> Result<Next, Status> {
    operation(trans)?;
    if n < 0 || nrhs < 0 || lda < n || ldb < n || batch < 0 {
        return Err(INVALID_SIZE);
    }
    if !querying && ((n != 0 && (!given.a || !given.ipiv)) || (n != 0 && nrhs != 0 && !given.b)) {
        return Err(INVALID_POINTER);
    }
    Ok(if batch == 0 || n == 0 || nrhs == 0 { Next::Done } else { Next::Run })
}

/// `potrf`: `batch` problems of `n × n` A with `lda` and `info`
/// (`rocsolver_potf2_potrf_argCheck`).
pub fn potrf(uplo: rocblas_fill, n: i32, lda: i32, batch: i32, given: Given, querying: bool) -> Result<Next, Status> {
    upper(uplo)?;
    if n < 0 || lda < n || batch < 0 {
        return Err(INVALID_SIZE);
    }
    if !querying && ((n != 0 && !given.a) || (batch != 0 && !given.info)) {
        return Err(INVALID_POINTER);
    }
    Ok(if batch == 0 || n == 0 { Next::Done } else { Next::Run })
}

/// `potrs`: `batch` solves with the Cholesky factor in A with `lda` and
/// `n × nrhs` B with `ldb` (`rocsolver_potrs_argCheck`). No `info`.
#[allow(clippy::too_many_arguments)]
pub fn potrs(
    uplo: rocblas_fill,
    n: i32,
    nrhs: i32,
    lda: i32,
    ldb: i32,
    batch: i32,
    given: Given,
    querying: bool,
) -> Result<Next, Status> {
    upper(uplo)?;
    if n < 0 || nrhs < 0 || lda < n || ldb < n || batch < 0 {
        return Err(INVALID_SIZE);
    }
    if !querying && ((n != 0 && !given.a) || (n != 0 && nrhs != 0 && !given.b)) {
        return Err(INVALID_POINTER);
    }
    Ok(if batch == 0 || n == 0 || nrhs == 0 { Next::Done } else { Next::Run })
}

/// Whether `evect` asks for the eigenvectors; `invalid_value` unless it is
/// `original` or `none` (`tridiagonal` is not supported by the eigensolvers).
pub fn vectors(evect: rocblas_evect) -> Result<bool, Status> {
    match evect {
        rocblas_evect::rocblas_evect_original => Ok(true),
        rocblas_evect::rocblas_evect_none => Ok(false),
        _ => Err(INVALID_VALUE),
    }
}

/// `syevd` / `heevd`: `batch` problems of the `n × n` A with `lda`, the
/// eigenvalues D, the scratch E and `info`
/// (`rocsolver_syev_heev_argCheck`, shared by the strided batch, which
/// checks no stride).
#[allow(clippy::too_many_arguments)]
pub fn syevd(
    evect: rocblas_evect,
    uplo: rocblas_fill,
    n: i32,
    lda: i32,
    batch: i32,
    given: Given,
    querying: bool,
) -> Result<Next, Status> {
    vectors(evect)?;
    upper(uplo)?;
    if n < 0 || lda < n || batch < 0 {
        return Err(INVALID_SIZE);
    }
    if !querying && ((n != 0 && (!given.a || !given.d || !given.e)) || (batch != 0 && !given.info)) {
        return Err(INVALID_POINTER);
    }
    Ok(if batch == 0 || n == 0 { Next::Done } else { Next::Run })
}

/// `geqrf`: `batch` problems of the `m × n` A with `lda` and its
/// `min(m, n)` Householder scalars (`rocsolver_geqr2_geqrf_argCheck`). No
/// `info`.
pub fn geqrf(m: i32, n: i32, lda: i32, batch: i32, given: Given, querying: bool) -> Result<Next, Status> {
    if m < 0 || n < 0 || lda < m || batch < 0 {
        return Err(INVALID_SIZE);
    }
    if !querying && m != 0 && n != 0 && (!given.a || !given.ipiv) {
        return Err(INVALID_POINTER);
    }
    Ok(if batch == 0 || m == 0 || n == 0 { Next::Done } else { Next::Run })
}

/// `orgqr` / `ungqr`: the first `n` columns of Q (`m × n`, `n ≤ m`) from
/// `k ≤ n` reflectors in A with `lda` and their scalars
/// (`rocsolver_org2r_orgqr_argCheck`).
pub fn orgqr(m: i32, n: i32, k: i32, lda: i32, given: Given, querying: bool) -> Result<Next, Status> {
    if m < 0 || n < 0 || n > m || k < 0 || k > n || lda < m {
        return Err(INVALID_SIZE);
    }
    if !querying && ((m != 0 && n != 0 && !given.a) || (k != 0 && !given.ipiv)) {
        return Err(INVALID_POINTER);
    }
    Ok(if n == 0 { Next::Done } else { Next::Run })
}

/// Which singular vectors `gesvd` computes on one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Svect {
    /// All `m` (left) or `n` (right) of them, into U or V.
    All,
    /// The first `min(m, n)`, into U or V.
    Singular,
    /// The first `min(m, n)`, over A.
    Overwrite,
    /// None.
    None,
}

/// Which singular vectors `svect` asks for; `invalid_value` for any value
/// that is not one of rocSOLVER's four.
pub fn svect(svect: rocblas_svect) -> Result<Svect, Status> {
    match svect {
        rocblas_svect::rocblas_svect_all => Ok(Svect::All),
        rocblas_svect::rocblas_svect_singular => Ok(Svect::Singular),
        rocblas_svect::rocblas_svect_overwrite => Ok(Svect::Overwrite),
        rocblas_svect::rocblas_svect_none => Ok(Svect::None),
        _ => Err(INVALID_VALUE),
    }
}

/// `gesvd`: `batch` problems of the `m × n` A with `lda`, the singular
/// values S (`d`), U with `ldu`, Vᴴ with `ldv`, the bidiagonal's scratch E
/// and `info` (`rocsolver_gesvd_argCheck`, shared by the strided batch,
/// which checks no stride). Both sides overwriting A is `invalid_value`;
/// `ldu` and `ldv` must be at least 1 even when unused. An empty problem
/// or batch returns success with `info` not written.
#[allow(clippy::too_many_arguments)]
pub fn gesvd(
    left: rocblas_svect,
    right: rocblas_svect,
    m: i32,
    n: i32,
    lda: i32,
    ldu: i32,
    ldv: i32,
    batch: i32,
    given: Given,
    querying: bool,
) -> Result<Next, Status> {
    let (left, right) = (svect(left)?, svect(right)?);
    if left == Svect::Overwrite && right == Svect::Overwrite {
        return Err(INVALID_VALUE);
    }
    let k = m.min(n);
    if n < 0 || m < 0 || lda < m || ldu < 1 || ldv < 1 || batch < 0 {
        return Err(INVALID_SIZE);
    }
    if matches!(left, Svect::All | Svect::Singular) && ldu < m {
        return Err(INVALID_SIZE);
    }
    if (right == Svect::All && ldv < n) || (right == Svect::Singular && ldv < k) {
        return Err(INVALID_SIZE);
    }
    if !querying {
        let (m, n) = (m as i64, n as i64);
        let k = k as i64;
        if (m * n != 0 && !given.a) || (k > 1 && !given.e) || (k != 0 && !given.d) || (batch != 0 && !given.info) {
            return Err(INVALID_POINTER);
        }
        if (left == Svect::All && m != 0 && !given.u) || (left == Svect::Singular && k != 0 && !given.u) {
            return Err(INVALID_POINTER);
        }
        if matches!(right, Svect::All | Svect::Singular) && n != 0 && !given.v {
            return Err(INVALID_POINTER);
        }
    }
    Ok(if batch == 0 || m == 0 || n == 0 { Next::Done } else { Next::Run })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Given = Given { a: true, ipiv: true, b: true, info: true, d: true, e: true, u: true, v: true };

    #[test]
    fn sizes_come_before_pointers_and_empty_problems_return() {
        assert_eq!(getrf(-1, 2, 2, 1, Given::default(), false), Err(INVALID_SIZE), "size first");
        assert_eq!(getrf(4, 2, 3, 1, ALL, false), Err(INVALID_SIZE), "lda < m");
        assert_eq!(getrf(4, 4, 4, 1, Given { ipiv: false, ..ALL }, false), Err(INVALID_POINTER));
        assert_eq!(getrf(4, 4, 4, 1, Given::default(), true), Ok(Next::Run), "a query skips pointers");
        assert_eq!(getrf(0, 4, 1, 1, Given { info: true, ..Given::default() }, false), Ok(Next::Done));
        assert_eq!(getrf(0, 4, 1, 1, Given::default(), false), Err(INVALID_POINTER), "info is always written");
        let none = rocblas_operation::rocblas_operation_none;
        assert_eq!(getrs(rocblas_operation(7), 2, 1, 2, 2, 1, ALL, false), Err(INVALID_VALUE), "value first");
        assert_eq!(getrs(none, 3, 1, 3, 2, 1, ALL, false), Err(INVALID_SIZE), "ldb < n");
        assert_eq!(getrs(none, 3, 0, 3, 3, 1, Given { b: false, ..ALL }, false), Ok(Next::Done));
        let lower = rocblas_fill::rocblas_fill_lower;
        assert_eq!(potrf(rocblas_fill::rocblas_fill_full, 2, 2, 1, ALL, false), Err(INVALID_VALUE));
        assert_eq!(potrf(lower, 3, 2, 1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(potrs(lower, 2, 2, 2, 2, 1, Given { b: false, ..ALL }, false), Err(INVALID_POINTER));
        assert_eq!(potrs(lower, 2, 2, 2, 2, 1, ALL, false), Ok(Next::Run));
        let original = rocblas_evect::rocblas_evect_original;
        let tridiagonal = rocblas_evect::rocblas_evect_tridiagonal;
        assert_eq!(syevd(tridiagonal, lower, 2, 2, 1, ALL, false), Err(INVALID_VALUE), "not supported");
        assert_eq!(syevd(original, lower, 2, 1, 1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(syevd(original, lower, 2, 2, 1, Given { e: false, ..ALL }, false), Err(INVALID_POINTER));
        assert_eq!(syevd(original, lower, 0, 0, 1, Given { info: true, ..Given::default() }, false), Ok(Next::Done));
        assert_eq!(geqrf(3, 2, 2, 1, ALL, false), Err(INVALID_SIZE), "lda < m");
        assert_eq!(geqrf(3, 2, 3, 1, Given { ipiv: false, ..ALL }, false), Err(INVALID_POINTER));
        assert_eq!(geqrf(0, 2, 0, 1, Given::default(), false), Ok(Next::Done));
        assert_eq!(orgqr(3, 4, 2, 3, ALL, false), Err(INVALID_SIZE), "n > m");
        assert_eq!(orgqr(4, 3, 4, 4, ALL, false), Err(INVALID_SIZE), "k > n");
        assert_eq!(orgqr(4, 3, 0, 4, Given { ipiv: false, ..ALL }, false), Ok(Next::Run), "no reflector, no scalar");
    }

    #[test]
    fn a_batch_count_is_a_size_and_an_empty_batch_needs_no_info() {
        let (lower, none) = (rocblas_fill::rocblas_fill_lower, rocblas_operation::rocblas_operation_none);
        let no_info = Given { info: false, ..ALL };
        assert_eq!(getrf(2, 2, 2, -1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(getrf(2, 2, 2, 0, no_info, false), Ok(Next::Done), "info is read only for instances");
        assert_eq!(getrf(2, 2, 2, 3, no_info, false), Err(INVALID_POINTER));
        assert_eq!(getrf(2, 2, 2, 0, Given { a: false, ..ALL }, false), Err(INVALID_POINTER), "A still checked");
        assert_eq!(potrf(lower, 2, 2, -1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(potrf(lower, 2, 2, 0, no_info, false), Ok(Next::Done));
        assert_eq!(potrf(lower, 2, 2, 2, no_info, false), Err(INVALID_POINTER));
        assert_eq!(getrs(none, 2, 1, 2, 2, -1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(getrs(none, 2, 1, 2, 2, 0, Given { b: false, ..ALL }, false), Err(INVALID_POINTER));
        assert_eq!(getrs(none, 2, 1, 2, 2, 0, ALL, false), Ok(Next::Done));
        assert_eq!(potrs(lower, 2, 1, 2, 2, -1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(potrs(lower, 2, 1, 2, 2, 0, ALL, false), Ok(Next::Done));
        assert_eq!(geqrf(2, 2, 2, -1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(geqrf(2, 2, 2, 0, ALL, false), Ok(Next::Done));
        assert_eq!(geqrf(2, 2, 2, 4, ALL, false), Ok(Next::Run));
        let original = rocblas_evect::rocblas_evect_original;
        assert_eq!(syevd(original, lower, 2, 2, -1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(syevd(original, lower, 2, 2, 0, no_info, false), Ok(Next::Done));
        assert_eq!(syevd(original, lower, 2, 2, 3, no_info, false), Err(INVALID_POINTER));
        assert_eq!(syevd(original, lower, 2, 2, 0, Given { d: false, ..ALL }, false), Err(INVALID_POINTER));
    }

    #[test]
    fn gesvd_checks_values_then_sizes_then_pointers() {
        let (all, singular) = (rocblas_svect::rocblas_svect_all, rocblas_svect::rocblas_svect_singular);
        let (over, none) = (rocblas_svect::rocblas_svect_overwrite, rocblas_svect::rocblas_svect_none);
        assert_eq!(gesvd(over, over, 4, 3, 4, 4, 3, 1, ALL, false), Err(INVALID_VALUE), "both over A");
        assert_eq!(gesvd(rocblas_svect(7), none, -1, 3, 4, 4, 3, 1, ALL, false), Err(INVALID_VALUE), "value first");
        assert_eq!(gesvd(none, none, 4, 3, 4, 0, 1, 1, ALL, false), Err(INVALID_SIZE), "ldu ≥ 1 even unused");
        assert_eq!(gesvd(singular, none, 4, 3, 4, 3, 1, 1, ALL, false), Err(INVALID_SIZE), "ldu < m");
        assert_eq!(gesvd(none, all, 4, 3, 4, 1, 2, 1, ALL, false), Err(INVALID_SIZE), "ldv < n for all");
        assert_eq!(gesvd(none, singular, 3, 4, 3, 1, 3, 1, ALL, false), Ok(Next::Run), "ldv ≥ min(m, n) for thin");
        assert_eq!(gesvd(none, singular, 3, 4, 3, 1, 2, 1, ALL, false), Err(INVALID_SIZE));
        assert_eq!(gesvd(all, all, 4, 3, 4, 4, 3, 1, Given::default(), true), Ok(Next::Run), "a query skips pointers");
        assert_eq!(gesvd(none, none, 4, 3, 4, 1, 1, 1, Given { e: false, ..ALL }, false), Err(INVALID_POINTER));
        assert_eq!(gesvd(none, none, 4, 1, 4, 1, 1, 1, Given { e: false, ..ALL }, false), Ok(Next::Run), "E for k > 1");
        assert_eq!(gesvd(all, none, 4, 3, 4, 4, 1, 1, Given { u: false, ..ALL }, false), Err(INVALID_POINTER));
        assert_eq!(gesvd(over, none, 4, 3, 4, 1, 1, 1, Given { u: false, ..ALL }, false), Ok(Next::Run));
        assert_eq!(gesvd(none, singular, 4, 3, 4, 1, 3, 1, Given { v: false, ..ALL }, false), Err(INVALID_POINTER));
        let (info, v) = (true, true);
        assert_eq!(gesvd(all, all, 0, 3, 1, 1, 3, 1, Given { info, v, ..Given::default() }, false), Ok(Next::Done));
        assert_eq!(gesvd(all, all, 0, 3, 1, 1, 3, 1, Given { info, ..Given::default() }, false), Err(INVALID_POINTER));
        assert_eq!(gesvd(all, all, 0, 3, 1, 1, 3, 1, Given::default(), false), Err(INVALID_POINTER), "info always");
        assert_eq!(gesvd(none, none, 4, 3, 4, 1, 1, -1, ALL, false), Err(INVALID_SIZE), "a negative count");
        let no_info = Given { info: false, ..ALL };
        assert_eq!(gesvd(none, none, 4, 3, 4, 1, 1, 0, no_info, false), Ok(Next::Done), "no problem, no info");
        assert_eq!(gesvd(none, none, 4, 3, 4, 1, 1, 2, no_info, false), Err(INVALID_POINTER));
    }
}
