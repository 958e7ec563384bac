//! Stream-ordered memory: `hipMallocAsync`, `hipFreeAsync`,
//! `hipMallocFromPoolAsync`, and the pools' creation, attributes and trim.

use super::device::device_arg;
use crate::bindings::hip::{hipError_t, hipMemPoolAttr, hipMemPoolProps, hipMemPool_t, hipStream_t};
use crate::entry::{call, write_out};
use crate::machine::addresses::device_of;
use crate::machine::calls::idx;
use crate::machine::capture;
use crate::machine::graph_memory::{self, NodeMemory};
use crate::machine::handles::new_handle;
use crate::machine::lock::lock;
use crate::machine::pool::{self, device_of_pool, Pool, PoolRegistry};
use crate::machine::violations::{self, AccessKind};
use crate::machine::{sim, SimDevice};
use crate::place::Place;
use crate::submit::{self, Op};
use crate::targets;
use std::ffi::c_void;
use std::sync::Arc;

fn sim_device(device: usize) -> Result<&'static SimDevice, hipError_t> {
    sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)
}

fn registry(device: usize) -> Result<&'static PoolRegistry, hipError_t> {
    Ok(&sim_device(device)?.pools)
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
    let queue = targets::target_or(stream, hipError_t::hipErrorInvalidHandle)?;
    violations::check(function, queue.device);
    if size == 0 {
        // clr: before the capture check, so no node either.
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
    if capture::capturing(&queue)? {
        // An allocation node: an address reserved for the graph.
        let range = graph_memory::reserve(device, size)?;
        let address = range.base();
        capture::add_memory_node(&queue, function, NodeMemory::Allocate(range))?;
        // SAFETY: checked non-null.
        return unsafe { write_out(ptr, address as *mut c_void) };
    }
    let d = sim_device(device)?;
    let hip_major = sim().config.hip_major;
    let address = d.pools.allocate(&d.memory, pool_id, size, Arc::as_ptr(&queue) as usize, hip_major)?;
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
        let d = sim_device(device).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        let queue = targets::target_or(stream, hipError_t::hipErrorInvalidHandle)?;
        violations::check("hipFreeAsync", device);
        let graph_range = graph_memory::starting_at(address);
        if capture::capturing(&queue)? {
            // A free node, of graph memory only (CUDA refuses the rest and
            // the capture goes on).
            let range = graph_range.ok_or(hipError_t::hipErrorInvalidValue)?;
            return capture::add_memory_node(&queue, "hipFreeAsync", NodeMemory::Free(range));
        }
        if let Some(range) = graph_range {
            // Memory a launch left allocated: a free on the stream, like any.
            return graph_memory::free_outside(range, |access| {
                submit::submit(&queue, false, Op::with("hipFreeAsync", access.into_iter().collect()), || Ok(()))
            });
        }
        let freed_on = Arc::as_ptr(&queue) as usize;
        let life = d.pools.begin_free(address, Some(freed_on))?;
        let accesses = sim()
            .device(device)
            .and_then(|d| d.memory.find(address))
            .and_then(|(a, _)| Place::Device(a.clone(), 0).access(a.size, AccessKind::Free));
        let op = Op::with("hipFreeAsync", accesses.into_iter().collect());
        submit::submit(&queue, false, op, move || {
            d.pools.finish_free(&d.memory, address, life);
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
        if props.allocType != crate::bindings::hip::hipMemAllocationType::hipMemAllocationTypePinned
            || props.location.type_ != crate::bindings::hip::hipMemLocationType::hipMemLocationTypeDevice
        {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let device = device_arg(props.location.id).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        let registry = registry(device)?;
        let handle = new_handle();
        pool::register(handle, device);
        lock(&registry.state).pools.insert(handle, Pool::new());
        // SAFETY: checked non-null.
        unsafe { write_out(pool, handle as hipMemPool_t) }
    })
}

pub(crate) unsafe extern "C" fn hipMemPoolDestroy(pool: hipMemPool_t) -> hipError_t {
    call(idx!("hipMemPoolDestroy"), || {
        let device = device_of_pool(pool)?;
        violations::check("hipMemPoolDestroy", device);
        let d = sim_device(device)?;
        let mut state = lock(&d.pools.state);
        let id = pool as usize;
        if id == state.default {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if state.current == id {
            state.current = state.default;
        }
        state.pools.get_mut(&id).ok_or(hipError_t::hipErrorInvalidValue)?.destroyed = true;
        pool::drop_destroyed(&mut state, id, &d.memory);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipMemPoolTrimTo(pool: hipMemPool_t, min_bytes_to_hold: usize) -> hipError_t {
    call(idx!("hipMemPoolTrimTo"), || {
        let device = device_of_pool(pool)?;
        violations::check("hipMemPoolTrimTo", device);
        let d = sim_device(device)?;
        d.pools.trim(&d.memory, pool as usize, min_bytes_to_hold as u64);
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
                // clr keeps each flag in a one-bit field: only bit 0 counts.
                // SAFETY: see above.
                p.reuse[attr.0 as usize - 1] = unsafe { *(value as *const i32) } & 1;
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
                // clr resets the mark to 0, not to the current value as
                // CUDA does (`MemoryPool::SetAttribute`).
                if attr == hipMemPoolAttr::hipMemPoolAttrReservedMemHigh {
                    p.reserved_high = 0;
                } else {
                    p.used_high = 0;
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
        // clr: the out-pointer first, then the device.
        if pool.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let registry = registry(device_arg(device)?)?;
        let default = lock(&registry.state).default;
        // SAFETY: checked non-null above.
        unsafe { write_out(pool, default as hipMemPool_t) }
    })
}

/// The device of `hipDeviceGetMemPool` and `hipDeviceSetMemPool`: clr
/// compares it, as an unsigned number, against the device count and
/// answers `hipErrorInvalidValue` (not `InvalidDevice`), negative ones
/// included.
fn pool_device_arg(device: i32) -> Result<usize, hipError_t> {
    device_arg(device).map_err(|_| hipError_t::hipErrorInvalidValue)
}

pub(crate) unsafe extern "C" fn hipDeviceGetMemPool(pool: *mut hipMemPool_t, device: i32) -> hipError_t {
    call(idx!("hipDeviceGetMemPool"), || {
        if pool.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let registry = registry(pool_device_arg(device)?)?;
        let current = lock(&registry.state).current;
        // SAFETY: checked non-null above.
        unsafe { write_out(pool, current as hipMemPool_t) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceSetMemPool(device: i32, pool: hipMemPool_t) -> hipError_t {
    call(idx!("hipDeviceSetMemPool"), || {
        if pool.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let device = pool_device_arg(device)?;
        // clr: a pool of another device is hipErrorInvalidDevice (one it
        // never made, clr reads as a pool; here it is InvalidValue).
        if device_of_pool(pool)? != device {
            return Err(hipError_t::hipErrorInvalidDevice);
        }
        let registry = registry(device)?;
        lock(&registry.state).current = pool as usize;
        Ok(())
    })
}
