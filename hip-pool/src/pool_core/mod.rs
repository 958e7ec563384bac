//! The pool core: [`PoolInner`], what a `Pool` handle and every buffer
//! point to, is one device pool with the caches that threads keep in
//! front of it (`caches`: the per-thread caches of freed blocks and the
//! protocol that lets other threads drain them), the [`Record`] a block
//! carries while it is out of the pool, and the paths that go through
//! both (a block taken or parked, an allocation attempt, a reclaim).

mod caches;
mod list;

use caches::{flush_all, give, take, take_own, Shared};
pub(crate) use caches::{parked_addresses, with_totals};

use crate::device_pool::{Attempt, DevicePool, Returned};
use crate::error::Result;
use crate::private_pool::PrivatePool;
use crate::uses::Uses;
use hip_core::Stream;
use hip_sys::sync::MutexExt;
use std::sync::{Arc, Mutex};

/// What a block carries while it is out of the pool, in a buffer or in a
/// thread's cache: its address, its pool, its sizes, its stream and its
/// uses on other streams. Boxed, so that a `Buffer` is one word (moved
/// with one load and store, never a wide copy of fields just written,
/// which stalls) and a cache hit moves one pointer. A record is made when
/// a block leaves the pool, never on a cache hit, and freed when the block
/// goes back to the pool.
pub(crate) struct Record {
    /// The block's device address (0 for an empty buffer).
    pub ptr: usize,
    /// The pool of the block; `None` for an empty buffer (no block).
    pub pool: Option<&'static PoolInner>,
    /// The bytes asked for.
    pub len: usize,
    /// The block's size (the request, rounded).
    pub block: usize,
    /// The buffer's own stream (a parked block's last one), on the pool's
    /// device.
    pub stream: Stream,
    /// Uses on other streams; always empty in a thread's cache.
    pub uses: Uses,
    /// The capture's private pool the block belongs to (then `pool` is
    /// `None`, so the drop's fast path never parks it).
    pub private: Option<Arc<PrivatePool>>,
    /// For memory another library owns (then `pool` is `None`): what
    /// gives it back, once every use has finished.
    pub foreign: Option<Box<Foreign>>,
}

/// Memory another library owns, lent to a buffer until it is dropped.
pub(crate) struct Foreign {
    /// Gives the memory back to its owner. In a mutex only so that a
    /// buffer stays `Sync` (the closure need not be): it is taken once,
    /// by the buffer's release, which owns the record.
    pub release: Mutex<Box<dyn FnOnce() + Send>>,
}

impl Record {
    /// A record of a block just out of the pool.
    pub fn new(ptr: usize, pool: Option<&'static PoolInner>, len: usize, block: usize, stream: Stream) -> Box<Record> {
        Box::new(Record { ptr, pool, len, block, stream, uses: Uses::default(), private: None, foreign: None })
    }

    /// A record of a block of a capture's private pool.
    pub fn new_private(ptr: usize, len: usize, block: usize, stream: Stream, private: Arc<PrivatePool>) -> Box<Record> {
        Box::new(Record {
            ptr,
            pool: None,
            len,
            block,
            stream,
            uses: Uses::default(),
            private: Some(private),
            foreign: None,
        })
    }

    /// What the pool takes back of a parked block (its record is freed).
    fn returned(self) -> Returned {
        (self.ptr, self.block, self.stream)
    }
}

/// Give a parked block back to its pool; its record is freed.
fn unpark(pool: &PoolInner, record: Record) {
    let (ptr, block, stream) = record.returned();
    pool.core.give_back_to_pool(ptr, block, stream);
}

/// A pool: its device pool and the caches of its blocks that threads keep
/// in front of it. Made once and never freed, so buffers and threads
/// refer to it as `&'static`.
pub(crate) struct PoolInner {
    /// Small and unique in the process: the index of the pool's slot in
    /// each thread's caches.
    pub id: usize,
    pub core: DevicePool,
    /// The per-thread caches of this pool, for reclaim and statistics.
    pub thread_caches: Mutex<Vec<Shared>>,
}

/// Every pool made, for the life of the process (pools are never freed:
/// listing them keeps them reachable, as they are).
static ALL_POOLS: Mutex<Vec<&'static PoolInner>> = Mutex::new(Vec::new());

impl PoolInner {
    /// Give `core` its id and caches, for the rest of the process.
    pub fn new(core: DevicePool) -> &'static PoolInner {
        // The barrier's mode is chosen once per process, and registering
        // for membarrier can take milliseconds (the kernel waits for a
        // grace period): here, with the pool, not in the first drop that
        // parks a block.
        crate::barrier::light_is_fence();
        crate::history::from_env();
        crate::sim_blocks::from_backend();
        let mut all = ALL_POOLS.lock_unpoisoned();
        let inner: &'static PoolInner =
            Box::leak(Box::new(PoolInner { id: all.len(), core, thread_caches: Mutex::new(Vec::new()) }));
        all.push(inner);
        inner
    }

    /// The fast path of the cached strategy: a block this thread parked,
    /// of the right size, on `stream`.
    ///
    /// It checks neither the strategy nor `stream`'s device: only blocks
    /// of the cached strategy are parked, each with the id of its
    /// buffer's stream, which is on the pool's device (`Pool::alloc` and
    /// `Buffer::set_stream` check that), and stream ids are unique in the
    /// process. A stream of another device, or a pool of another
    /// strategy, finds nothing here and goes the slow way, which checks.
    #[inline(always)]
    pub fn take_parked(&'static self, size: usize, bytes: usize, stream: &Stream) -> Option<Box<Record>> {
        let mut record = take(self, size, stream)?;
        record.len = bytes;
        self.core.mark_used();
        Some(record)
    }

    /// One attempt to allocate `bytes` (whose block size is `size`, `None`
    /// where it has none), without retries: the pool's free blocks (after
    /// this thread's cache is given back), then the driver. This thread's
    /// cache was looked in already ([`PoolInner::take_parked`]), and
    /// nothing on the way here parks a block in it.
    pub fn attempt(&'static self, size: Option<usize>, stream: &Stream) -> Attempt {
        self.core.mark_used();
        let Some(size) = size else {
            return Attempt::OutOfMemory;
        };
        if self.core.keeps_blocks() {
            if let Some(attempt) = self.core.take(size, stream, || take_own(self)) {
                return attempt;
            }
        }
        self.core.grow(size, stream, || self.reclaim())
    }

    /// Synchronize the device and release unused memory, the blocks parked
    /// in every thread's cache included; the bytes released.
    ///
    /// It runs when no stream capture is underway and holds new ones back
    /// meanwhile (a device synchronize and driver frees would break them).
    ///
    /// # Errors
    /// [`hip_core::HipError::CaptureUnderway`] on a thread inside a
    /// capture; else as [`DevicePool::reclaim`].
    pub fn reclaim(&'static self) -> Result<usize> {
        hip_core::capture::exclusive("hip_pool::reclaim", || self.core.reclaim(|| flush_all(self)))?
    }

    /// Return a block of the cached strategy (from a buffer's drop or
    /// free) with the events of its uses that may still run. No HIP call;
    /// a block with pending events goes to the pool, not to the thread's
    /// cache, so that every allocation sees them.
    pub fn give_back(&'static self, mut record: Box<Record>) {
        let pending = record.uses.take_events();
        if !pending.is_empty() {
            self.core.mark_used();
            let Record { ptr, block, stream, .. } = *record;
            return self.core.give_back_to_pool_with(ptr, block, stream, pending);
        }
        self.park(record);
    }

    /// Give back a block with no pending uses: into this thread's cache,
    /// else the pool.
    #[inline(always)]
    pub fn park(&'static self, record: Box<Record>) {
        self.core.mark_used();
        if let Err(record) = give(self, record) {
            unpark(self, *record);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Pool, Strategy};
    use hip_core::Device;

    /// The variable under which the test's own binary reruns it alone, in a
    /// process where nothing chose the barrier's mode yet.
    const CHILD: &str = "HIP_POOL_TEST_BARRIER_CHILD";

    /// The barrier's registration (milliseconds with membarrier) happens
    /// when a pool is made, so the first drop that parks a block does not
    /// pay it.
    #[test]
    fn making_a_pool_chooses_the_barriers_mode() {
        if std::env::var_os(CHILD).is_some() {
            assert!(!crate::barrier::chosen(), "a fresh process");
            let _pool = Pool::new(Device::new(0).expect("a device"), Strategy::Cached).expect("a pool");
            assert!(crate::barrier::chosen(), "chosen by the pool's creation");
            return;
        }
        let me = std::env::current_exe().expect("the test binary");
        let status = std::process::Command::new(me)
            .args(["--exact", "pool_core::tests::making_a_pool_chooses_the_barriers_mode", "--test-threads=1"])
            .env(CHILD, "1")
            .status()
            .expect("the test binary reruns");
        assert!(status.success(), "the rerun failed: {status}");
    }
}
