//! rocSOLVER's plain functions and strided batches (`rocsolver_?getrf`,
//! `?getrf_strided_batched`, …) over cuSOLVER, each written once over its
//! precision: a strided batch runs as NVIDIA's batched launch where the
//! tables of the parent module say so, else as one cuSOLVER call per
//! problem on the stream; a plain function is a batch of one.

use std::ffi::{c_int, c_schar, c_void};

use super::library::{dn_name, entry, fns, ok, DenseFns};
use super::{
    clear_info, fill, nth, nth_given, one_launch, pointer_bytes, pointers, solver, with_devinfo, with_workspace,
    CHOLESKY_ONE_LAUNCH, LU_ONE_LAUNCH, QR_ONE_LAUNCH,
};
use crate::backend::nvidia::precision::Name;
use crate::backend::nvidia::rocblas::{collect, conj_transpose, lu, qr, querying, Scalar};
use crate::backend::nvidia::Handle;
use crate::rocblas::{rocblas_handle, rocblas_status, rocblas_stride};
use crate::rocsolver::{rocblas_evect, rocblas_fill, rocblas_operation, rocblas_svect, rocblas_workmode};
use crate::shared::rocsolver_rules::{self as rules, Given, Next, Svect};

/// cuSOLVER's job letter for one side's singular vectors.
fn job(side: Svect) -> c_schar {
    (match side {
        Svect::All => b'A',
        Svect::Singular => b'S',
        Svect::Overwrite => b'O',
        Svect::None => b'N',
    }) as c_schar
}

/// Whether a side's vectors go to their own matrix (U or V).
fn own_matrix(side: Svect) -> bool {
    matches!(side, Svect::All | Svect::Singular)
}

/// Carve the pieces of `sizes` bytes out of `base`, each at a 256-byte
/// boundary; and the bytes they take in all.
fn carve<const N: usize>(base: *mut c_void, sizes: [usize; N]) -> ([*mut c_void; N], usize) {
    let mut at = 0usize;
    let mut out = [std::ptr::null_mut(); N];
    for (ptr, size) in out.iter_mut().zip(sizes) {
        // `wrapping_add`: during a size query the base is null and only
        // the total is used.
        *ptr = base.cast::<u8>().wrapping_add(at).cast();
        at += size.div_ceil(256) * 256;
    }
    (out, at)
}

/// The functions of precision `T`, and the cuSOLVER handle and stream of
/// `handle`: what every call starts with.
pub(super) fn start<T: Scalar>(
    handle: rocblas_handle,
) -> Result<(&'static DenseFns<T>, Handle, *mut c_void), rocblas_status> {
    let f = fns()?.dense.of::<T>();
    let (dn, stream) = solver(handle)?;
    Ok((f, dn, stream))
}

/// The bytes of `lwork` elements of `T`, as cuSOLVER's size queries count.
pub(super) fn elements<T>(lwork: c_int) -> usize {
    lwork.max(0) as usize * std::mem::size_of::<T>()
}

/// `rocsolver_?getrf`: one problem.
pub(super) unsafe extern "C" fn getrf<T: Scalar>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    ipiv: *mut c_int,
    info: *mut c_int,
) -> rocblas_status {
    // SAFETY: one problem, as the caller passed it.
    unsafe { getrf_strided_batched(handle, m, n, a, lda, 0, ipiv, 0, info, 1) }
}

/// `rocsolver_?getrf_strided_batched`: cuBLAS's `getrfBatched` where
/// [`LU_ONE_LAUNCH`] says it is faster (square, pivots packed), else one
/// cuSOLVER `getrf` per problem, in order on the stream, all through one
/// workspace.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn getrf_strided_batched<T: Scalar>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    stride_a: rocblas_stride,
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
        if m == n && stride_p == i64::from(n) && one_launch(&LU_ONE_LAUNCH, n, batch) {
            // cuBLAS's batched LU: the matrices' addresses in the workspace.
            return with_workspace(handle, stream, query, pointer_bytes(batch), |memory| {
                let array = memory.cast::<*mut T>();
                // SAFETY: the workspace holds `batch` pointers; A, the
                // pivots (n per problem, contiguous) and info are of the
                // sizes and strides the caller declared.
                unsafe {
                    pointers::fill(array, a, stride_a, batch, stream)?;
                    lu::getrf(handle, n, array, lda, ipiv, info, batch)
                }
            });
        }
        let mut lwork: c_int = 0;
        // SAFETY: a live handle, checked sizes and a valid out-pointer.
        ok(dn_name::<T>("getrf_bufferSize"), unsafe { (f.getrf_buffer_size)(dn, m, n, a, lda, &mut lwork) })?;
        with_workspace(handle, stream, query, elements::<T>(lwork), |work| {
            for i in 0..batch {
                let (a, ipiv, info) = (nth(a, stride_a, i), nth(ipiv, stride_p, i), nth(info, 1, i));
                // SAFETY: operands checked by the rules, of the sizes and
                // strides the caller declared (C contract); `work` holds
                // `lwork` elements, used by one problem after another.
                ok(dn_name::<T>("getrf"), unsafe { (f.getrf)(dn, m, n, a, lda, work.cast(), ipiv, info) })?;
            }
            Ok(())
        })
    })
}

/// `rocsolver_?getrs`: one problem.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn getrs<T: Scalar>(
    handle: rocblas_handle,
    trans: rocblas_operation,
    n: c_int,
    nrhs: c_int,
    a: *mut T,
    lda: c_int,
    ipiv: *const c_int,
    b: *mut T,
    ldb: c_int,
) -> rocblas_status {
    // SAFETY: one problem, as the caller passed it.
    unsafe { getrs_strided_batched(handle, trans, n, nrhs, a, lda, 0, ipiv, 0, b, ldb, 0, 1) }
}

/// `rocsolver_?getrs_strided_batched`: cuBLAS's `getrsBatched` where
/// [`LU_ONE_LAUNCH`] says it is faster (pivots packed), else one cuSOLVER
/// `getrs` per problem, in order on the stream.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn getrs_strided_batched<T: Scalar>(
    handle: rocblas_handle,
    trans: rocblas_operation,
    n: c_int,
    nrhs: c_int,
    a: *mut T,
    lda: c_int,
    stride_a: rocblas_stride,
    ipiv: *const c_int,
    stride_p: rocblas_stride,
    b: *mut T,
    ldb: c_int,
    stride_b: rocblas_stride,
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
        if stride_p == i64::from(n) && one_launch(&LU_ONE_LAUNCH, n, batch) {
            // cuBLAS's batched solve: A's and B's addresses in the workspace.
            let (_, need) = carve(std::ptr::null_mut(), [pointer_bytes(batch); 2]);
            return with_workspace(handle, stream, query, need, |memory| {
                let ([a_array, b_array], _) = carve(memory, [pointer_bytes(batch); 2]);
                let (a_array, b_array) = (a_array.cast::<*mut T>(), b_array.cast::<*mut T>());
                // SAFETY: the workspace holds both arrays of `batch`
                // pointers; A, the pivots (n per problem, contiguous, from
                // getrf) and B are of the sizes and strides declared.
                unsafe {
                    pointers::fill(a_array, a, stride_a, batch, stream)?;
                    pointers::fill(b_array, b, stride_b, batch, stream)?;
                    let a_array = a_array.cast::<*const T>().cast_const();
                    lu::getrs(handle, op, n, nrhs, a_array, lda, ipiv, b_array, ldb, batch)
                }
            });
        }
        // No cuSOLVER workspace: only its devInfo.
        with_devinfo(handle, stream, query, 0, |_, info| {
            for i in 0..batch {
                let (a, ipiv, b) = (nth(a, stride_a, i), nth(ipiv.cast_mut(), stride_p, i), nth(b, stride_b, i));
                // SAFETY: operands checked by the rules, of the sizes and
                // strides the caller declared; `info` is the devInfo int.
                ok(dn_name::<T>("getrs"), unsafe { (f.getrs)(dn, op, n, nrhs, a, lda, ipiv, b, ldb, info) })?;
            }
            Ok(())
        })
    })
}

/// `rocsolver_?potrf`: one problem.
pub(super) unsafe extern "C" fn potrf<T: Scalar>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut T,
    lda: c_int,
    info: *mut c_int,
) -> rocblas_status {
    // SAFETY: one problem, as the caller passed it.
    unsafe { potrf_strided_batched(handle, uplo, n, a, lda, 0, info, 1) }
}

/// `rocsolver_?potrf_strided_batched`: cuSOLVER's `potrfBatched` where
/// [`CHOLESKY_ONE_LAUNCH`] says it is faster, else one cuSOLVER `potrf`
/// per problem, in order on the stream, all through one workspace.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn potrf_strided_batched<T: Scalar>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut T,
    lda: c_int,
    stride_a: rocblas_stride,
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
        if one_launch(&CHOLESKY_ONE_LAUNCH, n, batch) {
            // cuSOLVER's batched Cholesky: the matrices' addresses in the workspace.
            return with_workspace(handle, stream, query, pointer_bytes(batch), |memory| {
                let array = memory.cast::<*mut T>();
                // SAFETY: the workspace holds `batch` pointers; A and info
                // are of the sizes and strides the caller declared.
                unsafe { pointers::fill(array, a, stride_a, batch, stream) }?;
                // SAFETY: as above, the array written first on the stream.
                let status = unsafe { (f.potrf_batched)(dn, fill, n, array, lda, info, batch) };
                ok(dn_name::<T>("potrfBatched"), status)
            });
        }
        let mut lwork: c_int = 0;
        // SAFETY: a live handle, checked sizes and a valid out-pointer.
        ok(dn_name::<T>("potrf_bufferSize"), unsafe { (f.potrf_buffer_size)(dn, fill, n, a, lda, &mut lwork) })?;
        with_workspace(handle, stream, query, elements::<T>(lwork), |work| {
            for i in 0..batch {
                let (a, info) = (nth(a, stride_a, i), nth(info, 1, i));
                // SAFETY: operands checked by the rules, of the sizes and
                // strides the caller declared; `work` holds `lwork` elements.
                ok(dn_name::<T>("potrf"), unsafe { (f.potrf)(dn, fill, n, a, lda, work.cast(), lwork, info) })?;
            }
            Ok(())
        })
    })
}

/// `rocsolver_?potrs`: one problem.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn potrs<T: Scalar>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    nrhs: c_int,
    a: *mut T,
    lda: c_int,
    b: *mut T,
    ldb: c_int,
) -> rocblas_status {
    // SAFETY: one problem, as the caller passed it.
    unsafe { potrs_strided_batched(handle, uplo, n, nrhs, a, lda, 0, b, ldb, 0, 1) }
}

/// `rocsolver_?potrs_strided_batched`: cuSOLVER's `potrsBatched` for one
/// right-hand side where [`CHOLESKY_ONE_LAUNCH`] says it is faster, else
/// one cuSOLVER `potrs` per problem, in order on the stream.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn potrs_strided_batched<T: Scalar>(
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    nrhs: c_int,
    a: *mut T,
    lda: c_int,
    stride_a: rocblas_stride,
    b: *mut T,
    ldb: c_int,
    stride_b: rocblas_stride,
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
        if nrhs == 1 && one_launch(&CHOLESKY_ONE_LAUNCH, n, batch) {
            // cuSOLVER's batched Cholesky solve (one right-hand side
            // only): A's and B's addresses in the workspace, and devInfo.
            let (_, arrays) = carve(std::ptr::null_mut(), [pointer_bytes(batch); 2]);
            return with_devinfo(handle, stream, query, arrays, |memory, info| {
                let ([a_array, b_array], _) = carve(memory, [pointer_bytes(batch); 2]);
                let (a_array, b_array) = (a_array.cast::<*mut T>(), b_array.cast::<*mut T>());
                // SAFETY: the workspace holds both arrays of `batch`
                // pointers, written first on the stream; A and B are of the
                // sizes and strides declared; `info` the devInfo int.
                let status = unsafe {
                    pointers::fill(a_array, a, stride_a, batch, stream)?;
                    pointers::fill(b_array, b, stride_b, batch, stream)?;
                    (f.potrs_batched)(dn, fill, n, 1, a_array, lda, b_array, ldb, info, batch)
                };
                ok(dn_name::<T>("potrsBatched"), status)
            });
        }
        // No cuSOLVER workspace: only its devInfo.
        with_devinfo(handle, stream, query, 0, |_, info| {
            for i in 0..batch {
                let (a, b) = (nth(a, stride_a, i), nth(b, stride_b, i));
                // SAFETY: operands checked by the rules, of the sizes and
                // strides the caller declared; `info` is the devInfo int.
                ok(dn_name::<T>("potrs"), unsafe { (f.potrs)(dn, fill, n, nrhs, a, lda, b, ldb, info) })?;
            }
            Ok(())
        })
    })
}

/// `rocsolver_?syevd` (`?heevd`): one problem.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn syevd<T: Scalar>(
    handle: rocblas_handle,
    evect: rocblas_evect,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut T,
    lda: c_int,
    d: *mut T::Real,
    e: *mut T::Real,
    info: *mut c_int,
) -> rocblas_status {
    // SAFETY: one problem, as the caller passed it.
    unsafe { syevd_strided_batched(handle, evect, uplo, n, a, lda, 0, d, 0, e, 0, info, 1) }
}

/// `rocsolver_?syevd_strided_batched` (`?heevd_…`): one cuSOLVER
/// `syevd`/`heevd` per problem, in order on the stream, all through one
/// workspace, each writing its own `info`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn syevd_strided_batched<T: Scalar>(
    handle: rocblas_handle,
    evect: rocblas_evect,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut T,
    lda: c_int,
    stride_a: rocblas_stride,
    d: *mut T::Real,
    stride_d: rocblas_stride,
    e: *mut T::Real,
    _stride_e: rocblas_stride,
    info: *mut c_int,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (f, dn, stream) = start::<T>(handle)?;
        let query = querying(handle);
        let given =
            Given { a: !a.is_null(), d: !d.is_null(), e: !e.is_null(), info: !info.is_null(), ..Given::default() };
        if rules::syevd(evect, uplo, n, lda, batch, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { clear_info(info, batch, stream) };
        }
        // CUSOLVER_EIG_MODE_VECTOR 1, _NOVECTOR 0.
        let jobz = if rules::vectors(evect)? { 1 } else { 0 };
        let fill = fill(uplo)?;
        let mut lwork: c_int = 0;
        let size_name = dn_name::<T>(Name::stem::<T>("syevd_bufferSize", "heevd_bufferSize"));
        // SAFETY: a live handle, checked sizes and a valid out-pointer.
        ok(size_name, unsafe { (f.syevd_buffer_size)(dn, jobz, fill, n, a, lda, d, &mut lwork) })?;
        // cuSOLVER has no E: rocSOLVER's scratch is left as it is.
        with_workspace(handle, stream, query, elements::<T>(lwork), |work| {
            for i in 0..batch {
                let (a, d, info) = (nth(a, stride_a, i), nth(d, stride_d, i), nth(info, 1, i));
                // SAFETY: operands checked by the rules, of the sizes and
                // strides the caller declared; `work` holds `lwork` elements.
                let status = unsafe { (f.syevd)(dn, jobz, fill, n, a, lda, d, work.cast(), lwork, info) };
                ok(dn_name::<T>(Name::stem::<T>("syevd", "heevd")), status)?;
            }
            Ok(())
        })
    })
}

/// `rocsolver_?geqrf`: one problem.
pub(super) unsafe extern "C" fn geqrf<T: Scalar>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    tau: *mut T,
) -> rocblas_status {
    // SAFETY: one problem, as the caller passed it.
    unsafe { geqrf_strided_batched(handle, m, n, a, lda, 0, tau, 0, 1) }
}

/// `rocsolver_?geqrf_strided_batched`: cuBLAS's `geqrfBatched` where
/// [`QR_ONE_LAUNCH`] says it is faster, else one cuSOLVER `geqrf` per
/// problem, in order on the stream, all through one workspace.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn geqrf_strided_batched<T: Scalar>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    stride_a: rocblas_stride,
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
        if one_launch(&QR_ONE_LAUNCH, m.max(n), batch) {
            // cuBLAS's batched QR: the matrices' and the scalars' addresses in the workspace.
            let (_, need) = carve(std::ptr::null_mut(), [pointer_bytes(batch); 2]);
            return with_workspace(handle, stream, query, need, |memory| {
                let ([a_array, tau_array], _) = carve(memory, [pointer_bytes(batch); 2]);
                let (a_array, tau_array) = (a_array.cast::<*mut T>(), tau_array.cast::<*mut T>());
                // SAFETY: the workspace holds both arrays of `batch`
                // pointers; A and tau are of the sizes and strides the
                // caller declared.
                unsafe {
                    pointers::fill(a_array, a, stride_a, batch, stream)?;
                    pointers::fill(tau_array, tau, stride_p, batch, stream)?;
                    qr::geqrf(handle, m, n, a_array, lda, tau_array, batch)
                }
            });
        }
        let mut lwork: c_int = 0;
        // SAFETY: a live handle, checked sizes and a valid out-pointer.
        ok(dn_name::<T>("geqrf_bufferSize"), unsafe { (f.geqrf_buffer_size)(dn, m, n, a, lda, &mut lwork) })?;
        with_devinfo(handle, stream, query, elements::<T>(lwork), |memory, info| {
            for i in 0..batch {
                let (a, tau) = (nth(a, stride_a, i), nth(tau, stride_p, i));
                // SAFETY: operands checked by the rules, of the sizes and
                // strides the caller declared; `memory` holds `lwork` elements.
                let status = unsafe { (f.geqrf)(dn, m, n, a, lda, tau, memory.cast(), lwork, info) };
                ok(dn_name::<T>("geqrf"), status)?;
            }
            Ok(())
        })
    })
}

/// `rocsolver_?orgqr` (`?ungqr`): Q from a QR factorization, one
/// cuSOLVER call.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn orgqr<T: Scalar>(
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    k: c_int,
    a: *mut T,
    lda: c_int,
    tau: *mut T,
) -> rocblas_status {
    entry(|| {
        let (f, dn, stream) = start::<T>(handle)?;
        let query = querying(handle);
        let given = Given { a: !a.is_null(), ipiv: !tau.is_null(), ..Given::default() };
        if rules::orgqr(m, n, k, lda, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { Ok(()) };
        }
        let mut lwork: c_int = 0;
        let size_name = dn_name::<T>(Name::stem::<T>("orgqr_bufferSize", "ungqr_bufferSize"));
        // SAFETY: a live handle, checked sizes and a valid out-pointer.
        ok(size_name, unsafe { (f.orgqr_buffer_size)(dn, m, n, k, a, lda, tau, &mut lwork) })?;
        with_devinfo(handle, stream, query, elements::<T>(lwork), |memory, info| {
            // SAFETY: operands checked by the rules, of the sizes the
            // caller declared; `memory` holds `lwork` elements.
            let status = unsafe { (f.orgqr)(dn, m, n, k, a, lda, tau, memory.cast(), lwork, info) };
            ok(dn_name::<T>(Name::stem::<T>("orgqr", "ungqr")), status)
        })
    })
}

/// `rocsolver_?gesvd`: rocSOLVER's `gesvd` over cuSOLVER's, which takes
/// `m ≥ n` only: a wide A is solved as `Aᴴ = U' Σ V'ᴴ` in the workspace
/// (so `U = V'` and `Vᴴ = U'ᴴ`), turned around with cuBLAS's `geam` on
/// the handle's stream.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn gesvd<T: Scalar>(
    handle: rocblas_handle,
    left: rocblas_svect,
    right: rocblas_svect,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    s: *mut T::Real,
    u: *mut T,
    ldu: c_int,
    v: *mut T,
    ldv: c_int,
    e: *mut T::Real,
    fast_alg: rocblas_workmode,
    info: *mut c_int,
) -> rocblas_status {
    // SAFETY: one problem, as the caller passed it.
    unsafe {
        gesvd_strided_batched(handle, left, right, m, n, a, lda, 0, s, 0, u, ldu, 0, v, ldv, 0, e, 0, fast_alg, info, 1)
    }
}

/// `rocsolver_?gesvd_strided_batched`: one cuSOLVER `gesvd` per problem
/// (with its transposes for a wide A), in order on the stream, all
/// through one workspace.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn gesvd_strided_batched<T: Scalar>(
    handle: rocblas_handle,
    left: rocblas_svect,
    right: rocblas_svect,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    stride_a: rocblas_stride,
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
    _fast_alg: rocblas_workmode,
    info: *mut c_int,
    batch: c_int,
) -> rocblas_status {
    entry(|| {
        let (f, dn, stream) = start::<T>(handle)?;
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
        // An empty problem returns with info unwritten, as rocSOLVER's.
        if rules::gesvd(left, right, m, n, lda, ldu, ldv, batch, given, query)? == Next::Done {
            return if query { Err(collect(handle, 0)) } else { Ok(()) };
        }
        let (left, right) = (rules::svect(left)?, rules::svect(right)?);
        let wide = m < n;
        // cuSOLVER's problem: A, or Aᴴ (cm × cn, cm ≥ cn) with the sides swapped.
        let (cm, cn) = if wide { (n, m) } else { (m, n) };
        let (cleft, cright) = if wide { (right, left) } else { (left, right) };
        let mut lwork: c_int = 0;
        // SAFETY: a live handle, checked sizes and a valid out-pointer.
        ok(dn_name::<T>("gesvd_bufferSize"), unsafe { (f.gesvd_buffer_size)(dn, cm, cn, &mut lwork) })?;
        let elem = std::mem::size_of::<T>();
        let (cm_, cn_) = (cm as usize, cn as usize);
        let u_cols = match cleft {
            Svect::All => cm_,
            Svect::Singular => cn_,
            _ => 0,
        };
        let sizes = [
            lwork.max(0) as usize * elem,
            // rwork, when the caller gave no E (min(m, n) = 1).
            if e.is_null() { std::mem::size_of::<T::Real>() } else { 0 },
            if wide { cm_ * cn_ * elem } else { 0 },
            if wide { cm_ * u_cols * elem } else { 0 },
            if wide && own_matrix(cright) { cn_ * cn_ * elem } else { 0 },
        ];
        let (_, need) = carve(std::ptr::null_mut(), sizes);
        with_workspace(handle, stream, query, need, |memory| {
            let ([work, rwork, at, uc, vtc], _) = carve(memory, sizes);
            for i in 0..batch {
                let (a, s, info) = (nth(a, stride_a, i), nth(s, stride_s, i), nth(info, 1, i));
                // A side without its own matrix may pass null: it stays null.
                let (u, v) = (nth_given(u, stride_u, i), nth_given(v, stride_v, i));
                let rwork: *mut T::Real = if e.is_null() { rwork.cast() } else { nth(e, stride_e, i) };
                if !wide {
                    // cuSOLVER checks the leading dimensions of vectors
                    // it does not write; rocSOLVER only asks them ≥ 1.
                    let ldu = if own_matrix(left) { ldu } else { ldu.max(m) };
                    let ldv = if own_matrix(right) { ldv } else { ldv.max(n) };
                    // SAFETY: operands checked by the rules, of the sizes
                    // the caller declared; `work` holds `lwork` elements.
                    ok(dn_name::<T>("gesvd"), unsafe {
                        (f.gesvd)(
                            dn,
                            job(left),
                            job(right),
                            m,
                            n,
                            a,
                            lda,
                            s,
                            u,
                            ldu,
                            v,
                            ldv,
                            work.cast(),
                            lwork,
                            rwork,
                            info,
                        )
                    })?;
                    continue;
                }
                let (at, uc, vtc) = (at.cast::<T>(), uc.cast::<T>(), vtc.cast::<T>());
                // SAFETY: every call below is given device memory of the
                // extents the rules checked (the caller's) or carved
                // above (the workspace's), queued in order on the
                // handle's stream.
                unsafe {
                    conj_transpose(handle, cm, cn, a.cast_const(), lda, at, cm)?;
                    ok(
                        dn_name::<T>("gesvd"),
                        (f.gesvd)(
                            dn,
                            job(cleft),
                            job(cright),
                            cm,
                            cn,
                            at,
                            cm,
                            s,
                            uc,
                            cm,
                            vtc,
                            cn,
                            work.cast(),
                            lwork,
                            rwork,
                            info,
                        ),
                    )?;
                    // A's U is V' (m × m): from VT' or, overwritten, from Aᴴ's first rows.
                    let (from, ld) = if cright == Svect::Overwrite { (at, cm) } else { (vtc, cn) };
                    match left {
                        Svect::All | Svect::Singular => conj_transpose(handle, m, m, from.cast_const(), ld, u, ldu)?,
                        Svect::Overwrite => conj_transpose(handle, m, m, from.cast_const(), ld, a, lda)?,
                        Svect::None => {}
                    }
                    // A's Vᴴ is U'ᴴ: n × n (all) or m × n, from U' or, overwritten, Aᴴ.
                    match right {
                        Svect::All => conj_transpose(handle, n, n, uc.cast_const(), cm, v, ldv)?,
                        Svect::Singular => conj_transpose(handle, m, n, uc.cast_const(), cm, v, ldv)?,
                        Svect::Overwrite => conj_transpose(handle, m, n, at.cast_const(), cm, a, lda)?,
                        Svect::None => {}
                    }
                }
            }
            Ok(())
        })
    })
}
