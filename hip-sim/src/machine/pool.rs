//! Stream-ordered memory: per-device memory pools.
//!
//! A pool hands out blocks taken from its device's memory and keeps freed
//! blocks reserved for reuse. Memory above the pool's release threshold
//! goes back to the device at the next synchronization (stream, event or
//! device), as in HIP and CUDA; `hipMemPoolTrimTo` releases explicitly.
//! A freed block is reused only for a request of the same rounded size:
//! once its free has run, by clr's safe streams (or any stream while
//! opportunistic reuse is on); while its `hipFreeAsync` is still queued,
//! by the stream that freed it, if safe (stream order puts the free
//! before anything the new owner enqueues there: hip-tests'
//! `hipMemPoolApi` "BasicReuse" and "Default").

use super::handles::new_handle;
use super::lock::lock;
use super::memory::{DeviceMemory, ALIGN};
use crate::bindings::hip::{hipError_t, hipMemPool_t};
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Clone, Copy, PartialEq, Eq)]
enum BlockState {
    InUse,
    /// `hipFreeAsync` was called; the stream has not reached it yet.
    Freeing,
    Free,
}

struct Block {
    pool: usize,
    size: usize,
    state: BlockState,
    /// The stream (queue address) that last allocated it.
    allocated_on: usize,
    /// The stream (queue address) whose `hipFreeAsync` freed it; `None`
    /// for a block freed by `hipFree` (clr keeps no event for it).
    freed_on: Option<usize>,
    /// How many times it was handed out: a queued free of an earlier
    /// life finds it taken again and leaves its state alone.
    life: u64,
}

impl Block {
    /// Whether `stream` may take this free block without the free's event
    /// being known complete: clr's "safe streams" of the block. In 6.2 and
    /// later they are the streams that allocated and freed it; in 5.7 and
    /// 6.0 the freeing stream is left out (`MemoryPool::FreeMemory` adds
    /// only the allocating one), which HIP 5 and 6 model, 6 by its
    /// strictest minor. A block freed by `hipFree` is safe for all.
    fn safe_for(&self, stream: usize, hip_major: u32) -> bool {
        match self.freed_on {
            None => true,
            Some(freed_on) => stream == self.allocated_on || (hip_major >= 7 && stream == freed_on),
        }
    }
}

/// One pool: its attributes and counters.
pub(crate) struct Pool {
    /// `hipMemPoolAttrReleaseThreshold`.
    pub threshold: u64,
    /// Bytes held from the device, in use or free.
    pub reserved: u64,
    /// The high-water mark of `reserved`.
    pub reserved_high: u64,
    /// Bytes handed out and not freed.
    pub used: u64,
    /// The high-water mark of `used`.
    pub used_high: u64,
    /// The three reuse attributes, in `hipMemPoolAttr` order.
    pub reuse: [i32; 3],
    /// `hipMemPoolDestroy` was called; it goes once nothing of it is in use.
    pub destroyed: bool,
}

impl Pool {
    /// A new pool as clr's `MemoryPool` starts: the three reuse flags 1,
    /// release threshold 0, nothing reserved.
    pub fn new() -> Pool {
        Pool { threshold: 0, reserved: 0, reserved_high: 0, used: 0, used_high: 0, reuse: [1, 1, 1], destroyed: false }
    }
}

/// The pools of one device and their blocks.
pub(crate) struct PoolsState {
    /// The device's default pool.
    pub default: usize,
    /// The pool `hipMallocAsync` takes from (`hipDeviceSetMemPool`).
    pub current: usize,
    /// Every pool of the device, by handle.
    pub pools: HashMap<usize, Pool>,
    blocks: HashMap<usize, Block>,
}

/// The pools of one device.
pub(crate) struct PoolRegistry {
    /// The pools and their blocks.
    pub state: Mutex<PoolsState>,
}

/// Which device each pool handle belongs to.
static POOL_DEVICES: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

/// Record that the pool `handle` belongs to `device`.
pub(crate) fn register(handle: usize, device: usize) {
    lock(&POOL_DEVICES).get_or_insert_with(HashMap::new).insert(handle, device);
}

/// The device of the pool `pool`; `hipErrorInvalidValue` for null or an
/// unknown pool.
pub(crate) fn device_of_pool(pool: hipMemPool_t) -> Result<usize, hipError_t> {
    if pool.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    lock(&POOL_DEVICES).as_ref().and_then(|m| m.get(&(pool as usize)).copied()).ok_or(hipError_t::hipErrorInvalidValue)
}

impl PoolRegistry {
    pub fn new(device: usize) -> PoolRegistry {
        let default = new_handle();
        register(default, device);
        let mut pools = HashMap::new();
        pools.insert(default, Pool::new());
        PoolRegistry { state: Mutex::new(PoolsState { default, current: default, pools, blocks: HashMap::new() }) }
    }

    /// Whether `address` is a block handed out by one of these pools.
    pub fn owns(&self, address: usize) -> bool {
        lock(&self.state).blocks.get(&address).is_some_and(|b| b.state == BlockState::InUse)
    }

    /// Take `size` bytes from pool `pool_id` for `stream` (a queue address),
    /// as HIP `hip_major` does.
    ///
    /// A block whose free has run (its event complete) goes to a stream clr
    /// deems safe for it ([`Block::safe_for`]), and to any other stream only
    /// while the pool's `hipMemPoolReuseAllowOpportunistic` is 1 (the
    /// default). A block whose `hipFreeAsync` is still queued goes only to
    /// the stream that freed it, if that stream is safe: its order puts the
    /// free first. A synchronization does not make a block safe for more
    /// streams (it releases completed blocks above the threshold).
    /// `memory` is the device's.
    pub fn allocate(
        &self,
        memory: &DeviceMemory,
        pool_id: usize,
        size: usize,
        stream: usize,
        hip_major: u32,
    ) -> Result<usize, hipError_t> {
        let rounded = size.div_ceil(ALIGN) * ALIGN;
        let mut state = lock(&self.state);
        let opportunistic = state.pools.get(&pool_id).is_some_and(|p| p.reuse[1] != 0);
        let reusable = state
            .blocks
            .iter()
            .find(|(_, b)| {
                b.pool == pool_id
                    && b.size == rounded
                    && match b.state {
                        BlockState::Free => opportunistic || b.safe_for(stream, hip_major),
                        // Its free is queued on `stream`, ahead of the new owner's work.
                        BlockState::Freeing => b.freed_on == Some(stream) && b.safe_for(stream, hip_major),
                        BlockState::InUse => false,
                    }
            })
            .map(|(address, _)| *address);
        let address = match reusable {
            Some(address) => {
                memory.set_requested(address, size);
                if let Some((allocation, _)) = memory.find(address) {
                    // A new allocation: every old access is ordered before
                    // it (its free completed, or is queued ahead on the
                    // taking stream, after the accesses it was checked with).
                    allocation.races.reset();
                }
                address
            }
            None => {
                let allocation = match memory.allocate(size) {
                    Ok(a) => a,
                    Err(_) => {
                        // Out of memory: give back this pool's free blocks and retry once.
                        release_free(&mut state, pool_id, 0, memory);
                        memory.allocate(size)?
                    }
                };
                let pool = state.pools.get_mut(&pool_id).ok_or(hipError_t::hipErrorInvalidValue)?;
                pool.reserved += allocation.size as u64;
                pool.reserved_high = pool.reserved_high.max(pool.reserved);
                state.blocks.insert(
                    allocation.base,
                    Block {
                        pool: pool_id,
                        size: allocation.size,
                        state: BlockState::Free,
                        allocated_on: stream,
                        freed_on: None,
                        life: 0,
                    },
                );
                allocation.base
            }
        };
        let block = state.blocks.get_mut(&address).ok_or(hipError_t::hipErrorUnknown)?;
        block.state = BlockState::InUse;
        block.allocated_on = stream;
        block.life += 1;
        if let Some((allocation, _)) = memory.find(address) {
            // The holder may copy what it asked for, not the block's first request.
            allocation.requested.store(size, std::sync::atomic::Ordering::Relaxed);
        }
        let pool = state.pools.get_mut(&pool_id).ok_or(hipError_t::hipErrorInvalidValue)?;
        pool.used += rounded as u64;
        pool.used_high = pool.used_high.max(pool.used);
        Ok(address)
    }

    /// Mark an in-use block as being freed by `stream` (`None` for
    /// `hipFree`); the stream finishes the free, with the life returned.
    pub fn begin_free(&self, address: usize, stream: Option<usize>) -> Result<u64, hipError_t> {
        let mut state = lock(&self.state);
        match state.blocks.get_mut(&address) {
            Some(block) if block.state == BlockState::InUse => {
                block.state = BlockState::Freeing;
                block.freed_on = stream;
                Ok(block.life)
            }
            _ => Err(hipError_t::hipErrorInvalidValue),
        }
    }

    /// The free of the block at `address` in its life `life` has happened;
    /// `memory` is the device's. A block taken again meanwhile (by its
    /// freeing stream) stays its new owner's.
    pub fn finish_free(&self, memory: &DeviceMemory, address: usize, life: u64) {
        let mut state = lock(&self.state);
        let Some(block) = state.blocks.get_mut(&address) else {
            return;
        };
        if block.life == life {
            block.state = BlockState::Free;
        }
        let (pool_id, size) = (block.pool, block.size as u64);
        if let Some(pool) = state.pools.get_mut(&pool_id) {
            pool.used -= size;
            if pool.destroyed {
                drop_destroyed(&mut state, pool_id, memory);
            }
        }
    }

    /// `hipFree` of a pool block: free at once.
    pub fn free_now(&self, memory: &DeviceMemory, address: usize) -> Result<(), hipError_t> {
        let life = self.begin_free(address, None)?;
        self.finish_free(memory, address, life);
        Ok(())
    }

    /// After a synchronization: release memory above each pool's threshold
    /// back to `memory`, the device's.
    pub fn after_synchronize(&self, memory: &DeviceMemory) {
        let mut state = lock(&self.state);
        let pools: Vec<(usize, u64)> = state.pools.iter().map(|(id, p)| (*id, p.threshold)).collect();
        for (id, threshold) in pools {
            release_free(&mut state, id, threshold, memory);
        }
    }

    /// `hipMemPoolTrimTo`: release free blocks of `pool_id` to `memory`,
    /// the device's, down to `keep` bytes.
    pub fn trim(&self, memory: &DeviceMemory, pool_id: usize, keep: u64) {
        release_free(&mut lock(&self.state), pool_id, keep, memory);
    }
}

/// Release free blocks of `pool_id` while its reservation exceeds `keep`.
fn release_free(state: &mut PoolsState, pool_id: usize, keep: u64, memory: &DeviceMemory) {
    let Some(reserved) = state.pools.get(&pool_id).map(|p| p.reserved) else {
        return;
    };
    let mut reserved = reserved;
    let mut free: Vec<(usize, usize)> = state
        .blocks
        .iter()
        .filter(|(_, b)| b.pool == pool_id && b.state == BlockState::Free)
        .map(|(a, b)| (*a, b.size))
        .collect();
    free.sort_unstable();
    for (address, size) in free {
        if reserved <= keep {
            break;
        }
        if memory.release(address).is_ok() {
            state.blocks.remove(&address);
            reserved -= size as u64;
        }
    }
    if let Some(pool) = state.pools.get_mut(&pool_id) {
        pool.reserved = reserved;
    }
}

/// Forget a destroyed pool once nothing of it is in use.
pub(crate) fn drop_destroyed(state: &mut PoolsState, pool_id: usize, memory: &DeviceMemory) {
    release_free(state, pool_id, 0, memory);
    if !state.blocks.values().any(|b| b.pool == pool_id) {
        state.pools.remove(&pool_id);
        if let Some(m) = lock(&POOL_DEVICES).as_mut() {
            m.remove(&pool_id);
        }
    }
}
