//! rocBLAS over cuBLAS: the nvidia backend's [`RocblasApi`].
//!
//! As hipBLAS does for NVIDIA, each rocBLAS entry point of the table is a
//! Rust function over cuBLAS (`libcublas.so.13`, `.12`, loaded at run
//! time), keeping rocBLAS's semantics where cuBLAS's differ.
//!
//! # The mapping
//!
//! - **Handles** are cuBLAS's own (`cublasCreate_v2`), passed through as
//!   rocBLAS's opaque pointer: a handle belongs to the device current at
//!   creation on both. Streams pass through (a HIP stream is a CUDA stream
//!   on this backend); pointer modes have the same numbers.
//! - **Arguments** are checked with rocBLAS's rules and order
//!   (`rocblas_rules`, shared with the simulator) before cuBLAS sees them,
//!   so a bad size is `rocblas_status_invalid_size`, a null operand
//!   `invalid_pointer`, and an empty problem or `α = 0, β = 1` returns at
//!   once, as on AMD; cuBLAS would answer most with `INVALID_VALUE`.
//! - **Enums**: operations 111, 112, 113 to `CUBLAS_OP_N`, `_T`, `_C` (0,
//!   1, 2); data types `f16_r` 150, `f32_r` 151, `f64_r` 152, `f32_c` 154,
//!   `f64_c` 155, `bf16_r` 168 to `CUDA_R_16F` 2, `CUDA_R_32F` 0,
//!   `CUDA_R_64F` 1, `CUDA_C_32F` 4, `CUDA_C_64F` 5, `CUDA_R_16BF` 14; the
//!   compute type f32 to `CUBLAS_COMPUTE_32F` (68), or
//!   `CUBLAS_COMPUTE_32F_FAST_TF32` (77) when the handle's math mode is
//!   XF32, f64 to `CUBLAS_COMPUTE_64F` (70). Statuses map to the rocBLAS
//!   status of the same meaning, with cuBLAS's name in the log.
//! - **Math mode**: `rocblas_xf32_xdl_math_op` is `cublasSetMathMode` with
//!   `CUBLAS_TF32_TENSOR_OP_MATH` (3), the default mode
//!   `CUBLAS_DEFAULT_MATH`; the mode read back is cuBLAS's.
//! - **Workspace**: `rocblas_set_workspace` is `cublasSetWorkspace_v2`.
//!   cuBLAS forgets a user workspace when its stream changes
//!   (`cublasSetStream` resets it to the library's pool), rocBLAS keeps
//!   it; the mapping records each handle's workspace and sets it again
//!   after every stream change, so the pool's memory stays the one used.
//!
//! - **Size queries**: `rocblas_start_device_memory_size_query` and
//!   `rocblas_stop_device_memory_size_query` are kept per handle here
//!   (cuBLAS has none); rocSOLVER's calls over cuSOLVER collect their
//!   needs into them as rocSOLVER does. The BLAS calls themselves do not
//!   look at a query underway: they run.
//!
//! # What cannot be mapped
//!
//! `rocblas_gemm_ex` with an output D other than C: cuBLAS computes in
//! place only, so that is `rocblas_status_not_implemented` (the project's
//! wrappers always pass D = C). `rocblas_gemm_algo_solution_index` is
//! `not_implemented` too (cuBLAS has no rocBLAS solution indices).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_longlong, c_void};
use std::sync::{Mutex, OnceLock};

use super::precision::{Element, Name, Precisions};
use super::{catch_status, library_candidates, open, Handle};
use crate::rocblas::*;
use crate::shared::rocblas_rules::{self as rules, GemmShape, Next};
use crate::shared::version_string;
use crate::sync::MutexExt;
use crate::BackendError;

pub(in crate::backend::nvidia) mod batched_lu;
pub(in crate::backend::nvidia) mod batched_qr;
mod gemm;
mod transpose;
mod typed;
mod vector;

pub(in crate::backend::nvidia) use batched_lu as lu;
pub(in crate::backend::nvidia) use batched_qr as qr;
#[cfg(test)]
pub(super) use gemm::GEMM_DEFAULT;
use gemm::*;
pub(in crate::backend::nvidia) use transpose::conj_transpose;
pub(in crate::backend::nvidia) use typed::Scalar;
use typed::{cublas, Library};
use vector::*;

/// A `cublasStatus_t`.
type CublasStatus = c_int;
/// `cuComplex` / `cuDoubleComplex` are layout-compatible with rocBLAS's.
type C32 = rocblas_float_complex;
type C64 = rocblas_double_complex;

fn_table! {
    /// The cuBLAS functions of no precision the mappings call
    /// (`cublas_api.h`, CUDA 12 and 13); the typed ones are `BlasFns`.
    struct Cublas {
        cublasCreate = "cublasCreate_v2": fn(*mut Handle) -> CublasStatus;
        cublasDestroy = "cublasDestroy_v2": fn(Handle) -> CublasStatus;
        cublasSetStream = "cublasSetStream_v2": fn(Handle, *mut c_void) -> CublasStatus;
        cublasGetStream = "cublasGetStream_v2": fn(Handle, *mut *mut c_void) -> CublasStatus;
        cublasSetPointerMode = "cublasSetPointerMode_v2": fn(Handle, c_int) -> CublasStatus;
        cublasGetPointerMode = "cublasGetPointerMode_v2": fn(Handle, *mut c_int) -> CublasStatus;
        cublasSetWorkspace = "cublasSetWorkspace_v2": fn(Handle, *mut c_void, usize) -> CublasStatus;
        cublasSetMathMode = "cublasSetMathMode": fn(Handle, c_int) -> CublasStatus;
        cublasGetMathMode = "cublasGetMathMode": fn(Handle, *mut c_int) -> CublasStatus;
        /// `cublasGetProperty(libraryPropertyType type, int *value)`
        cublasGetProperty = "cublasGetProperty": fn(c_int, *mut c_int) -> CublasStatus;
        /// `cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype,
        /// ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo)`
        cublasGemmEx = "cublasGemmEx": fn(Handle, c_int, c_int, c_int, c_int, c_int, *const c_void, *const c_void, c_int, c_int, *const c_void, c_int, c_int, *const c_void, *mut c_void, c_int, c_int, c_int, c_int) -> CublasStatus;
        /// `cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype,
        /// ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo)`
        cublasGemmStridedBatchedEx = "cublasGemmStridedBatchedEx": fn(Handle, c_int, c_int, c_int, c_int, c_int, *const c_void, *const c_void, c_int, c_int, c_longlong, *const c_void, c_int, c_int, c_longlong, *const c_void, *mut c_void, c_int, c_int, c_longlong, c_int, c_int, c_int) -> CublasStatus;
    }
}

/// The candidate files for cuBLAS, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libcublas.so.13", "libcublas.so.12", "libcublas.so"])
}

const HINT: &str = "install cuBLAS (CUDA 12 or 13: the toolkit, or the libcublas package) and add its lib64 \
     directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's rocBLAS";

static LOADED: OnceLock<Result<Library, BackendError>> = OnceLock::new();

fn fns() -> Result<&'static Library, rocblas_status> {
    LOADED.get().and_then(|l| l.as_ref().ok()).ok_or(rocblas_status::rocblas_status_not_implemented)
}

/// The rocBLAS version the mapping reports: 4.1.0 (ROCm 6.1), whose rules
/// it keeps, with cuBLAS's own version after it.
static VERSION: OnceLock<String> = OnceLock::new();

/// Load cuBLAS from `candidates` and return the rocBLAS table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static RocblasApi, BackendError> {
    LOADED.get_or_init(|| open_cublas(candidates)).as_ref().map(|_| &ROCBLAS_OVER_CUBLAS).map_err(Clone::clone)
}

/// Open cuBLAS and resolve its functions (kept loaded on success).
fn open_cublas(candidates: &[String]) -> Result<Library, BackendError> {
    let library = open("libcublas", candidates, HINT)?;
    // SAFETY: `library` is cuBLAS, whose exported functions have the
    // signatures declared in `Cublas` and `BlasFns` (CUDA 12 and 13
    // headers).
    let fns = unsafe { Library { api: Cublas::resolve(&library)?, typed: Precisions::resolve(&library)? } };
    let mut v = [0 as c_int; 3];
    for (property, out) in v.iter_mut().enumerate() {
        // SAFETY: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2; a valid out-pointer.
        let _ = unsafe { (fns.api.cublasGetProperty)(property as c_int, out) };
    }
    let path = library.keep();
    log::debug!("rocBLAS over {path} (cuBLAS {}.{}.{})", v[0], v[1], v[2]);
    let _ = VERSION.set(format!("4.1.0-cublas-{}.{}.{}", v[0], v[1], v[2]));
    Ok(fns)
}

/// A `cublasStatus_t`'s name (`cublas_api.h`).
fn status_name(status: CublasStatus) -> &'static str {
    match status {
        0 => "CUBLAS_STATUS_SUCCESS",
        1 => "CUBLAS_STATUS_NOT_INITIALIZED",
        3 => "CUBLAS_STATUS_ALLOC_FAILED",
        7 => "CUBLAS_STATUS_INVALID_VALUE",
        8 => "CUBLAS_STATUS_ARCH_MISMATCH",
        11 => "CUBLAS_STATUS_MAPPING_ERROR",
        13 => "CUBLAS_STATUS_EXECUTION_FAILED",
        14 => "CUBLAS_STATUS_INTERNAL_ERROR",
        15 => "CUBLAS_STATUS_NOT_SUPPORTED",
        16 => "CUBLAS_STATUS_LICENSE_ERROR",
        _ => "an unknown cublasStatus_t",
    }
}

/// A cuBLAS status as the rocBLAS status of the same meaning.
pub(super) fn to_rocblas(status: CublasStatus) -> rocblas_status {
    match status {
        0 => rocblas_status::rocblas_status_success,
        1 => rocblas_status::rocblas_status_invalid_handle,
        3 => rocblas_status::rocblas_status_memory_error,
        7 => rocblas_status::rocblas_status_invalid_value,
        8 | 15 => rocblas_status::rocblas_status_not_implemented,
        _ => rocblas_status::rocblas_status_internal_error,
    }
}

fn ok(function: impl std::fmt::Display, status: CublasStatus) -> Result<(), rocblas_status> {
    if status == 0 {
        return Ok(());
    }
    log::error!("rocBLAS over cuBLAS: {function} failed with {} ({status})", status_name(status));
    Err(to_rocblas(status))
}

/// Run one entry point, never unwinding into C.
fn entry(body: impl FnOnce() -> Result<(), rocblas_status>) -> rocblas_status {
    catch_status(
        "rocBLAS over cuBLAS",
        rocblas_status::rocblas_status_success,
        rocblas_status::rocblas_status_internal_error,
        body,
    )
}

fn live(handle: rocblas_handle) -> Result<Handle, rocblas_status> {
    if handle.is_null() {
        return Err(rocblas_status::rocblas_status_invalid_handle);
    }
    Ok(handle.cast())
}

/// `rocblas_operation` as `cublasOperation_t`.
pub(super) fn operation(op: rocblas_operation) -> Result<c_int, rocblas_status> {
    match op {
        rocblas_operation::rocblas_operation_none => Ok(0),
        rocblas_operation::rocblas_operation_transpose => Ok(1),
        rocblas_operation::rocblas_operation_conjugate_transpose => Ok(2),
        _ => Err(rocblas_status::rocblas_status_invalid_value),
    }
}

/// `rocblas_datatype` as `cudaDataType` (the types `gemm_ex` takes here).
pub(super) fn datatype(t: rocblas_datatype) -> Result<c_int, rocblas_status> {
    use rocblas_datatype as T;
    match t {
        T::rocblas_datatype_f32_r => Ok(0),
        T::rocblas_datatype_f64_r => Ok(1),
        T::rocblas_datatype_f16_r => Ok(2),
        T::rocblas_datatype_f32_c => Ok(4),
        T::rocblas_datatype_f64_c => Ok(5),
        T::rocblas_datatype_bf16_r => Ok(14),
        _ => Err(rocblas_status::rocblas_status_not_implemented),
    }
}

/// The `cublasComputeType_t` of a rocBLAS compute type, on a handle whose
/// math mode is XF32 or not; the combinations rocBLAS's `gemm_ex` has
/// (A = B, C = D; f16/bf16 inputs compute in f32).
pub(super) fn compute_type(types: [rocblas_datatype; 5], xf32: bool) -> Result<c_int, rocblas_status> {
    use rocblas_datatype as T;
    let [a, b, c, d, compute] = types;
    if a != b || c != d {
        return Err(rocblas_status::rocblas_status_not_implemented);
    }
    let all_f32 = a == T::rocblas_datatype_f32_r && c == T::rocblas_datatype_f32_r;
    match (a, c, compute) {
        (T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r)
        | (T::rocblas_datatype_f32_c, T::rocblas_datatype_f32_c, T::rocblas_datatype_f32_c)
        | (T::rocblas_datatype_f16_r, T::rocblas_datatype_f16_r, T::rocblas_datatype_f32_r)
        | (T::rocblas_datatype_f16_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r)
        | (T::rocblas_datatype_bf16_r, T::rocblas_datatype_bf16_r, T::rocblas_datatype_f32_r)
        | (T::rocblas_datatype_bf16_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r) => {
            Ok(if xf32 && all_f32 { COMPUTE_32F_FAST_TF32 } else { COMPUTE_32F })
        }
        (T::rocblas_datatype_f64_r, T::rocblas_datatype_f64_r, T::rocblas_datatype_f64_r)
        | (T::rocblas_datatype_f64_c, T::rocblas_datatype_f64_c, T::rocblas_datatype_f64_c) => Ok(COMPUTE_64F),
        _ => Err(rocblas_status::rocblas_status_not_implemented),
    }
}

/// `CUBLAS_COMPUTE_32F`, `CUBLAS_COMPUTE_32F_FAST_TF32`, `CUBLAS_COMPUTE_64F`.
pub(super) const COMPUTE_32F: c_int = 68;
pub(super) const COMPUTE_32F_FAST_TF32: c_int = 77;
pub(super) const COMPUTE_64F: c_int = 70;
/// `CUBLAS_DEFAULT_MATH`, `CUBLAS_TF32_TENSOR_OP_MATH`.
pub(super) const DEFAULT_MATH: c_int = 0;
pub(super) const TF32_TENSOR_OP_MATH: c_int = 3;

/// Each handle's workspace (cuBLAS forgets it on a stream change).
static WORKSPACES: Mutex<Option<HashMap<usize, (usize, usize)>>> = Mutex::new(None);

fn workspaces() -> std::sync::MutexGuard<'static, Option<HashMap<usize, (usize, usize)>>> {
    WORKSPACES.lock_unpoisoned()
}

/// The workspace the caller gave `handle` (`rocblas_set_workspace`), as
/// address and size; `None` if it gave none (or size 0).
pub(in crate::backend::nvidia) fn user_workspace(handle: rocblas_handle) -> Option<(usize, usize)> {
    workspaces().as_ref().and_then(|m| m.get(&(handle as usize)).copied()).filter(|&(ptr, size)| ptr != 0 && size > 0)
}

/// The handles with a device memory size query underway, each with the
/// largest need collected so far.
static QUERIES: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

/// What rocBLAS rounds every workspace piece up to
/// (`rocblas_handle::roundup_device_memory_size`).
pub(in crate::backend::nvidia) const DEVICE_MEMORY_GRANULE: usize = 64;

/// Whether a device memory size query is underway on `handle`.
pub(in crate::backend::nvidia) fn querying(handle: rocblas_handle) -> bool {
    QUERIES.lock_unpoisoned().as_ref().is_some_and(|m| m.contains_key(&(handle as usize)))
}

/// Collect a call's workspace `need` into `handle`'s query: the status the
/// call answers, `size_increased` or `size_unchanged`
/// (`rocblas_set_optimal_device_memory_size`).
pub(in crate::backend::nvidia) fn collect(handle: rocblas_handle, need: usize) -> rocblas_status {
    let need = need.div_ceil(DEVICE_MEMORY_GRANULE) * DEVICE_MEMORY_GRANULE;
    let mut queries = QUERIES.lock_unpoisoned();
    match queries.as_mut().and_then(|m| m.get_mut(&(handle as usize))) {
        Some(most) if need > *most => {
            *most = need;
            rocblas_status::rocblas_status_size_increased
        }
        _ => rocblas_status::rocblas_status_size_unchanged,
    }
}

/// The CUDA stream `handle` is bound to.
pub(in crate::backend::nvidia) fn cuda_stream(handle: rocblas_handle) -> Result<*mut c_void, rocblas_status> {
    let h = live(handle)?;
    let mut raw: *mut c_void = std::ptr::null_mut();
    // SAFETY: a live handle and a valid out-pointer.
    ok("cublasGetStream_v2", unsafe { (fns()?.api.cublasGetStream)(h, &mut raw) })?;
    Ok(raw)
}

// ---- handles -----------------------------------------------------------------

unsafe extern "C" fn rocblas_create_handle(handle: *mut rocblas_handle) -> rocblas_status {
    entry(|| {
        let f = fns()?;
        if handle.is_null() {
            return Err(rocblas_status::rocblas_status_invalid_handle);
        }
        // SAFETY: non-null and valid for a write of a handle (C contract).
        ok("cublasCreate_v2", unsafe { (f.api.cublasCreate)(handle.cast()) })
    })
}

/// What another mapping does when a rocBLAS handle is destroyed, for what
/// it keeps beside the handle (rocSOLVER's cuSOLVER handle): registered by
/// that mapping, so that this one names none of them.
type DestroyHook = fn(rocblas_handle) -> Result<(), rocblas_status>;

static DESTROY_HOOKS: Mutex<Vec<DestroyHook>> = Mutex::new(Vec::new());

/// Run `hook` on every rocBLAS handle destroyed from now on (once, however
/// often it is registered).
pub(in crate::backend::nvidia) fn on_destroy(hook: DestroyHook) {
    let mut hooks = DESTROY_HOOKS.lock_unpoisoned();
    if !hooks.iter().any(|h| std::ptr::fn_addr_eq(*h, hook)) {
        hooks.push(hook);
    }
}

unsafe extern "C" fn rocblas_destroy_handle(handle: rocblas_handle) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        if let Some(map) = workspaces().as_mut() {
            map.remove(&(handle as usize));
        }
        if let Some(map) = QUERIES.lock_unpoisoned().as_mut() {
            map.remove(&(handle as usize));
        }
        // What other mappings made beside it (rocSOLVER's cuSOLVER handle).
        let hooks = DESTROY_HOOKS.lock_unpoisoned().clone();
        hooks.iter().try_for_each(|forget| forget(handle))?;
        // SAFETY: a live handle, destroyed once (C contract).
        ok("cublasDestroy_v2", unsafe { (fns()?.api.cublasDestroy)(h) })
    })
}

unsafe extern "C" fn rocblas_set_stream(
    handle: rocblas_handle,
    stream: crate::bindings::hip::hipStream_t,
) -> rocblas_status {
    entry(|| {
        let (h, f) = (live(handle)?, fns()?);
        let stream = crate::backend::nvidia::objects::stream_of(stream)
            .map_err(|_| rocblas_status::rocblas_status_invalid_value)?;
        // SAFETY: a live handle and the HIP stream's CUDA stream.
        ok("cublasSetStream_v2", unsafe { (f.api.cublasSetStream)(h, stream.cast()) })?;
        let kept = workspaces().as_ref().and_then(|m| m.get(&(handle as usize)).copied());
        if let Some((ptr, size)) = kept {
            // SAFETY: the workspace the caller gave for this handle, still
            // theirs to keep valid (rocBLAS's contract).
            ok("cublasSetWorkspace_v2", unsafe { (f.api.cublasSetWorkspace)(h, ptr as *mut c_void, size) })?;
        }
        Ok(())
    })
}

unsafe extern "C" fn rocblas_get_stream(
    handle: rocblas_handle,
    stream: *mut crate::bindings::hip::hipStream_t,
) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        if stream.is_null() {
            return Err(rocblas_status::rocblas_status_invalid_pointer);
        }
        let mut raw: *mut c_void = std::ptr::null_mut();
        // SAFETY: a live handle and a valid out-pointer.
        ok("cublasGetStream_v2", unsafe { (fns()?.api.cublasGetStream)(h, (&mut raw as *mut *mut c_void).cast()) })?;
        // SAFETY: checked non-null; the caller's out-pointer.
        unsafe { stream.write(crate::backend::nvidia::objects::hip_stream_of(raw)) };
        Ok(())
    })
}

unsafe extern "C" fn rocblas_set_pointer_mode(handle: rocblas_handle, mode: rocblas_pointer_mode) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        if mode.0 > 1 {
            return Err(rocblas_status::rocblas_status_invalid_value);
        }
        // SAFETY: a live handle; host 0 and device 1 on both libraries.
        ok("cublasSetPointerMode_v2", unsafe { (fns()?.api.cublasSetPointerMode)(h, mode.0 as c_int) })
    })
}

unsafe extern "C" fn rocblas_get_pointer_mode(
    handle: rocblas_handle,
    mode: *mut rocblas_pointer_mode,
) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        if mode.is_null() {
            return Err(rocblas_status::rocblas_status_invalid_pointer);
        }
        let mut raw: c_int = 0;
        // SAFETY: a live handle and a valid out-pointer.
        ok("cublasGetPointerMode_v2", unsafe { (fns()?.api.cublasGetPointerMode)(h, &mut raw) })?;
        // SAFETY: non-null, valid for a write (C contract).
        unsafe { mode.write(rocblas_pointer_mode(raw as u32)) };
        Ok(())
    })
}

unsafe extern "C" fn rocblas_set_workspace(handle: rocblas_handle, addr: *mut c_void, size: usize) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        let size = if addr.is_null() { 0 } else { size };
        // SAFETY: a live handle; the memory is the caller's to keep valid.
        ok("cublasSetWorkspace_v2", unsafe { (fns()?.api.cublasSetWorkspace)(h, addr, size) })?;
        workspaces().get_or_insert_with(HashMap::new).insert(handle as usize, (addr as usize, size));
        Ok(())
    })
}

unsafe extern "C" fn rocblas_start_device_memory_size_query(handle: rocblas_handle) -> rocblas_status {
    entry(|| {
        live(handle)?;
        let mut queries = QUERIES.lock_unpoisoned();
        let map = queries.get_or_insert_with(HashMap::new);
        if map.contains_key(&(handle as usize)) {
            return Err(rocblas_status::rocblas_status_size_query_mismatch);
        }
        map.insert(handle as usize, 0);
        Ok(())
    })
}

unsafe extern "C" fn rocblas_stop_device_memory_size_query(handle: rocblas_handle, size: *mut usize) -> rocblas_status {
    entry(|| {
        live(handle)?;
        // A query must be underway, then `size` must be given; a null
        // `size` leaves the query running (rocBLAS's handle.cpp).
        let mut queries = QUERIES.lock_unpoisoned();
        let map = queries.as_mut().filter(|m| m.contains_key(&(handle as usize)));
        let map = map.ok_or(rocblas_status::rocblas_status_size_query_mismatch)?;
        if size.is_null() {
            return Err(rocblas_status::rocblas_status_invalid_pointer);
        }
        let most = map.remove(&(handle as usize)).unwrap_or(0);
        // SAFETY: checked non-null; valid for a write (C contract).
        unsafe { size.write(most) };
        Ok(())
    })
}

unsafe extern "C" fn rocblas_get_version_string_size(len: *mut usize) -> rocblas_status {
    entry(|| {
        let text = VERSION.get().ok_or(rocblas_status::rocblas_status_internal_error)?;
        // SAFETY: null or valid for a write (C contract).
        unsafe { version_string::size(text, len) }
    })
}

unsafe extern "C" fn rocblas_get_version_string(buf: *mut c_char, len: usize) -> rocblas_status {
    entry(|| {
        let text = VERSION.get().ok_or(rocblas_status::rocblas_status_internal_error)?;
        // SAFETY: null or valid for `len` bytes (C contract).
        unsafe { version_string::write(text, buf, len) }
    })
}

unsafe extern "C" fn rocblas_set_math_mode(handle: rocblas_handle, mode: rocblas_math_mode) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        let cublas = match mode {
            rocblas_math_mode::rocblas_default_math => DEFAULT_MATH,
            rocblas_math_mode::rocblas_xf32_xdl_math_op => TF32_TENSOR_OP_MATH,
            // rocBLAS ignores a mode it does not support and succeeds.
            _ => return Ok(()),
        };
        // SAFETY: a live handle.
        ok("cublasSetMathMode", unsafe { (fns()?.api.cublasSetMathMode)(h, cublas) })
    })
}

/// Whether the handle computes f32 GEMMs in TF32.
fn xf32(h: Handle) -> Result<bool, rocblas_status> {
    let mut raw: c_int = 0;
    // SAFETY: a live handle and a valid out-pointer.
    ok("cublasGetMathMode", unsafe { (fns()?.api.cublasGetMathMode)(h, &mut raw) })?;
    Ok(raw & 0xf == TF32_TENSOR_OP_MATH)
}

unsafe extern "C" fn rocblas_get_math_mode(handle: rocblas_handle, mode: *mut rocblas_math_mode) -> rocblas_status {
    entry(|| {
        let h = live(handle)?;
        if mode.is_null() {
            return Err(rocblas_status::rocblas_status_invalid_pointer);
        }
        let value = if xf32(h)? {
            rocblas_math_mode::rocblas_xf32_xdl_math_op
        } else {
            rocblas_math_mode::rocblas_default_math
        };
        // SAFETY: non-null, valid for a write (C contract).
        unsafe { mode.write(value) };
        Ok(())
    })
}

/// The rocBLAS table over cuBLAS.
static ROCBLAS_OVER_CUBLAS: RocblasApi = RocblasApi {
    rocblas_create_handle,
    rocblas_destroy_handle,
    rocblas_set_stream,
    rocblas_get_stream,
    rocblas_set_pointer_mode,
    rocblas_get_pointer_mode,
    rocblas_set_workspace,
    rocblas_start_device_memory_size_query,
    rocblas_stop_device_memory_size_query,
    rocblas_get_version_string,
    rocblas_get_version_string_size,
    rocblas_set_math_mode,
    rocblas_get_math_mode,
    rocblas_sgemm: gemm::<f32>,
    rocblas_dgemm: gemm::<f64>,
    rocblas_cgemm: gemm::<C32>,
    rocblas_zgemm: gemm::<C64>,
    rocblas_sgemm_strided_batched: gemm_strided_batched::<f32>,
    rocblas_dgemm_strided_batched: gemm_strided_batched::<f64>,
    rocblas_cgemm_strided_batched: gemm_strided_batched::<C32>,
    rocblas_zgemm_strided_batched: gemm_strided_batched::<C64>,
    rocblas_gemm_ex,
    rocblas_gemm_strided_batched_ex,
    rocblas_sgemv: gemv::<f32>,
    rocblas_dgemv: gemv::<f64>,
    rocblas_cgemv: gemv::<C32>,
    rocblas_zgemv: gemv::<C64>,
    rocblas_saxpy: axpy::<f32>,
    rocblas_daxpy: axpy::<f64>,
    rocblas_caxpy: axpy::<C32>,
    rocblas_zaxpy: axpy::<C64>,
    rocblas_sdot: dot::<f32, false>,
    rocblas_ddot: dot::<f64, false>,
    rocblas_cdotu: dot::<C32, false>,
    rocblas_zdotu: dot::<C64, false>,
    rocblas_cdotc: dot::<C32, true>,
    rocblas_zdotc: dot::<C64, true>,
    rocblas_snrm2: nrm2::<f32>,
    rocblas_dnrm2: nrm2::<f64>,
    rocblas_scnrm2: nrm2::<C32>,
    rocblas_dznrm2: nrm2::<C64>,
    rocblas_sscal: scal::<f32>,
    rocblas_dscal: scal::<f64>,
    rocblas_cscal: scal::<C32>,
    rocblas_zscal: scal::<C64>,
};

#[cfg(test)]
mod tests {
    use super::*;
    use rocblas_datatype as T;

    #[test]
    fn enums_translate_to_cublas_numbers() {
        assert_eq!(operation(rocblas_operation::rocblas_operation_none), Ok(0));
        assert_eq!(operation(rocblas_operation::rocblas_operation_conjugate_transpose), Ok(2));
        assert_eq!(operation(rocblas_operation(5)), Err(rocblas_status::rocblas_status_invalid_value));
        assert_eq!(datatype(T::rocblas_datatype_bf16_r), Ok(14));
        assert_eq!(datatype(T::rocblas_datatype_f16_r), Ok(2));
        assert_eq!(datatype(T::rocblas_datatype_i8_r), Err(rocblas_status::rocblas_status_not_implemented));
    }

    #[test]
    fn compute_types_follow_rocblas_combinations_and_the_math_mode() {
        let f32s = [T::rocblas_datatype_f32_r; 5];
        assert_eq!(compute_type(f32s, false), Ok(68));
        assert_eq!(compute_type(f32s, true), Ok(77), "XF32 math is TF32");
        let bf16 = [
            T::rocblas_datatype_bf16_r,
            T::rocblas_datatype_bf16_r,
            T::rocblas_datatype_bf16_r,
            T::rocblas_datatype_bf16_r,
            T::rocblas_datatype_f32_r,
        ];
        assert_eq!(compute_type(bf16, true), Ok(68), "XF32 concerns f32 data only");
        assert_eq!(compute_type([T::rocblas_datatype_f64_r; 5], false), Ok(70));
        let half_compute = [T::rocblas_datatype_f16_r; 5];
        assert_eq!(compute_type(half_compute, false), Err(rocblas_status::rocblas_status_not_implemented));
        let mixed = [
            T::rocblas_datatype_f16_r,
            T::rocblas_datatype_bf16_r,
            T::rocblas_datatype_f32_r,
            T::rocblas_datatype_f32_r,
            T::rocblas_datatype_f32_r,
        ];
        assert_eq!(compute_type(mixed, false), Err(rocblas_status::rocblas_status_not_implemented));
    }

    #[test]
    fn statuses_map_to_rocblas_meanings() {
        assert_eq!(to_rocblas(3), rocblas_status::rocblas_status_memory_error);
        assert_eq!(to_rocblas(15), rocblas_status::rocblas_status_not_implemented);
        assert_eq!(to_rocblas(13), rocblas_status::rocblas_status_internal_error);
        assert_eq!(status_name(7), "CUBLAS_STATUS_INVALID_VALUE");
    }

    #[test]
    fn a_missing_cublas_names_every_candidate() {
        let err = open_cublas(&["/nonexistent/libcublas.so.13".to_owned()]).err();
        match err {
            Some(BackendError::LibraryNotFound { library, tried, hint }) => {
                assert_eq!(library, "libcublas");
                assert_eq!(tried.len(), 1);
                assert!(hint.contains("AMDGPU_BACKEND=sim"), "{hint}");
            }
            other => panic!("{other:?}"),
        }
        let err = open_cublas(&["libm.so.6".to_owned()]).err();
        assert!(matches!(err, Some(BackendError::SymbolMissing { ref symbol, .. }) if symbol == "cublasCreate_v2"));
    }
}
