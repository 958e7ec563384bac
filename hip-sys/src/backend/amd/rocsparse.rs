//! rocSPARSE on the amd backend: AMD's `librocsparse`, versions 2.x, 3.x
//! and 4.x, whose version decides how the table's two SpMV fields are
//! filled (see [`crate::libraries::sparse`]).

use std::ffi::{c_int, c_void};

use super::libraries::{installed, open};
use crate::rocsparse::*;
use crate::shared::library::Library;
use crate::shared::rocsparse_spmv::{staged_spmv_over, unstaged_spmv_over, SpmvStaged, SpmvUnstaged};
use crate::BackendError;

/// rocSPARSE's table, from the first candidate library that loads.
pub(crate) fn table() -> Result<&'static RocsparseApi, BackendError> {
    load_rocsparse(&installed(Library::Rocsparse))
}

/// How the SpMV entry points of a rocSPARSE version are filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpmvAbi {
    /// rocSPARSE 2.x (ROCm 5.x): unstaged `rocsparse_spmv`, staged
    /// `rocsparse_spmv_ex` (from 2.4).
    V2,
    /// rocSPARSE 3.x and 4.x (ROCm 6.x, 7.x): staged `rocsparse_spmv`.
    V3,
}

/// The versions the rocSPARSE loader accepts, in messages.
const ROCSPARSE_SUPPORTED: &str = "rocSPARSE 2.x, 3.x and 4.x (ROCm 5.x, 6.x and 7.x)";

/// Decode `rocsparse_get_version`'s number and pick the SpMV ABI;
/// `Err` with the decoded version for one this crate does not know.
pub(crate) fn rocsparse_spmv_abi(version: c_int) -> Result<SpmvAbi, String> {
    let decoded = format!("{}.{}.{}", version / 100_000, version / 100 % 1000, version % 100);
    match version / 100_000 {
        2 => Ok(SpmvAbi::V2),
        3 | 4 => Ok(SpmvAbi::V3),
        _ => Err(format!("rocSPARSE {decoded} ({version})")),
    }
}

type CreateHandle = unsafe extern "C" fn(*mut rocsparse_handle) -> rocsparse_status;
type DestroyHandle = unsafe extern "C" fn(rocsparse_handle) -> rocsparse_status;
type GetVersion = unsafe extern "C" fn(rocsparse_handle, *mut c_int) -> rocsparse_status;

fn load_rocsparse(candidates: &[String]) -> Result<&'static RocsparseApi, BackendError> {
    let opened = open(Library::Rocsparse, candidates)?;
    // SAFETY: these three symbols have had these signatures in every
    // rocSPARSE release this crate knows (and before).
    let (create, destroy, get_version) = unsafe {
        (
            std::mem::transmute::<*const c_void, CreateHandle>(opened.symbol("rocsparse_create_handle")?),
            std::mem::transmute::<*const c_void, DestroyHandle>(opened.symbol("rocsparse_destroy_handle")?),
            std::mem::transmute::<*const c_void, GetVersion>(opened.symbol("rocsparse_get_version")?),
        )
    };
    let mut handle: rocsparse_handle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid out-pointer.
    let status = unsafe { create(&mut handle) };
    if status != rocsparse_status::rocsparse_status_success {
        return Err(BackendError::LibraryUnavailable {
            library: Library::Rocsparse.name().to_owned(),
            hint: format!(
                "{} loaded, but rocsparse_create_handle failed (status {}) while reading its version on the \
                 current device. To fix: check that the GPU works (hipGetDeviceCount), or set AMDGPU_BACKEND=sim",
                opened.path(),
                status.0
            ),
        });
    }
    let mut version: c_int = 0;
    // SAFETY: `handle` was just created; `version` is a valid out-pointer.
    let status = unsafe { get_version(handle, &mut version) };
    // SAFETY: `handle` was created above and is destroyed once.
    unsafe { destroy(handle) };
    if status != rocsparse_status::rocsparse_status_success {
        return Err(
            opened.unsupported(format!("unknown (rocsparse_get_version: status {})", status.0), ROCSPARSE_SUPPORTED)
        );
    }
    let abi = rocsparse_spmv_abi(version).map_err(|found| opened.unsupported(found, ROCSPARSE_SUPPORTED))?;
    log::debug!("loaded {}: rocSPARSE version {version}, {abi:?}", opened.path());
    let (spmv, spmv_ex): (*const c_void, *const c_void) = match abi {
        SpmvAbi::V2 => {
            let unstaged = opened.symbol("rocsparse_spmv")?;
            match opened.symbol("rocsparse_spmv_ex") {
                Ok(staged) => (unstaged, staged),
                Err(_) => {
                    // SAFETY: on 2.x `rocsparse_spmv` is the unstaged function.
                    let real = unsafe { std::mem::transmute::<*const c_void, SpmvUnstaged>(unstaged) };
                    (unstaged, staged_spmv_over(real) as *const c_void)
                }
            }
        }
        SpmvAbi::V3 => {
            let staged = opened.symbol("rocsparse_spmv")?;
            // SAFETY: on 3.x and 4.x `rocsparse_spmv` is the staged function.
            let real = unsafe { std::mem::transmute::<*const c_void, SpmvStaged>(staged) };
            (unstaged_spmv_over(real) as *const c_void, staged)
        }
    };
    let resolve = |name: &'static str| match name {
        "rocsparse_spmv" => Ok(spmv),
        "rocsparse_spmv_ex" => Ok(spmv_ex),
        other => opened.symbol(other),
    };
    // SAFETY: every other symbol has the signature of the bindings in
    // rocSPARSE 2.x to 4.x (module docs); the two SpMV fields hold functions
    // of their declared signatures for this version, chosen above.
    let api = unsafe { RocsparseApi::from_resolver(resolve) }?;
    opened.keep();
    Ok(Box::leak(Box::new(api)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocsparse_versions_pick_the_spmv_abi() {
        assert_eq!(rocsparse_spmv_abi(200_504), Ok(SpmvAbi::V2)); // ROCm 5.7
        assert_eq!(rocsparse_spmv_abi(200_000), Ok(SpmvAbi::V2)); // ROCm 5.0
        assert_eq!(rocsparse_spmv_abi(300_002), Ok(SpmvAbi::V3)); // ROCm 6.0
        assert_eq!(rocsparse_spmv_abi(400_200), Ok(SpmvAbi::V3)); // ROCm 7.2
        let err = rocsparse_spmv_abi(102_202).expect_err("1.x is unknown");
        assert_eq!(err, "rocSPARSE 1.22.2 (102202)");
        assert!(rocsparse_spmv_abi(500_000).is_err());
    }

    #[test]
    fn a_library_without_its_symbols_is_an_error() {
        let err = load_rocsparse(&["libm.so.6".to_owned()]).expect_err("not rocSPARSE");
        assert!(matches!(err, BackendError::SymbolMissing { .. }), "{err:?}");
    }
}
