//! The loader: which files the CUDA runtime and driver are looked for
//! in, and loading them (every function resolved at once, a missing one
//! an error then) into the backend's table.

use super::cuda::{fns, keep, CudaFns, Cudart, Driver};
use super::{table::NVIDIA_API, types};
use crate::bindings::hip::HipApi;
use crate::BackendError;
use std::ffi::c_int;

/// The runtime library's name in messages.
const CUDART: &str = "libcudart";
/// The driver library's name in messages.
const LIBCUDA: &str = "libcuda";

/// What to do when `libcudart` cannot be found.
const CUDART_HINT: &str = "install the CUDA runtime (CUDA 12 or 13; the toolkit or the \
     cuda-cudart package) and add its lib64 directory to LD_LIBRARY_PATH; \
     or set AMDGPU_BACKEND=sim to use the HIP simulator";
/// What to do when `libcuda` cannot be found.
const LIBCUDA_HINT: &str = "install the NVIDIA driver, which provides libcuda.so.1 \
     (on a container, run it with the GPU and driver libraries mounted); \
     or set AMDGPU_BACKEND=sim to use the HIP simulator";
/// What to do when a symbol is missing.
const SYMBOL_HINT: &str = "use CUDA 12 or 13 with a matching NVIDIA driver, \
     or set AMDGPU_BACKEND=sim to use the HIP simulator";

/// The files tried for a CUDA library of `names`, in order: each name
/// through the system loader path, then under `/usr/local/cuda/lib64`.
pub(crate) fn library_candidates(names: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    out.extend(names.iter().map(|n| format!("/usr/local/cuda/lib64/{n}")));
    out
}

/// The candidate files for `libcudart`, in the order they are tried.
pub(crate) fn cudart_candidates() -> Vec<String> {
    library_candidates(&["libcudart.so.13", "libcudart.so.12", "libcudart.so"])
}

/// The candidate files for `libcuda`, in the order they are tried.
pub(crate) fn libcuda_candidates() -> Vec<String> {
    vec!["libcuda.so.1".to_owned(), "libcuda.so".to_owned()]
}

/// Open the first of `candidates` for a CUDA library (`name` in messages).
pub(crate) fn open(
    name: &str,
    candidates: &[String],
    hint: &str,
) -> Result<crate::backend::loader::Opened, BackendError> {
    crate::backend::loader::open_first(name, candidates, hint, SYMBOL_HINT)
}

/// Load the runtime from the first of `cudart` that opens and the driver
/// from the first of `libcuda` that opens, and resolve every function.
///
/// Both libraries stay loaded for the rest of the process on success.
pub(crate) fn load_from(cudart: &[String], libcuda: &[String]) -> Result<CudaFns, BackendError> {
    let rt_lib = open(CUDART, cudart, CUDART_HINT)?;
    // SAFETY: `rt_lib` is the CUDA runtime, whose exported functions have
    // the signatures declared in `Cudart` (CUDA 12 and 13 headers).
    let rt = unsafe { Cudart::resolve(&rt_lib) }?;
    let drv_lib = open(LIBCUDA, libcuda, LIBCUDA_HINT)?;
    // SAFETY: `drv_lib` is the CUDA driver, whose exported functions have
    // the signatures declared in `Driver`.
    let drv = unsafe { Driver::resolve(&drv_lib) }?;
    // Keep the code the pointers point into mapped until the process exits.
    let rt_path = rt_lib.keep();
    let drv_path = drv_lib.keep();
    let mut runtime_version: c_int = 0;
    // SAFETY: `runtime_version` is a valid, writable `int`.
    let status = unsafe { (rt.cudaRuntimeGetVersion)(&mut runtime_version) };
    if status != 0 {
        return Err(BackendError::BackendUnavailable {
            backend: crate::Backend::Nvidia,
            reason: format!(
                "{rt_path} loaded but cudaRuntimeGetVersion failed (cudaError_t {status}). To fix: \
                 reinstall the CUDA runtime (CUDA 12 or 13), or set AMDGPU_BACKEND=sim to use the \
                 HIP simulator"
            ),
        });
    }
    log::debug!("nvidia backend: loaded {rt_path} (CUDA {}) and {drv_path}", types::version_string(runtime_version));
    Ok(CudaFns { rt, drv, runtime_version })
}

/// Load CUDA from the standard candidates, check that it reports at least
/// one device, and return the backend's table.
pub(crate) fn load() -> Result<&'static HipApi, BackendError> {
    let fns = match fns() {
        Some(f) => *f,
        None => keep(load_from(&cudart_candidates(), &libcuda_candidates())?),
    };
    let mut count: c_int = 0;
    // SAFETY: `count` is a valid, writable `int`.
    let status = unsafe { (fns.rt.cudaGetDeviceCount)(&mut count) };
    if status != 0 || count < 1 {
        let mut version: c_int = 0;
        // SAFETY: `version` is a valid, writable `int`.
        let _ = unsafe { (fns.rt.cudaDriverGetVersion)(&mut version) };
        return Err(BackendError::BackendUnavailable {
            backend: crate::Backend::Nvidia,
            reason: format!(
                "libcudart loaded but reports no NVIDIA GPU (cudaGetDeviceCount: \
                 cudaError_t {status}, count {count}; driver {}). To fix: check that the GPU \
                 is visible (nvidia-smi, CUDA_VISIBLE_DEVICES not empty) and that the \
                 driver is at least as new as the CUDA runtime, or set AMDGPU_BACKEND=sim \
                 to use the HIP simulator",
                types::version_string(version)
            ),
        });
    }
    Ok(&NVIDIA_API)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::nvidia::cuda::{Cudart, Driver};

    #[test]
    fn nonexistent_paths_give_library_not_found_naming_libcudart() {
        let cudart =
            vec!["/nonexistent/amdgpu-rs/libcudart.so.13".to_owned(), "libcudart-does-not-exist.so.99".to_owned()];
        let err = load_from(&cudart, &libcuda_candidates()).expect_err("nothing loads");
        let BackendError::LibraryNotFound { library, tried, .. } = &err else {
            panic!("expected LibraryNotFound, got {err:?}");
        };
        assert_eq!(library, "libcudart");
        assert_eq!(tried.len(), cudart.len());
        let message = err.to_string();
        for p in &cudart {
            assert!(message.contains(p.as_str()), "{message} names {p}");
        }
        assert!(message.contains("LD_LIBRARY_PATH"), "{message}");
        assert!(message.contains("AMDGPU_BACKEND=sim"), "{message}");
    }

    #[test]
    fn library_without_cuda_symbols_gives_symbol_missing() {
        let err = load_from(&["libm.so.6".to_owned()], &[]).expect_err("libm is not CUDA");
        let BackendError::SymbolMissing { library, symbol, .. } = &err else {
            panic!("expected SymbolMissing, got {err:?}");
        };
        assert_eq!(library, "libm.so.6");
        assert_eq!(symbol, Cudart::SYMBOLS[0]);
    }

    #[test]
    fn candidates_try_cuda_13_then_12_then_unversioned() {
        let c = cudart_candidates();
        assert_eq!(&c[..3], ["libcudart.so.13", "libcudart.so.12", "libcudart.so"]);
        assert!(c[3..].iter().all(|p| p.starts_with("/usr/local/cuda/lib64/")));
        assert_eq!(libcuda_candidates()[0], "libcuda.so.1");
    }

    #[test]
    fn driver_symbols_use_the_versioned_names() {
        for name in [
            "cuDeviceTotalMem_v2",
            "cuCtxPushCurrent_v2",
            "cuCtxPopCurrent_v2",
            "cuDevicePrimaryCtxRelease_v2",
            "cuMemsetD32_v2",
        ] {
            assert!(Driver::SYMBOLS.contains(&name), "{name}");
        }
        assert!(!Driver::SYMBOLS.iter().any(|s| s.ends_with("_ptsz") || s.ends_with("_ptds")));
    }
}
