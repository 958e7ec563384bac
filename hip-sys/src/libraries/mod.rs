//! The math libraries' function tables: rocBLAS, rocSPARSE, rocFFT and MIOpen.
//!
//! Each table is loaded lazily, once per process, for the process's
//! [backend](crate::backend()):
//!
//! - **amd**: AMD's shared library, opened at run time from
//!   `$ROCM_PATH/lib`, then `/opt/rocm/lib`, then the loader's path, under
//!   the names `librocblas.so` (`.so.5`, `.so.4`, `.so.3`, `.so.0`),
//!   `librocsparse.so` (`.so.1`, `.so.0`), `librocfft.so` (`.so.0`) and
//!   `libMIOpen.so` (`.so.1`). A library that is not found is
//!   [`BackendError::LibraryNotFound`] (with every path tried), a symbol
//!   that is missing [`BackendError::SymbolMissing`], a version whose ABI
//!   this crate does not know [`BackendError::UnsupportedVersion`]. None of
//!   them panics.
//! - **sim**: the simulator's implementations ([`crate::sim`]).
//! - **nvidia**: rocBLAS is mapped onto cuBLAS (`libcublas.so.13`, `.12`),
//!   rocFFT onto cuFFT (`libcufft.so.12`, `.11`), rocSPARSE onto cuSPARSE
//!   (`libcusparse.so.12`, `.11`) and MIOpen onto cuDNN (`libcudnn.so.9`,
//!   `.8`), as hipBLAS, hipFFT, hipSPARSE and hipDNN do (see the nvidia
//!   backend's `cublas.rs`, `cufft.rs`, `cusparse.rs` and `cudnn.rs` for the
//!   mappings and where they differ). A missing NVIDIA library is
//!   [`BackendError::LibraryNotFound`], naming every path tried.
//!
//! If backend selection itself failed, that error is returned.
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

use std::fmt;

use crate::backend::Backend;
use crate::loader::Opened;
use crate::BackendError;

pub mod blas;
pub mod dnn;
pub mod fft;
pub mod rtc;
pub mod sparse;

pub use blas::rocblas;
pub use dnn::miopen;
pub use fft::{rocfft, rocfft_version, RocfftVersion};
pub(crate) use sparse::unstaged_spmv_over;
pub use sparse::{rocsparse, rocsparse_spmv_staged};

/// One of the math libraries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Library {
    /// rocSPARSE, `librocsparse.so`.
    Rocsparse,
    /// rocFFT, `librocfft.so`.
    Rocfft,
    /// MIOpen, `libMIOpen.so`.
    Miopen,
    /// rocBLAS, `librocblas.so`.
    Rocblas,
}

impl Library {
    /// Every library.
    pub const ALL: [Library; 4] = [Library::Rocblas, Library::Rocsparse, Library::Rocfft, Library::Miopen];

    /// The C library's name: `rocBLAS`, `rocSPARSE`, `rocFFT` or `MIOpen`.
    pub const fn name(self) -> &'static str {
        match self {
            Library::Rocsparse => "rocSPARSE",
            Library::Rocfft => "rocFFT",
            Library::Miopen => "MIOpen",
            Library::Rocblas => "rocBLAS",
        }
    }

    /// The file names tried in each directory and through the loader path.
    const fn file_names(self) -> &'static [&'static str] {
        match self {
            Library::Rocsparse => &["librocsparse.so", "librocsparse.so.1", "librocsparse.so.0"],
            Library::Rocfft => &["librocfft.so", "librocfft.so.0"],
            Library::Miopen => &["libMIOpen.so", "libMIOpen.so.1"],
            Library::Rocblas => {
                &["librocblas.so", "librocblas.so.5", "librocblas.so.4", "librocblas.so.3", "librocblas.so.0"]
            }
        }
    }
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a library's table comes from on a backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// AMD's shared library.
    Amd,
    /// The simulator.
    Sim,
    /// The nvidia backend's mapping onto NVIDIA's library.
    Nvidia,
}

/// Decide where the libraries come from, given the process's backend (or
/// why there is none): every backend provides all four.
pub(crate) fn source(selection: Result<Backend, BackendError>) -> Result<Source, BackendError> {
    match selection? {
        Backend::Amd => Ok(Source::Amd),
        Backend::Sim => Ok(Source::Sim),
        Backend::Nvidia => Ok(Source::Nvidia),
    }
}

/// Whether `library` can be used in this process (loading it if needed).
pub fn available(library: Library) -> bool {
    match library {
        Library::Rocsparse => rocsparse().is_ok(),
        Library::Rocfft => rocfft().is_ok(),
        Library::Miopen => miopen().is_ok(),
        Library::Rocblas => rocblas().is_ok(),
    }
}

// ---- loading (amd) ------------------------------------------------------------

fn rocm_path() -> Option<String> {
    std::env::var("ROCM_PATH").ok()
}

/// The candidate files of `library`, in the order they are tried.
pub(crate) fn candidates(library: Library, rocm_path: Option<&str>) -> Vec<String> {
    let mut dirs = Vec::with_capacity(2);
    if let Some(root) = rocm_path.map(str::trim).filter(|p| !p.is_empty()) {
        dirs.push(root.trim_end_matches('/').to_owned());
    }
    if !dirs.iter().any(|d| d == "/opt/rocm") {
        dirs.push("/opt/rocm".to_owned());
    }
    let mut out = Vec::new();
    for dir in &dirs {
        for name in library.file_names() {
            out.push(format!("{dir}/lib/{name}"));
        }
    }
    out.extend(library.file_names().iter().map(|name| (*name).to_owned()));
    out
}

fn not_found_hint(library: Library) -> String {
    format!(
        "install {library} of ROCm 5.x, 6.x or 7.x, then set ROCM_PATH to its prefix (e.g. /opt/rocm) or add its \
         lib directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's {library}"
    )
}

/// Open the first of `library`'s candidates that loads.
fn open(library: Library, candidates: &[String]) -> Result<Opened, BackendError> {
    let symbol_hint = format!(
        "point ROCM_PATH at a ROCm 5.x, 6.x or 7.x installation whose {library} is complete, or set AMDGPU_BACKEND=sim"
    );
    crate::loader::open_first(library.name(), candidates, &not_found_hint(library), &symbol_hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_chooses_its_source() {
        assert_eq!(source(Ok(Backend::Nvidia)), Ok(Source::Nvidia));
        assert_eq!(source(Ok(Backend::Amd)), Ok(Source::Amd));
        assert_eq!(source(Ok(Backend::Sim)), Ok(Source::Sim));
        let failed = BackendError::InvalidBackend { value: "x".to_owned() };
        assert_eq!(source(Err(failed.clone())), Err(failed));
    }

    #[test]
    fn library_names_and_candidates() {
        assert_eq!(Library::Rocsparse.to_string(), "rocSPARSE");
        assert_eq!(Library::Rocfft.to_string(), "rocFFT");
        assert_eq!(Library::Miopen.to_string(), "MIOpen");
        let c = candidates(Library::Rocsparse, Some("/x/rocm/"));
        assert_eq!(c[0], "/x/rocm/lib/librocsparse.so");
        assert_eq!(c[3], "/opt/rocm/lib/librocsparse.so");
        assert_eq!(c.last().map(String::as_str), Some("librocsparse.so.0"));
        assert_eq!(
            candidates(Library::Miopen, None),
            ["/opt/rocm/lib/libMIOpen.so", "/opt/rocm/lib/libMIOpen.so.1", "libMIOpen.so", "libMIOpen.so.1"]
        );
    }
}
