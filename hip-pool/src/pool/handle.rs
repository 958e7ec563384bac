//! `Pool`: the handle to one device's pool.

use super::buffer::Buffer;
use super::oom;
use crate::device_pool::DevicePool;
use crate::error::{PoolError, Result};
use crate::limits::Limit;
use crate::pool_core::{self, PoolInner, Record};
use crate::private_pool::{PrivateHold, PrivatePool};
use crate::stats::PoolStats;
use crate::strategy::{cached, GrowthWaits, Strategy};
use hip_core::{Device, Stream};
use std::sync::Arc;

/// A memory pool for one device. The process has one per device
/// ([`crate::pool()`]); more can be made with [`Pool::new`] (for example to
/// compare strategies). A pool lives for the rest of the process (its
/// unused memory goes back with [`Pool::reclaim`]), so buffers refer to it
/// without reference counting: make few. `Pool` is a cheap, `Copy` handle.
#[derive(Clone, Copy)]
pub struct Pool(pub(crate) &'static PoolInner);

impl Pool {
    /// A new pool for `device` with `strategy`, without limits.
    ///
    /// # Errors
    /// [`PoolError::Hip`] with HIP's status of `hipDeviceTotalMem`, or, for
    /// [`Strategy::Async`], of `hipMemPoolCreate` or `hipMemPoolSetAttribute`;
    /// for [`Strategy::Expandable`], [`PoolError::Config`] where the device
    /// has no virtual memory, or HIP's status of the queries about it.
    pub fn new(device: Device, strategy: Strategy) -> Result<Pool> {
        Ok(Pool(PoolInner::new(DevicePool::new(device, strategy)?)))
    }

    /// The pool's device.
    pub fn device(&self) -> Device {
        self.0.core.device
    }

    /// The pool's strategy.
    pub fn strategy(&self) -> Strategy {
        self.0.core.backing.strategy()
    }

    /// A buffer of `bytes` for use on `stream` (which must be on the
    /// pool's device), through the out-of-memory ladder.
    ///
    /// # Errors
    /// [`PoolError::Hip`] with a
    /// [`HipError::DeviceMismatch`](hip_core::HipError::DeviceMismatch) when
    /// `stream` is on another device; [`PoolError::OutOfMemory`] after the
    /// ladder (the hard limit included); [`PoolError::Hip`] for any other
    /// failed HIP call (the driver's allocation, ordering waits, a rung's
    /// synchronize or reclaim), returned at once.
    ///
    /// # Examples
    /// ```
    /// use hip_core::Stream;
    ///
    /// let stream = Stream::new()?;
    /// let pool = hip_pool::pool(stream.device())?;
    /// let buffer = pool.alloc(1000, &stream)?;
    /// assert_eq!(buffer.len(), 1000);
    /// assert_eq!(buffer.device(), pool.device());
    /// assert_eq!(buffer.stream().id(), stream.id());
    /// # Ok::<(), hip_pool::PoolError>(())
    /// ```
    #[inline(always)]
    pub fn alloc(&self, bytes: usize, stream: &Stream) -> Result<Buffer> {
        // The size is rounded here, once, and this thread's cache looked
        // in once: the slow path goes on with both.
        let size = cached::block_size(bytes);
        if hip_core::capture::underway() {
            return self.alloc_while_capturing(bytes, size, stream);
        }
        if let Some(size) = size.filter(|_| bytes != 0) {
            if let Some(record) = self.0.take_parked(size, bytes, stream) {
                return Ok(Buffer::from_record(record));
            }
        }
        self.alloc_slow(bytes, size, stream)
    }

    /// [`Pool::alloc`] while a capture is underway: for a stream that
    /// captures, from the capture's private pool; else as always.
    #[cold]
    fn alloc_while_capturing(&self, bytes: usize, size: Option<usize>, stream: &Stream) -> Result<Buffer> {
        let Some(scope) = hip_core::capture::of(stream)? else {
            return self.alloc_slow(bytes, size, stream);
        };
        stream.expect_device(self.0.core.device, "Pool::alloc").map_err(PoolError::from)?;
        if bytes == 0 {
            return Ok(Buffer::empty(stream));
        }
        let Some(size) = size else {
            return Err(self.0.core.out_of_memory_in_capture(bytes));
        };
        let core: &'static DevicePool = &self.0.core;
        let private = scope.keep(core as *const DevicePool as usize, || PrivateHold(Arc::new(PrivatePool::new(core))));
        let private = private.0.clone();
        private.serve(scope.id());
        let ptr = private.take(size, stream)?;
        self.0.core.mark_used();
        Ok(Buffer::from_record(Record::new_private(ptr, bytes, size, stream.clone(), private)))
    }

    #[inline(never)]
    fn alloc_slow(&self, bytes: usize, size: Option<usize>, stream: &Stream) -> Result<Buffer> {
        stream.expect_device(self.0.core.device, "Pool::alloc").map_err(PoolError::from)?;
        oom::allocate(self.0, bytes, size, stream)
    }

    /// Synchronize the device and release every unused cached block.
    /// Returns the bytes given back to the driver.
    ///
    /// # Errors
    /// [`PoolError::Hip`] with HIP's status of `hipDeviceSynchronize`, of
    /// synchronizing uses on other devices' streams, or of the first failed
    /// `hipFree` (`hipMemPoolTrimTo` for `async`); blocks not freed stay cached.
    ///
    /// # Examples
    /// ```
    /// use hip_pool::{Pool, Strategy};
    ///
    /// let stream = hip_core::Stream::new()?;
    /// let pool = Pool::new(stream.device(), Strategy::Cached)?;
    /// drop(pool.alloc(1 << 20, &stream)?); // kept by the pool
    /// let released = pool.reclaim()?;
    /// assert!(released >= 1 << 20);
    /// assert_eq!(pool.stats().reserved, 0);
    /// # Ok::<(), hip_pool::PoolError>(())
    /// ```
    pub fn reclaim(&self) -> Result<usize> {
        #[cfg(feature = "tracing")]
        let _span = tracing::debug_span!("pool reclaim", device = ?self.0.core.device).entered();
        self.0.reclaim()
    }

    /// This pool's statistics. Current values are exact; `allocated_peak`
    /// counts blocks parked in per-thread caches as allocated, so it is an
    /// upper bound of the peak in buffers.
    ///
    /// # Examples
    /// ```
    /// let pool = hip_pool::pool(hip_core::device())?;
    /// let buffer = pool.alloc(4096, &hip_core::stream())?;
    /// let stats = pool.stats();
    /// assert!(stats.live_buffers >= 1 && stats.allocated >= 4096);
    /// assert!(stats.reserved >= stats.allocated);
    /// drop(buffer);
    /// # Ok::<(), hip_pool::PoolError>(())
    /// ```
    pub fn stats(&self) -> PoolStats {
        pool_core::with_totals(self.0, |parked| {
            let mut stats = self.0.core.stats();
            // Every parked block is counted as allocated, and none moves
            // while the caches are locked: these never go below zero.
            stats.allocated = stats.allocated.saturating_sub(parked.bytes);
            stats.live_buffers = stats.live_buffers.saturating_sub(parked.blocks);
            stats.hits += parked.hits;
            stats
        })
    }

    /// Set whether a growth of this [`Strategy::Expandable`] pool on a busy
    /// stream waits for the stream's queued work, so that every free chunk
    /// of the stream's segment can move to where it grows instead of new
    /// memory being mapped: [`GrowthWaits`]'s docs weigh it. The default,
    /// [`GrowthWaits::WhereFree`], waits where the runtime's own mapping
    /// would wait anyway (AMD, the simulator), not on NVIDIA.
    ///
    /// # Errors
    /// [`PoolError::Config`] for a pool of another strategy, whose growth
    /// moves no memory.
    ///
    /// # Examples
    /// ```
    /// use hip_pool::{GrowthWaits, Pool, PoolError, Strategy};
    ///
    /// let device = hip_core::device();
    /// match Pool::new(device, Strategy::Expandable) {
    ///     // Memory first, on NVIDIA too: the host waits at each growth.
    ///     Ok(pool) => pool.set_growth_waits(GrowthWaits::Always)?,
    ///     // A runtime without virtual memory has no expandable pool.
    ///     Err(PoolError::Config(why)) => println!("{why}"),
    ///     Err(other) => return Err(other),
    /// }
    /// let cached = Pool::new(device, Strategy::Cached)?;
    /// assert!(cached.set_growth_waits(GrowthWaits::Never).is_err());
    /// # Ok::<(), PoolError>(())
    /// ```
    pub fn set_growth_waits(&self, waits: GrowthWaits) -> Result<()> {
        if self.0.core.set_growth_waits(waits) {
            return Ok(());
        }
        Err(PoolError::Config(format!(
            "a growth that waits is the expandable strategy's; this pool's is {:?}: make the pool with \
             Strategy::Expandable",
            self.strategy()
        )))
    }

    /// Set the hard limit: requests that would take the pool's reserved
    /// memory above it fail before the driver is asked.
    pub fn set_hard_limit(&self, limit: Limit) {
        self.0.core.set_hard_limit(limit);
    }

    /// Set the soft limit: going above it first releases cached memory.
    pub fn set_soft_limit(&self, limit: Limit) {
        self.0.core.set_soft_limit(limit);
    }

    /// The hard limit in bytes, if any.
    pub fn hard_limit(&self) -> Option<usize> {
        self.0.core.hard_limit()
    }

    /// Live blocks as (address, size), for tests of the cached strategy.
    pub fn live_blocks(&self) -> Vec<(usize, usize)> {
        let parked = pool_core::parked_addresses(self.0);
        self.0.core.live_blocks().into_iter().filter(|(p, _)| !parked.contains(p)).collect()
    }

    /// Whether the pool was used since the last call (for the idle
    /// cleanup); clears the mark.
    pub(crate) fn take_used(&self) -> bool {
        self.0.core.take_used()
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({:?} on {})", self.strategy(), self.device())
    }
}
