//! Per-thread caches of recently freed blocks (cached strategy).
//!
//! A block freed on a thread is parked in that thread's cache for its pool,
//! tagged with its stream; the next allocation of the same size on the same
//! stream by that thread takes it back without touching the pool's lock,
//! so threads sharing a device do not contend on it. The rules hold:
//!
//! - a drop makes no HIP call and touches no thread GPU state (the cache is
//!   this module's own thread-local, not `hip-core`'s);
//! - `reclaim(device)` first moves every parked block of every thread back
//!   into the pool (each cache is registered with its pool), then releases;
//! - statistics subtract parked blocks, so current values stay exact.
//!
//! A block leaves a cache for the pool only while the cache's lock is held
//! (a drain, a thread's exit), and statistics hold every cache's lock and
//! then the pool's while they read, so a read never sees a block both
//! parked and returned. The lock order is registry, then cache, then pool.
//!
//! Caches are bounded ([`MAX_BLOCKS`], [`MAX_BYTES`]); beyond that, and
//! when a thread exits, blocks go back to the pool. Before the pool asks
//! the driver for memory, the allocating thread's cache is flushed too.

use crate::device_pool::PoolInner;
use hip_core::Stream;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// Blocks one thread keeps for one pool at most.
pub const MAX_BLOCKS: usize = 64;
/// Bytes one thread keeps for one pool at most.
pub const MAX_BYTES: usize = 64 << 20;

struct Parked {
    ptr: usize,
    size: usize,
    stream: Stream,
}

/// One thread's cache for one pool.
#[derive(Default)]
pub(crate) struct ThreadCache {
    blocks: Vec<Parked>,
    bytes: usize,
    hits: u64,
}

pub(crate) type Shared = Arc<Mutex<ThreadCache>>;

fn lock(cache: &Shared) -> std::sync::MutexGuard<'_, ThreadCache> {
    cache.lock().unwrap_or_else(|p| p.into_inner())
}

/// This thread's caches, by pool.
struct Local(Vec<(&'static PoolInner, Shared)>);

impl Drop for Local {
    fn drop(&mut self) {
        for (pool, cache) in self.0.drain(..) {
            {
                let mut cache = lock(&cache);
                // The cache's hits become the pool's, and its blocks go back,
                // under the cache's lock (see the module docs).
                pool.add_hits(std::mem::take(&mut cache.hits));
                return_blocks(pool, &mut cache);
            }
            let mut registry = pool.thread_caches.lock().unwrap_or_else(|p| p.into_inner());
            registry.retain(|c| !Arc::ptr_eq(c, &cache));
        }
    }
}

/// Give every block of a locked cache back to its pool.
fn return_blocks(pool: &PoolInner, cache: &mut ThreadCache) {
    for block in cache.blocks.drain(..) {
        cache.bytes -= block.size;
        pool.give_back_to_pool(block.ptr, block.size, block.stream);
    }
}

thread_local! {
    static LOCAL: RefCell<Local> = const { RefCell::new(Local(Vec::new())) };
}

fn find(local: &Local, pool: &'static PoolInner) -> Option<Shared> {
    local.0.iter().find(|(p, _)| std::ptr::eq(*p, pool)).map(|(_, c)| c.clone())
}

/// A parked block of exactly `size` last used on `stream`, from this thread.
pub(crate) fn take(pool: &'static PoolInner, size: usize, stream: &Stream) -> Option<(usize, Stream)> {
    LOCAL
        .try_with(|local| {
            let local = local.borrow();
            let entry = local.0.iter().find(|(p, _)| std::ptr::eq(*p, pool))?;
            let mut cache = lock(&entry.1);
            let raw = stream.as_raw();
            let index = cache.blocks.iter().rposition(|b| b.size == size && b.stream.as_raw() == raw)?;
            let block = cache.blocks.swap_remove(index);
            cache.bytes -= block.size;
            cache.hits += 1;
            Some((block.ptr, block.stream))
        })
        .ok()
        .flatten()
}

/// Park a freed block in this thread's cache; the stream back if it is
/// full (or the thread is exiting).
pub(crate) fn give(pool: &'static PoolInner, ptr: usize, size: usize, stream: Stream) -> Result<(), Stream> {
    let mut stream = Some(stream);
    let parked = LOCAL.try_with(|local| {
        // A statement of its own: the shared borrow ends before `borrow_mut`.
        let found = find(&local.borrow(), pool);
        let cache = match found {
            Some(cache) => cache,
            None => {
                let cache: Shared = Arc::default();
                pool.thread_caches.lock().unwrap_or_else(|p| p.into_inner()).push(cache.clone());
                local.borrow_mut().0.push((pool, cache.clone()));
                cache
            }
        };
        let mut cache = lock(&cache);
        if cache.blocks.len() >= MAX_BLOCKS || cache.bytes + size > MAX_BYTES {
            return false;
        }
        if let Some(stream) = stream.take() {
            cache.blocks.push(Parked { ptr, size, stream });
            cache.bytes += size;
        }
        true
    });
    match (parked, stream) {
        (Ok(true), _) => Ok(()),
        (_, Some(stream)) => Err(stream),
        // Parked, yet no stream left: impossible, as `take` ran only on parking.
        (_, None) => Ok(()),
    }
}

fn drain(pool: &'static PoolInner, cache: &Shared) {
    return_blocks(pool, &mut lock(cache));
}

/// Move this thread's parked blocks of `pool` back into the pool.
pub(crate) fn flush_own(pool: &'static PoolInner) {
    if let Ok(Some(cache)) = LOCAL.try_with(|local| find(&local.borrow(), pool)) {
        drain(pool, &cache);
    }
}

/// Move every thread's parked blocks of `pool` back into the pool.
pub(crate) fn flush_all(pool: &'static PoolInner) {
    let caches: Vec<Shared> = pool.thread_caches.lock().unwrap_or_else(|p| p.into_inner()).clone();
    for cache in &caches {
        drain(pool, cache);
    }
}

/// Parked blocks and hits over every thread's cache of a pool.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub bytes: usize,
    pub blocks: usize,
    pub hits: u64,
}

/// Run `read` with the [`Totals`] of every thread's cache of `pool` while
/// every cache stays locked, so that no block moves between a cache and
/// the pool until `read` returns (it may lock the pool).
pub(crate) fn with_totals<R>(pool: &PoolInner, read: impl FnOnce(Totals) -> R) -> R {
    let registry = pool.thread_caches.lock().unwrap_or_else(|p| p.into_inner());
    let caches: Vec<_> = registry.iter().map(lock).collect();
    let totals = caches.iter().fold(Totals::default(), |t, cache| Totals {
        bytes: t.bytes + cache.bytes,
        blocks: t.blocks + cache.blocks.len(),
        hits: t.hits + cache.hits,
    });
    read(totals)
}

/// Addresses parked in any thread's cache of `pool`.
pub(crate) fn parked_addresses(pool: &PoolInner) -> Vec<usize> {
    let caches = pool.thread_caches.lock().unwrap_or_else(|p| p.into_inner());
    caches.iter().flat_map(|cache| lock(cache).blocks.iter().map(|b| b.ptr).collect::<Vec<_>>()).collect()
}
