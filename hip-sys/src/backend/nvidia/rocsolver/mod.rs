//! rocSOLVER over cuSOLVER: the nvidia backend's
//! [`RocsolverApi`](crate::rocsolver::RocsolverApi).
//!
//! As hipSOLVER does for NVIDIA, each rocSOLVER function of the table is a
//! Rust function over cuSOLVER's dense API (`libcusolver.so.12`, `.11`,
//! loaded at run time), keeping rocSOLVER's semantics where cuSOLVER's
//! differ.
//!
//! # The mapping
//!
//! - **Handles.** A rocSOLVER call takes a rocBLAS handle, which on this
//!   backend is a cuBLAS handle; the mapping keeps one cuSOLVER handle
//!   beside each (`cusolverDnCreate`, at the handle's first rocSOLVER call,
//!   with the device current then), binds it to the cuBLAS handle's stream
//!   before every call, and destroys it with the rocBLAS handle.
//! - **Arguments** are checked with rocSOLVER's rules and order
//!   (`rocsolver_rules`, shared with the simulator) before cuSOLVER sees
//!   them; an empty problem returns at once, a factorization's `info` set
//!   to 0 on the stream, as rocSOLVER does (cuSOLVER refuses `lda = 0`).
//! - **Workspace** comes from the rocBLAS handle, as rocSOLVER's does: a
//!   device memory size query collects what cuSOLVER's `*_bufferSize`
//!   asks for (plus an `int` for the `devInfo` that `getrs` and `potrs`
//!   need and rocSOLVER has not, after the QR calls' workspace too), rounded
//!   as rocBLAS rounds; a call then
//!   uses the workspace the caller gave the handle (`rocblas_set_workspace`),
//!   `memory_error` if it is smaller than the need, as on AMD. A handle
//!   with no user workspace gets the call's memory from `hipMallocAsync` on
//!   its stream, freed there after the call.
//! - **Enums**: operations 111, 112, 113 to `CUBLAS_OP_N`, `_T`, `_C`
//!   (0, 1, 2); fills upper 121 and lower 122 to `CUBLAS_FILL_MODE_UPPER`
//!   1 and `_LOWER` 0; eigenvectors `original` 211 and `none` 213 to
//!   `CUSOLVER_EIG_MODE_VECTOR` 1 and `_NOVECTOR` 0. Pivots are 1-based `int`s and `info` a device `int`
//!   on both libraries: they pass through.
//! - **Statuses** map to the rocBLAS status of the same meaning, with
//!   cuSOLVER's name in the log. The version string is
//!   `3.21.0-cusolver-<cuSOLVER's version>`.
//!
//! - **Strided batches** (`*_strided_batched`) run as one batched launch
//!   where that beats one call per problem (a table by order and count,
//!   measured on an H200: from 2 problems of order up to 128 to 28 of
//!   order 2048 for LU, 2 to 6 up to order 2048 for Cholesky): cuBLAS's
//!   `getrfBatched` (square, pivots packed `n` apart) and `getrsBatched`
//!   (pivots packed), cuSOLVER's `potrfBatched` and `potrsBatched` (one
//!   right-hand side), and cuBLAS's `geqrfBatched` (from 3 problems of
//!   order 16 to 14 of order 128: it is slow for its size). Those take
//!   arrays of device pointers, which a small kernel (`pointers`) writes
//!   into the call's workspace on the stream from rocSOLVER's base and
//!   stride, so the call stays asynchronous and capturable. Every other
//!   batch (fewer problems, larger orders, other pivot strides, several
//!   right-hand sides for Cholesky, the eigensolver, the SVD) runs one
//!   cuSOLVER call per problem, in order on the stream, through one
//!   workspace; the plain functions are batches of one. The first batched launch on a device
//!   loads the kernel, which cannot happen inside a capture: make one such
//!   call before capturing, as for the cuSOLVER handle.
//! - **Pointer-array batches** (`*_batched`, module `arrays`) run as
//!   NVIDIA's batched launch on the caller's array where the shape allows
//!   one and the table above says it is faster, and always inside a
//!   capture; otherwise the array is read back once the stream reaches the
//!   call (a wait, refused inside a capture) and one cuSOLVER call per
//!   problem follows.
//! - **SVD.** cuSOLVER's `gesvd` takes `m ≥ n` only and has one
//!   algorithm (`fast_alg` is not used). A wide A is solved turned around:
//!   Aᴴ is written into the workspace with cuBLAS's `geam` on the handle's
//!   stream, cuSOLVER computes `Aᴴ = U' Σ V'ᴴ`, and U = V' and Vᴴ = U'ᴴ
//!   are turned back into the caller's matrices (or A, for vectors over
//!   it); the workspace holds Aᴴ and cuSOLVER's vectors besides its own.
//!   Jobs 191-194 are `'A'`, `'S'`, `'O'`, `'N'`; E is cuSOLVER's `rwork`.
//!
//! # Differences from rocSOLVER
//!
//! cuSOLVER's blocked algorithms round differently from rocSOLVER's, so
//! results agree to the tolerance of the factorization, not bit for bit.
//! `syevd`/`heevd`'s E (rocSOLVER's tridiagonal scratch) is not written:
//! cuSOLVER has none. Eigenvectors' signs and phases are unspecified on
//! both.
//! The first rocSOLVER call on a handle makes its cuSOLVER handle, which
//! allocates: make it outside any stream capture (one call before
//! capturing, or the safe API's warm-up).

mod arrays;
mod library;
mod pointers;

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_schar, c_void};
use std::sync::{Mutex, OnceLock};

use self::arrays::*;
use self::library::{dn_name, entry, fns, load_once, ok, DenseFns};
use super::precision::Name;
use super::rocblas::{collect, conj_transpose, cuda_stream, lu, on_destroy, qr, querying, user_workspace, Scalar};
use super::Handle;
use crate::rocblas::{
    rocblas_double_complex as C64, rocblas_float_complex as C32, rocblas_handle, rocblas_status, rocblas_stride,
};
use crate::rocsolver::{rocblas_evect, rocblas_fill, rocblas_operation, rocblas_svect, rocblas_workmode, RocsolverApi};
use crate::shared::rocsolver_rules::{self as rules, Given, Next, Svect};
use crate::shared::version_string;
use crate::sync::MutexExt;
use crate::BackendError;

pub(crate) use library::candidates;

/// The cuSOLVER handle beside each rocBLAS (cuBLAS) handle.
static SOLVERS: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

/// The cuSOLVER handle of `handle`, made at its first use, bound to the
/// cuBLAS handle's stream; and that stream.
fn solver(handle: rocblas_handle) -> Result<(Handle, *mut c_void), rocblas_status> {
    if handle.is_null() {
        return Err(rocblas_status::rocblas_status_invalid_handle);
    }
    let f = fns()?;
    let stream = cuda_stream(handle)?;
    let mut solvers = SOLVERS.lock_unpoisoned();
    let map = solvers.get_or_insert_with(HashMap::new);
    let dn = match map.get(&(handle as usize)) {
        Some(&dn) => dn as Handle,
        None => {
            let mut dn: Handle = std::ptr::null_mut();
            // SAFETY: a valid out-pointer; the handle binds to the device
            // current now, the rocBLAS handle's (the caller's contract).
            ok("cusolverDnCreate", unsafe { (f.api.cusolverDnCreate)(&mut dn) })?;
            map.insert(handle as usize, dn as usize);
            // Destroyed with the rocBLAS handle.
            on_destroy(forget);
            dn
        }
    };
    // SAFETY: a live cuSOLVER handle and the cuBLAS handle's stream.
    ok("cusolverDnSetStream", unsafe { (f.api.cusolverDnSetStream)(dn, stream) })?;
    Ok((dn, stream))
}

/// Destroy the cuSOLVER handle beside `handle`, if it has one (a hook of
/// `rocblas_destroy_handle`).
fn forget(handle: rocblas_handle) -> Result<(), rocblas_status> {
    let Some(dn) = SOLVERS.lock_unpoisoned().as_mut().and_then(|m| m.remove(&(handle as usize))) else {
        return Ok(());
    };
    // SAFETY: a live cuSOLVER handle of this mapping, destroyed once.
    ok("cusolverDnDestroy", unsafe { (fns()?.api.cusolverDnDestroy)(dn as Handle) })
}

/// The end of every call: during a size query (`query`), its `need`
/// collected into the handle's query, as rocSOLVER answers; else `call`
/// with `need` bytes of the handle's workspace: the caller's
/// (`memory_error` if smaller), or stream-ordered memory of the call.
fn with_workspace(
    handle: rocblas_handle,
    stream: *mut c_void,
    query: bool,
    need: usize,
    call: impl FnOnce(*mut c_void) -> Result<(), rocblas_status>,
) -> Result<(), rocblas_status> {
    if query {
        return Err(collect(handle, need));
    }
    if need == 0 {
        return call(std::ptr::null_mut());
    }
    let need = need.div_ceil(super::rocblas::DEVICE_MEMORY_GRANULE) * super::rocblas::DEVICE_MEMORY_GRANULE;
    if let Some((ptr, size)) = user_workspace(handle) {
        if size < need {
            return Err(rocblas_status::rocblas_status_memory_error);
        }
        return call(ptr as *mut c_void);
    }
    let hip_stream = super::objects::hip_stream_of(stream);
    let mut memory: *mut c_void = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and a live stream.
    if unsafe { super::hip::hipMallocAsync(&mut memory, need.max(1), hip_stream) }.0 != 0 {
        return Err(rocblas_status::rocblas_status_memory_error);
    }
    let result = call(memory);
    // SAFETY: memory of this call, freed once on the stream that used it.
    let freed = unsafe { super::hip::hipFreeAsync(memory, hip_stream) };
    result?;
    if freed.0 != 0 {
        return Err(rocblas_status::rocblas_status_internal_error);
    }
    Ok(())
}

/// As [`with_workspace`] for the calls whose cuSOLVER counterpart writes
/// a devInfo int that rocSOLVER's has not (`getrs`, `potrs`, QR): `work`
/// bytes of cuSOLVER workspace, then the int, aligned.
fn with_devinfo(
    handle: rocblas_handle,
    stream: *mut c_void,
    query: bool,
    work: usize,
    call: impl FnOnce(*mut c_void, *mut c_int) -> Result<(), rocblas_status>,
) -> Result<(), rocblas_status> {
    let at = work.div_ceil(16) * 16;
    with_workspace(handle, stream, query, at + std::mem::size_of::<c_int>(), |memory| {
        // SAFETY: the workspace holds `at` bytes and then the int.
        call(memory, unsafe { memory.cast::<u8>().add(at) }.cast())
    })
}

/// Set the `info` of `count` empty problems to 0 on `stream`.
fn clear_info(info: *mut c_int, count: c_int, stream: *mut c_void) -> Result<(), rocblas_status> {
    if count <= 0 {
        return Ok(());
    }
    let bytes = count as usize * std::mem::size_of::<c_int>();
    // SAFETY: `info` is `count` device ints (checked non-null by the rules).
    let status = unsafe { super::hip::hipMemsetAsync(info.cast(), 0, bytes, super::objects::hip_stream_of(stream)) };
    if status.0 != 0 {
        return Err(rocblas_status::rocblas_status_internal_error);
    }
    Ok(())
}

/// When a strided batch runs as one batched launch: for each band of
/// orders (up to the first number), the fewest problems (the second) for
/// which NVIDIA's batched call beats one cuSOLVER call per problem. A
/// batched call takes about the same time for any count at these orders,
/// and grows faster with the order than a single call does, so the count
/// it needs grows with the order; above the last band it never wins.
/// Measured in f64 on an H200 (BENCHMARKS.md, `solver_batched`): LU by
/// cuBLAS's `getrfBatched`, whose band also serves `getrsBatched`.
const LU_ONE_LAUNCH: [(c_int, c_int); 5] = [(128, 2), (256, 3), (512, 5), (1024, 11), (2048, 28)];

/// As [`LU_ONE_LAUNCH`] for Cholesky, by cuSOLVER's `potrfBatched` (and
/// for its `potrsBatched`).
const CHOLESKY_ONE_LAUNCH: [(c_int, c_int); 4] = [(64, 2), (256, 3), (512, 4), (2048, 6)];

/// Whether a strided batch of `batch` problems of order `n` runs as one
/// batched launch, by `bands` ([`LU_ONE_LAUNCH`], [`CHOLESKY_ONE_LAUNCH`]).
fn one_launch(bands: &[(c_int, c_int)], n: c_int, batch: c_int) -> bool {
    bands.iter().find(|&&(order, _)| n <= order).is_some_and(|&(_, fewest)| batch >= fewest)
}

/// As [`LU_ONE_LAUNCH`] for QR, by cuBLAS's `geqrfBatched`, keyed by the
/// larger of the two dimensions. cuBLAS's batched QR is slow for its
/// size (f64, H200: 300 µs for any count of 32 × 32 up to 32, 8.4 ms of
/// 128 × 128, 43 ms of 256 × 256, where one cuSOLVER call takes 64 µs,
/// 630 µs and 650 µs a matrix), so it pays only for many small matrices.
const QR_ONE_LAUNCH: [(c_int, c_int); 4] = [(16, 3), (32, 5), (64, 9), (128, 14)];

/// The bytes of an array of `batch` device pointers.
fn pointer_bytes(batch: c_int) -> usize {
    batch.max(0) as usize * std::mem::size_of::<*mut c_void>()
}

/// `rocblas_fill` as `cublasFillMode_t`.
fn fill(uplo: rocblas_fill) -> Result<c_int, rocblas_status> {
    Ok(if rules::upper(uplo)? { 1 } else { 0 })
}

/// Problem `i`'s operand in a strided batch: `stride` elements apart.
/// `wrapping_offset`, as a batch of one has stride 0 and a null pointer may
/// pass the rules for an empty problem.
fn nth<T>(ptr: *mut T, stride: i64, i: c_int) -> *mut T {
    ptr.wrapping_offset((stride * i64::from(i)) as isize)
}

/// [`nth`], but null stays null (an operand a call does not use).
fn nth_given<T>(ptr: *mut T, stride: i64, i: c_int) -> *mut T {
    if ptr.is_null() {
        ptr
    } else {
        nth(ptr, stride, i)
    }
}

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
fn start<T: Scalar>(handle: rocblas_handle) -> Result<(&'static DenseFns<T>, Handle, *mut c_void), rocblas_status> {
    let f = fns()?.dense.of::<T>();
    let (dn, stream) = solver(handle)?;
    Ok((f, dn, stream))
}

/// The bytes of `lwork` elements of `T`, as cuSOLVER's size queries count.
fn elements<T>(lwork: c_int) -> usize {
    lwork.max(0) as usize * std::mem::size_of::<T>()
}

/// `rocsolver_?getrf`: one problem.
unsafe extern "C" fn getrf<T: Scalar>(
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
unsafe extern "C" fn getrf_strided_batched<T: Scalar>(
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
unsafe extern "C" fn getrs<T: Scalar>(
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
unsafe extern "C" fn getrs_strided_batched<T: Scalar>(
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
unsafe extern "C" fn potrf<T: Scalar>(
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
unsafe extern "C" fn potrf_strided_batched<T: Scalar>(
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
unsafe extern "C" fn potrs<T: Scalar>(
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
unsafe extern "C" fn potrs_strided_batched<T: Scalar>(
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
unsafe extern "C" fn syevd<T: Scalar>(
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
unsafe extern "C" fn syevd_strided_batched<T: Scalar>(
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
unsafe extern "C" fn geqrf<T: Scalar>(
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
unsafe extern "C" fn geqrf_strided_batched<T: Scalar>(
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
unsafe extern "C" fn orgqr<T: Scalar>(
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
unsafe extern "C" fn gesvd<T: Scalar>(
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
unsafe extern "C" fn gesvd_strided_batched<T: Scalar>(
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

unsafe extern "C" fn rocsolver_get_version_string_size(len: *mut usize) -> rocblas_status {
    entry(|| {
        let text = library::version().ok_or(rocblas_status::rocblas_status_internal_error)?;
        // SAFETY: null or valid for a write (C contract).
        unsafe { version_string::size(text, len) }
    })
}

unsafe extern "C" fn rocsolver_get_version_string(buf: *mut c_char, len: usize) -> rocblas_status {
    entry(|| {
        let text = library::version().ok_or(rocblas_status::rocblas_status_internal_error)?;
        // SAFETY: null or valid for `len` bytes (C contract).
        unsafe { version_string::write(text, buf, len) }
    })
}

/// Load cuSOLVER (and cuBLAS, whose handles rocSOLVER's calls take) and
/// return the rocSOLVER table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static RocsolverApi, BackendError> {
    static TABLE: OnceLock<RocsolverApi> = OnceLock::new();
    super::rocblas::load(&super::rocblas::candidates())?;
    load_once(candidates).map(|_| {
        TABLE.get_or_init(|| RocsolverApi {
            rocsolver_get_version_string,
            rocsolver_get_version_string_size,
            rocsolver_sgetrf: getrf::<f32>,
            rocsolver_dgetrf: getrf::<f64>,
            rocsolver_cgetrf: getrf::<C32>,
            rocsolver_zgetrf: getrf::<C64>,
            rocsolver_sgetrs: getrs::<f32>,
            rocsolver_dgetrs: getrs::<f64>,
            rocsolver_cgetrs: getrs::<C32>,
            rocsolver_zgetrs: getrs::<C64>,
            rocsolver_spotrf: potrf::<f32>,
            rocsolver_dpotrf: potrf::<f64>,
            rocsolver_cpotrf: potrf::<C32>,
            rocsolver_zpotrf: potrf::<C64>,
            rocsolver_spotrs: potrs::<f32>,
            rocsolver_dpotrs: potrs::<f64>,
            rocsolver_cpotrs: potrs::<C32>,
            rocsolver_zpotrs: potrs::<C64>,
            rocsolver_ssyevd: syevd::<f32>,
            rocsolver_dsyevd: syevd::<f64>,
            rocsolver_cheevd: syevd::<C32>,
            rocsolver_zheevd: syevd::<C64>,
            rocsolver_sgeqrf: geqrf::<f32>,
            rocsolver_dgeqrf: geqrf::<f64>,
            rocsolver_cgeqrf: geqrf::<C32>,
            rocsolver_zgeqrf: geqrf::<C64>,
            rocsolver_sorgqr: orgqr::<f32>,
            rocsolver_dorgqr: orgqr::<f64>,
            rocsolver_cungqr: orgqr::<C32>,
            rocsolver_zungqr: orgqr::<C64>,
            rocsolver_sgesvd: gesvd::<f32>,
            rocsolver_dgesvd: gesvd::<f64>,
            rocsolver_cgesvd: gesvd::<C32>,
            rocsolver_zgesvd: gesvd::<C64>,
            rocsolver_sgetrf_strided_batched: getrf_strided_batched::<f32>,
            rocsolver_dgetrf_strided_batched: getrf_strided_batched::<f64>,
            rocsolver_cgetrf_strided_batched: getrf_strided_batched::<C32>,
            rocsolver_zgetrf_strided_batched: getrf_strided_batched::<C64>,
            rocsolver_sgetrs_strided_batched: getrs_strided_batched::<f32>,
            rocsolver_dgetrs_strided_batched: getrs_strided_batched::<f64>,
            rocsolver_cgetrs_strided_batched: getrs_strided_batched::<C32>,
            rocsolver_zgetrs_strided_batched: getrs_strided_batched::<C64>,
            rocsolver_spotrf_strided_batched: potrf_strided_batched::<f32>,
            rocsolver_dpotrf_strided_batched: potrf_strided_batched::<f64>,
            rocsolver_cpotrf_strided_batched: potrf_strided_batched::<C32>,
            rocsolver_zpotrf_strided_batched: potrf_strided_batched::<C64>,
            rocsolver_spotrs_strided_batched: potrs_strided_batched::<f32>,
            rocsolver_dpotrs_strided_batched: potrs_strided_batched::<f64>,
            rocsolver_cpotrs_strided_batched: potrs_strided_batched::<C32>,
            rocsolver_zpotrs_strided_batched: potrs_strided_batched::<C64>,
            rocsolver_sgeqrf_strided_batched: geqrf_strided_batched::<f32>,
            rocsolver_dgeqrf_strided_batched: geqrf_strided_batched::<f64>,
            rocsolver_cgeqrf_strided_batched: geqrf_strided_batched::<C32>,
            rocsolver_zgeqrf_strided_batched: geqrf_strided_batched::<C64>,
            rocsolver_ssyevd_strided_batched: syevd_strided_batched::<f32>,
            rocsolver_dsyevd_strided_batched: syevd_strided_batched::<f64>,
            rocsolver_cheevd_strided_batched: syevd_strided_batched::<C32>,
            rocsolver_zheevd_strided_batched: syevd_strided_batched::<C64>,
            rocsolver_sgesvd_strided_batched: gesvd_strided_batched::<f32>,
            rocsolver_dgesvd_strided_batched: gesvd_strided_batched::<f64>,
            rocsolver_cgesvd_strided_batched: gesvd_strided_batched::<C32>,
            rocsolver_zgesvd_strided_batched: gesvd_strided_batched::<C64>,
            rocsolver_sgetrf_batched: getrf_batched::<f32>,
            rocsolver_dgetrf_batched: getrf_batched::<f64>,
            rocsolver_cgetrf_batched: getrf_batched::<C32>,
            rocsolver_zgetrf_batched: getrf_batched::<C64>,
            rocsolver_sgetrs_batched: getrs_batched::<f32>,
            rocsolver_dgetrs_batched: getrs_batched::<f64>,
            rocsolver_cgetrs_batched: getrs_batched::<C32>,
            rocsolver_zgetrs_batched: getrs_batched::<C64>,
            rocsolver_spotrf_batched: potrf_batched::<f32>,
            rocsolver_dpotrf_batched: potrf_batched::<f64>,
            rocsolver_cpotrf_batched: potrf_batched::<C32>,
            rocsolver_zpotrf_batched: potrf_batched::<C64>,
            rocsolver_spotrs_batched: potrs_batched::<f32>,
            rocsolver_dpotrs_batched: potrs_batched::<f64>,
            rocsolver_cpotrs_batched: potrs_batched::<C32>,
            rocsolver_zpotrs_batched: potrs_batched::<C64>,
            rocsolver_sgeqrf_batched: geqrf_batched::<f32>,
            rocsolver_dgeqrf_batched: geqrf_batched::<f64>,
            rocsolver_cgeqrf_batched: geqrf_batched::<C32>,
            rocsolver_zgeqrf_batched: geqrf_batched::<C64>,
            rocsolver_ssyevd_batched: syevd_batched::<f32>,
            rocsolver_dsyevd_batched: syevd_batched::<f64>,
            rocsolver_cheevd_batched: syevd_batched::<C32>,
            rocsolver_zheevd_batched: syevd_batched::<C64>,
            rocsolver_sgesvd_batched: gesvd_batched::<f32>,
            rocsolver_dgesvd_batched: gesvd_batched::<f64>,
            rocsolver_cgesvd_batched: gesvd_batched::<C32>,
            rocsolver_zgesvd_batched: gesvd_batched::<C64>,
        })
    })
}
