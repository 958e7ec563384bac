//! What the simulator provides besides its HIP table: its own rocBLAS,
//! rocSPARSE, rocFFT, MIOpen, rocRAND, rocSOLVER, RCCL, ROCTx (its timeline)
//! and hipRTC.

use super::{miopen, rccl, rocblas, rocfft, rocrand, rocsolver, rocsparse};
use hip_abi::provider::Provider;

/// The simulator's libraries. rocFFT fails to load when
/// `AMDGPU_SIM_ROCFFT_VERSION` is invalid, saying why.
pub static PROVIDER: Provider = Provider {
    rocblas: || Ok(&rocblas::SIM_ROCBLAS),
    rocsparse: || Ok(&rocsparse::SIM_ROCSPARSE),
    rocfft: || rocfft::env_version().map(|_| &rocfft::SIM_ROCFFT),
    rocfft_version: || Ok(rocfft::rocfft_version()),
    miopen: || Ok(&miopen::SIM_MIOPEN),
    rocrand: || Ok(&rocrand::SIM_ROCRAND),
    rocsolver: || Ok(&rocsolver::SIM_ROCSOLVER),
    rccl: || Ok(&rccl::SIM_RCCL),
    roctx: || Ok(&super::roctx::SIM_ROCTX),
    hiprtc: || Ok(&super::hiprtc::SIM_COMPILER),
};
