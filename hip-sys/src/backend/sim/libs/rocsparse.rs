//! rocSPARSE in the simulator: handles, CSR / dense-vector / dense-matrix
//! descriptors, SpMV and SpMM, as rocSPARSE 3.x (ROCm 6.x; 4.x in ROCm 7.x
//! behaves the same for these) does by default, or 2.x (ROCm 5.x) with
//! `AMDGPU_SIM_ROCSPARSE_VERSION=2` (see [`super::rocsparse_mode`]).
//!
//! - `rocsparse_get_version` reports 300002 (3.0.2, ROCm 6.0.0) or 200504
//!   (2.5.4, ROCm 5.7.1): rocSPARSE encodes its version as
//!   `major * 100000 + minor * 100 + patch`.
//! - A handle takes device memory on the device current at creation, as
//!   the real one does (a 1 MiB work buffer and four device scalars);
//!   destroying it frees them.
//! - Pointer mode host only; `rocsparse_pointer_mode_device` is
//!   `not_implemented`.
//! - Matrices: CSR with 32-bit row offsets and column indices, index base
//!   zero or one, `f32_r` or `f64_r` values; the compute type must equal
//!   the data type of every operand (mixed precision is `not_implemented`).
//! - SpMV (`y = α op(A) x + β y`) through `rocsparse_spmv_ex` (the staged
//!   call: buffer size 1, preprocess 2, compute 3; and on 2.x auto 0, which
//!   sizes the buffer when it is null and otherwise preprocesses and
//!   computes) and `rocsparse_spmv` (the 2.x form without a stage, which
//!   behaves as 2.x's auto on either version); SpMM (`C = α op(A) op(B) +
//!   β C`) with row- or column-major dense matrices and the same stages.
//!   On 3.x stage 0 is `invalid_value`, as any unknown enum value. `op` is
//!   none, transpose or conjugate transpose (the same as transpose for
//!   real data).
//! - **The CSR analysis** (SpMV preprocess with the default or adaptive
//!   algorithm) is made once per matrix, at its first preprocess, for that
//!   call's operation; it is kept in the matrix descriptor (with device
//!   memory of its own, freed with the descriptor). A compute with the
//!   default or adaptive algorithm and no transpose uses it: on a matrix
//!   never preprocessed the real library silently runs its slower general
//!   kernel, which the simulator records as a
//!   [`SlowPath`](super::rocsparse_mode::SlowPath); on a matrix analysed for
//!   the transpose it is `invalid_value`. Transposed computes and the
//!   row-stream algorithm never use the analysis.
//! - Arithmetic is done in the operands' precision (`f32` data is summed
//!   in `f32`, row by row in storage order).
//! - The buffer size is [`BUFFER_SIZE`] bytes; compute stages need a device
//!   buffer at least that large (`invalid_pointer` otherwise), as the real
//!   library needs its buffer.

#![allow(non_snake_case)]

use super::rocsparse_mode::{count_analysis, record_slow_path, rocsparse_version, RocsparseVersion};
use super::{accesses, call, host_scalar, insert, remove_if, span, with, write_out, Kind, Real, Span};
use crate::backend::sim::machine::sim;
use crate::backend::sim::queue::Target;
use crate::backend::sim::thread::current_device;
use crate::backend::sim::violations;
use crate::backend::sim::violations::AccessKind;
use crate::backend::sim::{submit, targets};
use crate::bindings::rocsparse::*;
use std::ffi::{c_int, c_void};

type Status = rocsparse_status;
const OK: Status = rocsparse_status::rocsparse_status_success;
const INTERNAL: Status = rocsparse_status::rocsparse_status_internal_error;
const INVALID_HANDLE: Status = rocsparse_status::rocsparse_status_invalid_handle;
const INVALID_POINTER: Status = rocsparse_status::rocsparse_status_invalid_pointer;
const INVALID_SIZE: Status = rocsparse_status::rocsparse_status_invalid_size;
const INVALID_VALUE: Status = rocsparse_status::rocsparse_status_invalid_value;
const NOT_IMPLEMENTED: Status = rocsparse_status::rocsparse_status_not_implemented;
const MEMORY_ERROR: Status = rocsparse_status::rocsparse_status_memory_error;

/// The work buffer a real handle allocates (at least 1 MiB), in bytes.
const HANDLE_BUFFER: usize = 1 << 20;

/// The device scalars a real handle allocates: one of f32, f64, and the
/// two complex types.
const HANDLE_SCALARS: [usize; 4] = [4, 8, 8, 16];

/// The temporary buffer SpMV and SpMM ask for, in bytes.
pub const BUFFER_SIZE: usize = 256;

/// A `rocsparse_handle`.
pub(crate) struct Handle {
    stream: usize,
    /// The device allocations the handle holds (work buffer, scalars).
    memory: Vec<usize>,
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
    /// Whether a preprocess ran (the real descriptor's `analysed` flag).
    analysed: bool,
    /// The CSR analysis that preprocess made, if it made one.
    analysis: Option<Analysis>,
}

/// The CSR SpMV analysis kept in a matrix descriptor.
#[derive(Clone, Copy)]
struct Analysis {
    /// The operation of the preprocess that made it.
    transposed: bool,
    /// Its device memory (device, base).
    memory: (usize, usize),
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
        targets::null_target(device).map_err(|_| INTERNAL)?
    } else {
        targets::target(stream as crate::hipStream_t).map_err(|_| INVALID_VALUE)?
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

// ---- device memory the library itself holds --------------------------------

/// Allocate blocks of `sizes` bytes on `device`, all or none: the library's
/// own device memory (`memory_error` when the device is full, as a real
/// allocation failure inside rocSPARSE reports).
fn allocate_all(device: usize, sizes: impl IntoIterator<Item = usize>) -> Result<Vec<usize>, Status> {
    let memory = &sim().device(device).ok_or(INTERNAL)?.memory;
    let mut bases = Vec::new();
    for size in sizes {
        match memory.allocate(size) {
            Ok(allocation) => bases.push(allocation.base),
            Err(_) => {
                release_all(device, &bases);
                return Err(MEMORY_ERROR);
            }
        }
    }
    Ok(bases)
}

/// Free the library's own blocks on `device`.
fn release_all(device: usize, bases: &[usize]) {
    if let Some(d) = sim().device(device) {
        for base in bases {
            let _ = d.memory.release(*base);
        }
    }
}

// ---- handles ---------------------------------------------------------------

pub(crate) unsafe extern "C" fn rocsparse_get_version(handle: rocsparse_handle, version: *mut c_int) -> Status {
    call("rocsparse_get_version", OK, INTERNAL, || {
        handle_device("rocsparse_get_version", handle)?;
        let encoded: c_int = rocsparse_version().encoded();
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(version, encoded, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_create_handle(handle: *mut rocsparse_handle) -> Status {
    call("rocsparse_create_handle", OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let device = current_device();
        let memory = allocate_all(device, std::iter::once(HANDLE_BUFFER).chain(HANDLE_SCALARS))?;
        let h = insert(Kind::SparseHandle(Handle { stream: 0, memory }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(handle, h as rocsparse_handle, INVALID_HANDLE) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_handle(handle: rocsparse_handle) -> Status {
    call("rocsparse_destroy_handle", OK, INTERNAL, || {
        let object = remove_if(handle as usize, |k| matches!(k, Kind::SparseHandle(_))).ok_or(INVALID_HANDLE)?;
        violations::check("rocsparse_destroy_handle", object.device);
        if let Kind::SparseHandle(h) = &object.kind {
            release_all(object.device, &h.memory);
        }
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
            analysed: false,
            analysis: None,
        };
        let h = insert(Kind::SpMat(matrix));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(descr, h as rocsparse_spmat_descr, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocsparse_destroy_spmat_descr(descr: rocsparse_spmat_descr) -> Status {
    call("rocsparse_destroy_spmat_descr", OK, INTERNAL, || {
        let object = remove_if(descr as usize, |k| matches!(k, Kind::SpMat(_))).ok_or(INVALID_POINTER)?;
        if let Kind::SpMat(SpMat { analysis: Some(a), .. }) = &object.kind {
            release_all(a.memory.0, &[a.memory.1]);
        }
        Ok(())
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
    /// Preprocess, then compute (2.x's auto stage with a buffer).
    PreprocessCompute,
}

/// Decide the stage of the version simulated: on 2.x auto (0) means
/// buffer size without a buffer, preprocess and compute with one; 3.x
/// has no auto stage, and 0 is an invalid enum value like any other.
fn stage_of(stage: u32, temp_buffer: *mut c_void) -> Result<Stage, Status> {
    Ok(match stage {
        0 if rocsparse_version() == RocsparseVersion::V3 => return Err(INVALID_VALUE),
        0 => unstaged(temp_buffer),
        1 => Stage::BufferSize,
        2 => Stage::Preprocess,
        3 => Stage::Compute,
        _ => return Err(INVALID_VALUE),
    })
}

/// The 2.x call without a stage (and 2.x's auto stage): the buffer size
/// without a buffer, preprocess and compute with one.
fn unstaged(temp_buffer: *mut c_void) -> Stage {
    if temp_buffer.is_null() {
        Stage::BufferSize
    } else {
        Stage::PreprocessCompute
    }
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

/// Check the temporary buffer of a compute or preprocess stage; the
/// computation uses it as scratch space.
fn check_buffer(temp_buffer: *mut c_void) -> Result<Span, Status> {
    span(temp_buffer as usize, BUFFER_SIZE).ok_or(INVALID_POINTER)
}

/// The CSR matrix's arrays in device memory.
struct CsrData {
    row_ptr: Span,
    col_ind: Option<Span>,
    values: Option<Span>,
}

impl CsrData {
    /// The arrays, all read.
    fn accesses(&self) -> impl Iterator<Item = (&Span, AccessKind)> {
        std::iter::once(&self.row_ptr)
            .chain(self.col_ind.iter())
            .chain(self.values.iter())
            .map(|s| (s, AccessKind::Read))
    }
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
    let adaptive = matches!(
        alg,
        rocsparse_spmv_alg::rocsparse_spmv_alg_default | rocsparse_spmv_alg::rocsparse_spmv_alg_csr_adaptive
    );
    let buffer = match stage {
        // SAFETY: null is refused; otherwise valid per the C contract.
        Stage::BufferSize => return unsafe { write_out(buffer_size, BUFFER_SIZE, INVALID_POINTER) },
        Stage::Preprocess => {
            check_buffer(temp_buffer)?;
            return preprocess(mat, &m, t, adaptive, target.device);
        }
        Stage::PreprocessCompute => {
            let buffer = check_buffer(temp_buffer)?;
            preprocess(mat, &m, t, adaptive, target.device)?;
            buffer
        }
        Stage::Compute => check_buffer(temp_buffer)?,
    };
    if alpha.is_null() || beta.is_null() {
        return Err(INVALID_POINTER);
    }
    // The analysis as it is now (a preprocess above may have made it).
    let m = spmat(mat)?;
    if adaptive && !t && m.rows > 0 && m.cols > 0 && m.nnz > 0 {
        match m.analysis {
            Some(a) if a.transposed => return Err(INVALID_VALUE),
            Some(_) => {}
            None => record_slow_path(
                function,
                target.device,
                "CSR SpMV compute on a matrix that was never preprocessed: rocSPARSE runs its general kernel \
                 instead of the adaptive one. To fix: run the preprocess stage once per matrix before computing",
            ),
        }
    }
    // SAFETY: non-null host scalars of the compute type (pointer mode host).
    let (a, b) = unsafe { (host_scalar(alpha, real), host_scalar(beta, real)) };
    let data = csr_data(&m)?;
    let xs = span(xv.values, real.size() * xv.size).ok_or(INVALID_POINTER)?;
    let ys = span(yv.values, real.size() * yv.size).ok_or(INVALID_POINTER)?;
    let used = data.accesses().chain([(&xs, AccessKind::Read), (&buffer, AccessKind::Write), (&ys, AccessKind::Write)]);
    let op = submit::Op::with(function, accesses(used));
    submit::submit(&target, false, op, move || {
        let x = xs.read(real, 0, in_len)?;
        let y = ys.read(real, 0, out_len)?;
        let nonzeros = triplets(&m, &data)?;
        let y = match real {
            Real::F32 => csrmv::<f32>(t, a, b, &nonzeros, &x, &y),
            Real::F64 => csrmv::<f64>(t, a, b, &nonzeros, &x, &y),
        };
        ys.write(real, 0, &y)
    })
    .map_err(|_| INTERNAL)
}

/// The preprocess stage: on the matrix's first preprocess, with the
/// default or adaptive algorithm, analyse it for this operation (the
/// analysis takes device memory on the handle's device); later
/// preprocesses do nothing, as in rocSPARSE 2.x to 4.x.
fn preprocess(
    mat: rocsparse_spmat_descr,
    m: &SpMat,
    transposed: bool,
    adaptive: bool,
    device: usize,
) -> Result<(), Status> {
    if m.analysed || !adaptive {
        return Ok(());
    }
    // An empty matrix is never read: marked analysed, with no analysis.
    let analysis = if m.rows == 0 || m.cols == 0 || m.nnz == 0 {
        None
    } else {
        // Row blocks, work-group flags and ids: a word each per block of rows.
        let blocks = m.rows.div_ceil(64) + 1;
        let memory = allocate_all(device, [12 * blocks])?;
        count_analysis();
        Some(Analysis { transposed, memory: (device, memory[0]) })
    };
    with(mat as usize, |o| {
        if let Kind::SpMat(stored) = &mut o.kind {
            stored.analysed = true;
            stored.analysis = analysis;
        }
    });
    Ok(())
}

/// Arithmetic in one precision: the operands' own.
trait Elem: Copy + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> + PartialEq {
    const ZERO: Self;
    fn of(v: f64) -> Self;
    fn wide(self) -> f64;
}

impl Elem for f32 {
    const ZERO: Self = 0.0;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn wide(self) -> f64 {
        self as f64
    }
}

impl Elem for f64 {
    const ZERO: Self = 0.0;
    fn of(v: f64) -> Self {
        v
    }
    fn wide(self) -> f64 {
        self
    }
}

/// `α op(A) x + β y` in precision `E`, summing each row's products in
/// storage order; β = 0 ignores `y` (NaN in `y` does not propagate).
fn csrmv<E: Elem>(t: bool, a: f64, b: f64, nonzeros: &[(usize, usize, f64)], x: &[f64], y: &[f64]) -> Vec<f64> {
    let (a, b) = (E::of(a), E::of(b));
    let mut product = vec![E::ZERO; y.len()];
    for &(row, col, v) in nonzeros {
        if t {
            product[col] = product[col] + E::of(v) * E::of(x[row]);
        } else {
            product[row] = product[row] + E::of(v) * E::of(x[col]);
        }
    }
    product.iter().zip(y).map(|(p, yi)| (a * *p + if b == E::ZERO { E::ZERO } else { b * E::of(*yi) }).wide()).collect()
}

/// `α op(A) op(B) + β C` in precision `E`: `c` is C's storage, updated
/// through `at(i, j)`; `b_at(k, j)` reads op(B).
#[allow(clippy::too_many_arguments)]
fn csrmm<E: Elem>(
    ta: bool,
    alpha: f64,
    beta: f64,
    nonzeros: &[(usize, usize, f64)],
    (m, n): (usize, usize),
    b_at: impl Fn(usize, usize) -> f64,
    c: &mut [f64],
    at: impl Fn(usize, usize) -> usize,
) {
    let (alpha, beta) = (E::of(alpha), E::of(beta));
    let mut product = vec![E::ZERO; m * n];
    for &(row, col, v) in nonzeros {
        let (i, kk) = if ta { (col, row) } else { (row, col) };
        for j in 0..n {
            product[i * n + j] = product[i * n + j] + E::of(v) * E::of(b_at(kk, j));
        }
    }
    for i in 0..m {
        for j in 0..n {
            let k = at(i, j);
            let old = if beta == E::ZERO { E::ZERO } else { beta * E::of(c[k]) };
            c[k] = (alpha * product[i * n + j] + old).wide();
        }
    }
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
        let stage = unstaged(temp_buffer);
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
        let buffer = match stage {
            // SAFETY: null is refused; otherwise valid per the C contract.
            Stage::BufferSize => return unsafe { write_out(buffer_size, BUFFER_SIZE, INVALID_POINTER) },
            Stage::Preprocess => return check_buffer(temp_buffer).map(drop),
            Stage::Compute | Stage::PreprocessCompute => check_buffer(temp_buffer)?,
        };
        if alpha.is_null() || beta.is_null() {
            return Err(INVALID_POINTER);
        }
        // SAFETY: non-null host scalars of the compute type (pointer mode host).
        let (alpha, beta) = unsafe { (host_scalar(alpha, real), host_scalar(beta, real)) };
        let data = csr_data(&a)?;
        let bs = span(bm.values, real.size() * bm.span_len()).ok_or(INVALID_POINTER)?;
        let cs = span(cm.values, real.size() * cm.span_len()).ok_or(INVALID_POINTER)?;
        let used =
            data.accesses().chain([(&bs, AccessKind::Read), (&buffer, AccessKind::Write), (&cs, AccessKind::Write)]);
        let op = submit::Op::with("rocsparse_spmm", accesses(used));
        submit::submit(&target, false, op, move || {
            let b = bs.read(real, 0, bm.span_len())?;
            let mut c = cs.read(real, 0, cm.span_len())?;
            let b_at = |i: usize, j: usize| if tb { b[bm.at(j, i)] } else { b[bm.at(i, j)] };
            let nonzeros = triplets(&a, &data)?;
            let at = |i: usize, j: usize| cm.at(i, j);
            match real {
                Real::F32 => csrmm::<f32>(ta, alpha, beta, &nonzeros, (m, n), b_at, &mut c, at),
                Real::F64 => csrmm::<f64>(ta, alpha, beta, &nonzeros, (m, n), b_at, &mut c, at),
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
