//! The library's objects (handles and the CSR, dense-vector and
//! dense-matrix descriptors), how a call finds them, and the device memory
//! the library itself holds.

use super::status::*;
use super::{Kind, OBJECTS};
use crate::bindings::rocsparse::*;
use crate::library::Real;
use crate::machine::queue::Target;
use crate::machine::sim;
use crate::machine::violations;
use crate::targets;

/// The work buffer a real handle allocates (at least 1 MiB), in bytes.
pub(super) const HANDLE_BUFFER: usize = 1 << 20;

/// The device scalars a real handle allocates: one of f32, f64, and the
/// two complex types.
pub(super) const HANDLE_SCALARS: [usize; 4] = [4, 8, 8, 16];

/// A `rocsparse_handle`.
pub(crate) struct Handle {
    pub(super) stream: usize,
    /// The device allocations the handle holds (work buffer, scalars).
    pub(super) memory: Vec<usize>,
}

/// A CSR `rocsparse_spmat_descr`.
#[derive(Clone)]
pub(crate) struct SpMat {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) nnz: usize,
    pub(super) row_ptr: usize,
    pub(super) col_ind: usize,
    pub(super) values: usize,
    pub(super) base: usize,
    pub(super) real: Real,
    /// Whether a preprocess ran (the real descriptor's `analysed` flag).
    pub(super) analysed: bool,
    /// The CSR analysis that preprocess made, if it made one.
    pub(super) analysis: Option<Analysis>,
}

/// The CSR SpMV analysis kept in a matrix descriptor.
#[derive(Clone, Copy)]
pub(super) struct Analysis {
    /// The operation of the preprocess that made it.
    pub(super) transposed: bool,
    /// Its device memory (device, base).
    pub(super) memory: (usize, usize),
}

/// A `rocsparse_dnvec_descr`.
#[derive(Clone)]
pub(crate) struct DnVec {
    pub(super) size: usize,
    pub(super) values: usize,
    pub(super) real: Real,
}

/// A `rocsparse_dnmat_descr`.
#[derive(Clone)]
pub(crate) struct DnMat {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) ld: usize,
    pub(super) values: usize,
    pub(super) real: Real,
    pub(super) row_major: bool,
}

impl DnMat {
    /// Element index of (i, j).
    pub(super) fn at(&self, i: usize, j: usize) -> usize {
        if self.row_major {
            i * self.ld + j
        } else {
            i + j * self.ld
        }
    }

    /// Elements the storage spans.
    pub(super) fn span_len(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            0
        } else if self.row_major {
            (self.rows - 1) * self.ld + self.cols
        } else {
            (self.cols - 1) * self.ld + self.rows
        }
    }
}

pub(super) fn real_of(t: rocsparse_datatype) -> Result<Real, Status> {
    match t {
        rocsparse_datatype::rocsparse_datatype_f32_r => Ok(Real::F32),
        rocsparse_datatype::rocsparse_datatype_f64_r => Ok(Real::F64),
        _ => Err(NOT_IMPLEMENTED),
    }
}

pub(super) fn size_of(v: i64) -> Result<usize, Status> {
    usize::try_from(v).map_err(|_| INVALID_SIZE)
}

/// The handle's device and stream queue, recording a violation if the
/// calling thread is on another device.
pub(super) fn handle_target(function: &'static str, handle: rocsparse_handle) -> Result<(usize, Target), Status> {
    let (device, stream) = OBJECTS
        .with(handle as usize, |o| match &o.kind {
            Kind::SparseHandle(h) => Some((o.device, h.stream)),
            _ => None,
        })
        .flatten()
        .ok_or(INVALID_HANDLE)?;
    violations::check(function, device);
    let target = if stream == 0 {
        targets::null_target(device).map_err(|_| INTERNAL)?
    } else {
        targets::target(stream as crate::bindings::hip::hipStream_t).map_err(|_| INVALID_VALUE)?
    };
    if target.device != device {
        return Err(INVALID_VALUE);
    }
    Ok((device, target))
}

pub(super) fn handle_device(function: &'static str, handle: rocsparse_handle) -> Result<usize, Status> {
    let device = OBJECTS
        .with(handle as usize, |o| matches!(o.kind, Kind::SparseHandle(_)).then_some(o.device))
        .flatten()
        .ok_or(INVALID_HANDLE)?;
    violations::check(function, device);
    Ok(device)
}

pub(super) fn spmat(descr: rocsparse_spmat_descr) -> Result<SpMat, Status> {
    OBJECTS
        .with(descr as usize, |o| match &o.kind {
            Kind::SpMat(m) => Some(m.clone()),
            _ => None,
        })
        .flatten()
        .ok_or(INVALID_POINTER)
}

pub(super) fn dnvec(descr: rocsparse_dnvec_descr) -> Result<DnVec, Status> {
    OBJECTS
        .with(descr as usize, |o| match &o.kind {
            Kind::DnVec(v) => Some(v.clone()),
            _ => None,
        })
        .flatten()
        .ok_or(INVALID_POINTER)
}

pub(super) fn dnmat(descr: rocsparse_dnmat_descr) -> Result<DnMat, Status> {
    OBJECTS
        .with(descr as usize, |o| match &o.kind {
            Kind::DnMat(m) => Some(m.clone()),
            _ => None,
        })
        .flatten()
        .ok_or(INVALID_POINTER)
}

/// Allocate blocks of `sizes` bytes on `device`, all or none: the library's
/// own device memory (`memory_error` when the device is full, as a real
/// allocation failure inside rocSPARSE reports).
pub(super) fn allocate_all(device: usize, sizes: impl IntoIterator<Item = usize>) -> Result<Vec<usize>, Status> {
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
pub(super) fn release_all(device: usize, bases: &[usize]) {
    if let Some(d) = sim().device(device) {
        for base in bases {
            let _ = d.memory.release(*base);
        }
    }
}
