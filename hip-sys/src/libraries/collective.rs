//! RCCL's table: AMD's library, the simulator's collectives, or the
//! mapping onto NCCL.
//!
//! **RCCL** is NCCL's API on HIP: the same functions, types and numbers,
//! with `hipStream_t` for `cudaStream_t`. It reports its version through
//! `ncclGetVersion` as NCCL's code, `major * 10000 + minor * 100 + patch`
//! from 2.9 (RCCL of ROCm 5.4 says 2.13.4, of ROCm 6.x 2.18 to 2.22).
//! Every function of the table has the same signature in the 2.13 header
//! the bindings come from and in every later NCCL and RCCL to date.
//! Supported: NCCL API 2.13 and later 2.x; a 3.x is refused until its
//! header is read.
//!
//! On the nvidia backend the table maps onto NCCL (`libnccl.so.2`), whose
//! one difference of meaning is that it allows one rank per GPU:
//! `ncclCommInitRankMulti` (RCCL's several ranks on one GPU) is
//! `ncclCommInitRank` there, which refuses a GPU used twice.

use std::sync::OnceLock;

use crate::rccl::RcclApi;
use crate::BackendError;

/// The process's RCCL table.
pub fn rccl() -> Result<&'static RcclApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RcclApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.rccl)()).clone()
}
