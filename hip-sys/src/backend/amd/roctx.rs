//! ROCTx on the amd backend: rocprofiler-sdk's `librocprofiler-sdk-roctx`
//! (ROCm 6.2 and later), else roctracer's `libroctx64` (see
//! [`crate::libraries::profile`]).

use super::libraries::rocm_candidates;
use crate::backend::loader::open_first;
use crate::roctx::RoctxApi;
use crate::BackendError;

/// The file names tried, newest first.
const NAMES: [&str; 5] = [
    "librocprofiler-sdk-roctx.so.1",
    "librocprofiler-sdk-roctx.so.0",
    "librocprofiler-sdk-roctx.so",
    "libroctx64.so.4",
    "libroctx64.so",
];

/// The candidate files: beside the loaded runtime, else as every amd
/// library is looked for.
fn candidates() -> Vec<String> {
    match super::installation::runtime() {
        Some(runtime) => NAMES.iter().map(|name| format!("{}/{name}", runtime.directory)).collect(),
        None => rocm_candidates(&NAMES, super::libraries::rocm_path().as_deref()),
    }
}

/// ROCTx's table, from the first candidate that loads.
pub(crate) fn table() -> Result<&'static RoctxApi, BackendError> {
    load(&candidates())
}

fn load(candidates: &[String]) -> Result<&'static RoctxApi, BackendError> {
    let opened = open_first(
        "ROCTx",
        candidates,
        "install rocprofiler-sdk-roctx (ROCm 6.2 and later) or roctracer beside the HIP runtime for \
         profiler ranges; without it they are no-ops",
        "use the ROCTx of the same ROCm installation as the HIP runtime",
    )?;
    // SAFETY: the three functions have the signatures of `roctx.h` in both
    // libraries (the bindings' docs).
    let api = unsafe { RoctxApi::from_resolver(|name| opened.symbol(name)) }?;
    log::debug!("loaded {} for profiler ranges", opened.path());
    opened.keep();
    Ok(Box::leak(Box::new(api)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error_naming_what_to_install() {
        let err = load(&["/nonexistent/amdgpu-rs/libroctx64.so".to_owned()]).expect_err("absent");
        let BackendError::LibraryNotFound { library, hint, .. } = &err else { panic!("{err:?}") };
        assert_eq!(library, "ROCTx");
        assert!(hint.contains("rocprofiler-sdk-roctx"), "{hint}");
    }

    #[test]
    fn the_newest_library_is_tried_first() {
        let found = rocm_candidates(&NAMES, Some("/x/rocm"));
        assert_eq!(found[0], "/x/rocm/lib/librocprofiler-sdk-roctx.so.1");
        assert!(found.iter().any(|c| c.ends_with("libroctx64.so.4")));
    }
}
