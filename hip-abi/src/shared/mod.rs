//! What the backends share about the C libraries, whichever of them
//! provides a table: which math libraries there are, rocFFT's versions and
//! the rule they imply for inputs, which runtime compiler was loaded, rocSPARSE's two SpMV forms (each served
//! over the other), hipRTC's names of its statuses, NCCL's version codes, and rocBLAS's and rocSOLVER's
//! argument checks, and what both sides of IPC keep alike (the open flag's value
//! per HIP version, where shared-memory files live, and the [`shared_file::SharedFile`]
//! both processes map), and how hand-written JSON quotes a
//! string. Nothing here depends on a backend, so every backend, and the
//! process-wide tables of `hip_sys::libraries`, use it alike.

pub mod compiler;
pub mod hiprtc_names;
pub mod ipc;
pub mod json;
pub mod library;
pub mod nccl_version;
pub mod prelude;
pub mod rocblas_rules;
pub mod rocfft_version;
pub mod rocsolver_rules;
pub mod rocsparse_spmv;
pub mod shared_file;
pub mod version_string;
