//! Reaching NVIDIA's libraries from the benchmarks that time the raw calls
//! beside ours (`vendor.rs`, `blas.rs`). Benchmarks may panic: a missing
//! library or symbol ends the run with its name.

use libloading::{Library, Symbol};

/// Open the first of `names` that loads.
pub fn open(names: &[&str]) -> Library {
    for name in names {
        // SAFETY: NVIDIA's libraries, meant to be loaded into any process.
        if let Ok(lib) = unsafe { Library::new(name) } {
            return lib;
        }
    }
    panic!("none of {names:?} loads");
}

/// A function of `lib` with the signature `T` (the caller's promise).
///
/// # Safety
/// `name` has the C signature `T` in `lib`.
pub unsafe fn function<'a, T>(lib: &'a Library, name: &str) -> Symbol<'a, T> {
    // SAFETY: the caller's promise.
    unsafe { lib.get(name.as_bytes()) }.unwrap_or_else(|e| panic!("{name}: {e}"))
}
