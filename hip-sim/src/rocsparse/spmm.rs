//! SpMM, `C = α op(A) op(B) + β C`, with row- or column-major dense
//! matrices and the same stages as SpMV.

use super::arguments::*;
use super::arith::csrmm;
use super::csr::{csr_data, triplets};
use super::objects::*;
use super::status::*;
use crate::bindings::rocsparse::*;
use crate::library::{accesses, call, host_scalar, span, write_out, Real};
use crate::machine::violations::AccessKind;
use crate::submit;
use std::ffi::c_void;

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
