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
mod strided;

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::{Mutex, OnceLock};

use self::arrays::*;
use self::library::{entry, fns, load_once, ok};
use self::strided::*;
use super::rocblas::{collect, cuda_stream, on_destroy, user_workspace};
use super::Handle;
use crate::rocblas::{rocblas_double_complex as C64, rocblas_float_complex as C32, rocblas_handle, rocblas_status};
use crate::rocsolver::{rocblas_fill, RocsolverApi};
use crate::shared::rocsolver_rules as rules;
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
