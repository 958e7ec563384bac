//! SpMV, `y = α op(A) x + β y`: `rocsparse_spmv_ex` (staged) and
//! `rocsparse_spmv` (2.x's form without a stage), and the preprocess
//! stage's CSR analysis.

use super::arguments::*;
use super::arith::csrmv;
use super::csr::{csr_data, triplets};
use super::objects::*;
use super::status::*;
use super::{Kind, OBJECTS};
use crate::bindings::rocsparse::*;
use crate::library::{accesses, call, host_scalar, span, write_out, Real};
use crate::machine::violations::AccessKind;
use crate::rocsparse_mode::{count_analysis, record_slow_path};
use crate::submit;
use std::ffi::c_void;

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
    OBJECTS.with(mat as usize, |o| {
        if let Kind::SpMat(stored) = &mut o.kind {
            stored.analysed = true;
            stored.analysis = analysis;
        }
    });
    Ok(())
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
