//! The HIP runtime itself.
//!
//! # References
//! HIP's [runtime API](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/modules.html) reference.

use super::api;
use crate::{check, Result};

/// `hipRuntimeGetVersion`: the HIP runtime's version.
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipRuntimeGetVersion")]
pub fn version() -> Result<i32> {
    let api = api()?;
    let mut runtime = 0;
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.hipRuntimeGetVersion)(&mut runtime) }, "hipRuntimeGetVersion")?;
    Ok(runtime)
}
