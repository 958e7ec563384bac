//! Virtual memory management: `hipMemAddressReserve`,
//! `hipMemAddressFree`, `hipMemCreate`, `hipMemRelease`, `hipMemMap`,
//! `hipMemUnmap`, `hipMemSetAccess`, `hipMemGetAccess`,
//! `hipMemGetAllocationGranularity`,
//! `hipMemGetAllocationPropertiesFromHandle`,
//! `hipMemRetainAllocationHandle`, `hipMemExportToShareableHandle` and
//! `hipMemImportFromShareableHandle`, with clr's checks and codes
//! (`hip_vm.cpp`) per version, over the machine's model (`machine::vmm`).
//!
//! **HIP 5 and 6** are modelled as clr up to 6.0, HIP 6's strictest minor:
//! on Linux the runtime has no virtual memory (ROCm's device hard-codes
//! `virtualMemoryManagement_` off, so
//! `hipDeviceAttributeVirtualMemoryManagementSupported` is 0), the calls
//! check their arguments and then do what that clr does: a reservation
//! succeeds with a null address, a mapping maps nothing, the granularity
//! is 0, sharing is `hipErrorNotSupported`. (6.1 to 6.4 map, but leak or
//! corrupt their counts on partial unmaps; no pool should use them.)
//!
//! **HIP 7** is modelled as clr 7.2: the granularity is the 4 KiB page for
//! both options; `hipMemMap` and `hipMemUnmap` run on the null stream of
//! the memory's device (resp. the current device) and wait for it, so they
//! wait for the device's blocking streams and are ordered after nothing
//! else — unmapping memory that unordered work still uses is a reported
//! use after free; a new mapping has no access; `hipMemSetAccess` matches
//! its size against the reservation's mappings' sizes summed in the order
//! they were mapped (clr 7.2's bug, fixed after it: setting access on a
//! later mapping of another size fails); `hipMemRetainAllocationHandle`
//! takes no reference; a shared handle travels as the descriptor's value
//! in the pointer.
//!
//! Where clr crashes or answers success having done nothing (an unknown
//! address to free or unmap, a mapping outside a reservation or over
//! another, a size that is not whole pages, a stale handle), the simulator
//! answers an error and records a [`ViolationKind::VirtualMemory`]
//! violation saying what clr would have done.
//!
//! [`ViolationKind::VirtualMemory`]: crate::ViolationKind::VirtualMemory

use crate::bindings::hip::{
    hipError_t, hipMemAccessDesc, hipMemAllocationGranularity_flags, hipMemAllocationHandleType, hipMemAllocationProp,
    hipMemAllocationType, hipMemGenericAllocationHandle_t, hipMemLocation, hipMemLocationType,
};
use crate::entry::{call, write_out};
use crate::machine::calls::idx;
use crate::machine::pages::{Pages, HOST_PAGE};
use crate::machine::races::Access;
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations;
use crate::machine::violations::AccessKind;
use crate::machine::vmm::{self, Refusal, Reservation};
use crate::submit::{self, Op};
use std::ffi::c_void;
use std::sync::Arc;

/// Whether the simulated HIP has virtual memory (clr 6.1 and later; HIP 6
/// is modelled by 6.0, which has none).
pub(crate) fn supported() -> bool {
    sim().config.hip_major >= 7
}

/// `hipMemAllocationTypeUncached` (HIP 7 headers; clr 7.0.2 takes it).
const TYPE_UNCACHED: u32 = 0x4000_0000;
/// `hipMemLocationTypeHost` (HIP 7.2 headers).
const LOCATION_HOST: u32 = 2;
/// `memBaseAddrAlign_` on ROCm: 2048 bytes (an OpenCL value in bits, which
/// `hipMemCreate` compares as bytes).
const BASE_ADDRESS_ALIGN: usize = 2048;

/// Record that `function` did what clr would crash on, or answer success
/// for having done nothing: `what`.
fn violation(function: &'static str, what: &'static str) {
    violations::record_virtual_memory(function, violations::thread_name(), current_device(), what);
}

fn handle_value(handle: hipMemGenericAllocationHandle_t) -> usize {
    handle as usize
}

/// The live physical allocation of `handle`; a stale or made-up one is
/// undefined behaviour in clr (a host pointer it dereferences).
fn physical(function: &'static str, handle: hipMemGenericAllocationHandle_t) -> Result<Arc<vmm::Physical>, hipError_t> {
    vmm::physical(handle_value(handle)).ok_or_else(|| {
        violation(function, "a handle that is not live (released, or never made): clr dereferences it");
        hipError_t::hipErrorInvalidValue
    })
}

/// The device `location` names, if it is a device of this machine.
fn device_at(location: &hipMemLocation) -> Option<usize> {
    sim().ordinal(location.id).filter(|_| location.type_ == hipMemLocationType::hipMemLocationTypeDevice)
}

pub(crate) unsafe extern "C" fn hipMemAddressReserve(
    ptr: *mut *mut c_void,
    size: usize,
    alignment: usize,
    addr: *mut c_void,
    flags: u64,
) -> hipError_t {
    call(idx!("hipMemAddressReserve"), || {
        if ptr.is_null() || flags != 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if !supported() {
            // clr 6.0: ROCm's virtualAlloc answers null.
            if !addr.is_null() {
                return Err(hipError_t::hipErrorOutOfMemory);
            }
            // SAFETY: checked non-null; the caller passes a valid out-pointer.
            return unsafe { write_out(ptr, std::ptr::null_mut()) };
        }
        if size == 0 || size % HOST_PAGE != 0 || (alignment != 0 && !alignment.is_power_of_two()) {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // `addr` is a hint ROCr may not honour, and the alignment is never
        // passed on: the page is all a caller gets.
        let reservation = vmm::reserve(size)?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(ptr, reservation.base as *mut c_void) }
    })
}

pub(crate) unsafe extern "C" fn hipMemAddressFree(dev_ptr: *mut c_void, size: usize) -> hipError_t {
    call(idx!("hipMemAddressFree"), || {
        if dev_ptr.is_null() || size == 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if !supported() {
            return Ok(());
        }
        let Some(reservation) = vmm::containing(dev_ptr as usize) else {
            violation("hipMemAddressFree", "an address no reservation holds: clr dereferences a null object");
            return Err(hipError_t::hipErrorInvalidValue);
        };
        // The size is not looked at: the whole reservation goes. With
        // mappings left, ROCr refuses and clr says hipErrorUnknown.
        if vmm::free(&reservation) {
            Ok(())
        } else {
            Err(hipError_t::hipErrorUnknown)
        }
    })
}

pub(crate) unsafe extern "C" fn hipMemCreate(
    handle: *mut hipMemGenericAllocationHandle_t,
    size: usize,
    prop: *const hipMemAllocationProp,
    flags: u64,
) -> hipError_t {
    call(idx!("hipMemCreate"), || {
        if handle.is_null() || size == 0 || flags != 0 || prop.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: checked non-null; the caller passes a valid property struct.
        let prop = unsafe { *prop };
        let pinned = prop.type_ == hipMemAllocationType::hipMemAllocationTypePinned;
        let handle_type = prop.requestedHandleType;
        let shareable = handle_type == hipMemAllocationHandleType::hipMemHandleTypeNone
            || (supported() && handle_type == hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor);
        if !supported() {
            if !pinned || device_at(&prop.location).is_none() {
                return Err(hipError_t::hipErrorInvalidValue);
            }
            if !shareable {
                return Err(hipError_t::hipErrorNotSupported);
            }
        } else {
            let host = prop.location.type_.0 == LOCATION_HOST;
            if !(pinned || prop.type_.0 == TYPE_UNCACHED)
                || !(prop.location.type_ == hipMemLocationType::hipMemLocationTypeDevice || host)
            {
                return Err(hipError_t::hipErrorInvalidValue);
            }
            if sim().ordinal(prop.location.id).is_none() {
                return Err(hipError_t::hipErrorInvalidDevice);
            }
            if !shareable {
                return Err(hipError_t::hipErrorNotSupported);
            }
            if host {
                // Host physical memory (clr 7.2) is not modelled.
                return Err(hipError_t::hipErrorNotSupported);
            }
        }
        if size % BASE_ADDRESS_ALIGN != 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if size % HOST_PAGE != 0 {
            // ROCr's handle is whole pages: its refusal is an allocation failure.
            return Err(hipError_t::hipErrorOutOfMemory);
        }
        // clr 7.2 takes the memory from the current device (the location's
        // id is only recorded); clr 6.0 from the location's.
        let device = if supported() { Some(current_device()) } else { device_at(&prop.location) };
        let device = device.ok_or(hipError_t::hipErrorInvalidDevice)?;
        let physical = vmm::create(device, size, prop)?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(handle, physical.handle as hipMemGenericAllocationHandle_t) }
    })
}

pub(crate) unsafe extern "C" fn hipMemRelease(handle: hipMemGenericAllocationHandle_t) -> hipError_t {
    call(idx!("hipMemRelease"), || {
        if handle.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // clr 6.0 frees at once even under a mapping, but it maps nothing;
        // from 6.1 a mapping keeps the memory until it is unmapped.
        vmm::release(handle_value(handle)).ok_or_else(|| {
            violation("hipMemRelease", "a handle that is not live (released twice?): clr dereferences it");
            hipError_t::hipErrorInvalidValue
        })
    })
}

/// The reservation and offset of `size` bytes at `ptr`, for `function`,
/// recording what clr would do with a range outside every reservation.
fn reserved_range(function: &'static str, ptr: usize, size: usize) -> Result<(Arc<Reservation>, usize), hipError_t> {
    let Some(reservation) = vmm::containing(ptr) else {
        violation(function, "an address no reservation holds: clr answers success and maps nothing");
        return Err(hipError_t::hipErrorInvalidValue);
    };
    let offset = ptr - reservation.base;
    if size > reservation.size - offset {
        violation(function, "a range past the end of its reservation: clr dereferences a null sub-buffer");
        return Err(hipError_t::hipErrorInvalidValue);
    }
    Ok((reservation, offset))
}

/// What clr 7.2 does where ROCr refuses a mapping: it logs the failure and
/// answers success, the handle still counted.
fn map_refusal(refusal: Refusal) -> &'static str {
    match refusal {
        Refusal::Overlap => "a mapping over a mapped range: ROCr refuses, clr answers success having mapped nothing",
        Refusal::Unaligned => {
            "an address or size that is no multiple of the granularity: ROCr refuses, clr answers success having \
             mapped nothing"
        }
        Refusal::TooLong => {
            "more bytes than the physical allocation has: ROCr refuses, clr answers success having mapped nothing"
        }
        _ => "a range ROCr cannot map: clr answers success having mapped nothing",
    }
}

pub(crate) unsafe extern "C" fn hipMemMap(
    ptr: *mut c_void,
    size: usize,
    offset: usize,
    handle: hipMemGenericAllocationHandle_t,
    flags: u64,
) -> hipError_t {
    call(idx!("hipMemMap"), || {
        if ptr.is_null() || handle.is_null() || size == 0 || offset != 0 || flags != 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let physical = physical("hipMemMap", handle)?;
        if !supported() {
            // clr 6.0's ROCm device cannot map: the command does nothing.
            return Ok(());
        }
        let (reservation, at) = reserved_range("hipMemMap", ptr as usize, size)?;
        // On the null stream of the memory's device, waited for: ordered
        // after that device's blocking streams, and nothing else.
        let queue = sim().device(physical.device).ok_or(hipError_t::hipErrorInvalidDevice)?.null_stream.clone();
        let access = Access::new(&reservation.allocation.races, at, size, AccessKind::Allocate);
        let mapped = Arc::new(std::sync::Mutex::new(None));
        let result = mapped.clone();
        let target = reservation.clone();
        submit::submit(&queue, true, Op::with("hipMemMap", vec![access]), move || {
            *crate::machine::lock::lock(&result) = Some(target.map(at, size, physical.clone()));
            Ok(())
        })?;
        let outcome = crate::machine::lock::lock(&mapped).take();
        match outcome {
            Some(Ok(())) => Ok(()),
            Some(Err(refusal)) => {
                violation("hipMemMap", map_refusal(refusal));
                Err(hipError_t::hipErrorInvalidValue)
            }
            None => Err(hipError_t::hipErrorUnknown),
        }
    })
}

pub(crate) unsafe extern "C" fn hipMemUnmap(ptr: *mut c_void, size: usize) -> hipError_t {
    call(idx!("hipMemUnmap"), || {
        if ptr.is_null() || size == 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if !supported() {
            violation("hipMemUnmap", "an address clr 6.0 never mapped: it dereferences a null object");
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let Some(reservation) = vmm::containing(ptr as usize) else {
            return Err(hipError_t::hipErrorInvalidValue);
        };
        let at = ptr as usize - reservation.base;
        if size > reservation.size - at || !reservation.is_whole_mappings(at, size) {
            // clr 7.2 checks that the range is whole mappings; 6.2 to 6.4
            // answered success and corrupted their counts.
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let device = current_device();
        let queue = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?.null_stream.clone();
        let access = Access::new(&reservation.allocation.races, at, size, AccessKind::Free);
        let target = reservation.clone();
        submit::submit(&queue, true, Op::with("hipMemUnmap", vec![access]), move || {
            target.unmap(at, size).map_err(|_| hipError_t::hipErrorInvalidValue)
        })
    })
}

pub(crate) unsafe extern "C" fn hipMemSetAccess(
    ptr: *mut c_void,
    size: usize,
    desc: *const hipMemAccessDesc,
    count: usize,
) -> hipError_t {
    call(idx!("hipMemSetAccess"), || {
        if ptr.is_null() || size == 0 || desc.is_null() || count == 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: checked non-null; the caller passes `count` descriptors.
        let descs = unsafe { std::slice::from_raw_parts(desc, count) };
        if !supported() {
            return Ok(());
        }
        let Some(reservation) = vmm::containing(ptr as usize) else {
            return Err(hipError_t::hipErrorInvalidValue);
        };
        let at = ptr as usize - reservation.base;
        let Some(physical) = reservation.physical_at(at) else {
            return Err(hipError_t::hipErrorInvalidValue);
        };
        // clr 7.2 sums the reservation's mappings' sizes in map order, from
        // the first, until it reaches `size`: it must land on it exactly.
        let mut sum = 0usize;
        let lands = reservation.sizes_in_map_order().into_iter().any(|s| {
            sum += s;
            sum >= size
        }) && sum == size;
        if !lands {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        for d in descs {
            let host = d.location.type_.0 == LOCATION_HOST;
            let kind = (d.location.type_ == hipMemLocationType::hipMemLocationTypeDevice || host)
                && !(host && physical.prop.0.location.type_.0 != LOCATION_HOST);
            let flags = [0, vmm::ACCESS_READ, vmm::ACCESS_READ_WRITE].contains(&d.flags.0);
            let Some(device) = sim().ordinal(d.location.id).filter(|_| kind && flags) else {
                return Err(hipError_t::hipErrorInvalidValue);
            };
            reservation.set_access(at, size, device, d.flags.0).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipMemGetAccess(
    flags: *mut u64,
    location: *const hipMemLocation,
    ptr: *mut c_void,
) -> hipError_t {
    call(idx!("hipMemGetAccess"), || {
        if flags.is_null() || location.is_null() || ptr.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: checked non-null; the caller passes a valid location.
        let location = unsafe { *location };
        if !supported() {
            // clr 6.0 answers success and writes nothing.
            return Ok(());
        }
        let device = device_at(&location).ok_or(hipError_t::hipErrorInvalidValue)?;
        let access = vmm::containing(ptr as usize)
            .and_then(|r| r.access(ptr as usize - r.base, device))
            .ok_or(hipError_t::hipErrorInvalidValue)?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(flags, u64::from(access)) }
    })
}

pub(crate) unsafe extern "C" fn hipMemGetAllocationGranularity(
    granularity: *mut usize,
    prop: *const hipMemAllocationProp,
    option: hipMemAllocationGranularity_flags,
) -> hipError_t {
    call(idx!("hipMemGetAllocationGranularity"), || {
        if granularity.is_null() || prop.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: checked non-null; the caller passes a valid property struct.
        let prop = unsafe { *prop };
        let known_option = option == hipMemAllocationGranularity_flags::hipMemAllocationGranularityMinimum
            || option == hipMemAllocationGranularity_flags::hipMemAllocationGranularityRecommended;
        let valid = if supported() {
            (prop.type_ == hipMemAllocationType::hipMemAllocationTypePinned || prop.type_.0 == TYPE_UNCACHED)
                && (prop.location.type_ == hipMemLocationType::hipMemLocationTypeDevice
                    || prop.location.type_.0 == LOCATION_HOST)
                && sim().ordinal(prop.location.id).is_some()
                && known_option
        } else {
            prop.type_ == hipMemAllocationType::hipMemAllocationTypePinned && device_at(&prop.location).is_some()
        };
        if !valid {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // clr 6.0 never reads the granule (0); 7.2 answers the page for
        // both options.
        let value = if supported() { HOST_PAGE } else { 0 };
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(granularity, value) }
    })
}

pub(crate) unsafe extern "C" fn hipMemGetAllocationPropertiesFromHandle(
    prop: *mut hipMemAllocationProp,
    handle: hipMemGenericAllocationHandle_t,
) -> hipError_t {
    call(idx!("hipMemGetAllocationPropertiesFromHandle"), || {
        if prop.is_null() || handle.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let physical = physical("hipMemGetAllocationPropertiesFromHandle", handle)?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(prop, physical.prop.0) }
    })
}

pub(crate) unsafe extern "C" fn hipMemRetainAllocationHandle(
    handle: *mut hipMemGenericAllocationHandle_t,
    addr: *mut c_void,
) -> hipError_t {
    call(idx!("hipMemRetainAllocationHandle"), || {
        if handle.is_null() || addr.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let address = addr as usize;
        let mapped = vmm::containing(address).and_then(|r| r.physical_at(address - r.base));
        let Some(physical) = mapped else {
            if crate::place::is_allocation(address) {
                violation(
                    "hipMemRetainAllocationHandle",
                    "an address of memory not mapped through a handle: clr dereferences a null object",
                );
            }
            return Err(hipError_t::hipErrorInvalidValue);
        };
        if !supported() || vmm::physical(physical.handle).is_none() {
            // A released handle: clr hands back its freed object.
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // clr up to 7.x takes no reference here (fixed after 7.2).
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(handle, physical.handle as hipMemGenericAllocationHandle_t) }
    })
}

pub(crate) unsafe extern "C" fn hipMemExportToShareableHandle(
    shareable_handle: *mut c_void,
    handle: hipMemGenericAllocationHandle_t,
    handle_type: hipMemAllocationHandleType,
    flags: u64,
) -> hipError_t {
    call(idx!("hipMemExportToShareableHandle"), || {
        if flags != 0 || handle.is_null() || shareable_handle.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if !supported() {
            return Err(hipError_t::hipErrorNotSupported);
        }
        let physical = physical("hipMemExportToShareableHandle", handle)?;
        if handle_type != physical.prop.0.requestedHandleType
            || handle_type != hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor
        {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let fd = physical.pages.share().map_err(|_| hipError_t::hipErrorInvalidValue)?;
        // SAFETY: checked non-null; for a descriptor the caller passes an `int`.
        unsafe { write_out(shareable_handle.cast::<i32>(), fd) }
    })
}

pub(crate) unsafe extern "C" fn hipMemImportFromShareableHandle(
    handle: *mut hipMemGenericAllocationHandle_t,
    os_handle: *mut c_void,
    handle_type: hipMemAllocationHandleType,
) -> hipError_t {
    call(idx!("hipMemImportFromShareableHandle"), || {
        if handle.is_null() || os_handle.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if !supported() {
            return Err(hipError_t::hipErrorNotSupported);
        }
        // clr 7.2 takes the descriptor's value in the pointer, as CUDA does.
        let fd = i32::try_from(os_handle as usize).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        let pages = Pages::adopt(fd).ok_or(hipError_t::hipErrorInvalidValue)?;
        let device = current_device();
        let prop = hipMemAllocationProp {
            type_: hipMemAllocationType::hipMemAllocationTypePinned,
            requestedHandleType: handle_type,
            location: hipMemLocation { type_: hipMemLocationType::hipMemLocationTypeDevice, id: device as i32 },
            ..Default::default()
        };
        let physical = vmm::adopt(device, pages, prop);
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(handle, physical.handle as hipMemGenericAllocationHandle_t) }
    })
}
