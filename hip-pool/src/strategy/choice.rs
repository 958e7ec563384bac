//! The strategy a pool is made with, as named by `AMDGPU_POOL`.

use crate::error::{PoolError, Result};

/// A pool's strategy, chosen per pool (`AMDGPU_POOL` for the default pools).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// A caching allocator over `hipMalloc` (the default): freed blocks
    /// are kept and reused; a drop makes no HIP call.
    #[default]
    Cached,
    /// HIP's stream-ordered pool: one explicit pool per device with its
    /// release threshold at maximum, trimmed on reclaim.
    Async,
    /// Pass-through `hipMalloc` / `hipFree`: the baseline.
    None,
    /// Expandable segments on HIP's virtual memory: per stream (and per
    /// small or large class) one reserved address range, as long as the
    /// device's memory, into which physical chunks (2 MiB for small
    /// blocks, 20 MiB for large) are mapped as the pool grows, right
    /// after the free block at the end of what is mapped, so a request a
    /// little larger than every freed block extends one instead of taking
    /// a new segment; a growth first moves there the whole free chunks of
    /// the stream's holes whose work is done (on a busy stream, waiting
    /// for it where the runtime's own mapping would wait anyway:
    /// [`GrowthWaits`](crate::GrowthWaits)), and
    /// [`reclaim`](crate::reclaim()) unmaps the whole chunks of free
    /// blocks. Otherwise it behaves as `cached` (the same
    /// blocks, caches, stream uses, capture rules, limits and ladder).
    ///
    /// Use it where `cached` runs out of memory with much reserved but
    /// unallocated (requests that grow step by step, such as sequence
    /// lengths). Never chosen by itself: it needs virtual memory
    /// ([`hip_core::raw::vmm::supported`]: ROCm 7 or CUDA; [`Pool::new`]
    /// says so where it is missing), and growing maps memory, which on
    /// ROCm waits for the device's null stream. While a stream capture is
    /// underway (a null-stream operation would break it) it grows by
    /// `hipMalloc` segments as `cached` does, given back on reclaim. Its
    /// buffers are shared with other processes chunk by chunk
    /// ([`ipc::share`](crate::ipc::share): by file descriptor, which the
    /// opener takes from the exporting process with `pidfd_getfd`, so it
    /// needs the right to trace it).
    ///
    /// [`Pool::new`]: crate::Pool::new
    Expandable,
}

impl Strategy {
    /// Parse `cached`, `async`, `none` or `expandable`
    /// (case-insensitive; empty is `cached`).
    ///
    /// # Errors
    /// [`PoolError::Config`] naming the value and the four choices.
    pub fn parse(value: &str) -> Result<Strategy> {
        match value.trim().to_ascii_lowercase().as_str() {
            "cached" | "" => Ok(Strategy::Cached),
            "async" => Ok(Strategy::Async),
            "none" => Ok(Strategy::None),
            "expandable" => Ok(Strategy::Expandable),
            _ => Err(PoolError::Config(format!(
                "AMDGPU_POOL={value:?} is not a pool strategy; use cached (the default), async, none or expandable"
            ))),
        }
    }

    /// The strategy `AMDGPU_POOL` names (unset: cached).
    ///
    /// # Errors
    /// As [`Strategy::parse`], for a value that names none.
    pub fn from_env() -> Result<Strategy> {
        std::env::var("AMDGPU_POOL").map_or(Ok(Strategy::Cached), |v| Strategy::parse(&v))
    }
}
