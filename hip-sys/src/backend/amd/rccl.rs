//! RCCL on the amd backend: AMD's `librccl`, NCCL API 2.13 and later 2.x
//! (see [`crate::libraries::collective`]).

use super::libraries::{installed, open};
use crate::rccl::{ncclResult_t, RcclApi};
use crate::shared::library::Library;
use crate::shared::nccl_version::{split_version, supported_version};
use crate::BackendError;

/// RCCL's table, from the first candidate library that loads.
pub(crate) fn table() -> Result<&'static RcclApi, BackendError> {
    load_rccl(&installed(Library::Rccl))
}

fn load_rccl(candidates: &[String]) -> Result<&'static RcclApi, BackendError> {
    let opened = open(Library::Rccl, candidates)?;
    // SAFETY: every symbol has the signature of the bindings in NCCL API
    // 2.13 and later 2.x (module docs); the version is checked before any
    // other call.
    let api = unsafe { RcclApi::from_resolver(|name| opened.symbol(name)) }?;
    let mut code = 0;
    // SAFETY: a valid out-pointer.
    let status = unsafe { (api.ncclGetVersion)(&mut code) };
    const SUPPORTED: &str = "RCCL of NCCL API 2.13 or a later 2.x (ROCm 5.4 and later)";
    if status != ncclResult_t::ncclSuccess {
        return Err(opened.unsupported(format!("unknown (ncclGetVersion: result {})", status.0), SUPPORTED));
    }
    let (major, minor) = split_version(code);
    if !supported_version(code) {
        return Err(opened.unsupported(format!("RCCL of NCCL API {major}.{minor} (code {code})"), SUPPORTED));
    }
    log::debug!("loaded {}: RCCL of NCCL API {major}.{minor} (code {code})", opened.path());
    opened.keep();
    Ok(Box::leak(Box::new(api)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error() {
        let err = load_rccl(&["/nonexistent/amdgpu-rs/librccl.so".to_owned()]).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "RCCL"), "{err:?}");
    }
}
