//! rocSOLVER's pointer-array batches (`rocsolver_?getrf_batched`,
//! `getrs`, `potrf`, `potrs`, `geqrf`, `syevd`/`heevd`, `gesvd`): each
//! problem's matrices at the address a device array gives.
//!
//! NVIDIA's batched calls take such arrays themselves: cuBLAS's
//! `getrfBatched` (square, pivots packed `n` apart), `getrsBatched`
//! (pivots packed) and `geqrfBatched` (its scalars' addresses written into
//! the workspace by the `pointers` kernel), cuSOLVER's `potrfBatched` and
//! `potrsBatched` (one right-hand side). Where the shape allows one, a
//! batch runs as that one launch on the caller's array when the strided
//! batches' table (`LU_ONE_LAUNCH` and the others) says it beats one call
//! per problem, and always inside a capture. Otherwise the array is read
//! back to the host once the stream reaches the call (which waits for the
//! stream, and is refused inside a capture with `not_implemented`), and
//! one cuSOLVER call per problem follows, as for a strided batch. The
//! eigensolver and the SVD always take that way, through their strided
//! mapping one problem at a time (they do not capture on this backend).

use std::ffi::{c_int, c_void};

use super::library::{dn_name, entry, ok};
use super::strided::{elements, gesvd_strided_batched, start, syevd_strided_batched};
use super::{
    clear_info, fill, nth, nth_given, one_launch, pointer_bytes, pointers, solver, with_devinfo, with_workspace,
    CHOLESKY_ONE_LAUNCH, LU_ONE_LAUNCH, QR_ONE_LAUNCH,
};
use crate::backend::nvidia::precision::Name;
use crate::backend::nvidia::rocblas::Scalar;
use crate::backend::nvidia::rocblas::{collect, lu, qr, querying};
use crate::rocblas::{rocblas_handle, rocblas_status, rocblas_stride};
use crate::rocsolver::{rocblas_evect, rocblas_fill, rocblas_operation, rocblas_svect, rocblas_workmode};
use crate::shared::rocsolver_rules::{self as rules, Given, Next};

/// Whether a batch whose shape NVIDIA's batched call takes runs as that
/// one launch: where `table` says it is faster, and inside a capture.
fn one_call(table: bool, stream: *mut c_void) -> Result<bool, rocblas_status> {
    Ok(table || pointers::capturing(stream)?)
}

/// cuBLAS's `getrfBatched` on the caller's array (see the module
/// docs), else one cuSOLVER `getrf` per problem.
pub(super) unsafe extern "C" fn getrf_batched<T: Scalar>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *const *mut T,
    lda: c_int,
    ipiv: *mut c_int,
    stride_p: rocblas_stride,
    info: *mut c_int,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (f, dn, stream) = start::<T>(handle)?;
        let query = querying(handle);
        let given = Given { a: !a.is_null(), ipiv: !ipiv.is_null(), info: !info.is_null(), ..Given::default() };
        if rules::getrf(m, n, lda, batch, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { clear_info(info, batch, stream) };
        }
        if m == n && stride_p == i64::from(n) && one_call(one_launch(&LU_ONE_LAUNCH, n, batch), stream)? {
            return with_workspace(handle, stream, query, 0, |_| {
                // SAFETY: `a` holds `batch` pointers to n × n
                // matrices; the pivots (n per problem, contiguous)
                // and info are of the sizes declared (C contract).
                unsafe { lu::getrf(handle, n, a, lda, ipiv, info, batch) }
            });
        }
        let mut lwork: c_int = 0;
        // SAFETY: a live handle, checked sizes and a valid
        // out-pointer; cuSOLVER sizes by the dimensions alone.
        ok(dn_name::<T>("getrf_bufferSize"), unsafe {
            (f.getrf_buffer_size)(dn, m, n, std::ptr::NonNull::dangling().as_ptr(), lda, &mut lwork)
        })?;
        let need = elements::<T>(lwork);
        with_workspace(handle, stream, query, need, |work| {
            // SAFETY: `a` holds `batch` pointers (C contract).
            let [matrices] = unsafe { pointers::read_back(Name::rocsolver::<T>("getrf_batched"), [a], batch, stream) }?;
            for (i, &a) in (0..batch).zip(&matrices) {
                let (ipiv, info) = (nth(ipiv, stride_p, i), nth(info, 1, i));
                // SAFETY: each matrix of the declared shape; `work`
                // holds `lwork` elements, one problem after another.
                ok(dn_name::<T>("getrf"), unsafe { (f.getrf)(dn, m, n, a, lda, work.cast(), ipiv, info) })?;
            }
            Ok(())
        })
    })
}

/// cuBLAS's `getrsBatched` on the caller's arrays (see the module
/// docs), else one cuSOLVER `getrs` per problem.
pub(super) unsafe extern "C" fn getrs_batched<T: Scalar>(
    handle: rocblas_handle,
    trans: rocblas_operation,
    n: c_int,
    nrhs: c_int,
    a: *const *mut T,
    lda: c_int,
    ipiv: *const c_int,
    stride_p: rocblas_stride,
    b: *const *mut T,
    ldb: c_int,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (f, dn, stream) = start::<T>(handle)?;
        let query = querying(handle);
        let given = Given { a: !a.is_null(), ipiv: !ipiv.is_null(), b: !b.is_null(), ..Given::default() };
        if rules::getrs(trans, n, nrhs, lda, ldb, batch, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { Ok(()) };
        }
        let op = rules::operation(trans)? as c_int;
        if stride_p == i64::from(n) && one_call(one_launch(&LU_ONE_LAUNCH, n, batch), stream)? {
            return with_workspace(handle, stream, query, 0, |_| {
                // SAFETY: `a` and `b` hold `batch` pointers to
                // matrices of the declared shapes; the pivots are
                // n per problem, contiguous, from getrf.
                unsafe { lu::getrs(handle, op, n, nrhs, a.cast(), lda, ipiv, b, ldb, batch) }
            });
        }
        // No cuSOLVER workspace: only its devInfo.
        with_devinfo(handle, stream, query, 0, |_, info| {
            // SAFETY: `a` and `b` hold `batch` pointers (C contract).
            let [factors, rhs] =
                unsafe { pointers::read_back(Name::rocsolver::<T>("getrs_batched"), [a, b], batch, stream) }?;
            for (i, (&a, &b)) in (0..batch).zip(factors.iter().zip(&rhs)) {
                let ipiv = nth(ipiv.cast_mut(), stride_p, i);
                // SAFETY: each matrix of the declared shape; `info`
                // is the devInfo int.
                ok(dn_name::<T>("getrs"), unsafe { (f.getrs)(dn, op, n, nrhs, a, lda, ipiv, b, ldb, info) })?;
            }
            Ok(())
        })
    })
}

/// cuSOLVER's `potrfBatched` on the caller's array (see the module
/// docs), else one cuSOLVER `potrf` per problem.
pub(super) unsafe extern "C" fn potrf_batched<T: Scalar>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    a: *const *mut T,
    lda: c_int,
    info: *mut c_int,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (f, dn, stream) = start::<T>(handle)?;
        let query = querying(handle);
        let given = Given { a: !a.is_null(), info: !info.is_null(), ..Given::default() };
        if rules::potrf(uplo, n, lda, batch, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { clear_info(info, batch, stream) };
        }
        let fill = fill(uplo)?;
        if one_call(one_launch(&CHOLESKY_ONE_LAUNCH, n, batch), stream)? {
            return with_workspace(handle, stream, query, 0, |_| {
                // SAFETY: `a` holds `batch` pointers to n × n
                // matrices; info `batch` ints (C contract).
                let status = unsafe { (f.potrf_batched)(dn, fill, n, a, lda, info, batch) };
                ok(dn_name::<T>("potrfBatched"), status)
            });
        }
        let mut lwork: c_int = 0;
        // SAFETY: a live handle, checked sizes and a valid
        // out-pointer; cuSOLVER sizes by the dimensions alone.
        ok(dn_name::<T>("potrf_bufferSize"), unsafe {
            (f.potrf_buffer_size)(dn, fill, n, std::ptr::NonNull::dangling().as_ptr(), lda, &mut lwork)
        })?;
        let need = elements::<T>(lwork);
        with_workspace(handle, stream, query, need, |work| {
            // SAFETY: `a` holds `batch` pointers (C contract).
            let [matrices] = unsafe { pointers::read_back(Name::rocsolver::<T>("potrf_batched"), [a], batch, stream) }?;
            for (i, &a) in (0..batch).zip(&matrices) {
                let info = nth(info, 1, i);
                // SAFETY: each matrix of the declared shape; `work`
                // holds `lwork` elements.
                let status = unsafe { (f.potrf)(dn, fill, n, a, lda, work.cast(), lwork, info) };
                ok(dn_name::<T>("potrf"), status)?;
            }
            Ok(())
        })
    })
}

/// cuSOLVER's `potrsBatched` on the caller's arrays for one
/// right-hand side (see the module docs), else one cuSOLVER
/// `potrs` per problem.
pub(super) unsafe extern "C" fn potrs_batched<T: Scalar>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    nrhs: c_int,
    a: *const *mut T,
    lda: c_int,
    b: *const *mut T,
    ldb: c_int,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (f, dn, stream) = start::<T>(handle)?;
        let query = querying(handle);
        let given = Given { a: !a.is_null(), b: !b.is_null(), ..Given::default() };
        if rules::potrs(uplo, n, nrhs, lda, ldb, batch, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { Ok(()) };
        }
        let fill = fill(uplo)?;
        if nrhs == 1 && one_call(one_launch(&CHOLESKY_ONE_LAUNCH, n, batch), stream)? {
            return with_devinfo(handle, stream, query, 0, |_, info| {
                // SAFETY: `a` and `b` hold `batch` pointers to
                // matrices of the declared shapes; `info` is the
                // devInfo int.
                let status = unsafe { (f.potrs_batched)(dn, fill, n, 1, a, lda, b, ldb, info, batch) };
                ok(dn_name::<T>("potrsBatched"), status)
            });
        }
        with_devinfo(handle, stream, query, 0, |_, info| {
            // SAFETY: `a` and `b` hold `batch` pointers (C contract).
            let [factors, rhs] =
                unsafe { pointers::read_back(Name::rocsolver::<T>("potrs_batched"), [a, b], batch, stream) }?;
            for (&a, &b) in factors.iter().zip(&rhs) {
                // SAFETY: each matrix of the declared shape; `info`
                // is the devInfo int.
                ok(dn_name::<T>("potrs"), unsafe { (f.potrs)(dn, fill, n, nrhs, a, lda, b, ldb, info) })?;
            }
            Ok(())
        })
    })
}

/// cuBLAS's `geqrfBatched` on the caller's array, its scalars'
/// addresses written into the workspace (see the module docs), else
/// one cuSOLVER `geqrf` per problem.
pub(super) unsafe extern "C" fn geqrf_batched<T: Scalar>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *const *mut T,
    lda: c_int,
    tau: *mut T,
    stride_p: rocblas_stride,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (f, dn, stream) = start::<T>(handle)?;
        let query = querying(handle);
        let given = Given { a: !a.is_null(), ipiv: !tau.is_null(), ..Given::default() };
        if rules::geqrf(m, n, lda, batch, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { Ok(()) };
        }
        if one_call(one_launch(&QR_ONE_LAUNCH, m.max(n), batch), stream)? {
            return with_workspace(handle, stream, query, pointer_bytes(batch), |memory| {
                let tau_array = memory.cast::<*mut T>();
                // SAFETY: the workspace holds `batch` pointers; `a`
                // as many to m × n matrices; tau `batch` problems
                // `stride_p` apart (C contract).
                unsafe {
                    pointers::fill(tau_array, tau, stride_p, batch, stream)?;
                    qr::geqrf(handle, m, n, a, lda, tau_array.cast_const(), batch)
                }
            });
        }
        let mut lwork: c_int = 0;
        // SAFETY: a live handle, checked sizes and a valid
        // out-pointer; cuSOLVER sizes by the dimensions alone.
        ok(dn_name::<T>("geqrf_bufferSize"), unsafe {
            (f.geqrf_buffer_size)(dn, m, n, std::ptr::NonNull::dangling().as_ptr(), lda, &mut lwork)
        })?;
        let work = elements::<T>(lwork);
        with_devinfo(handle, stream, query, work, |memory, info| {
            // SAFETY: `a` holds `batch` pointers (C contract).
            let [matrices] = unsafe { pointers::read_back(Name::rocsolver::<T>("geqrf_batched"), [a], batch, stream) }?;
            for (i, &a) in (0..batch).zip(&matrices) {
                let tau = nth(tau, stride_p, i);
                // SAFETY: each matrix of the declared shape;
                // `memory` holds `lwork` elements.
                let status = unsafe { (f.geqrf)(dn, m, n, a, lda, tau, memory.cast(), lwork, info) };
                ok(dn_name::<T>("geqrf"), status)?;
            }
            Ok(())
        })
    })
}

/// A status as a result: success, or the status itself.
fn status(status: rocblas_status) -> Result<(), rocblas_status> {
    if status == rocblas_status::rocblas_status_success {
        Ok(())
    } else {
        Err(status)
    }
}

/// One problem after another through the strided batch's mapping
/// (cuSOLVER has no batched eigensolver for every order), each at
/// the address read back from the array; a size query asks for
/// one problem's need, which every problem reuses.
pub(super) unsafe extern "C" fn syevd_batched<T: Scalar>(
    handle: rocblas_handle,
    evect: rocblas_evect,
    uplo: rocblas_fill,
    n: c_int,
    a: *const *mut T,
    lda: c_int,
    d: *mut T::Real,
    stride_d: rocblas_stride,
    e: *mut T::Real,
    stride_e: rocblas_stride,
    info: *mut c_int,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (_, stream) = solver(handle)?;
        let query = querying(handle);
        let given =
            Given { a: !a.is_null(), d: !d.is_null(), e: !e.is_null(), info: !info.is_null(), ..Given::default() };
        if rules::syevd(evect, uplo, n, lda, batch, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { clear_info(info, batch, stream) };
        }
        if query {
            let a = std::ptr::NonNull::<T>::dangling().as_ptr();
            // SAFETY: a size query reads no memory.
            return status(unsafe { syevd_strided_batched(handle, evect, uplo, n, a, lda, 0, d, 0, e, 0, info, 1) });
        }
        // SAFETY: `a` holds `batch` pointers (C contract).
        let [matrices] = unsafe {
            pointers::read_back(
                Name::rocsolver::<T>(Name::stem::<T>("syevd_batched", "heevd_batched")),
                [a],
                batch,
                stream,
            )
        }?;
        for (i, &a) in (0..batch).zip(&matrices) {
            let (d, e, info) = (nth(d, stride_d, i), nth(e, stride_e, i), nth(info, 1, i));
            // SAFETY: problem i's operands, of the shapes the caller declared.
            status(unsafe { syevd_strided_batched(handle, evect, uplo, n, a, lda, 0, d, 0, e, 0, info, 1) })?;
        }
        Ok(())
    })
}

/// One problem after another through the strided batch's mapping
/// (as [`syevd_batched`]).
pub(super) unsafe extern "C" fn gesvd_batched<T: Scalar>(
    handle: rocblas_handle,
    left: rocblas_svect,
    right: rocblas_svect,
    m: c_int,
    n: c_int,
    a: *const *mut T,
    lda: c_int,
    s: *mut T::Real,
    stride_s: rocblas_stride,
    u: *mut T,
    ldu: c_int,
    stride_u: rocblas_stride,
    v: *mut T,
    ldv: c_int,
    stride_v: rocblas_stride,
    e: *mut T::Real,
    stride_e: rocblas_stride,
    fast_alg: rocblas_workmode,
    info: *mut c_int,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (_, stream) = solver(handle)?;
        let query = querying(handle);
        let given = Given {
            a: !a.is_null(),
            d: !s.is_null(),
            e: !e.is_null(),
            u: !u.is_null(),
            v: !v.is_null(),
            info: !info.is_null(),
            ..Given::default()
        };
        if rules::gesvd(left, right, m, n, lda, ldu, ldv, batch, given, query)? == Next::Done {
            // rocSOLVER returns before anything, info unwritten.
            return if query { Err(collect(handle, 0)) } else { Ok(()) };
        }
        let one = |a: *mut T, i: c_int| {
            let (s, u, v) = (nth(s, stride_s, i), nth_given(u, stride_u, i), nth_given(v, stride_v, i));
            let (e, info) = (nth_given(e, stride_e, i), nth(info, 1, i));
            // SAFETY: problem i's operands, of the shapes the caller
            // declared (or, in a size query, none read).
            status(unsafe {
                gesvd_strided_batched(
                    handle, left, right, m, n, a, lda, 0, s, 0, u, ldu, 0, v, ldv, 0, e, 0, fast_alg, info, 1,
                )
            })
        };
        if query {
            return one(std::ptr::NonNull::dangling().as_ptr(), 0);
        }
        // SAFETY: `a` holds `batch` pointers (C contract).
        let [matrices] = unsafe { pointers::read_back(Name::rocsolver::<T>("gesvd_batched"), [a], batch, stream) }?;
        for (i, &a) in (0..batch).zip(&matrices) {
            one(a, i)?;
        }
        Ok(())
    })
}
