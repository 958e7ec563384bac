//! MIOpen on the amd backend: AMD's `libMIOpen`, versions 2.x and 3.x (see
//! [`crate::libraries::dnn`]).

use super::libraries::{installed, open};
use crate::miopen::{miopenStatus_t, MiopenApi};
use crate::shared::library::Library;
use crate::BackendError;

/// MIOpen's table, from the first candidate library that loads.
pub(crate) fn table() -> Result<&'static MiopenApi, BackendError> {
    load_miopen(&installed(Library::Miopen))
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
