//! Errors of the memory pool.

use hip_core::{Device, HipError};

/// The result of a pool operation.
pub type Result<T, E = PoolError> = std::result::Result<T, E>;

/// Why a pool operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PoolError {
    /// A HIP call failed (other than running out of memory).
    #[error(transparent)]
    Hip(#[from] HipError),
    /// The request does not fit, even after synchronizing, releasing the
    /// cache and running the reclaim hooks.
    #[error(
        "out of memory on {device}: {requested} bytes requested; {allocated} allocated, \
         {reserved} reserved by the pool, {free} free on the device{}; \
         free memory (drop buffers, call reclaim) or raise the limit",
        limit.map_or_else(String::new, |l| format!(", limit {l}"))
    )]
    OutOfMemory {
        /// The device.
        device: Device,
        /// Bytes asked for.
        requested: usize,
        /// Bytes in live buffers of this pool.
        allocated: usize,
        /// Bytes the pool holds from the driver (allocated + cached).
        reserved: usize,
        /// Bytes the device reports free.
        free: usize,
        /// The hard limit in force, if any.
        limit: Option<usize>,
    },
    /// An allocation inside a stream capture does not fit. The ladder of
    /// [`PoolError::OutOfMemory`] is not climbed: each rung synchronizes
    /// or frees, which would break the capture.
    #[error(
        "out of memory on {device} during a stream capture: {requested} bytes requested, \
         {reserved} reserved by the pool{}; the pool cannot synchronize or release memory while \
         a capture is underway: release memory before capturing (drop buffers, call reclaim) \
         or capture less",
        limit.map_or_else(String::new, |l| format!(", limit {l}"))
    )]
    OutOfMemoryInCapture {
        /// The device.
        device: Device,
        /// Bytes asked for.
        requested: usize,
        /// Bytes the pool holds from the driver.
        reserved: usize,
        /// The hard limit in force, if any.
        limit: Option<usize>,
    },
    /// A memory limit that cannot be parsed or applied.
    #[error(
        "{variable}={value:?} is not a valid memory limit: {reason}; use e.g. \"8GiB\", \"512MB\", \"50%\" or \"none\""
    )]
    InvalidLimit {
        /// Where it came from (an environment variable or `limit`).
        variable: String,
        /// The value.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An invalid pool configuration (strategy name, changes after start).
    #[error("{0}")]
    Config(String),
    /// Memory that cannot be shared with another process, or a handle that
    /// cannot be opened (`hip_pool::ipc`).
    #[error("IPC: {0}")]
    Ipc(String),
}

impl PoolError {
    /// Whether this is an out-of-memory error.
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, PoolError::OutOfMemory { .. } | PoolError::OutOfMemoryInCapture { .. })
    }

    /// The device mismatch this error reports (a stream of another device),
    /// if it is one.
    pub fn device_mismatch(&self) -> Option<&hip_core::DeviceMismatch> {
        match self {
            PoolError::Hip(error) => error.device_mismatch(),
            _ => None,
        }
    }
}
