//! rocBLAS's table: AMD's library, the simulator's, or the mapping onto
//! cuBLAS.
//!
//! **rocBLAS** reports its version through `rocblas_get_version_string`
//! (`4.1.0.abcdef`): 2.x in ROCm 5.0 to 5.5, 3.x in ROCm 5.6 and 5.7, 4.x
//! in ROCm 6.x, 5.x in ROCm 7.x. The functions of the table kept their
//! signatures from 2.x to 5.x (the bindings follow the 5.5 headers); what
//! changed around them:
//!
//! - `rocblas_gemm_ex` has had its 24-argument form (no workspace
//!   arguments) in every supported version.
//! - `rocblas_set_math_mode` / `rocblas_get_math_mode` (XF32 on gfx94x)
//!   appeared in 3.1 (ROCm 5.7). Where the library lacks them the table
//!   holds shims that behave as the real functions do on hardware without
//!   XF32: setting any mode succeeds and changes nothing, and the mode read
//!   back is the default. Check the mode read back before relying on it.
//! - 4.0 removed `rocblas_gemm_ext2` and packed int8x4, neither used here;
//!   4.2 raised the default workspace on gfx94x from 32 to 128 MiB; 5.0
//!   made atomics not allowed by default. None of these changes a
//!   signature.
//!
//! The amd loader opens `librocblas.so`, `.so.5`, `.so.4`, `.so.3`, `.so.0`
//! (under `$ROCM_PATH/lib`, `/opt/rocm/lib`, then the loader's path).
//! Supported: rocBLAS 2.x to 5.x.

use std::sync::OnceLock;

use crate::rocblas::RocblasApi;
use crate::BackendError;

/// The process's rocBLAS table.
pub fn rocblas() -> Result<&'static RocblasApi, BackendError> {
    static TABLE: OnceLock<Result<&'static RocblasApi, BackendError>> = OnceLock::new();
    TABLE.get_or_init(|| (crate::backend::provider()?.rocblas)()).clone()
}
