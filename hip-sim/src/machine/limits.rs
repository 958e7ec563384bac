//! Launch limits: the largest grid, block and shared memory, as AMD GPUs
//! report and each HIP version enforces them.

/// Largest block (threads in all three dimensions), as on AMD GPUs.
pub(crate) const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// Largest `gridDim.x` every HIP version accepts, and reports
/// (`hipDeviceAttributeMaxGridDimX`): `INT32_MAX`.
pub(crate) const MAX_GRID_X: u32 = i32::MAX as u32;
/// The `gridDim.y`/`z` that HIP reports (`hipDeviceAttributeMaxGridDimY/Z`)
/// in every version, and that 7.x enforces.
pub(crate) const MAX_GRID_YZ: u32 = 65_536;

/// The largest `gridDim.y`/`z` HIP `major` accepts: 5.7 checks only
/// `INT32_MAX`, 6.0-6.3 `INT32_MAX / 1024` (more than they report), 7.x
/// the reported 65536.
pub(crate) fn max_grid_yz(major: u32) -> u32 {
    match major {
        ..=5 => i32::MAX as u32,
        6 => i32::MAX as u32 / 1024,
        _ => MAX_GRID_YZ,
    }
}

/// Shared memory per block.
pub(crate) const MAX_SHARED_MEMORY: u32 = 64 * 1024;
