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
//!   kept by the buffer). [`enqueue`] runs an operation between the two
//!   for all its [`Operand`]s, with one rule for failures: the one way
//!   every crate above enqueues work that uses memory. A
//!   dropped buffer hands those events to the pool with its block; the
//!   block's next owner waits for them on the GPU before it gets the
//!   block (a block with pending events skips the per-thread caches),
//!   [`reclaim`](reclaim()) and driver frees synchronize them first. The
//!   same-stream case costs one stream comparison and one atomic load.
//! - [`Strategy`]: `cached` (default; splitting policy in
//!   `strategy::cached`'s docs), `expandable` (the same blocks over
//!   virtual memory: chunks mapped into one reserved range per stream as
//!   the pool grows, free ones moved to where it grows once their work is
//!   done (a busy stream waited for per [`GrowthWaits`]), unmapped on
//!   reclaim; `strategy::expandable`), `async`
//!   (HIP's stream-ordered pool, threshold at maximum) or `none`
//!   (pass-through), per `AMDGPU_POOL` or per [`Pool::new`].
//! - [`reclaim(device)`](reclaim()): synchronizes *that* device and releases
//!   its unused memory; the [`cleanup`] thread does it for idle devices.
//! - Out of memory climbs a ladder (sync stream, sync device, reclaim,
//!   [`register_reclaim_hook`] hooks) before [`PoolError::OutOfMemory`].
//! - Stream capture: inside a capture (`hip_core::Stream::capture`) an
//!   operand's use records no event and queries none; it is a hold of the
//!   graph, which orders each replay after the buffer's other uses and
//!   keeps its block from reuse while the graph or an exec made of it
//!   lives. Allocations for a capturing stream come from the capture's
//!   private pool (`private_pool`), reused in capture order. While any
//!   capture is underway the pool allocates from the driver in the
//!   Relaxed capture mode, defers driver frees to the next reclaim,
//!   reclaims only when none is underway (and never inside one) and, out
//!   of memory, fails with [`PoolError::OutOfMemoryInCapture`] instead of
//!   climbing the ladder.
//! - [`Limit`]s, hard and soft, from `AMDGPU_HARD_MEMORY_LIMIT` /
//!   `AMDGPU_SOFT_MEMORY_LIMIT` or the API, checked before the driver.
//! - Collectives: the driver frees and device synchronizes wait for the
//!   [`collective_gate`], so that they never deadlock a collective of this
//!   process (PyTorch's free mutex, generalized).
//! - [`stats(device)`](stats()): current and peak allocated and reserved
//!   bytes, hits, misses, driver calls, retries, OOMs.
//! - [`ipc`]: a buffer shared with other processes ([`ipc::share`],
//!   [`ipc::open`]): its segment's HIP handle (an expandable pool's
//!   chunks, by descriptor) and its place in it, an event the opener
//!   waits for on the GPU, and a ledger of the processes that have it
//!   open, so its block is never given back under one of them (nor kept
//!   forever for one that died).
//! - [`history`]: when asked for, every block handed out and given back
//!   (with what it still waits for), every segment and every step of the
//!   out-of-memory ladder, drawn as memory over time
//!   ([`history::history_html`]).
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
//!
//! # Layers
//!
//! The modules form layers; each uses only those under it (and the value
//! types `error`, `limits`, `stats`, which use nothing of the crate's
//! but `error`). Bottom up:
//!
//! 0. [`collective_gate`]: what the process's collectives have in flight,
//!    which the driver frees and device synchronizes of every layer
//!    above wait for (NCCL issue 48's deadlock).
//! 1. `strategy`: the [`Strategy`] a pool is made with, the cached
//!    strategy's bookkeeping of segments and blocks (`strategy::cached`)
//!    and the expandable one's of reserved ranges and mapped chunks
//!    (`strategy::expandable`): pure data, no HIP call.
//! 2. `driver`: the driver calls, `hipMalloc` / `hipFree`, HIP's
//!    stream-ordered pool, virtual memory, and reused ordering events.
//! 3. `device_pool`: one device's memory under one lock: its backing (the
//!    strategy with what it needs), the blocks it keeps, the pending uses
//!    of free blocks, limits, statistics, and the grow path to the driver
//!    (the expandable backing's maps chunks where its bookkeeping plans,
//!    first moving free chunks whose work is known finished: the stream
//!    idle or waited for, or its fences done).
//!    No buffers, no thread caches.
//! 4. `uses`, `private_pool`, `barrier`, `pool_core`: the one use
//!    tracker ([`UseList`]: a buffer's uses on other streams, pinned host
//!    memory's uses on all, as events) and the holds of graphs on them; a
//!    capture's private pool; and the pool core (`PoolInner`): a device
//!    pool with each thread's cache of freed blocks in front of it, the
//!    record a block carries while it is out of the pool (its length,
//!    stream and uses), and the paths through both.
//! 5. `pool`: [`Pool`], [`Buffer`] (one word: its block's record), the
//!    operand protocol ([`Operand`], [`enqueue`]) and the out-of-memory
//!    ladder.
//! 6. [`cleanup`]: the idle-trim thread, handed the pools to trim.
//! 7. `registry`: the process's pools, one per device, and the functions
//!    that take a device ([`pool()`], [`alloc`], [`reclaim`](reclaim()),
//!    [`stats`](stats())); it starts the cleanup with its list of pools.

// Values used throughout, and the memory history every layer records
// into, and the simulator's view of the blocks handed out (they use
// nothing of the crate's).
mod error;
pub mod history;
mod limits;
mod sim_blocks;
mod stats;

// The layers, bottom up (see above).
// 0. What collectives have in flight, which driver calls wait for.
pub mod collective_gate;
// 1. The strategy; the cached bookkeeping.
mod strategy;
// 2. Driver calls.
mod driver;
// 3. The device pool core.
mod device_pool;
// 4. The thread front.
mod barrier;
mod pool_core;
mod private_pool;
mod uses;
// 5. Pools, buffers, the out-of-memory ladder; buffers shared with
// other processes.
pub mod ipc;
mod pool;
// 6. The idle cleanup.
pub mod cleanup;
// 7. The process's pools.
mod registry;

pub use error::{PoolError, Result};
pub use limits::Limit;
pub use pool::{capture_into, enqueue, register_reclaim_hook, Access, Buffer, GraphPool, Operand, Pool};
pub use registry::{alloc, alloc_on, pool, reclaim, set_hard_limit, set_soft_limit, stats};
pub use stats::PoolStats;
pub use strategy::{GrowthWaits, Strategy};
pub use uses::UseList;
