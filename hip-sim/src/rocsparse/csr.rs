//! A CSR matrix's arrays in device memory, and its nonzeros as the GPU
//! kernel would read them.

use super::objects::SpMat;
use super::status::*;
use crate::library::{span, Span};
use crate::machine::violations::AccessKind;

/// The CSR matrix's arrays in device memory.
pub(super) struct CsrData {
    pub(super) row_ptr: Span,
    pub(super) col_ind: Option<Span>,
    pub(super) values: Option<Span>,
}

impl CsrData {
    /// The arrays, all read.
    pub(super) fn accesses(&self) -> impl Iterator<Item = (&Span, AccessKind)> {
        std::iter::once(&self.row_ptr)
            .chain(self.col_ind.iter())
            .chain(self.values.iter())
            .map(|s| (s, AccessKind::Read))
    }
}

pub(super) fn csr_data(m: &SpMat) -> Result<CsrData, Status> {
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
pub(super) fn triplets(m: &SpMat, d: &CsrData) -> Result<Vec<(usize, usize, f64)>, crate::bindings::hip::hipError_t> {
    let fault = crate::bindings::hip::hipError_t::hipErrorIllegalAddress;
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
