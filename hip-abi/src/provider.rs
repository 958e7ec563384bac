//! What a backend provides besides its HIP table: a way to get each math
//! library's table. The selection asks the process's backend for its
//! provider; `hip_sys::libraries` calls it once per table and keeps the
//! answer.

use crate::miopen::MiopenApi;
use crate::rccl::RcclApi;
use crate::rocblas::RocblasApi;
use crate::rocfft::RocfftApi;
use crate::rocrand::RocrandApi;
use crate::rocsolver::RocsolverApi;
use crate::rocsparse::RocsparseApi;
use crate::roctx::RoctxApi;
use crate::shared::compiler::Compiler;
use crate::shared::rocfft_version::RocfftVersion;
use crate::BackendError;

/// How a backend fills each library table: an error says why it cannot.
pub struct Provider {
    /// rocBLAS.
    pub rocblas: fn() -> Result<&'static RocblasApi, BackendError>,
    /// rocSPARSE.
    pub rocsparse: fn() -> Result<&'static RocsparseApi, BackendError>,
    /// rocFFT.
    pub rocfft: fn() -> Result<&'static RocfftApi, BackendError>,
    /// The rocFFT version whose rules the rocFFT table follows, asked once
    /// that table has loaded.
    pub rocfft_version: fn() -> Result<RocfftVersion, BackendError>,
    /// MIOpen.
    pub miopen: fn() -> Result<&'static MiopenApi, BackendError>,
    /// rocRAND.
    pub rocrand: fn() -> Result<&'static RocrandApi, BackendError>,
    /// rocSOLVER.
    pub rocsolver: fn() -> Result<&'static RocsolverApi, BackendError>,
    /// RCCL.
    pub rccl: fn() -> Result<&'static RcclApi, BackendError>,
    /// ROCTx, the profiler ranges and marks (the simulator's timeline on
    /// the sim backend, the attached NVTX tool on nvidia).
    pub roctx: fn() -> Result<&'static RoctxApi, BackendError>,
    /// The runtime compiler that serves the backend's devices: AMD's
    /// hipRTC, NVRTC, or the simulator's.
    pub hiprtc: fn() -> Result<&'static Compiler, BackendError>,
}
