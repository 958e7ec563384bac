//! What the nvidia backend provides besides its HIP table: rocBLAS over
//! cuBLAS, rocSPARSE over cuSPARSE, rocFFT over cuFFT, MIOpen over cuDNN,
//! rocRAND over cuRAND, rocSOLVER over cuSOLVER, RCCL over NCCL, hipRTC over NVRTC and ROCTx over
//! the NVTX tool attached, each loaded on first use.

use super::{hiprtc, miopen, nvtx, rccl, rocblas, rocfft, rocrand, rocsolver, rocsparse};
use crate::backend::provider::Provider;
use crate::shared::rocfft_version::RocfftVersion;

/// The NVIDIA libraries behind the ROCm tables.
pub(crate) static PROVIDER: Provider = Provider {
    rocblas: || rocblas::load(&rocblas::candidates()),
    rocsparse: || rocsparse::load(&rocsparse::candidates()),
    rocfft: || rocfft::load(&rocfft::candidates()),
    // cuFFT keeps out-of-place R2C inputs and may overwrite C2R
    // ones: the input rules of rocFFT 1.0.25 and later.
    rocfft_version: || Ok(RocfftVersion::R2C_KEEPS_INPUT),
    miopen: || miopen::load(&miopen::candidates()),
    rocrand: || rocrand::load(&rocrand::candidates()),
    rocsolver: || rocsolver::load(&rocsolver::candidates()),
    rccl: || rccl::load(&rccl::candidates()),
    // Ranges go to the NVTX tool that Nsight attaches, if any.
    roctx: nvtx::table,
    hiprtc: hiprtc::compiler,
};
