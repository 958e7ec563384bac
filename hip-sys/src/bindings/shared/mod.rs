//! What the backends share about the C libraries, whichever of them
//! provides a table: which math libraries there are, rocFFT's versions and
//! the rule they imply for inputs, which runtime compiler was loaded, rocSPARSE's two SpMV forms (each served
//! over the other), hipRTC's names of its statuses, NCCL's version codes, and rocBLAS's and rocSOLVER's
//! argument checks. Nothing here depends on a backend, so every backend, and the
//! process-wide tables of [`crate::libraries`], use it alike.

pub(crate) mod compiler;
pub(crate) mod hiprtc_names;
pub(crate) mod library;
pub(crate) mod nccl_version;
pub(crate) mod prelude;
pub(crate) mod rocblas_rules;
pub(crate) mod rocfft_version;
pub(crate) mod rocsolver_rules;
pub(crate) mod rocsparse_spmv;
pub(crate) mod version_string;
