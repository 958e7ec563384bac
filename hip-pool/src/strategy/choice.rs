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
}

impl Strategy {
    /// Parse `cached`, `async` or `none` (case-insensitive; empty is
    /// `cached`).
    ///
    /// # Errors
    /// [`PoolError::Config`] naming the value and the three choices.
    pub fn parse(value: &str) -> Result<Strategy> {
        match value.trim().to_ascii_lowercase().as_str() {
            "cached" | "" => Ok(Strategy::Cached),
            "async" => Ok(Strategy::Async),
            "none" => Ok(Strategy::None),
            _ => Err(PoolError::Config(format!(
                "AMDGPU_POOL={value:?} is not a pool strategy; use cached (the default), async or none"
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
