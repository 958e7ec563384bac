//! Stream-ordered memory: per-device memory pools.
//!
//! A pool hands out blocks taken from its device's memory and keeps freed
//! blocks reserved for reuse. Memory above the pool's release threshold
//! goes back to the device at the next synchronization (stream, event or
//! device), as in HIP and CUDA; `hipMemPoolTrimTo` releases explicitly.
//! A freed block is reused only for a request of the same rounded size.

use super::entry::{call, idx, write_out};
use super::memory::{device_of, Place};
use super::races::AccessKind;
use super::runtime::{lock, sim};
use super::streams::{self, new_handle};
use super::violations;
use crate::{hipError_t, hipMemPoolAttr, hipMemPoolProps, hipMemPool_t, hipStream_t};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

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
    /// The stream (queue address) whose `hipFreeAsync` freed it, until a
    /// synchronization makes the free known to every stream.
    freed_on: Option<usize>,
}

struct Pool {
    threshold: u64,
    reserved: u64,
    reserved_high: u64,
    used: u64,
    used_high: u64,
    reuse: [i32; 3],
    destroyed: bool,
}

impl Pool {
    /// A new pool as clr's `MemoryPool` starts: the three reuse flags 1,
    /// release threshold 0, nothing reserved.
    fn new() -> Pool {
        Pool { threshold: 0, reserved: 0, reserved_high: 0, used: 0, used_high: 0, reuse: [1, 1, 1], destroyed: false }
    }
}

struct PoolsState {
    default: usize,
    current: usize,
    pools: HashMap<usize, Pool>,
    blocks: HashMap<usize, Block>,
}

/// The pools of one device.
pub(crate) struct PoolRegistry {
    device: usize,
    state: Mutex<PoolsState>,
}

/// Which device each pool handle belongs to.
static POOL_DEVICES: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

fn register(handle: usize, device: usize) {
    lock(&POOL_DEVICES).get_or_insert_with(HashMap::new).insert(handle, device);
}

fn device_of_pool(pool: hipMemPool_t) -> Result<usize, hipError_t> {
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
        PoolRegistry {
            device,
            state: Mutex::new(PoolsState { default, current: default, pools, blocks: HashMap::new() }),
        }
    }

    /// Whether `address` is a block handed out by one of these pools.
    pub fn owns(&self, address: usize) -> bool {
        lock(&self.state).blocks.get(&address).is_some_and(|b| b.state == BlockState::InUse)
    }

    /// Take `size` bytes from pool `pool_id` for `stream` (a queue address).
    ///
    /// A free block is reused by the stream that freed it, and by any
    /// stream once a synchronization has passed the free; a free that only
    /// completed on the device is reused by other streams only while the
    /// pool's `hipMemPoolReuseAllowOpportunistic` is 1 (the default).
    fn allocate(&self, pool_id: usize, size: usize, stream: usize) -> Result<usize, hipError_t> {
        let memory = &sim().device(self.device).ok_or(hipError_t::hipErrorInvalidDevice)?.memory;
        let rounded = size.div_ceil(super::memory::ALIGN) * super::memory::ALIGN;
        let mut state = lock(&self.state);
        let opportunistic = state.pools.get(&pool_id).is_some_and(|p| p.reuse[1] != 0);
        let reusable = state
            .blocks
            .iter()
            .find(|(_, b)| {
                b.pool == pool_id
                    && b.state == BlockState::Free
                    && b.size == rounded
                    && (opportunistic || b.freed_on.is_none_or(|s| s == stream))
            })
            .map(|(address, _)| *address);
        let address = match reusable {
            Some(address) => {
                memory.set_requested(address, size);
                if let Some((allocation, _)) = memory.find(address) {
                    // A new allocation: its free completed (the pool hands
                    // out only completed frees), so the old accesses are done.
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
                    Block { pool: pool_id, size: allocation.size, state: BlockState::Free, freed_on: None },
                );
                allocation.base
            }
        };
        let block = state.blocks.get_mut(&address).ok_or(hipError_t::hipErrorUnknown)?;
        block.state = BlockState::InUse;
        if let Some((allocation, _)) = memory.find(address) {
            // The holder may copy what it asked for, not the block's first request.
            allocation.requested.store(size, std::sync::atomic::Ordering::Relaxed);
        }
        let pool = state.pools.get_mut(&pool_id).ok_or(hipError_t::hipErrorInvalidValue)?;
        pool.used += rounded as u64;
        pool.used_high = pool.used_high.max(pool.used);
        Ok(address)
    }

    /// Mark an in-use block as being freed; the stream finishes the free.
    fn begin_free(&self, address: usize) -> Result<(), hipError_t> {
        let mut state = lock(&self.state);
        match state.blocks.get_mut(&address) {
            Some(block) if block.state == BlockState::InUse => {
                block.state = BlockState::Freeing;
                Ok(())
            }
            _ => Err(hipError_t::hipErrorInvalidValue),
        }
    }

    fn finish_free(&self, address: usize, stream: Option<usize>) {
        let mut state = lock(&self.state);
        let Some(block) = state.blocks.get_mut(&address) else {
            return;
        };
        block.state = BlockState::Free;
        block.freed_on = stream;
        let (pool_id, size) = (block.pool, block.size as u64);
        if let Some(pool) = state.pools.get_mut(&pool_id) {
            pool.used -= size;
            if pool.destroyed {
                drop_destroyed(&mut state, pool_id, self.device);
            }
        }
    }

    /// `hipFree` of a pool block: free at once.
    pub fn free_now(&self, address: usize) -> Result<(), hipError_t> {
        self.begin_free(address)?;
        self.finish_free(address, None);
        Ok(())
    }

    /// After a synchronization: release memory above each pool's threshold.
    pub fn after_synchronize(&self) {
        let Some(device) = sim().device(self.device) else {
            return;
        };
        let mut state = lock(&self.state);
        for block in state.blocks.values_mut().filter(|b| b.state == BlockState::Free) {
            block.freed_on = None;
        }
        let pools: Vec<(usize, u64)> = state.pools.iter().map(|(id, p)| (*id, p.threshold)).collect();
        for (id, threshold) in pools {
            release_free(&mut state, id, threshold, &device.memory);
        }
    }

    fn trim(&self, pool_id: usize, keep: u64) {
        let Some(device) = sim().device(self.device) else {
            return;
        };
        release_free(&mut lock(&self.state), pool_id, keep, &device.memory);
    }
}

/// Release free blocks of `pool_id` while its reservation exceeds `keep`.
fn release_free(state: &mut PoolsState, pool_id: usize, keep: u64, memory: &super::memory::DeviceMemory) {
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
fn drop_destroyed(state: &mut PoolsState, pool_id: usize, device: usize) {
    if let Some(memory) = sim().device(device).map(|d| &d.memory) {
        release_free(state, pool_id, 0, memory);
    }
    if !state.blocks.values().any(|b| b.pool == pool_id) {
        state.pools.remove(&pool_id);
        if let Some(m) = lock(&POOL_DEVICES).as_mut() {
            m.remove(&pool_id);
        }
    }
}

fn registry(device: usize) -> Result<&'static PoolRegistry, hipError_t> {
    Ok(&sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?.pools)
}

fn device_arg(device: i32) -> Result<usize, hipError_t> {
    usize::try_from(device).ok().filter(|d| *d < sim().config.devices).ok_or(hipError_t::hipErrorInvalidDevice)
}

// ---- the C entry points ----------------------------------------------------

fn malloc_from(
    function: &'static str,
    ptr: *mut *mut c_void,
    size: usize,
    pool: Option<hipMemPool_t>,
    stream: hipStream_t,
) -> Result<(), hipError_t> {
    if ptr.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let queue = streams::target_or(stream, hipError_t::hipErrorInvalidHandle)?;
    violations::check(function, queue.device);
    if size == 0 {
        // SAFETY: checked non-null.
        return unsafe { write_out(ptr, std::ptr::null_mut()) };
    }
    let (device, pool_id) = match pool {
        Some(pool) => (device_of_pool(pool)?, pool as usize),
        None => (queue.device, lock(&registry(queue.device)?.state).current),
    };
    if device != queue.device {
        violations::check(function, device);
    }
    let address = registry(device)?.allocate(pool_id, size, Arc::as_ptr(&queue) as usize)?;
    // SAFETY: checked non-null.
    unsafe { write_out(ptr, address as *mut c_void) }
}

pub(crate) unsafe extern "C" fn hipMallocAsync(ptr: *mut *mut c_void, size: usize, stream: hipStream_t) -> hipError_t {
    call(idx!("hipMallocAsync"), || malloc_from("hipMallocAsync", ptr, size, None, stream))
}

pub(crate) unsafe extern "C" fn hipMallocFromPoolAsync(
    ptr: *mut *mut c_void,
    size: usize,
    pool: hipMemPool_t,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMallocFromPoolAsync"), || {
        if pool.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        malloc_from("hipMallocFromPoolAsync", ptr, size, Some(pool), stream)
    })
}

pub(crate) unsafe extern "C" fn hipFreeAsync(ptr: *mut c_void, stream: hipStream_t) -> hipError_t {
    call(idx!("hipFreeAsync"), || {
        let address = ptr as usize;
        let device = device_of(address).ok_or(hipError_t::hipErrorInvalidValue)?;
        let pools = registry(device).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        let queue = streams::target_or(stream, hipError_t::hipErrorInvalidHandle)?;
        violations::check("hipFreeAsync", device);
        pools.begin_free(address)?;
        let freed_on = Arc::as_ptr(&queue) as usize;
        let accesses = sim()
            .device(device)
            .and_then(|d| d.memory.find(address))
            .and_then(|(a, _)| Place::Device(a.clone(), 0).access(a.size, AccessKind::Free));
        let op = streams::Op::with("hipFreeAsync", accesses.into_iter().collect());
        streams::submit(&queue, false, op, move || {
            pools.finish_free(address, Some(freed_on));
            Ok(())
        })
    })
}

pub(crate) unsafe extern "C" fn hipMemPoolCreate(pool: *mut hipMemPool_t, props: *const hipMemPoolProps) -> hipError_t {
    call(idx!("hipMemPoolCreate"), || {
        if pool.is_null() || props.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: checked non-null; the caller passes a valid props struct.
        let props = unsafe { &*props };
        if props.allocType != crate::hipMemAllocationType::hipMemAllocationTypePinned
            || props.location.type_ != crate::hipMemLocationType::hipMemLocationTypeDevice
        {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let device = device_arg(props.location.id).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        let registry = registry(device)?;
        let handle = new_handle();
        register(handle, device);
        lock(&registry.state).pools.insert(handle, Pool::new());
        // SAFETY: checked non-null.
        unsafe { write_out(pool, handle as hipMemPool_t) }
    })
}

pub(crate) unsafe extern "C" fn hipMemPoolDestroy(pool: hipMemPool_t) -> hipError_t {
    call(idx!("hipMemPoolDestroy"), || {
        let device = device_of_pool(pool)?;
        violations::check("hipMemPoolDestroy", device);
        let registry = registry(device)?;
        let mut state = lock(&registry.state);
        let id = pool as usize;
        if id == state.default {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if state.current == id {
            state.current = state.default;
        }
        state.pools.get_mut(&id).ok_or(hipError_t::hipErrorInvalidValue)?.destroyed = true;
        drop_destroyed(&mut state, id, device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipMemPoolTrimTo(pool: hipMemPool_t, min_bytes_to_hold: usize) -> hipError_t {
    call(idx!("hipMemPoolTrimTo"), || {
        let device = device_of_pool(pool)?;
        violations::check("hipMemPoolTrimTo", device);
        registry(device)?.trim(pool as usize, min_bytes_to_hold as u64);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipMemPoolSetAttribute(
    pool: hipMemPool_t,
    attr: hipMemPoolAttr,
    value: *mut c_void,
) -> hipError_t {
    call(idx!("hipMemPoolSetAttribute"), || {
        let device = device_of_pool(pool)?;
        violations::check("hipMemPoolSetAttribute", device);
        if value.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let registry = registry(device)?;
        let mut state = lock(&registry.state);
        let p = state.pools.get_mut(&(pool as usize)).ok_or(hipError_t::hipErrorInvalidValue)?;
        // SAFETY (for the reads below): non-null, and HIP documents the
        // value as an int for the reuse flags and a uint64_t otherwise.
        match attr {
            hipMemPoolAttr::hipMemPoolReuseFollowEventDependencies
            | hipMemPoolAttr::hipMemPoolReuseAllowOpportunistic
            | hipMemPoolAttr::hipMemPoolReuseAllowInternalDependencies => {
                // SAFETY: see above.
                p.reuse[attr.0 as usize - 1] = unsafe { *(value as *const i32) };
            }
            hipMemPoolAttr::hipMemPoolAttrReleaseThreshold => {
                // SAFETY: see above.
                p.threshold = unsafe { *(value as *const u64) };
            }
            hipMemPoolAttr::hipMemPoolAttrReservedMemHigh if sim().config.hip_major <= 6 => {
                // clr 5.7.x and 6.0.x: this case falls through to the
                // read-only UsedMemCurrent, so every value is refused
                // (fixed in 6.1; HIP 6 is modelled by its strictest minor).
                return Err(hipError_t::hipErrorInvalidValue);
            }
            hipMemPoolAttr::hipMemPoolAttrReservedMemHigh | hipMemPoolAttr::hipMemPoolAttrUsedMemHigh => {
                // SAFETY: see above.
                if unsafe { *(value as *const u64) } != 0 {
                    return Err(hipError_t::hipErrorInvalidValue);
                }
                if attr == hipMemPoolAttr::hipMemPoolAttrReservedMemHigh {
                    p.reserved_high = p.reserved;
                } else {
                    p.used_high = p.used;
                }
            }
            // ReservedMemCurrent and UsedMemCurrent are read-only; unknown
            // attributes are refused.
            _ => return Err(hipError_t::hipErrorInvalidValue),
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipMemPoolGetAttribute(
    pool: hipMemPool_t,
    attr: hipMemPoolAttr,
    value: *mut c_void,
) -> hipError_t {
    call(idx!("hipMemPoolGetAttribute"), || {
        let device = device_of_pool(pool)?;
        violations::check("hipMemPoolGetAttribute", device);
        let registry = registry(device)?;
        let state = lock(&registry.state);
        let p = state.pools.get(&(pool as usize)).ok_or(hipError_t::hipErrorInvalidValue)?;
        let wide = match attr {
            hipMemPoolAttr::hipMemPoolReuseFollowEventDependencies
            | hipMemPoolAttr::hipMemPoolReuseAllowOpportunistic
            | hipMemPoolAttr::hipMemPoolReuseAllowInternalDependencies => {
                // SAFETY: null is rejected; HIP documents an int here.
                return unsafe { write_out(value as *mut i32, p.reuse[attr.0 as usize - 1]) };
            }
            hipMemPoolAttr::hipMemPoolAttrReleaseThreshold => p.threshold,
            hipMemPoolAttr::hipMemPoolAttrReservedMemCurrent => p.reserved,
            hipMemPoolAttr::hipMemPoolAttrReservedMemHigh => p.reserved_high,
            hipMemPoolAttr::hipMemPoolAttrUsedMemCurrent => p.used,
            hipMemPoolAttr::hipMemPoolAttrUsedMemHigh => p.used_high,
            _ => return Err(hipError_t::hipErrorInvalidValue),
        };
        // SAFETY: null is rejected; HIP documents a uint64_t here.
        unsafe { write_out(value as *mut u64, wide) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceGetDefaultMemPool(pool: *mut hipMemPool_t, device: i32) -> hipError_t {
    call(idx!("hipDeviceGetDefaultMemPool"), || {
        let registry = registry(device_arg(device)?)?;
        let default = lock(&registry.state).default;
        // SAFETY: null is rejected.
        unsafe { write_out(pool, default as hipMemPool_t) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceGetMemPool(pool: *mut hipMemPool_t, device: i32) -> hipError_t {
    call(idx!("hipDeviceGetMemPool"), || {
        let registry = registry(device_arg(device)?)?;
        let current = lock(&registry.state).current;
        // SAFETY: null is rejected.
        unsafe { write_out(pool, current as hipMemPool_t) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceSetMemPool(device: i32, pool: hipMemPool_t) -> hipError_t {
    call(idx!("hipDeviceSetMemPool"), || {
        let device = device_arg(device)?;
        if device_of_pool(pool)? != device {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let registry = registry(device)?;
        lock(&registry.state).current = pool as usize;
        Ok(())
    })
}
