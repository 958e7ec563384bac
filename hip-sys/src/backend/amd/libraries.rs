//! Where the amd backend looks for AMD's math libraries: in the loaded HIP
//! runtime's own directory, and only there, so that one process never
//! mixes two ROCm installations (see [`super::installation`]). Before a
//! runtime is loaded (the loaders' own tests), under `$ROCM_PATH/lib`, then
//! `/opt/rocm/lib`, then through the loader's path, under each library's
//! file names (see [`crate::libraries`]).

use crate::backend::loader::Opened;
use crate::shared::library::Library;
use crate::BackendError;

/// `ROCM_PATH`, if set.
pub(crate) fn rocm_path() -> Option<String> {
    std::env::var("ROCM_PATH").ok()
}

/// The file names tried in each directory and through the loader path.
const fn file_names(library: Library) -> &'static [&'static str] {
    match library {
        Library::Rocsparse => &["librocsparse.so", "librocsparse.so.1", "librocsparse.so.0"],
        Library::Rocfft => &["librocfft.so", "librocfft.so.0"],
        Library::Miopen => &["libMIOpen.so", "libMIOpen.so.1"],
        Library::Rocblas => {
            &["librocblas.so", "librocblas.so.5", "librocblas.so.4", "librocblas.so.3", "librocblas.so.0"]
        }
        Library::Rocrand => &["librocrand.so", "librocrand.so.1"],
        Library::Rocsolver => &["librocsolver.so", "librocsolver.so.0"],
        Library::Rccl => &["librccl.so", "librccl.so.1"],
    }
}

/// The candidate files of `library` for this process: beside the loaded
/// runtime, else [`candidates`] of `ROCM_PATH`.
pub(crate) fn installed(library: Library) -> Vec<String> {
    match super::installation::runtime() {
        Some(runtime) => beside(library, &runtime.directory),
        None => candidates(library, rocm_path().as_deref()),
    }
}

/// The candidate files of `library` in the runtime's directory `dir`.
pub(crate) fn beside(library: Library, dir: &str) -> Vec<String> {
    file_names(library).iter().map(|name| format!("{dir}/{name}")).collect()
}

/// The candidate files of `library`, in the order they are tried.
pub(crate) fn candidates(library: Library, rocm_path: Option<&str>) -> Vec<String> {
    rocm_candidates(file_names(library), rocm_path)
}

/// Where every amd loader looks for a file of `names` with no runtime to
/// go by: `$ROCM_PATH/lib` (`rocm_path`, when set and not empty), then
/// `/opt/rocm/lib`, each name in order in each, then the bare names,
/// through the system loader's path.
pub(crate) fn rocm_candidates(names: &[&str], rocm_path: Option<&str>) -> Vec<String> {
    let mut dirs = Vec::with_capacity(2);
    if let Some(root) = rocm_path.map(str::trim).filter(|p| !p.is_empty()) {
        dirs.push(root.trim_end_matches('/').to_owned());
    }
    if !dirs.iter().any(|d| d == "/opt/rocm") {
        dirs.push("/opt/rocm".to_owned());
    }
    let mut out = Vec::with_capacity((dirs.len() + 1) * names.len());
    for dir in &dirs {
        out.extend(names.iter().map(|name| format!("{dir}/lib/{name}")));
    }
    out.extend(names.iter().map(|name| (*name).to_owned()));
    out
}

fn not_found_hint(library: Library) -> String {
    format!(
        "install {library} of ROCm 5.x, 6.x or 7.x, then set ROCM_PATH to its prefix (e.g. /opt/rocm) or add its \
         lib directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's {library}"
    )
}

/// Open the first of `library`'s candidates that loads.
pub(crate) fn open(library: Library, candidates: &[String]) -> Result<Opened, BackendError> {
    let symbol_hint = format!(
        "point ROCM_PATH at a ROCm 5.x, 6.x or 7.x installation whose {library} is complete, or set AMDGPU_BACKEND=sim"
    );
    crate::backend::loader::open_first(library.name(), candidates, &not_found_hint(library), &symbol_hint)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            beside(Library::Rocblas, "/x/rocm-6.2/lib")[..2],
            ["/x/rocm-6.2/lib/librocblas.so", "/x/rocm-6.2/lib/librocblas.so.5"]
        );
        assert!(beside(Library::Rocfft, "/x/lib").iter().all(|c| c.starts_with("/x/lib/")));
        assert_eq!(
            candidates(Library::Miopen, None),
            ["/opt/rocm/lib/libMIOpen.so", "/opt/rocm/lib/libMIOpen.so.1", "libMIOpen.so", "libMIOpen.so.1"]
        );
    }
}
