//! The one loader of shared libraries, used by every backend for every
//! library: HIP and the ROCm libraries on amd, the CUDA runtime, driver and
//! math libraries on nvidia.
//!
//! The rule is the same everywhere: the first candidate that opens wins (a
//! candidate with a `/` is a path, otherwise the system loader searches for
//! it); if none opens, the error lists every candidate with the loader's
//! reason; if the first that opens lacks a symbol, the error names the
//! symbol and the file and later candidates are not tried, because a broken
//! installation earlier on the path is worth knowing about. A library whose
//! table was built is kept loaded for the rest of the process
//! ([`Opened::keep`]), so the table's pointers stay valid; one that failed
//! is closed again.

use std::ffi::c_void;

use libloading::Library;

use crate::BackendError;

/// A shared library that opened, not yet kept.
pub(crate) struct Opened {
    library: Library,
    path: String,
    /// What to do when a symbol is missing, for [`Opened::symbol`]'s error.
    symbol_hint: String,
}

/// Open the first of `candidates` that loads. `name` names the library in
/// the error (`"libcudart"`, `"rocSPARSE"`), `not_found_hint` says what to
/// do when none loads, `symbol_hint` what to do when one lacks a symbol.
pub(crate) fn open_first(
    name: &str,
    candidates: &[String],
    not_found_hint: &str,
    symbol_hint: &str,
) -> Result<Opened, BackendError> {
    let mut tried = Vec::with_capacity(candidates.len());
    for path in candidates {
        // SAFETY: loading a shared library runs its initialisers. The
        // candidates name the GPU vendors' runtimes and libraries (or, in
        // tests, a system library), whose initialisers are meant to run in
        // any process that loads them.
        match unsafe { Library::new(path) } {
            Ok(library) => {
                return Ok(Opened { library, path: path.clone(), symbol_hint: symbol_hint.to_owned() });
            }
            Err(e) => {
                // The loader's message usually starts with the path again.
                let reason = e.to_string();
                let reason = reason.strip_prefix(path.as_str()).and_then(|r| r.strip_prefix(": ")).unwrap_or(&reason);
                tried.push(format!("{path} ({reason})"));
            }
        }
    }
    Err(BackendError::LibraryNotFound { library: name.to_owned(), tried, hint: not_found_hint.to_owned() })
}

impl Opened {
    /// The candidate that opened.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The non-null address of `name`, or `SymbolMissing` naming it and
    /// the file.
    pub(crate) fn symbol(&self, name: &str) -> Result<*const c_void, BackendError> {
        self.optional(name).ok_or_else(|| BackendError::SymbolMissing {
            library: self.path.clone(),
            symbol: name.to_owned(),
            hint: self.symbol_hint.clone(),
        })
    }

    /// The function `name`, as the function pointer type `F`; or
    /// `SymbolMissing`, as [`symbol`](Self::symbol).
    ///
    /// # Safety
    /// `F` is a function pointer type with `name`'s C signature.
    pub(crate) unsafe fn function<F: Copy>(&self, name: &str) -> Result<F, BackendError> {
        const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*const c_void>()) };
        let address = self.symbol(name)?;
        // SAFETY: `address` is the non-null address of `name`, whose
        // signature `F` is (the caller's guarantee), and `F` is a pointer
        // of the same size (checked above).
        Ok(unsafe { std::mem::transmute_copy::<*const c_void, F>(&address) })
    }

    /// The non-null address of `name`, if the library exports it (for
    /// functions that only some versions have).
    pub(crate) fn optional(&self, name: &str) -> Option<*const c_void> {
        // SAFETY: the symbol is read as an untyped pointer, which is valid
        // for any symbol; whoever uses it gives it its type.
        let symbol = unsafe { self.library.get::<*const c_void>(name.as_bytes()) };
        symbol.ok().map(|s| *s).filter(|p| !p.is_null())
    }

    /// The error for a library of a version this crate does not know.
    pub(crate) fn unsupported(&self, found: String, supported: &str) -> BackendError {
        BackendError::UnsupportedVersion { library: self.path.clone(), found, supported: supported.to_owned() }
    }

    /// Keep the library loaded for the rest of the process (the tables'
    /// pointers point into it) and return its path. Forgetting the handle
    /// never unloads it, and allocates nothing.
    pub(crate) fn keep(self) -> String {
        std::mem::forget(self.library);
        self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_opening_lists_every_candidate_with_its_reason() {
        let candidates = ["/nonexistent/a/libx.so".to_owned(), "libamdgpu-rs-none.so".to_owned()];
        let err = open_first("libx", &candidates, "install x", "fix x").err().expect("nothing opens");
        match err {
            BackendError::LibraryNotFound { library, tried, hint } => {
                assert_eq!(library, "libx");
                assert_eq!(tried.len(), 2);
                assert!(tried[0].starts_with("/nonexistent/a/libx.so ("), "{tried:?}");
                assert!(!tried[0].contains("libx.so: /nonexistent"), "the path is not repeated: {tried:?}");
                assert_eq!(hint, "install x");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_first_that_opens_wins_and_names_a_missing_symbol() {
        let candidates = ["/nonexistent/libm.so".to_owned(), "libm.so.6".to_owned(), "libc.so.6".to_owned()];
        let opened = open_first("libm", &candidates, "-", "use a full libm").expect("libm opens");
        assert_eq!(opened.path(), "libm.so.6");
        assert!(opened.symbol("cos").is_ok());
        assert!(opened.optional("amdgpu_rs_no_such_symbol").is_none());
        match opened.symbol("amdgpu_rs_no_such_symbol") {
            Err(BackendError::SymbolMissing { library, symbol, hint }) => {
                assert_eq!(
                    (library.as_str(), symbol.as_str(), hint.as_str()),
                    ("libm.so.6", "amdgpu_rs_no_such_symbol", "use a full libm")
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
