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

mod arguments;
mod arith;
mod csr;
mod handles;
mod objects;
mod spmm;
mod spmv;
mod status;
mod table;

pub use arguments::BUFFER_SIZE;
pub(crate) use objects::{DnMat, DnVec, Handle, SpMat};
pub(crate) use table::SIM_ROCSPARSE;

/// rocSPARSE's objects: handles and descriptors.
pub(crate) enum Kind {
    SparseHandle(Handle),
    SpMat(SpMat),
    DnVec(DnVec),
    DnMat(DnMat),
}

/// Where they are kept.
pub(crate) static OBJECTS: crate::library::Registry<Kind> = crate::library::Registry::new();
