//! The process's pools, one per device, and the functions that take the
//! device explicitly: `reclaim(device)`, `stats(device)`, limits. Starting
//! the first pool starts the idle cleanup, handing it the list of pools.

use crate::cleanup;
use crate::error::{PoolError, Result};
use crate::limits::Limit;
use crate::pool::{Buffer, Pool};
use crate::stats::PoolStats;
use crate::strategy::Strategy;
use hip_core::{Device, Stream};
use std::sync::OnceLock;

static POOLS: OnceLock<Vec<OnceLock<Result<Pool>>>> = OnceLock::new();

fn slots() -> &'static [OnceLock<Result<Pool>>] {
    POOLS.get_or_init(|| (0..Device::count().unwrap_or(0)).map(|_| OnceLock::new()).collect())
}

/// The process's pool for `device`, started on first use with the strategy
/// of `AMDGPU_POOL` and the limits of `AMDGPU_HARD_MEMORY_LIMIT` /
/// `AMDGPU_SOFT_MEMORY_LIMIT`. A bad variable is an error here, every time.
#[inline]
pub fn pool(device: Device) -> Result<Pool> {
    // Started: two loads and a compare, no `Result` of a `PoolError` built.
    if let Some(Some(Ok(pool))) = POOLS.get().map(|slots| slots.get(device.ordinal()).and_then(OnceLock::get)) {
        return Ok(*pool);
    }
    start(device)
}

#[cold]
fn start(device: Device) -> Result<Pool> {
    let slot = slots()
        .get(device.ordinal())
        .ok_or(PoolError::Hip(hip_core::HipError::InvalidDevice { ordinal: device.ordinal(), count: slots().len() }))?;
    slot.get_or_init(|| {
        let strategy = Strategy::from_env()?;
        let hard = Limit::from_env("AMDGPU_HARD_MEMORY_LIMIT")?;
        let soft = Limit::from_env("AMDGPU_SOFT_MEMORY_LIMIT")?;
        let pool = Pool::new(device, strategy)?;
        pool.set_hard_limit(hard);
        pool.set_soft_limit(soft);
        cleanup::start_once(started_pools);
        Ok(pool)
    })
    .clone()
}

/// The pools started so far.
fn started_pools() -> Vec<Pool> {
    POOLS.get().map_or_else(Vec::new, |slots| slots.iter().filter_map(|s| s.get()?.as_ref().ok().cloned()).collect())
}

/// `bytes` of device memory on this thread's device, for its stream.
#[track_caller]
#[inline]
pub fn alloc(bytes: usize) -> Result<Buffer> {
    let stream = hip_core::stream();
    pool(stream.device())?.alloc(bytes, &stream)
}

/// `bytes` of device memory on `device`, for `stream` (on that device).
pub fn alloc_on(device: Device, bytes: usize, stream: &Stream) -> Result<Buffer> {
    pool(device)?.alloc(bytes, stream)
}

/// Synchronize `device` and release its pool's unused cached memory;
/// returns the bytes given back. It never reads the calling thread's
/// device.
pub fn reclaim(device: Device) -> Result<usize> {
    match slots().get(device.ordinal()).and_then(OnceLock::get) {
        Some(Ok(pool)) => pool.reclaim(),
        _ => {
            device.synchronize()?;
            Ok(0)
        }
    }
}

/// The statistics of `device`'s pool (zero before its first allocation).
pub fn stats(device: Device) -> PoolStats {
    match slots().get(device.ordinal()).and_then(OnceLock::get) {
        Some(Ok(pool)) => pool.stats(),
        _ => PoolStats::default(),
    }
}

/// Set `device`'s hard limit (starting its pool if needed).
pub fn set_hard_limit(device: Device, limit: Limit) -> Result<()> {
    pool(device)?.set_hard_limit(limit);
    Ok(())
}

/// Set `device`'s soft limit (starting its pool if needed).
pub fn set_soft_limit(device: Device, limit: Limit) -> Result<()> {
    pool(device)?.set_soft_limit(limit);
    Ok(())
}
