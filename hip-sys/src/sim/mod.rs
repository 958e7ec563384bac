//! The HIP simulator (being written; this is the interface the backend uses).

use crate::{BackendError, HipApi};

/// The simulator's function table.
pub(crate) fn api() -> &'static HipApi {
    todo!("simulator table")
}

/// Read `AMDGPU_SIM_DEVICES` / `AMDGPU_SIM_MEMORY` and start the simulator;
/// a bad value is an error naming the variable.
pub(crate) fn configure_from_env() -> Result<(), BackendError> {
    Ok(())
}
