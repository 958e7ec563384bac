//! rocRAND's table: AMD's library, the simulator's, or the mapping onto
//! cuRAND.
//!
//! **rocRAND** reports its version through `rocrand_get_version` as
//! `major * 100000 + minor * 100 + patch`: 2.10.x in ROCm 5.x, 3.x in ROCm
//! 6.x. Every function of the table has the same signature in the 5.7
//! headers the bindings come from and in rocRAND 3.x's. Supported: rocRAND
//! 2.x and 3.x; a later major version is refused until its headers are
//! read.
//!
//! On the nvidia backend the table maps onto cuRAND (`libcurand.so.10`),
//! whose sequences differ from rocRAND's for the same generator and seed.

use std::sync::OnceLock;

use crate::rocrand::RocrandApi;
use crate::BackendError;

/// The process's rocRAND table.
pub fn rocrand() -> Result<&'static RocrandApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocrandApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.rocrand)()).clone()
}
