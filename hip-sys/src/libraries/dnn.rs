//! MIOpen's table: AMD's library, the simulator's, or the mapping onto
//! cuDNN.
//!
//! **MIOpen** reports its version through `miopenGetVersion`: 2.x in ROCm
//! 5.x, 3.x in ROCm 6.x and 7.x. The functions of the table and the enum
//! values they take are the same in 2.x and 3.x (see
//! [`crate::miopen`](mod@crate::miopen)). Supported: MIOpen 2.x and 3.x.
//!

use std::sync::OnceLock;

use crate::miopen::MiopenApi;
use crate::BackendError;

/// The process's MIOpen table.
pub fn miopen() -> Result<&'static MiopenApi, BackendError> {
    static TABLE: OnceLock<Result<&'static MiopenApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.miopen)()).clone()
}
