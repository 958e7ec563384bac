//! The rocFFT statuses the simulator answers with.

use crate::bindings::rocfft::rocfft_status;

pub(super) type Status = rocfft_status;
pub(super) const OK: Status = rocfft_status::rocfft_status_success;
pub(super) const FAILURE: Status = rocfft_status::rocfft_status_failure;
pub(super) const INVALID_ARG: Status = rocfft_status::rocfft_status_invalid_arg_value;
pub(super) const INVALID_DIMENSIONS: Status = rocfft_status::rocfft_status_invalid_dimensions;
pub(super) const INVALID_WORK_BUFFER: Status = rocfft_status::rocfft_status_invalid_work_buffer;
