//! The simulator's rocFFT table.

use super::execute::rocfft_execute;
use super::plans::*;
use super::setup::{rocfft_cleanup, rocfft_setup};
use super::version::rocfft_get_version_string;
use crate::bindings::rocfft::RocfftApi;

/// The simulator's rocFFT table.
pub(crate) static SIM_ROCFFT: RocfftApi = RocfftApi {
    rocfft_setup,
    rocfft_cleanup,
    rocfft_get_version_string,
    rocfft_plan_create,
    rocfft_plan_destroy,
    rocfft_plan_get_work_buffer_size,
    rocfft_plan_description_create,
    rocfft_plan_description_destroy,
    rocfft_plan_description_set_data_layout,
    rocfft_execution_info_create,
    rocfft_execution_info_destroy,
    rocfft_execution_info_set_stream,
    rocfft_execution_info_set_work_buffer,
    rocfft_execute,
};
