//! What SpMV and SpMM are asked to do: the stage, the operation, and the
//! temporary buffer they compute in.

use super::status::*;
use crate::bindings::rocsparse::*;
use crate::library::{span, Span};
use crate::rocsparse_mode::{rocsparse_version, RocsparseVersion};
use std::ffi::c_void;

/// The temporary buffer SpMV and SpMM ask for, in bytes.
pub const BUFFER_SIZE: usize = 256;

/// What a staged call is asked to do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    BufferSize,
    Preprocess,
    Compute,
    /// Preprocess, then compute (2.x's auto stage with a buffer).
    PreprocessCompute,
}

/// Decide the stage of the version simulated: on 2.x auto (0) means
/// buffer size without a buffer, preprocess and compute with one; 3.x
/// has no auto stage, and 0 is an invalid enum value like any other.
pub(super) fn stage_of(stage: u32, temp_buffer: *mut c_void) -> Result<Stage, Status> {
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
pub(super) fn unstaged(temp_buffer: *mut c_void) -> Stage {
    if temp_buffer.is_null() {
        Stage::BufferSize
    } else {
        Stage::PreprocessCompute
    }
}

/// `op` is transpose (or conjugate transpose, the same for real data).
pub(super) fn transposed(op: rocsparse_operation) -> Result<bool, Status> {
    match op {
        rocsparse_operation::rocsparse_operation_none => Ok(false),
        rocsparse_operation::rocsparse_operation_transpose
        | rocsparse_operation::rocsparse_operation_conjugate_transpose => Ok(true),
        _ => Err(INVALID_VALUE),
    }
}

/// Check the temporary buffer of a compute or preprocess stage; the
/// computation uses it as scratch space.
pub(super) fn check_buffer(temp_buffer: *mut c_void) -> Result<Span, Status> {
    span(temp_buffer as usize, BUFFER_SIZE).ok_or(INVALID_POINTER)
}
