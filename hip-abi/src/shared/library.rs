//! The math libraries, by name.

use std::fmt;

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
    /// rocRAND, `librocrand.so`.
    Rocrand,
    /// rocSOLVER, `librocsolver.so`.
    Rocsolver,
    /// RCCL, the collectives, `librccl.so` (NCCL on nvidia).
    Rccl,
}

impl Library {
    /// Every library.
    pub const ALL: [Library; 7] = [
        Library::Rocblas,
        Library::Rocsparse,
        Library::Rocfft,
        Library::Miopen,
        Library::Rocrand,
        Library::Rocsolver,
        Library::Rccl,
    ];

    /// The C library's name: `rocBLAS`, `rocSPARSE`, `rocFFT`, `MIOpen`,
    /// `rocRAND`, `rocSOLVER` or `RCCL`.
    pub const fn name(self) -> &'static str {
        match self {
            Library::Rocsparse => "rocSPARSE",
            Library::Rocfft => "rocFFT",
            Library::Miopen => "MIOpen",
            Library::Rocblas => "rocBLAS",
            Library::Rocrand => "rocRAND",
            Library::Rocsolver => "rocSOLVER",
            Library::Rccl => "RCCL",
        }
    }
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
