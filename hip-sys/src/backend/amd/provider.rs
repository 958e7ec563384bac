//! What the amd backend provides besides its HIP table: AMD's own math
//! libraries, each loaded on first use.

use super::{hiprtc, miopen, rccl, rocblas, rocfft, rocrand, rocsolver, rocsparse, roctx};
use crate::backend::provider::Provider;

/// AMD's rocBLAS, rocSPARSE, rocFFT, MIOpen, rocRAND, rocSOLVER, RCCL, ROCTx and
/// hipRTC.
pub(crate) static PROVIDER: Provider = Provider {
    rocblas: rocblas::table,
    rocsparse: rocsparse::table,
    rocfft: rocfft::table,
    rocfft_version: rocfft::version,
    miopen: miopen::table,
    rocrand: rocrand::table,
    rocsolver: rocsolver::table,
    rccl: rccl::table,
    roctx: roctx::table,
    hiprtc: hiprtc::compiler,
};
