//! Pooled device memory for amdgpu-rs.
//!
//! Allocating from HIP costs tens of microseconds and synchronizes; a pool
//! keeps freed blocks and hands them out again in tens of nanoseconds.
//! Each device has its own pool with its own lock, created on first use,
//! and each thread keeps a small cache of the blocks it freed, so threads
//! sharing a device rarely meet on that lock. Pools live for the process.
//!
//! - [`Buffer`]: device memory that knows its device, size and own
//!   stream. Dropped on any thread, it goes back to its pool with no HIP
//!   call and no thread-state access (cached strategy).
//! - Uses on other streams: an operation that uses a buffer on a stream
//!   other than its own declares it with [`Buffer::prepare`] before
//!   enqueuing (the stream waits on the GPU for the own stream's queued
//!   work and for conflicting earlier uses: read after write, write after
//!   read or write) and [`Buffer::record`] after (an event on that stream,
//!   kept by the buffer), or with [`with_uses`] for several buffers. A
//!   dropped buffer hands those events to the pool with its block; the
//!   block's next owner waits for them on the GPU before it gets the
//!   block (a block with pending events skips the per-thread caches),
//!   [`reclaim`](reclaim()) and driver frees synchronize them first. The
//!   same-stream case costs one stream comparison and one atomic load.
//! - [`Strategy`]: `cached` (default; splitting policy in
//!   `strategy::cached`'s docs), `async` (HIP's stream-ordered pool,
//!   threshold at maximum) or `none` (pass-through), per `AMDGPU_POOL` or
//!   per [`Pool::new`].
//! - [`reclaim(device)`](reclaim()): synchronizes *that* device and releases
//!   its unused memory; the [`cleanup`] thread does it for idle devices.
//! - Out of memory climbs a ladder (sync stream, sync device, reclaim,
//!   [`register_reclaim_hook`] hooks) before [`PoolError::OutOfMemory`].
//! - [`Limit`]s, hard and soft, from `AMDGPU_HARD_MEMORY_LIMIT` /
//!   `AMDGPU_SOFT_MEMORY_LIMIT` or the API, checked before the driver.
//! - [`stats(device)`](stats()): current and peak allocated and reserved
//!   bytes, hits, misses, driver calls, retries, OOMs.
//!
//! ```
//! use hip_core::Device;
//!
//! let device = Device::new(0)?;
//! let buffer = hip_pool::alloc(1 << 20)?; // this thread's device and stream
//! assert_eq!(buffer.device(), hip_core::device());
//! drop(buffer); // back to the pool: no HIP call
//! let again = hip_pool::alloc(1 << 20)?; // a cache hit
//! drop(again);
//! println!("{}", hip_pool::stats(device));
//! hip_pool::reclaim(device)?;
//! # Ok::<(), hip_pool::PoolError>(())
//! ```

mod barrier;
pub mod cleanup;
mod device_pool;
mod driver;
mod error;
mod limits;
mod pool;
mod reclaim;
mod stats;
mod strategy;
mod thread_cache;

pub use error::{PoolError, Result};
pub use limits::Limit;
pub use pool::{register_reclaim_hook, with_uses, Access, Buffer, Pool};
pub use reclaim::{alloc, alloc_on, pool, reclaim, set_hard_limit, set_soft_limit, stats};
pub use stats::PoolStats;
pub use strategy::Strategy;
