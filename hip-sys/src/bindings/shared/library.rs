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
}

impl Library {
    /// Every library.
    pub const ALL: [Library; 5] =
        [Library::Rocblas, Library::Rocsparse, Library::Rocfft, Library::Miopen, Library::Rocrand];

    /// The C library's name: `rocBLAS`, `rocSPARSE`, `rocFFT`, `MIOpen` or
    /// `rocRAND`.
    pub const fn name(self) -> &'static str {
        match self {
            Library::Rocsparse => "rocSPARSE",
            Library::Rocfft => "rocFFT",
            Library::Miopen => "MIOpen",
            Library::Rocblas => "rocBLAS",
            Library::Rocrand => "rocRAND",
        }
    }
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
