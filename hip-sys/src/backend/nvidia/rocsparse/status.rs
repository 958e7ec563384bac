//! cuSPARSE's statuses as rocSPARSE's, and the frame of every entry point.

use super::library::CusparseStatus;
use crate::backend::nvidia::catch_status;
use crate::rocsparse::rocsparse_status;

/// A `cusparseStatus_t`'s name (`cusparse.h`).
pub(super) fn status_name(status: CusparseStatus) -> &'static str {
    match status {
        0 => "CUSPARSE_STATUS_SUCCESS",
        1 => "CUSPARSE_STATUS_NOT_INITIALIZED",
        2 => "CUSPARSE_STATUS_ALLOC_FAILED",
        3 => "CUSPARSE_STATUS_INVALID_VALUE",
        4 => "CUSPARSE_STATUS_ARCH_MISMATCH",
        5 => "CUSPARSE_STATUS_MAPPING_ERROR",
        6 => "CUSPARSE_STATUS_EXECUTION_FAILED",
        7 => "CUSPARSE_STATUS_INTERNAL_ERROR",
        8 => "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
        9 => "CUSPARSE_STATUS_ZERO_PIVOT",
        10 => "CUSPARSE_STATUS_NOT_SUPPORTED",
        11 => "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
        _ => "an unknown cusparseStatus_t",
    }
}

/// A cuSPARSE status as the rocSPARSE status of the same meaning.
pub(super) fn to_rocsparse(status: CusparseStatus) -> rocsparse_status {
    match status {
        0 => rocsparse_status::rocsparse_status_success,
        1 => rocsparse_status::rocsparse_status_not_initialized,
        2 | 11 => rocsparse_status::rocsparse_status_memory_error,
        3 => rocsparse_status::rocsparse_status_invalid_value,
        4 => rocsparse_status::rocsparse_status_arch_mismatch,
        8 | 10 => rocsparse_status::rocsparse_status_not_implemented,
        9 => rocsparse_status::rocsparse_status_zero_pivot,
        _ => rocsparse_status::rocsparse_status_internal_error,
    }
}

pub(super) fn ok(function: &str, status: CusparseStatus) -> Result<(), rocsparse_status> {
    if status == 0 {
        return Ok(());
    }
    log::error!("rocSPARSE over cuSPARSE: {function} failed with {} ({status})", status_name(status));
    Err(to_rocsparse(status))
}

/// Run one entry point, never unwinding into C.
pub(super) fn entry(body: impl FnOnce() -> Result<(), rocsparse_status>) -> rocsparse_status {
    catch_status(
        "rocSPARSE over cuSPARSE",
        rocsparse_status::rocsparse_status_success,
        rocsparse_status::rocsparse_status_internal_error,
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_keep_their_meaning() {
        assert_eq!(to_rocsparse(0), rocsparse_status::rocsparse_status_success);
        assert_eq!(to_rocsparse(2), rocsparse_status::rocsparse_status_memory_error);
        assert_eq!(to_rocsparse(3), rocsparse_status::rocsparse_status_invalid_value);
        assert_eq!(to_rocsparse(10), rocsparse_status::rocsparse_status_not_implemented);
        assert_eq!(to_rocsparse(99), rocsparse_status::rocsparse_status_internal_error);
        assert_eq!(status_name(3), "CUSPARSE_STATUS_INVALID_VALUE");
    }
}
