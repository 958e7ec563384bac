//! Allocating and freeing device and pinned host memory, and asking about
//! it (managed memory included): `hipMalloc`, `hipFree`, `hipHostMalloc`, `hipHostFree`,
//! `hipMemGetInfo`, `hipPointerGetAttributes`.

use crate::bindings::hip::{hipError_t, hipMemoryType, hipPointerAttribute_t};
use crate::entry::{call, write_out};
use crate::machine::addresses::device_of;
use crate::machine::calls::idx;
use crate::machine::capture;
use crate::machine::graph_memory;
use crate::machine::memory::Allocation;
use crate::machine::pinned;
use crate::machine::races::{self, Access};
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations::{self, AccessKind};
use crate::place::{resolve, Place};
use crate::submit;
use std::ffi::c_void;
use std::sync::Arc;

pub(crate) unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    call(idx!("hipMalloc"), || {
        capture::check_allocation()?;
        if ptr.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let address = if size == 0 {
            0
        } else {
            let device = current_device();
            let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
            d.memory.allocate(size)?.base
        };
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(ptr, address as *mut c_void) }
    })
}

/// `hipFree`: memory of a stream-ordered pool goes back to its pool, with
/// no synchronization on HIP 7 and after synchronizing the allocation's
/// device on HIP 5 and 6; other memory is released after synchronizing the
/// allocation's device (every stream of it, not other devices').
pub(crate) unsafe extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    call(idx!("hipFree"), || {
        capture::check_allocation()?;
        let address = ptr as usize;
        if address == 0 {
            return Ok(());
        }
        if let Some((managed, offset)) = crate::machine::managed::containing(address) {
            // Managed memory: freed after its recorded device's work.
            let allocation = &managed.allocation;
            if offset != 0 {
                return Err(hipError_t::hipErrorInvalidValue);
            }
            submit::synchronize_device("hipFree", allocation.device)?;
            let access = Access::new(&allocation.races, 0, allocation.size, AccessKind::Free);
            races::host_access("hipFree", allocation.device, &[access]);
            crate::machine::managed::release(address);
            return Ok(());
        }
        let device = device_of(address).ok_or(hipError_t::hipErrorInvalidValue)?;
        let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidValue)?;
        violations::check("hipFree", device);
        if let Some(range) = graph_memory::starting_at(address) {
            // Memory a launch left allocated: freed after the device's work,
            // like any hipFree (as on CUDA).
            return graph_memory::free_outside(range, |access| {
                submit::synchronize_device("hipFree", device)?;
                races::host_access("hipFree", device, &access.into_iter().collect::<Vec<_>>());
                Ok(())
            });
        }
        if d.memory.find(address).is_none_or(|(a, off)| off != 0 || a.base != address || a.imported || a.virtual_range)
        {
            // Not an allocation's start, memory opened from another
            // process's handle (`hipIpcCloseMemHandle` closes that), or a
            // reserved range (`hipMemAddressFree` gives that back).
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let free = |allocation: Option<(Arc<Allocation>, usize)>| {
            if let Some((allocation, _)) = allocation {
                let access = Access::new(&allocation.races, 0, allocation.size, AccessKind::Free);
                races::host_access("hipFree", device, &[access]);
            }
        };
        if d.pools.owns(address) {
            // clr 7.x tries the pool first and syncs only for other memory;
            // 5.7 to 6.x sync the device before looking at the pool.
            if sim().config.hip_major < 7 {
                submit::synchronize_device("hipFree", device)?;
            }
            free(d.memory.find(address));
            return d.pools.free_now(&d.memory, address);
        }
        submit::synchronize_device("hipFree", device)?;
        free(d.memory.find(address));
        // Handles of it stop opening (openers keep their mappings).
        crate::machine::ipc::freed(address);
        d.memory.release(address).map(drop)
    })
}

/// `hipHostMalloc` flags (HIP's `hip_runtime_api.h`); the bindings name
/// only `hipHostMallocDefault`.
const HOST_MALLOC_UNCACHED: u32 = 0x1000_0000;
const HOST_MALLOC_COHERENT: u32 = 0x4000_0000;
const HOST_MALLOC_NON_COHERENT: u32 = 0x8000_0000;

/// Whether HIP rejects these `hipHostMalloc` flags: Coherent with
/// NonCoherent, and from HIP 7 Uncached with either. Unknown bits are
/// accepted, as HIP does.
fn host_flags_invalid(flags: u32) -> bool {
    let both = HOST_MALLOC_COHERENT | HOST_MALLOC_NON_COHERENT;
    flags & both == both || (sim().config.hip_major >= 7 && flags & HOST_MALLOC_UNCACHED != 0 && flags & both != 0)
}

pub(crate) unsafe extern "C" fn hipHostMalloc(ptr: *mut *mut c_void, size: usize, flags: u32) -> hipError_t {
    call(idx!("hipHostMalloc"), || {
        capture::check_allocation()?;
        if ptr.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // 5.7 to 6.2 check the flags before the size; 6.3 and later (the
        // simulator's HIP 6 is 6.4) return null for 0 bytes first.
        if sim().config.hip_major < 6 && host_flags_invalid(flags) {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if size == 0 {
            // SAFETY: checked non-null.
            return unsafe { write_out(ptr, std::ptr::null_mut()) };
        }
        if host_flags_invalid(flags) {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let memory = pinned::allocate(size, current_device(), flags)?;
        // SAFETY: checked non-null.
        unsafe { write_out(ptr, memory.cast()) }
    })
}

/// `hipHostFree`: synchronizes the device that was current at
/// `hipHostMalloc` (pending copies may still use the memory), not others.
pub(crate) unsafe extern "C" fn hipHostFree(ptr: *mut c_void) -> hipError_t {
    call(idx!("hipHostFree"), || {
        capture::check_allocation()?;
        if ptr.is_null() {
            return Ok(());
        }
        // Registered memory is the caller's: `hipHostUnregister` it.
        let host = pinned::take_allocated(ptr as usize).ok_or(hipError_t::hipErrorInvalidValue)?;
        let synced = submit::synchronize_device("hipHostFree", host.device);
        races::host_access("hipHostFree", host.device, &[Access::new(&host.races, 0, host.size, AccessKind::Free)]);
        // SAFETY: the allocation at `ptr`, taken out of the map once; the
        // allocating device's work has finished (synchronized above).
        unsafe { host.free(ptr.cast()) };
        synced
    })
}

pub(crate) unsafe extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> hipError_t {
    call(idx!("hipMemGetInfo"), || {
        let d = sim().device(current_device()).ok_or(hipError_t::hipErrorInvalidDevice)?;
        let capacity = d.memory.capacity();
        // clr floors ROCr's free figure to a KiB (`globalFreeMemory`).
        let available = capacity.saturating_sub(d.memory.used()) & !((1 << 10) - 1);
        // SAFETY: null is rejected by write_out; otherwise valid per the C contract.
        unsafe {
            write_out(free, available)?;
            write_out(total, capacity)
        }
    })
}

/// `hipMemGetAddressRange`: the base and size of the device allocation
/// holding `dptr`; `hipErrorNotFound` for any other address, as clr
/// answers. clr writes through both out-pointers unchecked; null ones
/// are `hipErrorInvalidValue` here.
pub(crate) unsafe extern "C" fn hipMemGetAddressRange(
    pbase: *mut *mut c_void,
    psize: *mut usize,
    dptr: *mut c_void,
) -> hipError_t {
    call(idx!("hipMemGetAddressRange"), || {
        let address = dptr as usize;
        let found = device_of(address)
            .and_then(|device| sim().device(device))
            .and_then(|d| d.memory.find(address))
            .ok_or(hipError_t::hipErrorNotFound)?;
        let (allocation, _) = found;
        // SAFETY: null is rejected by write_out; otherwise valid per the C contract.
        unsafe {
            write_out(pbase, allocation.base as *mut c_void)?;
            write_out(psize, allocation.requested())
        }
    })
}

/// `hipInvalidDeviceId`: the device HIP 6 reports for an unregistered pointer.
const INVALID_DEVICE_ID: i32 = -2;

/// `hipPointerGetAttributes`, for any address inside an allocation:
/// `devicePointer` (and for pinned memory `hostPointer`) is that address,
/// not the base, `device` the allocation's device, `allocationFlags` the
/// `hipHostMalloc` flags. An unknown pointer is `hipErrorInvalidValue` on
/// HIP 5; HIP 6 and 7 succeed with no device (-2), null pointers and memory
/// type 0, HIP 6's `hipMemoryTypeUnregistered`. The table's types are HIP
/// 5.7's, which number the memory types differently (0 is Host there), so
/// the simulator reports registered memory with the 5.7 numbers and an
/// unknown pointer by its device of -2.
pub(crate) unsafe extern "C" fn hipPointerGetAttributes(
    attributes: *mut hipPointerAttribute_t,
    ptr: *const c_void,
) -> hipError_t {
    call(idx!("hipPointerGetAttributes"), || {
        if attributes.is_null() || ptr.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let address = ptr as usize;
        let mut out = hipPointerAttribute_t {
            __bindgen_anon_1: crate::bindings::hip::hipPointerAttribute_t__bindgen_ty_1 {
                type_: hipMemoryType::hipMemoryTypeDevice,
            },
            device: 0,
            devicePointer: std::ptr::null_mut(),
            hostPointer: std::ptr::null_mut(),
            isManaged: 0,
            allocationFlags: 0,
        };
        match resolve(address, 1) {
            Ok(Place::Device(a, _)) if a.managed => {
                // clr 5.7.1 and later: managed, at the one address.
                out.__bindgen_anon_1.type_ = hipMemoryType::hipMemoryTypeManaged;
                out.isManaged = 1;
                out.device = a.device as i32;
                out.devicePointer = ptr as *mut c_void;
                out.hostPointer = ptr as *mut c_void;
            }
            Ok(Place::Device(a, offset)) if a.virtual_range => {
                // Mapped virtual memory: the device of the memory mapped
                // there, not of the reserved range's addresses.
                let mapped = crate::machine::vmm::containing(address).and_then(|r| r.physical_at(offset));
                out.device = mapped.map_or(a.device, |physical| physical.device) as i32;
                out.devicePointer = ptr as *mut c_void;
            }
            Ok(Place::Device(a, _)) => {
                out.device = a.device as i32;
                out.devicePointer = ptr as *mut c_void;
            }
            Ok(Place::Host(_)) if pinned::pinned_containing(address).is_some() => {
                let (_, host) = pinned::pinned_containing(address).ok_or(hipError_t::hipErrorInvalidValue)?;
                out.__bindgen_anon_1.type_ = hipMemoryType::hipMemoryTypeHost;
                out.device = host.device as i32;
                out.devicePointer = ptr as *mut c_void;
                out.hostPointer = ptr as *mut c_void;
                out.allocationFlags = host.flags;
            }
            _ if sim().config.hip_major >= 6 => {
                out.__bindgen_anon_1.type_ = hipMemoryType(0);
                out.device = INVALID_DEVICE_ID;
            }
            _ => return Err(hipError_t::hipErrorInvalidValue),
        }
        // SAFETY: checked non-null.
        unsafe { write_out(attributes, out) }
    })
}
