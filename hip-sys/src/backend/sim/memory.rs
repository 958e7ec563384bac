//! Device memory: per-device address ranges, allocations, copies and fills.

use super::entry::{call, idx, write_out};
use super::races::{self, Access, AccessKind, RaceLog};
use super::runtime::{current_device, lock, sim};
use super::streams::{self, Op, Target};
use super::violations;
use crate::{hipError_t, hipMemcpyKind, hipMemoryType, hipPointerAttribute_t, hipStream_t};
use std::alloc::Layout;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Where device 0's addresses start: in the upper half of the 64-bit
/// address space, which the kernel keeps for itself on Linux, macOS and
/// Windows, so no host pointer can ever look like a device pointer. Device
/// pointers are never dereferenced by the host, only named.
pub(crate) const BASE: usize = 0xffff_a000_0000_0000;

#[cfg(not(target_pointer_width = "64"))]
compile_error!("the HIP simulator needs a 64-bit address space");
/// The address range of one device: 1 TiB.
pub(crate) const DEVICE_SPAN: usize = 1 << 40;
/// Allocation granularity and alignment, as HIP's 256-byte minimum.
pub(crate) const ALIGN: usize = 256;

/// One device allocation; its bytes are zeroed pages taken lazily.
pub(crate) struct Allocation {
    pub base: usize,
    /// The rounded size: the block's extent in the address range.
    pub size: usize,
    /// The size the caller asked for, which copies and fills are checked
    /// against (HIP's `ihipMemcpy_validate` uses it, not the rounded size).
    /// A pool block reused for a request of another size takes that size.
    pub requested: AtomicUsize,
    pub device: usize,
    pub data: Mutex<Vec<u8>>,
    /// Which operations on which streams touched it (the race detector).
    pub races: Arc<RaceLog>,
}

impl Allocation {
    pub fn requested(&self) -> usize {
        self.requested.load(Ordering::Relaxed)
    }
}

struct MemoryState {
    next: usize,
    used: usize,
    live: BTreeMap<usize, Arc<Allocation>>,
}

/// The memory of one device.
pub(crate) struct DeviceMemory {
    ordinal: usize,
    /// Whether anything was ever allocated (HIP's primary context "active").
    ever: std::sync::atomic::AtomicBool,
    capacity: usize,
    state: Mutex<MemoryState>,
}

impl DeviceMemory {
    pub fn new(ordinal: usize, capacity: usize) -> DeviceMemory {
        DeviceMemory {
            ordinal,
            ever: std::sync::atomic::AtomicBool::new(false),
            capacity,
            state: Mutex::new(MemoryState { next: BASE + ordinal * DEVICE_SPAN, used: 0, live: BTreeMap::new() }),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn ever_allocated(&self) -> bool {
        self.ever.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn used(&self) -> usize {
        lock(&self.state).used
    }

    /// Allocate `size` bytes (rounded up to [`ALIGN`]); `hipErrorOutOfMemory`
    /// beyond capacity. Addresses are not reused until the device's range
    /// is spent, so a stale pointer is detected.
    pub fn allocate(&self, size: usize) -> Result<Arc<Allocation>, hipError_t> {
        let rounded = size.checked_add(ALIGN - 1).map(|s| s & !(ALIGN - 1)).ok_or(hipError_t::hipErrorOutOfMemory)?;
        let mut state = lock(&self.state);
        if rounded > self.capacity - state.used {
            return Err(hipError_t::hipErrorOutOfMemory);
        }
        let start = BASE + self.ordinal * DEVICE_SPAN;
        let end = start + DEVICE_SPAN;
        if rounded + ALIGN > end - state.next {
            // The range is spent (a terabyte allocated over the process's
            // life): start again at the bottom, in the first gap that fits.
            // Freed addresses are reused only then, so a stale pointer is
            // almost always detected.
            let mut cursor = start;
            for (&base, allocation) in &state.live {
                if base.saturating_sub(cursor) >= rounded + ALIGN {
                    break;
                }
                cursor = base + allocation.size + ALIGN;
            }
            if rounded + ALIGN > end - cursor {
                return Err(hipError_t::hipErrorOutOfMemory);
            }
            state.next = cursor;
        }
        let base = state.next;
        self.ever.store(true, std::sync::atomic::Ordering::Relaxed);
        // Leave a gap after each block so off-by-one accesses hit no allocation.
        state.next += rounded + ALIGN;
        state.used += rounded;
        let allocation = Arc::new(Allocation {
            base,
            size: rounded,
            requested: AtomicUsize::new(size),
            device: self.ordinal,
            data: Mutex::new(vec![0u8; rounded]),
            races: RaceLog::new(base, Some(self.ordinal)),
        });
        state.live.insert(base, allocation.clone());
        Ok(allocation)
    }

    /// Release the allocation that starts exactly at `base`.
    pub fn release(&self, base: usize) -> Result<Arc<Allocation>, hipError_t> {
        let mut state = lock(&self.state);
        let allocation = state.live.remove(&base).ok_or(hipError_t::hipErrorInvalidValue)?;
        state.used -= allocation.size;
        Ok(allocation)
    }

    /// The allocation containing `address`, and the offset into it.
    pub fn find(&self, address: usize) -> Option<(Arc<Allocation>, usize)> {
        let state = lock(&self.state);
        let (_, allocation) = state.live.range(..=address).next_back()?;
        let offset = address - allocation.base;
        (offset < allocation.size).then(|| (allocation.clone(), offset))
    }

    /// A pool block at `base` handed out again for a request of `size` bytes.
    pub fn set_requested(&self, base: usize, size: usize) {
        if let Some(allocation) = lock(&self.state).live.get(&base) {
            allocation.requested.store(size, Ordering::Relaxed);
        }
    }

    pub fn live_count(&self) -> usize {
        lock(&self.state).live.len()
    }
}

/// The device whose address range holds `address`, if it is a device address.
pub(crate) fn device_of(address: usize) -> Option<usize> {
    if address < BASE {
        return None;
    }
    let device = (address - BASE) / DEVICE_SPAN;
    (device < super::runtime::MAX_DEVICES).then_some(device)
}

pub(crate) fn live_allocations(device: usize) -> usize {
    sim().device(device).map_or(0, |d| d.memory.live_count())
}

pub(crate) fn used_bytes(device: usize) -> usize {
    sim().device(device).map_or(0, |d| d.memory.used())
}

/// A resolved operand of a copy or fill.
#[derive(Clone)]
pub(crate) enum Place {
    /// Host memory the caller vouches for (pinned or not).
    Host(usize),
    /// Bytes of a device allocation, at an offset.
    Device(Arc<Allocation>, usize),
}

impl Place {
    pub fn device(&self) -> Option<usize> {
        match self {
            Place::Host(_) => None,
            Place::Device(a, _) => Some(a.device),
        }
    }

    /// The race detector's view of `len` bytes here: device memory and
    /// pinned host memory are tracked, other host memory is not.
    pub fn access(&self, len: usize, kind: AccessKind) -> Option<Access> {
        if !races::race_check_enabled() {
            return None;
        }
        match self {
            Place::Device(a, offset) => Some(Access::new(&a.races, *offset, len, kind)),
            Place::Host(address) => {
                let (base, host) = pinned_containing(*address)?;
                Some(Access::new(&host.races, address - base, len, kind))
            }
        }
    }
}

/// Resolve `len` bytes at `ptr`. Device memory must lie inside one live
/// allocation, within the size that was asked for (else
/// `hipErrorInvalidValue`); so must a range that starts in pinned host
/// memory; any other address is host memory the caller vouches for.
pub(crate) fn resolve(ptr: usize, len: usize) -> Result<Place, hipError_t> {
    if ptr == 0 {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let Some(device) = device_of(ptr) else {
        if let Some((base, host)) = pinned_containing(ptr) {
            if len > host.size - (ptr - base) {
                return Err(hipError_t::hipErrorInvalidValue);
            }
        }
        return Ok(Place::Host(ptr));
    };
    let memory = &sim().device(device).ok_or(hipError_t::hipErrorInvalidValue)?.memory;
    let (allocation, offset) = memory.find(ptr).ok_or(hipError_t::hipErrorInvalidValue)?;
    if len > allocation.requested().saturating_sub(offset) {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    Ok(Place::Device(allocation, offset))
}

/// As [`resolve`], for a copy or fill through the API: a device range must
/// lie within the bytes the allocation was asked for, else
/// `hipErrorInvalidValue` (clr: `sizeBytes > getSize() - offset`).
pub(crate) fn resolve_api(ptr: usize, len: usize) -> Result<Place, hipError_t> {
    let place = resolve(ptr, len)?;
    if let Place::Device(allocation, offset) = &place {
        let requested = allocation.requested.load(std::sync::atomic::Ordering::Relaxed);
        if *offset > requested || len > requested - offset {
            return Err(hipError_t::hipErrorInvalidValue);
        }
    }
    Ok(place)
}

/// Copy `len` bytes. Host places are raw addresses that the C caller
/// guarantees valid until the copy has run (HIP's contract).
pub(crate) fn copy(dst: &Place, src: &Place, len: usize) {
    if len == 0 {
        return;
    }
    match (dst, src) {
        (Place::Host(d), Place::Host(s)) => {
            // SAFETY: both are host ranges of `len` bytes the caller vouches for; `copy` allows overlap.
            unsafe { std::ptr::copy(*s as *const u8, *d as *mut u8, len) }
        }
        (Place::Device(a, off), Place::Host(s)) => {
            let mut data = lock(&a.data);
            // SAFETY: the source is a host range of `len` bytes the caller vouches for.
            let source = unsafe { std::slice::from_raw_parts(*s as *const u8, len) };
            data[*off..*off + len].copy_from_slice(source);
        }
        (Place::Host(d), Place::Device(a, off)) => {
            let data = lock(&a.data);
            // SAFETY: the destination is a host range of `len` bytes the caller vouches for.
            let dest = unsafe { std::slice::from_raw_parts_mut(*d as *mut u8, len) };
            dest.copy_from_slice(&data[*off..*off + len]);
        }
        (Place::Device(da, doff), Place::Device(sa, soff)) => {
            if Arc::ptr_eq(da, sa) {
                lock(&da.data).copy_within(*soff..*soff + len, *doff);
            } else {
                // Lock in address order so two opposite copies cannot deadlock.
                let (first, second) = if da.base < sa.base { (da, sa) } else { (sa, da) };
                let g1 = lock(&first.data);
                let g2 = lock(&second.data);
                let (dst_data, src_data) = if da.base < sa.base { (g1, g2) } else { (g2, g1) };
                let mut dst_data = dst_data;
                dst_data[*doff..*doff + len].copy_from_slice(&src_data[*soff..*soff + len]);
            }
        }
    }
}

/// Fill `count` elements of `pattern` (1 or 4 bytes) at a device place, or
/// at pinned host memory (the caller checked that it is pinned and in bounds).
pub(crate) fn fill(place: &Place, pattern: &[u8], count: usize) -> Result<(), hipError_t> {
    let bytes = count * pattern.len();
    match place {
        Place::Device(a, off) => {
            let mut data = lock(&a.data);
            for chunk in data[*off..*off + bytes].chunks_exact_mut(pattern.len()) {
                chunk.copy_from_slice(pattern);
            }
        }
        Place::Host(address) => {
            // SAFETY: a range of `bytes` inside a live hipHostMalloc
            // allocation (checked by the caller), which hipHostFree does not
            // release before the device's pending work has run.
            let dest = unsafe { std::slice::from_raw_parts_mut(*address as *mut u8, bytes) };
            for chunk in dest.chunks_exact_mut(pattern.len()) {
                chunk.copy_from_slice(pattern);
            }
        }
    }
    Ok(())
}

/// `hipMemcpyDeviceToDeviceNoCU`, a kind clr accepts from 6.2.
const DEVICE_TO_DEVICE_NO_CU: u32 = 1024;

/// clr validates the kind only: above `hipMemcpyDefault` it is
/// `hipErrorInvalidMemcpyDirection`, except `DeviceToDeviceNoCU` from 6.2
/// (accepted on HIP 7; HIP 6 is modelled by its strictest minor).
fn validate_kind(kind: hipMemcpyKind) -> Result<(), hipError_t> {
    let no_cu_known = sim().config.hip_major >= 7;
    if kind.0 > hipMemcpyKind::hipMemcpyDefault.0 && !(no_cu_known && kind.0 == DEVICE_TO_DEVICE_NO_CU) {
        Err(hipError_t::hipErrorInvalidMemcpyDirection)
    } else {
        Ok(())
    }
}

/// Record violations for operands of devices other than the current one.
/// A copy between two devices is fine when either is current.
fn check_operands(function: &'static str, dst: &Place, src: Option<&Place>) {
    let devices: Vec<usize> = [dst.device(), src.and_then(Place::device)].into_iter().flatten().collect();
    let current = current_device();
    if !devices.is_empty() && !devices.contains(&current) {
        violations::check(function, devices[0]);
    }
}

/// The stream a copy runs on: the given one, else the null stream of the
/// device that owns the device operand (HIP reroutes to it), else the
/// current device's.
fn copy_target(stream: hipStream_t, dst: &Place, src: Option<&Place>) -> Result<Target, hipError_t> {
    if !stream.is_null() {
        return streams::target(stream);
    }
    let device = dst.device().or_else(|| src.and_then(Place::device)).unwrap_or_else(current_device);
    streams::null_target(device)
}

/// How a copy or fill treats the calling thread.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// A `...Async` call: enqueue and return.
    Never,
    /// `hipMemcpy`, `hipMemset`: return before the work is done where HIP
    /// does (the rules of [`memcpy_on`] and [`memset_on`]), else wait.
    AsHip,
}

/// A copy. With [`Wait::AsHip`] it waits for the copy unless both operands
/// are device memory of one device: then HIP (`ihipMemcpy`, 5.7 to 7.x)
/// enqueues it on the null stream and returns at once.
fn memcpy_on(
    function: &'static str,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: hipMemcpyKind,
    stream: hipStream_t,
    wait: Wait,
) -> Result<(), hipError_t> {
    validate_kind(kind)?;
    if size == 0 {
        return Ok(());
    }
    let d = resolve_api(dst as usize, size)?;
    let s = resolve_api(src as usize, size)?;
    check_operands(function, &d, Some(&s));
    let target = copy_target(stream, &d, Some(&s))?;
    let same_device = matches!((d.device(), s.device()), (Some(a), Some(b)) if a == b);
    let blocking = wait == Wait::AsHip && !same_device;
    let accesses = [s.access(size, AccessKind::Read), d.access(size, AccessKind::Write)].into_iter().flatten();
    streams::submit(&target, blocking, Op::with(function, accesses.collect()), move || {
        copy(&d, &s, size);
        Ok(())
    })
}

// ---- the C entry points ----------------------------------------------------

pub(crate) unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    call(idx!("hipMalloc"), || {
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
        let address = ptr as usize;
        if address == 0 {
            return Ok(());
        }
        let device = device_of(address).ok_or(hipError_t::hipErrorInvalidValue)?;
        let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidValue)?;
        violations::check("hipFree", device);
        if d.memory.find(address).is_none_or(|(a, off)| off != 0 || a.base != address) {
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
                streams::synchronize_device(device)?;
            }
            free(d.memory.find(address));
            return d.pools.free_now(address);
        }
        streams::synchronize_device(device)?;
        free(d.memory.find(address));
        d.memory.release(address).map(drop)
    })
}

/// `hipHostMalloc` flags (HIP's `hip_runtime_api.h`); the bindings name
/// only `hipHostMallocDefault`.
const HOST_MALLOC_UNCACHED: u32 = 0x1000_0000;
const HOST_MALLOC_COHERENT: u32 = 0x4000_0000;
const HOST_MALLOC_NON_COHERENT: u32 = 0x8000_0000;

/// A `hipHostMalloc` allocation, or memory made pinned by `hipHostRegister`.
#[derive(Clone)]
pub(crate) struct HostAllocation {
    /// How `hipHostMalloc` allocated it; `None` for registered memory,
    /// which is the caller's.
    layout: Option<Layout>,
    /// The size asked for (the layout's is at least 1).
    pub size: usize,
    /// The device current at allocation (or registration): the one
    /// `hipHostFree` (or `hipHostUnregister`) syncs.
    pub device: usize,
    flags: u32,
    /// Which operations on which streams touched it (the race detector).
    pub races: Arc<RaceLog>,
}

impl HostAllocation {
    /// Whether `hipHostRegister` made it (rather than `hipHostMalloc`).
    pub fn is_registered(&self) -> bool {
        self.layout.is_none()
    }
}

/// Pinned host allocations by base address.
static HOST_ALLOCATIONS: Mutex<BTreeMap<usize, HostAllocation>> = Mutex::new(BTreeMap::new());

/// Add `size` bytes at `base`, which the caller owns, as registered
/// pinned memory; `hipErrorHostMemoryAlreadyRegistered` if any of them is
/// pinned already (registered or from `hipHostMalloc`).
pub(crate) fn register_host(base: usize, size: usize, device: usize, flags: u32) -> Result<(), hipError_t> {
    let mut map = lock(&HOST_ALLOCATIONS);
    let end = base.checked_add(size).ok_or(hipError_t::hipErrorInvalidValue)?;
    let before = map.range(..end).next_back();
    if before.is_some_and(|(&b, h)| b + h.size > base) {
        return Err(hipError_t::hipErrorHostMemoryAlreadyRegistered);
    }
    let races = RaceLog::new(base, None);
    map.insert(base, HostAllocation { layout: None, size, device, flags, races });
    Ok(())
}

/// Remove the registration that starts at `base`;
/// `hipErrorHostMemoryNotRegistered` for any other address (also for
/// `hipHostMalloc` memory).
pub(crate) fn unregister_host(base: usize) -> Result<HostAllocation, hipError_t> {
    let mut map = lock(&HOST_ALLOCATIONS);
    match map.get(&base) {
        Some(host) if host.is_registered() => map.remove(&base).ok_or(hipError_t::hipErrorHostMemoryNotRegistered),
        _ => Err(hipError_t::hipErrorHostMemoryNotRegistered),
    }
}

/// The pinned allocation containing `address`, with its base.
fn pinned_containing(address: usize) -> Option<(usize, HostAllocation)> {
    let map = lock(&HOST_ALLOCATIONS);
    let (&base, host) = map.range(..=address).next_back()?;
    (address - base < host.size).then(|| (base, host.clone()))
}

/// Whether HIP rejects these `hipHostMalloc` flags: Coherent with
/// NonCoherent, and from HIP 7 Uncached with either. Unknown bits are
/// accepted, as HIP does.
fn host_flags_invalid(flags: u32) -> bool {
    let both = HOST_MALLOC_COHERENT | HOST_MALLOC_NON_COHERENT;
    flags & both == both || (sim().config.hip_major >= 7 && flags & HOST_MALLOC_UNCACHED != 0 && flags & both != 0)
}

pub(crate) unsafe extern "C" fn hipHostMalloc(ptr: *mut *mut c_void, size: usize, flags: u32) -> hipError_t {
    call(idx!("hipHostMalloc"), || {
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
        let layout = Layout::from_size_align(size, ALIGN).map_err(|_| hipError_t::hipErrorOutOfMemory)?;
        // SAFETY: the layout has a non-zero size.
        let memory = unsafe { std::alloc::alloc_zeroed(layout) };
        if memory.is_null() {
            return Err(hipError_t::hipErrorOutOfMemory);
        }
        let races = RaceLog::new(memory as usize, None);
        let host = HostAllocation { layout: Some(layout), size, device: current_device(), flags, races };
        lock(&HOST_ALLOCATIONS).insert(memory as usize, host);
        // SAFETY: checked non-null.
        unsafe { write_out(ptr, memory.cast()) }
    })
}

/// `hipHostFree`: synchronizes the device that was current at
/// `hipHostMalloc` (pending copies may still use the memory), not others.
pub(crate) unsafe extern "C" fn hipHostFree(ptr: *mut c_void) -> hipError_t {
    call(idx!("hipHostFree"), || {
        if ptr.is_null() {
            return Ok(());
        }
        // Registered memory is the caller's: `hipHostUnregister` it.
        let host = {
            let mut map = lock(&HOST_ALLOCATIONS);
            match map.get(&(ptr as usize)) {
                Some(host) if !host.is_registered() => map.remove(&(ptr as usize)),
                _ => None,
            }
        }
        .ok_or(hipError_t::hipErrorInvalidValue)?;
        let synced = streams::synchronize_device(host.device);
        races::host_access("hipHostFree", host.device, &[Access::new(&host.races, 0, host.size, AccessKind::Free)]);
        if let Some(layout) = host.layout {
            // SAFETY: allocated by hipHostMalloc with this layout and removed
            // from the map once; the allocating device's work has finished.
            unsafe { std::alloc::dealloc(ptr.cast(), layout) };
        }
        synced
    })
}

pub(crate) unsafe extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> hipError_t {
    call(idx!("hipMemGetInfo"), || {
        let d = sim().device(current_device()).ok_or(hipError_t::hipErrorInvalidDevice)?;
        let capacity = d.memory.capacity();
        // SAFETY: null is rejected by write_out; otherwise valid per the C contract.
        unsafe {
            write_out(free, capacity - d.memory.used())?;
            write_out(total, capacity)
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
            Ok(Place::Device(a, _)) => {
                out.device = a.device as i32;
                out.devicePointer = ptr as *mut c_void;
            }
            Ok(Place::Host(_)) if pinned_containing(address).is_some() => {
                let (_, host) = pinned_containing(address).ok_or(hipError_t::hipErrorInvalidValue)?;
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

pub(crate) unsafe extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: hipMemcpyKind,
) -> hipError_t {
    call(idx!("hipMemcpy"), || memcpy_on("hipMemcpy", dst, src, size, kind, std::ptr::null_mut(), Wait::AsHip))
}

pub(crate) unsafe extern "C" fn hipMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: hipMemcpyKind,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemcpyAsync"), || memcpy_on("hipMemcpyAsync", dst, src, size, kind, stream, Wait::Never))
}

fn check_device(ordinal: i32) -> Result<usize, hipError_t> {
    usize::try_from(ordinal).ok().filter(|d| *d < sim().config.devices).ok_or(hipError_t::hipErrorInvalidDevice)
}

pub(crate) unsafe extern "C" fn hipMemcpyPeer(
    dst: *mut c_void,
    dst_device: i32,
    src: *const c_void,
    src_device: i32,
    size: usize,
) -> hipError_t {
    call(idx!("hipMemcpyPeer"), || {
        check_device(dst_device)?;
        check_device(src_device)?;
        // clr's hipMemcpyPeer is ihipMemcpy: a copy within one device returns early.
        let kind = hipMemcpyKind::hipMemcpyDefault;
        memcpy_on("hipMemcpyPeer", dst, src, size, kind, std::ptr::null_mut(), Wait::AsHip)
    })
}

pub(crate) unsafe extern "C" fn hipMemcpyPeerAsync(
    dst: *mut c_void,
    dst_device: i32,
    src: *const c_void,
    src_device: i32,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemcpyPeerAsync"), || {
        check_device(dst_device)?;
        check_device(src_device)?;
        memcpy_on("hipMemcpyPeerAsync", dst, src, size, hipMemcpyKind::hipMemcpyDefault, stream, Wait::Never)
    })
}

/// A fill. Device memory and pinned host memory can be filled; other host
/// memory is `hipErrorInvalidValue`. With [`Wait::AsHip`] (`ihipMemset`,
/// 5.7 to 7.x) a fill of device memory from the allocation's base returns
/// at once, enqueued on the null stream; a fill from an interior pointer,
/// or of pinned (fine-grained) host memory, waits.
fn memset_on(
    function: &'static str,
    dst: *mut c_void,
    pattern: Vec<u8>,
    count: usize,
    stream: hipStream_t,
    wait: Wait,
) -> Result<(), hipError_t> {
    let bytes = count.checked_mul(pattern.len()).ok_or(hipError_t::hipErrorInvalidValue)?;
    if bytes == 0 {
        return Ok(());
    }
    let place = resolve(dst as usize, bytes)?;
    let at_base = match &place {
        Place::Device(_, offset) => *offset == 0,
        Place::Host(address) if pinned_containing(*address).is_some() => false,
        Place::Host(_) => return Err(hipError_t::hipErrorInvalidValue),
    };
    check_operands(function, &place, None);
    let target = copy_target(stream, &place, None)?;
    let blocking = wait == Wait::AsHip && !at_base;
    let op = Op::with(function, place.access(bytes, AccessKind::Write).into_iter().collect());
    streams::submit(&target, blocking, op, move || fill(&place, &pattern, count))
}

pub(crate) unsafe extern "C" fn hipMemset(dst: *mut c_void, value: i32, size: usize) -> hipError_t {
    call(idx!("hipMemset"), || memset_on("hipMemset", dst, vec![value as u8], size, std::ptr::null_mut(), Wait::AsHip))
}

pub(crate) unsafe extern "C" fn hipMemsetAsync(
    dst: *mut c_void,
    value: i32,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemsetAsync"), || memset_on("hipMemsetAsync", dst, vec![value as u8], size, stream, Wait::Never))
}

pub(crate) unsafe extern "C" fn hipMemsetD32(dst: *mut c_void, value: i32, count: usize) -> hipError_t {
    call(idx!("hipMemsetD32"), || {
        memset_on("hipMemsetD32", dst, value.to_ne_bytes().to_vec(), count, std::ptr::null_mut(), Wait::AsHip)
    })
}

pub(crate) unsafe extern "C" fn hipMemsetD32Async(
    dst: *mut c_void,
    value: i32,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemsetD32Async"), || {
        memset_on("hipMemsetD32Async", dst, value.to_ne_bytes().to_vec(), count, stream, Wait::Never)
    })
}
