//! The HIP runtime itself.

use super::api;
use crate::{check, Result};

/// The HIP runtime's version (`hipRuntimeGetVersion`).
pub(crate) fn version() -> Result<i32> {
    let api = api()?;
    let mut runtime = 0;
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.hipRuntimeGetVersion)(&mut runtime) }, "hipRuntimeGetVersion")?;
    Ok(runtime)
}
