//! rocBLAS in the simulator: handles, GEMM (plain, strided batched and
//! `_ex` with half and bfloat16), GEMV and the level 1 functions of the
//! table, computed on the CPU in the operands' precision, as rocBLAS 4.x
//! (ROCm 6.x) does.
//!
//! - `rocblas_get_version_string` reports `4.1.0.sim`.
//! - Every call checks its arguments with rocBLAS's own rules and order
//!   (`rocblas_rules`): a bad size is `invalid_size`, a null operand the
//!   computation uses `invalid_pointer`, an empty problem returns first.
//! - **Device rule**: a handle belongs to the device current at creation;
//!   a call while another device is current is a context violation, and a
//!   stream of another device is `invalid_value` when the work is queued.
//! - **Pointer mode** host only: `rocblas_pointer_mode_device` is
//!   `not_implemented` (stricter than rocBLAS, which has both). Results of
//!   `dot` and `nrm2` are written to host memory once the work ran, so
//!   those calls wait for the handle's stream, as rocBLAS's do.
//! - **Workspace**: a handle owns no device memory until a function needs
//!   some; then, unless [`rocblas_set_workspace`] gave it memory, it
//!   allocates [`MANAGED_WORKSPACE`] bytes on its device, or what the call
//!   needs if that is more, freeing the smaller memory first with a device
//!   synchronization and refusing inside a capture, as rocBLAS does
//!   (rocBLAS allocates 32 MiB at first; freed with the handle). Every need
//!   is rounded up to [`DEVICE_MEMORY_GRANULE`] bytes. GEMMs use the first
//!   [`GEMM_WORKSPACE`] bytes, `dot` and `nrm2` the first
//!   [`REDUCTION_WORKSPACE`]: they are written by the work on the
//!   handle's stream, so the race detector sees two streams sharing one
//!   handle's workspace without ordering, the hazard rocBLAS's guide warns
//!   of when a handle changes stream. A workspace given by the caller that
//!   is smaller than a function's need is `memory_error`; one that is not
//!   device memory of the handle's device is `invalid_pointer` (rocBLAS
//!   would fault later).
//! - **Size queries**: between `rocblas_start_device_memory_size_query`
//!   and `rocblas_stop_device_memory_size_query` a call that needs
//!   workspace computes nothing: it collects its need and answers
//!   `size_increased` or `size_unchanged` (rocSOLVER's calls too); a nested
//!   start, or a stop without a start, is `size_query_mismatch`.
//! - **Math mode**: `rocblas_xf32_xdl_math_op` is accepted (the simulated
//!   device has XF32, as gfx94x does); f32 GEMMs then round A and B to
//!   TF32 (10-bit mantissa, round to nearest even) before multiplying.
//! - `gemm_ex`: A and B of one type, C and D of one type, and the
//!   combinations f32 (compute f32), f64 (f64), complex f32 and f64, f16 or
//!   bf16 in with f16/bf16 or f32 out and f32 compute. Others, compute f16
//!   among them, are `not_implemented`. C and D may differ; if they are the
//!   same memory, `ldc` must equal `ldd` (`invalid_size`).

#![allow(non_snake_case, clippy::too_many_arguments)]

mod elem;
mod gemm;
mod vector;

pub(crate) use elem::matrix_len;
pub(crate) use gemm::*;
use vector::*;

use super::library::{accesses, call, span, write_out, Span};
use crate::bindings::rocblas::*;
use crate::machine::queue::Target;
use crate::machine::sim;
use crate::machine::violations;
use crate::machine::violations::AccessKind;
use crate::shared::rocblas_rules::{self as rules, GemmShape, Next};
use crate::shared::version_string;
use crate::{submit, targets};
use half::{bf16, f16};
use std::ffi::{c_char, c_void};

type Status = rocblas_status;
const OK: Status = rocblas_status::rocblas_status_success;
const INTERNAL: Status = rocblas_status::rocblas_status_internal_error;
const INVALID_HANDLE: Status = rocblas_status::rocblas_status_invalid_handle;
const INVALID_POINTER: Status = rocblas_status::rocblas_status_invalid_pointer;
const INVALID_SIZE: Status = rocblas_status::rocblas_status_invalid_size;
const INVALID_VALUE: Status = rocblas_status::rocblas_status_invalid_value;
const NOT_IMPLEMENTED: Status = rocblas_status::rocblas_status_not_implemented;
const MEMORY_ERROR: Status = rocblas_status::rocblas_status_memory_error;

/// The device memory a handle allocates for itself at first need.
pub const MANAGED_WORKSPACE: usize = 1 << 20;
/// The workspace every GEMM writes.
pub const GEMM_WORKSPACE: usize = 4096;
/// The workspace `dot` and `nrm2` write.
pub const REDUCTION_WORKSPACE: usize = 1024;

const VERSION: &str = "4.1.0.sim";

/// Where a handle's workspace is.
#[derive(Clone, Copy)]
enum Workspace {
    /// The handle allocates its own, at first need (`Some((base, size))`
    /// after), and again, larger, when a call needs more.
    Managed(Option<(usize, usize)>),
    /// Memory the caller gave (`rocblas_set_workspace`); none if size 0.
    User { ptr: usize, size: usize },
}

/// A `rocblas_handle`.
pub(crate) struct Handle {
    stream: usize,
    xf32: bool,
    workspace: Workspace,
    /// The largest need collected so far while a device memory size
    /// query is underway (`rocblas_start_device_memory_size_query`).
    query: Option<usize>,
}

/// What rocBLAS rounds every workspace piece up to
/// (`rocblas_handle::roundup_device_memory_size`).
pub(crate) const DEVICE_MEMORY_GRANULE: usize = 64;

fn handle_device(function: &'static str, handle: rocblas_handle) -> Result<usize, Status> {
    if handle.is_null() {
        return Err(INVALID_HANDLE);
    }
    let device = OBJECTS.with(handle as usize, |o| o.device).ok_or(INVALID_HANDLE)?;
    violations::check(function, device);
    Ok(device)
}

/// A handle's state for one computation: its stream's queue, its math
/// mode, and `need` bytes of its workspace (allocated if it manages it).
pub(crate) struct Bound {
    pub(crate) target: Target,
    pub(crate) xf32: bool,
    pub(crate) workspace: Option<Span>,
}

/// Whether a device memory size query is underway on `handle`
/// (`rocblas_is_device_memory_size_query`).
pub(crate) fn querying(handle: rocblas_handle) -> bool {
    OBJECTS.with(handle as usize, |o| o.kind.query.is_some()).unwrap_or(false)
}

/// Bind `handle` for a computation needing `need` bytes of workspace.
///
/// During a size query nothing is bound: the need is collected and the
/// call answers `size_increased` or `size_unchanged`, as every rocBLAS and
/// rocSOLVER function does then (`rocblas_set_optimal_device_memory_size`).
pub(crate) fn bind(function: &'static str, handle: rocblas_handle, need: usize) -> Result<Bound, Status> {
    let device = handle_device(function, handle)?;
    let need = need.div_ceil(DEVICE_MEMORY_GRANULE) * DEVICE_MEMORY_GRANULE;
    let (stream, xf32, workspace, query) = OBJECTS
        .with(handle as usize, |o| {
            let h = &mut o.kind;
            let query = h.query.map(|most| {
                h.query = Some(most.max(need));
                need > most
            });
            (h.stream, h.xf32, h.workspace, query)
        })
        .ok_or(INVALID_HANDLE)?;
    match query {
        Some(true) => return Err(rocblas_status::rocblas_status_size_increased),
        Some(false) => return Err(rocblas_status::rocblas_status_size_unchanged),
        None => {}
    }
    let target = if stream == 0 {
        targets::null_target(device).map_err(|_| INTERNAL)?
    } else {
        targets::target(stream as crate::bindings::hip::hipStream_t).map_err(|_| INVALID_VALUE)?
    };
    if target.device != device {
        return Err(INVALID_VALUE);
    }
    let workspace = if need == 0 {
        None
    } else {
        let base = match workspace {
            Workspace::User { size, .. } if size < need => return Err(MEMORY_ERROR),
            Workspace::User { ptr, .. } => ptr,
            Workspace::Managed(Some((base, size))) if size >= need => base,
            Workspace::Managed(old) => {
                // rocBLAS frees the smaller memory and allocates more
                // (`hipFree`, which waits for the device, and `hipMalloc`,
                // which a capture refuses).
                crate::machine::capture::check_allocation().map_err(|_| MEMORY_ERROR)?;
                if old.is_some() {
                    let _ = crate::submit::synchronize_device(function, device);
                    release_managed(device, Workspace::Managed(old));
                }
                let size = need.max(MANAGED_WORKSPACE);
                let memory = &sim().device(device).ok_or(INTERNAL)?.memory;
                let base = memory.allocate(size).map_err(|_| MEMORY_ERROR)?.base;
                OBJECTS.with(handle as usize, |o| o.kind.workspace = Workspace::Managed(Some((base, size))));
                base
            }
        };
        Some(span(base, need).ok_or(MEMORY_ERROR)?)
    };
    Ok(Bound { target, xf32, workspace })
}

// ---- handles -----------------------------------------------------------------

pub(crate) unsafe extern "C" fn rocblas_create_handle(handle: *mut rocblas_handle) -> Status {
    call("rocblas_create_handle", OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        // rocBLAS's handle constructor allocates its default device memory
        // with hipMalloc (its handle.cpp): a capture refuses (and, from HIP
        // 6, is invalidated) as that call would; the library reports the
        // failed HIP call as an internal error. (The memory itself is
        // modelled as allocated when first needed.)
        crate::machine::capture::check_allocation().map_err(|_| INTERNAL)?;
        let h = OBJECTS.insert(Handle { stream: 0, xf32: false, workspace: Workspace::Managed(None), query: None });
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(handle, h as rocblas_handle, INVALID_HANDLE) }
    })
}

fn release_managed(device: usize, workspace: Workspace) {
    if let (Workspace::Managed(Some((base, _))), Some(d)) = (workspace, sim().device(device)) {
        let _ = d.memory.release(base);
    }
}

pub(crate) unsafe extern "C" fn rocblas_destroy_handle(handle: rocblas_handle) -> Status {
    call("rocblas_destroy_handle", OK, INTERNAL, || {
        let object = OBJECTS.remove_if(handle as usize, |_| true).ok_or(INVALID_HANDLE)?;
        violations::check("rocblas_destroy_handle", object.device);
        // rocBLAS's destroy synchronizes the device before freeing.
        let _ = crate::submit::synchronize_device("rocblas_destroy_handle", object.device);
        release_managed(object.device, object.kind.workspace);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_set_stream(
    handle: rocblas_handle,
    stream: crate::bindings::hip::hipStream_t,
) -> Status {
    call("rocblas_set_stream", OK, INTERNAL, || {
        handle_device("rocblas_set_stream", handle)?;
        // rocBLAS checks a new stream with hipStreamQuery: an unknown one
        // is `invalid_value`.
        if !stream.is_null() {
            targets::target(stream).map_err(|_| INVALID_VALUE)?;
        }
        OBJECTS.with(handle as usize, |o| o.kind.stream = stream as usize);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_stream(
    handle: rocblas_handle,
    stream: *mut crate::bindings::hip::hipStream_t,
) -> Status {
    call("rocblas_get_stream", OK, INTERNAL, || {
        handle_device("rocblas_get_stream", handle)?;
        let s = OBJECTS.with(handle as usize, |o| o.kind.stream).unwrap_or(0);
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(stream, s as crate::bindings::hip::hipStream_t, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocblas_set_pointer_mode(handle: rocblas_handle, mode: rocblas_pointer_mode) -> Status {
    call("rocblas_set_pointer_mode", OK, INTERNAL, || {
        handle_device("rocblas_set_pointer_mode", handle)?;
        match mode {
            rocblas_pointer_mode::rocblas_pointer_mode_host => Ok(()),
            rocblas_pointer_mode::rocblas_pointer_mode_device => Err(NOT_IMPLEMENTED),
            _ => Err(INVALID_VALUE),
        }
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_pointer_mode(
    handle: rocblas_handle,
    mode: *mut rocblas_pointer_mode,
) -> Status {
    call("rocblas_get_pointer_mode", OK, INTERNAL, || {
        handle_device("rocblas_get_pointer_mode", handle)?;
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(mode, rocblas_pointer_mode::rocblas_pointer_mode_host, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocblas_set_workspace(
    handle: rocblas_handle,
    addr: *mut c_void,
    size: usize,
) -> Status {
    call("rocblas_set_workspace", OK, INTERNAL, || {
        let device = handle_device("rocblas_set_workspace", handle)?;
        let workspace = if addr.is_null() || size == 0 {
            Workspace::User { ptr: 0, size: 0 }
        } else {
            let region = span(addr as usize, size).ok_or(INVALID_POINTER)?;
            if region.device() != Some(device) {
                return Err(INVALID_POINTER);
            }
            Workspace::User { ptr: addr as usize, size }
        };
        let owned = OBJECTS
            .with(handle as usize, |o| matches!(o.kind.workspace, Workspace::Managed(Some(_))))
            .ok_or(INVALID_HANDLE)?;
        if owned {
            // rocBLAS frees memory it allocated itself (`hipFree`, which a
            // capture refuses, and which waits for the device's work);
            // memory the caller gave is only forgotten.
            crate::machine::capture::check_allocation().map_err(|_| INTERNAL)?;
            let _ = crate::submit::synchronize_device("rocblas_set_workspace", device);
        }
        let old = OBJECTS.with(handle as usize, |o| std::mem::replace(&mut o.kind.workspace, workspace));
        if let Some(old) = old {
            release_managed(device, old);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_start_device_memory_size_query(handle: rocblas_handle) -> Status {
    call("rocblas_start_device_memory_size_query", OK, INTERNAL, || {
        handle_device("rocblas_start_device_memory_size_query", handle)?;
        OBJECTS
            .with(handle as usize, |o| match &mut o.kind {
                h if h.query.is_some() => Err(rocblas_status::rocblas_status_size_query_mismatch),
                h => {
                    h.query = Some(0);
                    Ok(())
                }
            })
            .unwrap_or(Err(INVALID_HANDLE))
    })
}

pub(crate) unsafe extern "C" fn rocblas_stop_device_memory_size_query(
    handle: rocblas_handle,
    size: *mut usize,
) -> Status {
    call("rocblas_stop_device_memory_size_query", OK, INTERNAL, || {
        handle_device("rocblas_stop_device_memory_size_query", handle)?;
        // A query must be underway, then `size` must be given; a null
        // `size` leaves the query running (rocBLAS's handle.cpp).
        let most = OBJECTS
            .with(handle as usize, |o| match o.kind.query {
                None => Err(rocblas_status::rocblas_status_size_query_mismatch),
                Some(_) if size.is_null() => Err(INVALID_POINTER),
                Some(_) => Ok(o.kind.query.take().unwrap_or(0)),
            })
            .unwrap_or(Err(INVALID_HANDLE))?;
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(size, most, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_version_string_size(len: *mut usize) -> Status {
    // SAFETY: null or valid for a write (C contract).
    call("rocblas_get_version_string_size", OK, INTERNAL, || unsafe { version_string::size(VERSION, len) })
}

pub(crate) unsafe extern "C" fn rocblas_get_version_string(buf: *mut c_char, len: usize) -> Status {
    // SAFETY: null or valid for `len` bytes (C contract).
    call("rocblas_get_version_string", OK, INTERNAL, || unsafe { version_string::write(VERSION, buf, len) })
}

pub(crate) unsafe extern "C" fn rocblas_set_math_mode(handle: rocblas_handle, mode: rocblas_math_mode) -> Status {
    call("rocblas_set_math_mode", OK, INTERNAL, || {
        handle_device("rocblas_set_math_mode", handle)?;
        let xf32 = match mode {
            rocblas_math_mode::rocblas_default_math => false,
            rocblas_math_mode::rocblas_xf32_xdl_math_op => true,
            // rocBLAS ignores a mode it does not support and succeeds.
            _ => return Ok(()),
        };
        OBJECTS.with(handle as usize, |o| o.kind.xf32 = xf32);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_math_mode(handle: rocblas_handle, mode: *mut rocblas_math_mode) -> Status {
    call("rocblas_get_math_mode", OK, INTERNAL, || {
        handle_device("rocblas_get_math_mode", handle)?;
        let xf32 = OBJECTS.with(handle as usize, |o| o.kind.xf32).unwrap_or(false);
        let value =
            if xf32 { rocblas_math_mode::rocblas_xf32_xdl_math_op } else { rocblas_math_mode::rocblas_default_math };
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(mode, value, INVALID_POINTER) }
    })
}

/// The simulator's rocBLAS table.
pub(crate) static SIM_ROCBLAS: RocblasApi = RocblasApi {
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
    rocblas_sgemm: gemm_typed::<f32>,
    rocblas_dgemm: gemm_typed::<f64>,
    rocblas_cgemm: gemm_typed::<[f32; 2]>,
    rocblas_zgemm: gemm_typed::<[f64; 2]>,
    rocblas_sgemm_strided_batched: gemm_strided::<f32>,
    rocblas_dgemm_strided_batched: gemm_strided::<f64>,
    rocblas_cgemm_strided_batched: gemm_strided::<[f32; 2]>,
    rocblas_zgemm_strided_batched: gemm_strided::<[f64; 2]>,
    rocblas_gemm_ex,
    rocblas_gemm_strided_batched_ex,
    rocblas_sgemv: gemv_typed::<f32>,
    rocblas_dgemv: gemv_typed::<f64>,
    rocblas_cgemv: gemv_typed::<[f32; 2]>,
    rocblas_zgemv: gemv_typed::<[f64; 2]>,
    rocblas_saxpy: axpy::<f32>,
    rocblas_daxpy: axpy::<f64>,
    rocblas_caxpy: axpy::<[f32; 2]>,
    rocblas_zaxpy: axpy::<[f64; 2]>,
    rocblas_sdot: dot::<f32, false>,
    rocblas_ddot: dot::<f64, false>,
    rocblas_cdotu: dot::<[f32; 2], false>,
    rocblas_zdotu: dot::<[f64; 2], false>,
    rocblas_cdotc: dot::<[f32; 2], true>,
    rocblas_zdotc: dot::<[f64; 2], true>,
    rocblas_snrm2: nrm2::<f32>,
    rocblas_dnrm2: nrm2::<f64>,
    rocblas_scnrm2: nrm2::<[f32; 2]>,
    rocblas_dznrm2: nrm2::<[f64; 2]>,
    rocblas_sscal: scal::<f32>,
    rocblas_dscal: scal::<f64>,
    rocblas_cscal: scal::<[f32; 2]>,
    rocblas_zscal: scal::<[f64; 2]>,
};

/// rocBLAS's handles, where they are kept.
pub(crate) static OBJECTS: crate::library::Registry<Handle> = crate::library::Registry::new();

#[cfg(test)]
mod tests {
    use super::elem::{matrix_len, to_tf32};
    use super::gemm::extent_elems;
    use super::*;

    #[test]
    fn tf32_keeps_ten_mantissa_bits_rounding_to_nearest_even() {
        assert_eq!(to_tf32(1.0), 1.0);
        let ulp = 1.0 / 1024.0;
        assert_eq!(to_tf32(1.0 + ulp), 1.0 + ulp);
        assert_eq!(to_tf32(1.0 + ulp / 4.0), 1.0, "below half rounds down");
        assert_eq!(to_tf32(1.0 + 3.0 * ulp / 4.0), 1.0 + ulp, "above half rounds up");
        assert_eq!(to_tf32(1.0 + ulp / 2.0), 1.0, "a tie goes to even");
        assert_eq!(to_tf32(1.0 + 3.0 * ulp / 2.0), 1.0 + 2.0 * ulp, "a tie goes to even");
        assert!(to_tf32(f32::NAN).is_nan());
        assert_eq!(to_tf32(f32::INFINITY), f32::INFINITY);
    }

    #[test]
    fn matrix_extents_follow_the_leading_dimension() {
        assert_eq!(matrix_len(3, 2, 5), 8);
        assert_eq!(matrix_len(0, 2, 5), 0);
        assert_eq!(extent_elems(3, 10, 8), 28);
        assert_eq!(extent_elems(3, 10, 0), 0);
    }

    #[test]
    fn current_device_is_read_for_new_handles() {
        // A handle records the device current at creation (the registry's rule).
        let _guard = crate::exclusive();
        let mut h: rocblas_handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        assert_eq!(unsafe { rocblas_create_handle(&mut h) }, OK);
        let device = OBJECTS.with(h as usize, |o| o.device).expect("registered");
        assert_eq!(device, crate::machine::thread::current_device());
        // SAFETY: created above, destroyed once.
        assert_eq!(unsafe { rocblas_destroy_handle(h) }, OK);
        // SAFETY: a destroyed handle is refused, not used.
        assert_eq!(unsafe { rocblas_destroy_handle(h) }, INVALID_HANDLE);
    }
}
