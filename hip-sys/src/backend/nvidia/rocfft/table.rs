//! The rocFFT table over cuFFT, and loading it.

use super::descriptions::*;
use super::exec::*;
use super::library;
use super::plans::*;
use crate::rocfft::RocfftApi;
use crate::BackendError;

/// Load cuFFT from `candidates` and return the rocFFT table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static RocfftApi, BackendError> {
    library::load_once(candidates).map(|_| &ROCFFT_OVER_CUFFT)
}

/// The rocFFT table over cuFFT.
static ROCFFT_OVER_CUFFT: RocfftApi = RocfftApi {
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
