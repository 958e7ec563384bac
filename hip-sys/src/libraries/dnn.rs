//! MIOpen's table: AMD's library, the simulator's, or the mapping onto
//! cuDNN.
//!
//! **MIOpen** reports its version through `miopenGetVersion`: 2.x in ROCm
//! 5.x, 3.x in ROCm 6.x and 7.x. The functions of the table and the enum
//! values they take are the same in 2.x and 3.x (see
//! [`crate::miopen`](mod@crate::miopen)). Supported: MIOpen 2.x and 3.x.
//!

use std::sync::OnceLock;

use super::{candidates, open, rocm_path, source, Library, Source};
use crate::miopen::{miopenStatus_t, MiopenApi};
use crate::BackendError;

/// The process's MIOpen table.
pub fn miopen() -> Result<&'static MiopenApi, BackendError> {
    static TABLE: OnceLock<Result<&'static MiopenApi, BackendError>> = OnceLock::new();
    TABLE
        .get_or_init(|| match source(crate::selection())? {
            Source::Sim => Ok(crate::sim::miopen_api()),
            Source::Amd => load_miopen(&candidates(Library::Miopen, rocm_path().as_deref())),
            Source::Nvidia => crate::backend::nvidia::cudnn::load(&crate::backend::nvidia::cudnn::candidates()),
        })
        .clone()
}

fn load_miopen(candidates: &[String]) -> Result<&'static MiopenApi, BackendError> {
    let opened = open(Library::Miopen, candidates)?;
    // SAFETY: every symbol has the signature of the bindings in MIOpen 2.x
    // and 3.x (module docs); the version is checked before any other call.
    let api = unsafe { MiopenApi::from_resolver(|name| opened.symbol(name)) }?;
    let (mut major, mut minor, mut patch) = (0usize, 0usize, 0usize);
    // SAFETY: three valid out-pointers.
    let status = unsafe { (api.miopenGetVersion)(&mut major, &mut minor, &mut patch) };
    const SUPPORTED: &str = "MIOpen 2.x and 3.x (ROCm 5.x, 6.x and 7.x)";
    if status != miopenStatus_t::miopenStatusSuccess {
        return Err(opened.unsupported(format!("unknown (miopenGetVersion: status {})", status.0), SUPPORTED));
    }
    match major {
        2 | 3 => {
            opened.keep();
            Ok(Box::leak(Box::new(api)))
        }
        _ => Err(opened.unsupported(format!("MIOpen {major}.{minor}.{patch}"), SUPPORTED)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_without_its_symbols_is_an_error() {
        // libm has none of MIOpen's symbols.
        let err = load_miopen(&["libm.so.6".to_owned()]).expect_err("not MIOpen");
        assert!(
            matches!(err, BackendError::SymbolMissing { ref symbol, .. } if symbol == "miopenGetVersion"),
            "{err:?}"
        );
    }
}
