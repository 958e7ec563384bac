//! The math libraries' function tables: rocBLAS, rocSPARSE, rocFFT, MIOpen,
//! rocRAND and rocSOLVER; RCCL's; and ROCTx's, for profiler ranges
//! ([`profile`]).
//!
//! Each table is loaded lazily, once per process, for the process's
//! [backend](crate::backend()):
//!
//! - **amd**: AMD's shared library, opened at run time from
//!   `$ROCM_PATH/lib`, then `/opt/rocm/lib`, then the loader's path, under
//!   the names `librocblas.so` (`.so.5`, `.so.4`, `.so.3`, `.so.0`),
//!   `librocsparse.so` (`.so.1`, `.so.0`), `librocfft.so` (`.so.0`),
//!   `libMIOpen.so` (`.so.1`), `librocrand.so` (`.so.1`), `librocsolver.so` (`.so.0`) and `librccl.so` (`.so.1`). A library that is not found is
//!   [`BackendError::LibraryNotFound`](crate::BackendError::LibraryNotFound) (with every path tried), a symbol
//!   that is missing [`BackendError::SymbolMissing`](crate::BackendError::SymbolMissing), a version whose ABI
//!   this crate does not know [`BackendError::UnsupportedVersion`](crate::BackendError::UnsupportedVersion). None of
//!   them panics.
//! - **sim**: the simulator's implementations ([`crate::sim`]).
//! - **nvidia**: rocBLAS is mapped onto cuBLAS (`libcublas.so.13`, `.12`),
//!   rocFFT onto cuFFT (`libcufft.so.12`, `.11`), rocSPARSE onto cuSPARSE
//!   (`libcusparse.so.12`, `.11`) and MIOpen onto cuDNN (`libcudnn.so.9`,
//!   `.8`), as hipBLAS, hipFFT, hipSPARSE and hipDNN do (see the nvidia
//!   backend's `rocblas`, `rocfft`, `rocsparse` and `miopen` modules for
//!   the mappings and where they differ). A missing NVIDIA library is
//!   [`BackendError::LibraryNotFound`](crate::BackendError::LibraryNotFound), naming every path tried.
//!   rocRAND is mapped onto cuRAND (`libcurand.so.10`), rocSOLVER onto
//!   cuSOLVER's dense API (`libcusolver.so.12`, `.11`), RCCL onto NCCL
//!   (`libnccl.so.2`, or `AMDGPU_NCCL_PATH`).
//!
//! If backend selection itself failed, that error is returned. The
//! functions here ask the process's backend for its table once
//! ([`crate::backend`](mod@crate::backend) knows which backend provides what) and keep the
//! answer for the process.
//!
//! # ABI versions (amd)
//!
//! Calling a function through a signature that does not match the library
//! is undefined behaviour, not an error, so the loaders read each library's
//! version before filling a table and refuse versions they do not know.
//! The tables' signatures are those of the bindings (rocSPARSE of ROCm
//! 5.7.1, rocFFT of ROCm 6.1.2, MIOpen 3.x). What differs between versions,
//! and how each loader handles it, is in each library's module:
//! [`blas`], [`sparse`], [`fft`], [`dnn`].
//!
//! None of this has been run against AMD's libraries yet: the decisions
//! rest on the changelogs and headers named in those modules.

pub mod blas;
pub mod collective;
pub mod dnn;
pub mod fft;
pub mod profile;
pub mod rand;
pub mod rtc;
pub mod solver;
pub mod sparse;

pub use crate::shared::library::Library;
pub use blas::rocblas;
pub use collective::rccl;
pub use dnn::miopen;
pub use fft::{rocfft, rocfft_version, RocfftVersion};
pub use profile::roctx;
pub use rand::rocrand;
pub use solver::rocsolver;
pub use sparse::{rocsparse, rocsparse_spmv_staged};

/// Whether `library` can be used in this process (loading it if needed).
pub fn available(library: Library) -> bool {
    match library {
        Library::Rocsparse => rocsparse().is_ok(),
        Library::Rocfft => rocfft().is_ok(),
        Library::Miopen => miopen().is_ok(),
        Library::Rocblas => rocblas().is_ok(),
        Library::Rocrand => rocrand().is_ok(),
        Library::Rocsolver => rocsolver().is_ok(),
        Library::Rccl => rccl().is_ok(),
    }
}
