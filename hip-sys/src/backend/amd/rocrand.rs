//! rocRAND on the amd backend: AMD's `librocrand`, versions 2.x and 3.x
//! (see [`crate::libraries::rand`]).

use super::libraries::{installed, open};
use crate::rocrand::{rocrand_status, RocrandApi};
use crate::shared::library::Library;
use crate::BackendError;

/// rocRAND's table, from the first candidate library that loads.
pub(crate) fn table() -> Result<&'static RocrandApi, BackendError> {
    load_rocrand(&installed(Library::Rocrand))
}

fn load_rocrand(candidates: &[String]) -> Result<&'static RocrandApi, BackendError> {
    let opened = open(Library::Rocrand, candidates)?;
    // SAFETY: every symbol has the signature of the bindings in rocRAND
    // 2.x and 3.x (module docs); the version is checked before any other
    // call.
    let api = unsafe { RocrandApi::from_resolver(|name| opened.symbol(name)) }?;
    let mut version = 0;
    // SAFETY: a valid out-pointer.
    let status = unsafe { (api.rocrand_get_version)(&mut version) };
    const SUPPORTED: &str = "rocRAND 2.x and 3.x (ROCm 5.x and 6.x)";
    if status != rocrand_status::ROCRAND_STATUS_SUCCESS {
        return Err(opened.unsupported(format!("unknown (rocrand_get_version: status {})", status.0), SUPPORTED));
    }
    let (major, minor, patch) = (version / 100_000, version / 100 % 1000, version % 100);
    match major {
        2 | 3 => {
            log::debug!("loaded {}: rocRAND {major}.{minor}.{patch}", opened.path());
            opened.keep();
            Ok(Box::leak(Box::new(api)))
        }
        _ => Err(opened.unsupported(format!("rocRAND {major}.{minor}.{patch}"), SUPPORTED)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error() {
        let err = load_rocrand(&["/nonexistent/amdgpu-rs/librocrand.so".to_owned()]).expect_err("absent");
        assert!(matches!(err, BackendError::LibraryNotFound { ref library, .. } if library == "rocRAND"), "{err:?}");
    }
}
