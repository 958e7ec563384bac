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

/// The devices whose pools the fast path finds without going through
/// [`POOLS`] (a machine with more devices finds the others there).
const FAST_DEVICES: usize = 64;

/// The started pools of the first [`FAST_DEVICES`] devices, by ordinal:
/// one load and a compare to find a device's pool.
static STARTED: [OnceLock<Pool>; FAST_DEVICES] = [const { OnceLock::new() }; FAST_DEVICES];

fn slots() -> &'static [OnceLock<Result<Pool>>] {
    POOLS.get_or_init(|| (0..Device::count().unwrap_or(0)).map(|_| OnceLock::new()).collect())
}

/// The process's pool for `device`, started on first use with the strategy
/// of `AMDGPU_POOL` and the limits of `AMDGPU_HARD_MEMORY_LIMIT` /
/// `AMDGPU_SOFT_MEMORY_LIMIT`. A bad variable is an error here, every time.
///
/// # Errors
/// [`PoolError::Hip`] with `HipError::InvalidDevice` for an ordinal past
/// the device count; [`PoolError::Config`] for a bad `AMDGPU_POOL`,
/// [`PoolError::InvalidLimit`] for a bad limit variable; else as
/// [`Pool::new`]. A failed start is kept: later calls return the same error.
#[inline]
pub fn pool(device: Device) -> Result<Pool> {
    match started(device) {
        Some(pool) => Ok(pool),
        None => start(device),
    }
}

/// The pool of `device` if it has started: a bounds check, a load and a
/// compare, no `Result` of a `PoolError` built.
#[inline(always)]
fn started(device: Device) -> Option<Pool> {
    STARTED.get(device.ordinal()).and_then(OnceLock::get).copied()
}

#[cold]
fn start(device: Device) -> Result<Pool> {
    let slot = slots()
        .get(device.ordinal())
        .ok_or(PoolError::Hip(hip_core::HipError::InvalidDevice { ordinal: device.ordinal(), count: slots().len() }))?;
    let pool = slot
        .get_or_init(|| {
            let strategy = Strategy::from_env()?;
            let hard = Limit::from_env("AMDGPU_HARD_MEMORY_LIMIT")?;
            let soft = Limit::from_env("AMDGPU_SOFT_MEMORY_LIMIT")?;
            let pool = Pool::new(device, strategy)?;
            pool.set_hard_limit(hard);
            pool.set_soft_limit(soft);
            cleanup::start_once(started_pools);
            Ok(pool)
        })
        .clone()?;
    if let Some(fast) = STARTED.get(device.ordinal()) {
        // The same pool whoever sets it first: `slot` holds it for good.
        let _ = fast.set(pool);
    }
    Ok(pool)
}

/// The pools started so far.
fn started_pools() -> Vec<Pool> {
    POOLS.get().map_or_else(Vec::new, |slots| slots.iter().filter_map(|s| s.get()?.as_ref().ok().cloned()).collect())
}

/// `bytes` of device memory on this thread's device, for its stream.
///
/// # Errors
/// As [`pool()`] for the thread's device, then as [`Pool::alloc`].
///
/// # Examples
/// ```
/// let buffer = hip_pool::alloc(256)?;
/// assert_eq!(buffer.len(), 256);
/// assert_eq!(buffer.device(), hip_core::device());
/// assert_eq!(buffer.stream().id(), hip_core::stream().id());
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
#[track_caller]
#[inline(always)]
pub fn alloc(bytes: usize) -> Result<Buffer> {
    let stream = hip_core::stream();
    match started(stream.device()) {
        Some(pool) => pool.alloc(bytes, &stream),
        None => alloc_starting(bytes, &stream),
    }
}

/// [`alloc`] on a device whose pool has not started (or failed to).
#[cold]
#[inline(never)]
fn alloc_starting(bytes: usize, stream: &Stream) -> Result<Buffer> {
    pool(stream.device())?.alloc(bytes, stream)
}

/// `bytes` of device memory on `device`, for `stream` (on that device).
///
/// # Errors
/// As [`pool()`], then as [`Pool::alloc`] (a `stream` of another device is
/// a device mismatch).
///
/// # Examples
/// ```
/// use hip_core::{Device, Stream};
///
/// // The last device (device 0 on a machine of one).
/// let device = Device::new(Device::count()? - 1)?;
/// let stream = Stream::new_on(device)?;
/// let buffer = hip_pool::alloc_on(device, 1 << 16, &stream)?;
/// assert_eq!(buffer.device(), device);
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
pub fn alloc_on(device: Device, bytes: usize, stream: &Stream) -> Result<Buffer> {
    pool(device)?.alloc(bytes, stream)
}

/// Synchronize `device` and release its pool's unused cached memory;
/// returns the bytes given back. It never reads the calling thread's
/// device.
///
/// # Errors
/// As [`Pool::reclaim`]; where the pool has not started, [`PoolError::Hip`]
/// with HIP's status of `hipDeviceSynchronize`.
///
/// # Examples
/// ```
/// use hip_core::{Device, Stream};
///
/// let device = Device::new(0)?;
/// drop(hip_pool::alloc_on(device, 1 << 20, &Stream::new_on(device)?)?); // kept by the pool
/// let released = hip_pool::reclaim(device)?; // synchronizes device 0 only
/// println!("gave {released} bytes back to the driver");
/// assert!(hip_pool::stats(device).reclaims >= 1);
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
pub fn reclaim(device: Device) -> Result<usize> {
    // Shared buffers no process has open any more go back first.
    crate::ipc::collect();
    match slots().get(device.ordinal()).and_then(OnceLock::get) {
        Some(Ok(pool)) => pool.reclaim(),
        _ => {
            crate::collective_gate::before_driver_sync(device);
            hip_core::capture::exclusive("hip_pool::reclaim", || device.synchronize())??;
            Ok(0)
        }
    }
}

/// The statistics of `device`'s pool (zero before its first allocation).
///
/// # Examples
/// ```
/// let device = hip_core::device();
/// let buffer = hip_pool::alloc(1 << 20)?;
/// let stats = hip_pool::stats(device);
/// assert!(stats.allocated >= 1 << 20 && stats.live_buffers >= 1);
/// println!("{stats}"); // a table of current and peak bytes, hits, misses
/// drop(buffer);
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
pub fn stats(device: Device) -> PoolStats {
    match slots().get(device.ordinal()).and_then(OnceLock::get) {
        Some(Ok(pool)) => pool.stats(),
        _ => PoolStats::default(),
    }
}

/// Set `device`'s hard limit (starting its pool if needed).
///
/// # Errors
/// As [`pool()`].
pub fn set_hard_limit(device: Device, limit: Limit) -> Result<()> {
    pool(device)?.set_hard_limit(limit);
    Ok(())
}

/// Set `device`'s soft limit (starting its pool if needed).
///
/// # Errors
/// As [`pool()`].
pub fn set_soft_limit(device: Device, limit: Limit) -> Result<()> {
    pool(device)?.set_soft_limit(limit);
    Ok(())
}
