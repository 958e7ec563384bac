//! The four precisions of NVIDIA's dense libraries (`S`, `D`, `C`, `Z`):
//! a family of C functions is declared once, generic over its element
//! type, and resolved once per precision by name.
//!
//! cuBLAS and cuSOLVER name each function four times (`cublasSgemm`,
//! `cublasDgemm`, …) with one shape; declaring the shape once as a struct
//! of function pointers over `T` ([`Family::Of`]) keeps each C signature
//! written once, and a mapping written once over [`Element`] picks its
//! precision's table with [`Precisions::of`].

use std::fmt;

use crate::backend::loader::Opened;
use crate::rocblas::{rocblas_double_complex as C64, rocblas_float_complex as C32};
use crate::BackendError;

/// An element type of cuBLAS and cuSOLVER: `f32`, `f64`, and the complex
/// types (rocBLAS's complex layout is `cuComplex`'s).
pub(in crate::backend::nvidia) trait Element: Copy + 'static {
    /// Its real type: itself, or the complex type's parts'.
    type Real: Copy + 'static;
    /// The precision's letter in C names, upper case (`S`, `D`, `C`, `Z`).
    const LETTER: char;
    /// The letters of a function from this type to its real type
    /// (cuBLAS's norms: `Snrm2`, `Dnrm2`, `Scnrm2`, `Dznrm2`).
    const TO_REAL: &'static str;
    /// Whether it is complex (the Hermitian functions take other names).
    const COMPLEX: bool;
    /// This precision's member of `set`.
    fn of<F: Family>(set: &Precisions<F>) -> &F::Of<Self>;
}

/// A family of C functions declared once for every precision.
pub(in crate::backend::nvidia) trait Family {
    /// The family's functions of precision `T`.
    type Of<T: Element>;

    /// Resolve the functions of precision `T` from `library`.
    ///
    /// # Safety
    /// `library` exports each of them with the declared signature.
    unsafe fn resolve<T: Element>(library: &Opened) -> Result<Self::Of<T>, BackendError>;
}

/// A family's functions in each of the four precisions.
pub(in crate::backend::nvidia) struct Precisions<F: Family> {
    s: F::Of<f32>,
    d: F::Of<f64>,
    c: F::Of<C32>,
    z: F::Of<C64>,
}

impl<F: Family> Precisions<F> {
    /// Resolve the family in every precision from `library`.
    ///
    /// # Safety
    /// As [`Family::resolve`], for each precision.
    pub(in crate::backend::nvidia) unsafe fn resolve(library: &Opened) -> Result<Self, BackendError> {
        // SAFETY: the caller's guarantee, for each precision.
        unsafe {
            Ok(Precisions {
                s: F::resolve::<f32>(library)?,
                d: F::resolve::<f64>(library)?,
                c: F::resolve::<C32>(library)?,
                z: F::resolve::<C64>(library)?,
            })
        }
    }

    /// The functions of precision `T`.
    pub(in crate::backend::nvidia) fn of<T: Element>(&self) -> &F::Of<T> {
        T::of(self)
    }
}

impl Element for f32 {
    type Real = f32;
    const LETTER: char = 'S';
    const TO_REAL: &'static str = "S";
    const COMPLEX: bool = false;
    fn of<F: Family>(set: &Precisions<F>) -> &F::Of<f32> {
        &set.s
    }
}

impl Element for f64 {
    type Real = f64;
    const LETTER: char = 'D';
    const TO_REAL: &'static str = "D";
    const COMPLEX: bool = false;
    fn of<F: Family>(set: &Precisions<F>) -> &F::Of<f64> {
        &set.d
    }
}

impl Element for C32 {
    type Real = f32;
    const LETTER: char = 'C';
    const TO_REAL: &'static str = "Sc";
    const COMPLEX: bool = true;
    fn of<F: Family>(set: &Precisions<F>) -> &F::Of<C32> {
        &set.c
    }
}

impl Element for C64 {
    type Real = f64;
    const LETTER: char = 'Z';
    const TO_REAL: &'static str = "Dz";
    const COMPLEX: bool = true;
    fn of<F: Family>(set: &Precisions<F>) -> &F::Of<C64> {
        &set.z
    }
}

/// A function's C name in one precision: a prefix, the precision's letter
/// and a stem (`cusolverDn` `S` `getrf_bufferSize`; `rocsolver_` `s`
/// `getrf_batched` in lower case). Written out only when shown or
/// resolved, so naming a call in an error costs nothing on success.
#[derive(Clone, Copy, Debug)]
pub(in crate::backend::nvidia) struct Name {
    prefix: &'static str,
    letter: char,
    /// Letters in place of `letter` (cuBLAS's norms).
    letters: Option<&'static str>,
    stem: &'static str,
}

impl Name {
    /// `prefix`, `T`'s upper-case letter, `stem`: a cuBLAS or cuSOLVER name.
    pub(in crate::backend::nvidia) fn of<T: Element>(prefix: &'static str, stem: &'static str) -> Name {
        Name { prefix, letter: T::LETTER, letters: None, stem }
    }

    /// As [`of`](Self::of) for a function from `T` to its real type:
    /// `prefix`, [`Element::TO_REAL`], `stem`.
    pub(in crate::backend::nvidia) fn to_real<T: Element>(prefix: &'static str, stem: &'static str) -> Name {
        Name { prefix, letter: T::LETTER, letters: Some(T::TO_REAL), stem }
    }

    /// `rocsolver_`, `T`'s lower-case letter, `stem`: a rocSOLVER name.
    pub(in crate::backend::nvidia) fn rocsolver<T: Element>(stem: &'static str) -> Name {
        Name { prefix: "rocsolver_", letter: T::LETTER.to_ascii_lowercase(), letters: None, stem }
    }

    /// `real` for a real `T`, `complex` for a complex one: the stems of
    /// functions whose Hermitian form is named otherwise (`syevd` and
    /// `heevd`, `orgqr` and `ungqr`).
    pub(in crate::backend::nvidia) fn stem<T: Element>(real: &'static str, complex: &'static str) -> &'static str {
        if T::COMPLEX {
            complex
        } else {
            real
        }
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.letters {
            Some(letters) => write!(f, "{}{letters}{}", self.prefix, self.stem),
            None => write!(f, "{}{}{}", self.prefix, self.letter, self.stem),
        }
    }
}

/// The function `name` of `library`, as the function pointer type `F`.
///
/// # Safety
/// `F` is a function pointer type whose signature is `name`'s.
pub(in crate::backend::nvidia) unsafe fn function<F: Copy>(library: &Opened, name: Name) -> Result<F, BackendError> {
    // SAFETY: the caller's guarantee.
    unsafe { library.function(&name.to_string()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_spell_each_precision_as_the_libraries_do() {
        assert_eq!(Name::of::<f32>("cusolverDn", "getrf_bufferSize").to_string(), "cusolverDnSgetrf_bufferSize");
        assert_eq!(Name::of::<C64>("cublas", "gemm_v2").to_string(), "cublasZgemm_v2");
        assert_eq!(Name::rocsolver::<C32>("getrf_batched").to_string(), "rocsolver_cgetrf_batched");
        assert_eq!(Name::to_real::<C64>("cublas", "nrm2_v2").to_string(), "cublasDznrm2_v2");
        assert_eq!(Name::to_real::<f32>("cublas", "nrm2_v2").to_string(), "cublasSnrm2_v2");
        assert_eq!(Name::of::<C32>("cusolverDn", Name::stem::<C32>("syevd", "heevd")).to_string(), "cusolverDnCheevd");
        assert_eq!(Name::of::<f64>("cusolverDn", Name::stem::<f64>("orgqr", "ungqr")).to_string(), "cusolverDnDorgqr");
    }
}
