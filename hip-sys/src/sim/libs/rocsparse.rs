//! rocSPARSE in the simulator: handles, CSR / dense-vector / dense-matrix
//! descriptors, SpMV and SpMM, as rocSPARSE 2.5.4 (ROCm 5.7.1, the headers
//! of the bindings) behaves.
//!
//! - `rocsparse_get_version` reports 200504: rocSPARSE encodes its own
//!   version (2.5.4 for ROCm 5.7.1) as `major * 100000 + minor * 100 + patch`.
//! - Pointer mode host only; `rocsparse_pointer_mode_device` is
//!   `not_implemented`.
//! - Matrices: CSR with 32-bit row offsets and column indices, index base
//!   zero or one, `f32_r` or `f64_r` values; the compute type must equal
//!   the data type of every operand (mixed precision is `not_implemented`).
//! - SpMV (`y = α op(A) x + β y`) through `rocsparse_spmv` (the 5.x form
//!   without a stage: a null `temp_buffer` only writes the buffer size) and
//!   `rocsparse_spmv_ex` (stages: buffer size, preprocess, compute, auto);
//!   SpMM (`C = α op(A) op(B) + β C`) with row- or column-major dense
//!   matrices and the same stages. `op` is none, transpose or conjugate
//!   transpose (the same as transpose for real data).
//! - The buffer size is [`BUFFER_SIZE`] bytes; compute stages need a device
//!   buffer at least that large (`invalid_pointer` otherwise), as the real
//!   library needs its buffer.

#![allow(non_snake_case)]

use super::{call, host_scalar, insert, remove_if, span, with, write_out, Kind, Real, Span};
use crate::bindings::rocsparse::*;
use crate::sim::runtime::{current_device, sim};
use crate::sim::streams::{self, Target};
use crate::sim::violations;
use std::ffi::{c_int, c_void};

type Status = rocsparse_status;
const OK: Status = rocsparse_status::rocsparse_status_success;
const INTERNAL: Status = rocsparse_status::rocsparse_status_internal_error;
const INVALID_HANDLE: Status = rocsparse_status::rocsparse_status_invalid_handle;
const INVALID_POINTER: Status = rocsparse_status::rocsparse_status_invalid_pointer;
const INVALID_SIZE: Status = rocsparse_status::rocsparse_status_invalid_size;
const INVALID_VALUE: Status = rocsparse_status::rocsparse_status_invalid_value;
const NOT_IMPLEMENTED: Status = rocsparse_status::rocsparse_status_not_implemented;

/// What `rocsparse_get_version` reports: rocSPARSE 2.5.4 (ROCm 5.7.1).
pub(crate) const VERSION: c_int = 200_504;

/// The temporary buffer SpMV and SpMM ask for, in bytes.
pub const BUFFER_SIZE: usize = 256;

/// A `rocsparse_handle`.
pub(crate) struct Handle {
    stream: usize,
}

/// A CSR `rocsparse_spmat_descr`.
#[derive(Clone)]
pub(crate) struct SpMat {
    rows: usize,
    cols: usize,
    nnz: usize,
    row_ptr: usize,
    col_ind: usize,
    values: usize,
    base: usize,
    real: Real,
}

/// A `rocsparse_dnvec_descr`.
#[derive(Clone)]
pub(crate) struct DnVec {
    size: usize,
    values: usize,
    real: Real,
}

/// A `rocsparse_dnmat_descr`.
#[derive(Clone)]
pub(crate) struct DnMat {
    rows: usize,
    cols: usize,
    ld: usize,
    values: usize,
    real: Real,
    row_major: bool,
}

impl DnMat {
    /// Element index of (i, j).
    fn at(&self, i: usize, j: usize) -> usize {
        if self.row_major {
            i * self.ld + j
        } else {
            i + j * self.ld
        }
    }

    /// Elements the storage spans.
    fn span_len(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            0
        } else if self.row_major {
            (self.rows - 1) * self.ld + self.cols
        } else {
            (self.cols - 1) * self.ld + self.rows
        }
    }
}

fn real_of(t: rocsparse_datatype) -> Result<Real, Status> {
    match t {
        rocsparse_datatype::rocsparse_datatype_f32_r => Ok(Real::F32),
        rocsparse_datatype::rocsparse_datatype_f64_r => Ok(Real::F64),
        _ => Err(NOT_IMPLEMENTED),
    }
}

fn size_of(v: i64) -> Result<usize, Status> {
    usize::try_from(v).map_err(|_| INVALID_SIZE)
}

/// The handle's device and stream queue, recording a violation if the
/// calling thread is on another device.
fn handle_target(function: &'static str, handle: rocsparse_handle) -> Result<(usize, Target), Status> {
    let (device, stream) = with(handle as usize, |o| match &o.kind {
        Kind::SparseHandle(h) => Some((o.device, h.stream)),
        _ => None,
    })
    .flatten()
    .ok_or(INVALID_HANDLE)?;
    violations::check(function, device);
    let target = if stream == 0 {
        streams::null_target(device).map_err(|_| INTERNAL)?
    } else {
        streams::target(stream as crate::hipStream_t).map_err(|_| INVALID_VALUE)?
    };
    if target.device != device {
        return Err(INVALID_VALUE);
    }
    Ok((device, target))
}

fn handle_device(function: &'static str, handle: rocsparse_handle) -> Result<usize, Status> {
    let device = with(handle as usize, |o| matches!(o.kind, Kind::SparseHandle(_)).then_some(o.device))
        .flatten()
        .ok_or(INVALID_HANDLE)?;
    violations::check(function, device);
    Ok(device)
}

fn spmat(descr: rocsparse_spmat_descr) -> Result<SpMat, Status> {
    with(descr as usize, |o| match &o.kind {
        Kind::SpMat(m) => Some(m.clone()),
        _ => None,
    })
    .flatten()
    .ok_or(INVALID_POINTER)
}

fn dnvec(descr: rocsparse_dnvec_descr) -> Result<DnVec, Status> {
    with(descr as usize, |o| match &o.kind {
        Kind::DnVec(v) => Some(v.clone()),
        _ => None,
    })
    .flatten()
    .ok_or(INVALID_POINTER)
}

fn dnmat(descr: rocsparse_dnmat_descr) -> Result<DnMat, Status> {
    with(descr as usize, |o| match &o.kind {
        Kind::DnMat(m) => Some(m.clone()),
        _ => None,
    })
    .flatten()
    .ok_or(INVALID_POINTER)
}

// ---- handles ---------------------------------------------------------------

pub(crate) unsafe extern "C" fn rocsparse_get_version(handle: rocsparse_handle, version: *mut c_int) -> Status {
    call("rocsparse_get_version", OK, INTERNAL, || {
        handle_device("rocsparse_get_version", handle)?;
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(version, VERSION, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_create_handle(handle: *mut rocsparse_handle) -> Status {
    call("rocsparse_create_handle", OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        if sim().device(current_device()).is_none() {
            return Err(INTERNAL);
        }
        let h = insert(Kind::SparseHandle(Handle { stream: 0 }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(handle, h as rocsparse_handle, INVALID_HANDLE) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_handle(handle: rocsparse_handle) -> Status {
    call("rocsparse_destroy_handle", OK, INTERNAL, || {
        let object = remove_if(handle as usize, |k| matches!(k, Kind::SparseHandle(_))).ok_or(INVALID_HANDLE)?;
        violations::check("rocsparse_destroy_handle", object.device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocsparse_set_stream(handle: rocsparse_handle, stream: crate::hipStream_t) -> Status {
    call("rocsparse_set_stream", OK, INTERNAL, || {
        handle_device("rocsparse_set_stream", handle)?;
        with(handle as usize, |o| {
            if let Kind::SparseHandle(h) = &mut o.kind {
                h.stream = stream as usize;
            }
        });
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocsparse_get_stream(
    handle: rocsparse_handle,
    stream: *mut crate::hipStream_t,
) -> Status {
    call("rocsparse_get_stream", OK, INTERNAL, || {
        handle_device("rocsparse_get_stream", handle)?;
        let s = with(handle as usize, |o| match &o.kind {
            Kind::SparseHandle(h) => h.stream,
            _ => 0,
        })
        .unwrap_or(0);
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(stream, s as crate::hipStream_t, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_set_pointer_mode(
    handle: rocsparse_handle,
    mode: rocsparse_pointer_mode,
) -> Status {
    call("rocsparse_set_pointer_mode", OK, INTERNAL, || {
        handle_device("rocsparse_set_pointer_mode", handle)?;
        match mode {
            rocsparse_pointer_mode::rocsparse_pointer_mode_host => Ok(()),
            rocsparse_pointer_mode::rocsparse_pointer_mode_device => Err(NOT_IMPLEMENTED),
            _ => Err(INVALID_VALUE),
        }
    })
}

// ---- descriptors -----------------------------------------------------------

pub(crate) unsafe extern "C" fn rocsparse_create_csr_descr(
    descr: *mut rocsparse_spmat_descr,
    rows: i64,
    cols: i64,
    nnz: i64,
    csr_row_ptr: *mut c_void,
    csr_col_ind: *mut c_void,
    csr_val: *mut c_void,
    row_ptr_type: rocsparse_indextype,
    col_ind_type: rocsparse_indextype,
    idx_base: rocsparse_index_base,
    data_type: rocsparse_datatype,
) -> Status {
    call("rocsparse_create_csr_descr", OK, INTERNAL, || {
        if descr.is_null() {
            return Err(INVALID_POINTER);
        }
        let (rows, cols, nnz) = (size_of(rows)?, size_of(cols)?, size_of(nnz)?);
        if nnz > rows.saturating_mul(cols) {
            return Err(INVALID_SIZE);
        }
        if csr_row_ptr.is_null() || (nnz > 0 && (csr_col_ind.is_null() || csr_val.is_null())) {
            return Err(INVALID_POINTER);
        }
        let base = match idx_base {
            rocsparse_index_base::rocsparse_index_base_zero => 0,
            rocsparse_index_base::rocsparse_index_base_one => 1,
            _ => return Err(INVALID_VALUE),
        };
        let i32_type = rocsparse_indextype::rocsparse_indextype_i32;
        if row_ptr_type != i32_type || col_ind_type != i32_type {
            return Err(NOT_IMPLEMENTED);
        }
        let real = real_of(data_type)?;
        let matrix = SpMat {
            rows,
            cols,
            nnz,
            row_ptr: csr_row_ptr as usize,
            col_ind: csr_col_ind as usize,
            values: csr_val as usize,
            base,
            real,
        };
        let h = insert(Kind::SpMat(matrix));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(descr, h as rocsparse_spmat_descr, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_spmat_descr(descr: rocsparse_spmat_descr) -> Status {
    call("rocsparse_destroy_spmat_descr", OK, INTERNAL, || {
        remove_if(descr as usize, |k| matches!(k, Kind::SpMat(_))).map(drop).ok_or(INVALID_POINTER)
    })
}

pub(crate) unsafe extern "C" fn rocsparse_create_dnvec_descr(
    descr: *mut rocsparse_dnvec_descr,
    size: i64,
    values: *mut c_void,
    data_type: rocsparse_datatype,
) -> Status {
    call("rocsparse_create_dnvec_descr", OK, INTERNAL, || {
        if descr.is_null() {
            return Err(INVALID_POINTER);
        }
        let size = size_of(size)?;
        if size > 0 && values.is_null() {
            return Err(INVALID_POINTER);
        }
        let real = real_of(data_type)?;
        let h = insert(Kind::DnVec(DnVec { size, values: values as usize, real }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(descr, h as rocsparse_dnvec_descr, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_dnvec_descr(descr: rocsparse_dnvec_descr) -> Status {
    call("rocsparse_destroy_dnvec_descr", OK, INTERNAL, || {
        remove_if(descr as usize, |k| matches!(k, Kind::DnVec(_))).map(drop).ok_or(INVALID_POINTER)
    })
}

pub(crate) unsafe extern "C" fn rocsparse_create_dnmat_descr(
    descr: *mut rocsparse_dnmat_descr,
    rows: i64,
    cols: i64,
    ld: i64,
    values: *mut c_void,
    data_type: rocsparse_datatype,
    order: rocsparse_order,
) -> Status {
    call("rocsparse_create_dnmat_descr", OK, INTERNAL, || {
        if descr.is_null() {
            return Err(INVALID_POINTER);
        }
        let (rows, cols, ld) = (size_of(rows)?, size_of(cols)?, size_of(ld)?);
        let row_major = match order {
            rocsparse_order::rocsparse_order_row => true,
            rocsparse_order::rocsparse_order_column => false,
            _ => return Err(INVALID_VALUE),
        };
        if ld < if row_major { cols } else { rows } {
            return Err(INVALID_SIZE);
        }
        if rows > 0 && cols > 0 && values.is_null() {
            return Err(INVALID_POINTER);
        }
        let real = real_of(data_type)?;
        let h = insert(Kind::DnMat(DnMat { rows, cols, ld, values: values as usize, real, row_major }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(descr, h as rocsparse_dnmat_descr, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_dnmat_descr(descr: rocsparse_dnmat_descr) -> Status {
    call("rocsparse_destroy_dnmat_descr", OK, INTERNAL, || {
        remove_if(descr as usize, |k| matches!(k, Kind::DnMat(_))).map(drop).ok_or(INVALID_POINTER)
    })
}

// ---- SpMV and SpMM ----------------------------------------------------------

/// What a staged call is asked to do.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    BufferSize,
    Preprocess,
    Compute,
}

/// Decide the stage: auto means buffer size without a buffer, compute with one.
fn stage_of(stage: u32, temp_buffer: *mut c_void) -> Result<Stage, Status> {
    Ok(match stage {
        0 if temp_buffer.is_null() => Stage::BufferSize,
        0 => Stage::Compute,
        1 => Stage::BufferSize,
        2 => Stage::Preprocess,
        3 => Stage::Compute,
        _ => return Err(INVALID_VALUE),
    })
}

/// `op` is transpose (or conjugate transpose, the same for real data).
fn transposed(op: rocsparse_operation) -> Result<bool, Status> {
    match op {
        rocsparse_operation::rocsparse_operation_none => Ok(false),
        rocsparse_operation::rocsparse_operation_transpose
        | rocsparse_operation::rocsparse_operation_conjugate_transpose => Ok(true),
        _ => Err(INVALID_VALUE),
    }
}

/// Check the temporary buffer of a compute or preprocess stage.
fn check_buffer(temp_buffer: *mut c_void) -> Result<(), Status> {
    span(temp_buffer as usize, BUFFER_SIZE).map(drop).ok_or(INVALID_POINTER)
}

/// The CSR matrix's arrays in device memory.
struct CsrData {
    row_ptr: Span,
    col_ind: Option<Span>,
    values: Option<Span>,
}

fn csr_data(m: &SpMat) -> Result<CsrData, Status> {
    let row_ptr = span(m.row_ptr, 4 * (m.rows + 1)).ok_or(INVALID_POINTER)?;
    let (col_ind, values) = if m.nnz == 0 {
        (None, None)
    } else {
        (
            Some(span(m.col_ind, 4 * m.nnz).ok_or(INVALID_POINTER)?),
            Some(span(m.values, m.real.size() * m.nnz).ok_or(INVALID_POINTER)?),
        )
    };
    Ok(CsrData { row_ptr, col_ind, values })
}

/// The nonzeros as (row, column, value), 0-based; an index outside the
/// matrix is a memory fault, as the GPU kernel would read out of bounds.
fn triplets(m: &SpMat, d: &CsrData) -> Result<Vec<(usize, usize, f64)>, crate::hipError_t> {
    let fault = crate::hipError_t::hipErrorIllegalAddress;
    let offsets = d.row_ptr.read_i32(m.rows + 1)?;
    let (cols, vals) = match (&d.col_ind, &d.values) {
        (Some(c), Some(v)) => (c.read_i32(m.nnz)?, v.read(m.real, 0, m.nnz)?),
        _ => (Vec::new(), Vec::new()),
    };
    let mut out = Vec::with_capacity(m.nnz);
    for row in 0..m.rows {
        let start = (offsets[row] as i64 - m.base as i64).max(0) as usize;
        let end = (offsets[row + 1] as i64 - m.base as i64).max(0) as usize;
        for k in start..end.min(m.nnz) {
            let col = usize::try_from(cols[k] as i64 - m.base as i64).map_err(|_| fault)?;
            if col >= m.cols {
                return Err(fault);
            }
            out.push((row, col, vals[k]));
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn spmv(
    function: &'static str,
    handle: rocsparse_handle,
    trans: rocsparse_operation,
    alpha: *const c_void,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    beta: *const c_void,
    y: rocsparse_dnvec_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmv_alg,
    stage: Stage,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> Result<(), Status> {
    let (_, target) = handle_target(function, handle)?;
    let (m, xv, yv) = (spmat(mat)?, dnvec(x)?, dnvec(y)?);
    let real = real_of(compute_type)?;
    if m.real != real || xv.real != real || yv.real != real {
        return Err(NOT_IMPLEMENTED);
    }
    let t = transposed(trans)?;
    match alg {
        rocsparse_spmv_alg::rocsparse_spmv_alg_default
        | rocsparse_spmv_alg::rocsparse_spmv_alg_csr_adaptive
        | rocsparse_spmv_alg::rocsparse_spmv_alg_csr_stream => {}
        _ => return Err(NOT_IMPLEMENTED),
    }
    let (out_len, in_len) = if t { (m.cols, m.rows) } else { (m.rows, m.cols) };
    if xv.size != in_len || yv.size != out_len {
        return Err(INVALID_SIZE);
    }
    match stage {
        // SAFETY: null is refused; otherwise valid per the C contract.
        Stage::BufferSize => return unsafe { write_out(buffer_size, BUFFER_SIZE, INVALID_POINTER) },
        Stage::Preprocess => return check_buffer(temp_buffer),
        Stage::Compute => check_buffer(temp_buffer)?,
    }
    if alpha.is_null() || beta.is_null() {
        return Err(INVALID_POINTER);
    }
    // SAFETY: non-null host scalars of the compute type (pointer mode host).
    let (a, b) = unsafe { (host_scalar(alpha, real), host_scalar(beta, real)) };
    let data = csr_data(&m)?;
    let xs = span(xv.values, real.size() * xv.size).ok_or(INVALID_POINTER)?;
    let ys = span(yv.values, real.size() * yv.size).ok_or(INVALID_POINTER)?;
    streams::submit(&target, false, move || {
        let x = xs.read(real, 0, in_len)?;
        let mut y = ys.read(real, 0, out_len)?;
        let mut product = vec![0.0; out_len];
        for (row, col, v) in triplets(&m, &data)? {
            if t {
                product[col] += v * x[row];
            } else {
                product[row] += v * x[col];
            }
        }
        for (yi, p) in y.iter_mut().zip(&product) {
            *yi = a * p + if b == 0.0 { 0.0 } else { b * *yi };
        }
        ys.write(real, 0, &y)
    })
    .map_err(|_| INTERNAL)
}

pub(crate) unsafe extern "C" fn rocsparse_spmv(
    handle: rocsparse_handle,
    trans: rocsparse_operation,
    alpha: *const c_void,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    beta: *const c_void,
    y: rocsparse_dnvec_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmv_alg,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> Status {
    call("rocsparse_spmv", OK, INTERNAL, || {
        let stage = if temp_buffer.is_null() { Stage::BufferSize } else { Stage::Compute };
        spmv(
            "rocsparse_spmv",
            handle,
            trans,
            alpha,
            mat,
            x,
            beta,
            y,
            compute_type,
            alg,
            stage,
            buffer_size,
            temp_buffer,
        )
    })
}

pub(crate) unsafe extern "C" fn rocsparse_spmv_ex(
    handle: rocsparse_handle,
    trans: rocsparse_operation,
    alpha: *const c_void,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    beta: *const c_void,
    y: rocsparse_dnvec_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmv_alg,
    stage: rocsparse_spmv_stage,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> Status {
    call("rocsparse_spmv_ex", OK, INTERNAL, || {
        let stage = stage_of(stage.0, temp_buffer)?;
        spmv(
            "rocsparse_spmv_ex",
            handle,
            trans,
            alpha,
            mat,
            x,
            beta,
            y,
            compute_type,
            alg,
            stage,
            buffer_size,
            temp_buffer,
        )
    })
}

pub(crate) unsafe extern "C" fn rocsparse_spmm(
    handle: rocsparse_handle,
    trans_A: rocsparse_operation,
    trans_B: rocsparse_operation,
    alpha: *const c_void,
    mat_A: rocsparse_spmat_descr,
    mat_B: rocsparse_dnmat_descr,
    beta: *const c_void,
    mat_C: rocsparse_dnmat_descr,
    compute_type: rocsparse_datatype,
    alg: rocsparse_spmm_alg,
    stage: rocsparse_spmm_stage,
    buffer_size: *mut usize,
    temp_buffer: *mut c_void,
) -> Status {
    call("rocsparse_spmm", OK, INTERNAL, || {
        let (_, target) = handle_target("rocsparse_spmm", handle)?;
        let stage = stage_of(stage.0, temp_buffer)?;
        let (a, bm, cm) = (spmat(mat_A)?, dnmat(mat_B)?, dnmat(mat_C)?);
        let real = real_of(compute_type)?;
        if a.real != real || bm.real != real || cm.real != real {
            return Err(NOT_IMPLEMENTED);
        }
        let (ta, tb) = (transposed(trans_A)?, transposed(trans_B)?);
        match alg {
            rocsparse_spmm_alg::rocsparse_spmm_alg_default
            | rocsparse_spmm_alg::rocsparse_spmm_alg_csr
            | rocsparse_spmm_alg::rocsparse_spmm_alg_csr_row_split
            | rocsparse_spmm_alg::rocsparse_spmm_alg_csr_merge => {}
            _ => return Err(NOT_IMPLEMENTED),
        }
        let (m, k) = if ta { (a.cols, a.rows) } else { (a.rows, a.cols) };
        let (bk, n) = if tb { (bm.cols, bm.rows) } else { (bm.rows, bm.cols) };
        if bk != k || cm.rows != m || cm.cols != n {
            return Err(INVALID_SIZE);
        }
        match stage {
            // SAFETY: null is refused; otherwise valid per the C contract.
            Stage::BufferSize => return unsafe { write_out(buffer_size, BUFFER_SIZE, INVALID_POINTER) },
            Stage::Preprocess => return check_buffer(temp_buffer),
            Stage::Compute => check_buffer(temp_buffer)?,
        }
        if alpha.is_null() || beta.is_null() {
            return Err(INVALID_POINTER);
        }
        // SAFETY: non-null host scalars of the compute type (pointer mode host).
        let (alpha, beta) = unsafe { (host_scalar(alpha, real), host_scalar(beta, real)) };
        let data = csr_data(&a)?;
        let bs = span(bm.values, real.size() * bm.span_len()).ok_or(INVALID_POINTER)?;
        let cs = span(cm.values, real.size() * cm.span_len()).ok_or(INVALID_POINTER)?;
        streams::submit(&target, false, move || {
            let b = bs.read(real, 0, bm.span_len())?;
            let mut c = cs.read(real, 0, cm.span_len())?;
            let b_at = |i: usize, j: usize| if tb { b[bm.at(j, i)] } else { b[bm.at(i, j)] };
            let mut product = vec![0.0; m * n];
            for (row, col, v) in triplets(&a, &data)? {
                let (i, kk) = if ta { (col, row) } else { (row, col) };
                for j in 0..n {
                    product[i * n + j] += v * b_at(kk, j);
                }
            }
            for i in 0..m {
                for j in 0..n {
                    let at = cm.at(i, j);
                    c[at] = alpha * product[i * n + j] + if beta == 0.0 { 0.0 } else { beta * c[at] };
                }
            }
            cs.write(real, 0, &c)
        })
        .map_err(|_| INTERNAL)
    })
}

/// The simulator's rocSPARSE table.
pub(crate) static SIM_ROCSPARSE: RocsparseApi = RocsparseApi {
    rocsparse_get_version,
    rocsparse_create_handle,
    rocsparse_destroy_handle,
    rocsparse_set_stream,
    rocsparse_get_stream,
    rocsparse_set_pointer_mode,
    rocsparse_create_csr_descr,
    rocsparse_destroy_spmat_descr,
    rocsparse_create_dnvec_descr,
    rocsparse_destroy_dnvec_descr,
    rocsparse_create_dnmat_descr,
    rocsparse_destroy_dnmat_descr,
    rocsparse_spmv,
    rocsparse_spmv_ex,
    rocsparse_spmm,
};
