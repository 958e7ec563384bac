//! The rocSPARSE statuses the simulator answers with.

use crate::bindings::rocsparse::rocsparse_status;

pub(super) type Status = rocsparse_status;
pub(super) const OK: Status = rocsparse_status::rocsparse_status_success;
pub(super) const INTERNAL: Status = rocsparse_status::rocsparse_status_internal_error;
pub(super) const INVALID_HANDLE: Status = rocsparse_status::rocsparse_status_invalid_handle;
pub(super) const INVALID_POINTER: Status = rocsparse_status::rocsparse_status_invalid_pointer;
pub(super) const INVALID_SIZE: Status = rocsparse_status::rocsparse_status_invalid_size;
pub(super) const INVALID_VALUE: Status = rocsparse_status::rocsparse_status_invalid_value;
pub(super) const NOT_IMPLEMENTED: Status = rocsparse_status::rocsparse_status_not_implemented;
pub(super) const MEMORY_ERROR: Status = rocsparse_status::rocsparse_status_memory_error;
