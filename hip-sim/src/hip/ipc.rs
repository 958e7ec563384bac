//! Memory and events shared with other processes: `hipIpcGetMemHandle`,
//! `hipIpcOpenMemHandle`, `hipIpcCloseMemHandle`, `hipIpcGetEventHandle`,
//! `hipIpcOpenEventHandle`, with clr's rules (`hip_memory.cpp`,
//! `hip_event_ipc.cpp`, `device.cpp`'s `IpcCreate`/`IpcAttach`/
//! `IpcDetach`) over the simulator's shared memory (`machine::ipc`).

use crate::bindings::hip::{hipError_t, hipEvent_t, hipIpcEventHandle_t, hipIpcMemHandle_t};
use crate::entry::{call, write_out};
use crate::machine::addresses::device_of;
use crate::machine::calls::idx;
use crate::machine::event::{self, EventObj};
use crate::machine::handles::new_handle;
use crate::machine::ipc::{self, EventPage, Handle};
use crate::machine::memory::Bytes;
use crate::machine::peers;
use crate::machine::shared;
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations;
use crate::submit;
use std::ffi::c_void;
use std::sync::Arc;

/// `hipIpcMemLazyEnablePeerAccess` of the simulated HIP version, the one
/// flag `hipIpcOpenMemHandle` takes.
fn lazy_enable_peer_access() -> u32 {
    crate::shared::ipc::lazy_enable_peer_access(sim().config.hip_major)
}

/// The handle's bytes as `c_char`s.
fn raw(bytes: [u8; 64]) -> [std::ffi::c_char; 64] {
    bytes.map(|b| b as std::ffi::c_char)
}

fn bytes(raw: &[std::ffi::c_char; 64]) -> [u8; 64] {
    raw.map(|c| c as u8)
}

/// `hipIpcGetMemHandle`: a handle for the allocation holding `dev_ptr`
/// (any address inside it; the handle keeps the offset). Memory of a
/// stream-ordered pool, host memory and unknown addresses are
/// `hipErrorInvalidValue`, as clr's `IpcCreate` fails for what is no
/// device allocation of its own.
pub(crate) unsafe extern "C" fn hipIpcGetMemHandle(handle: *mut hipIpcMemHandle_t, dev_ptr: *mut c_void) -> hipError_t {
    call(idx!("hipIpcGetMemHandle"), || {
        if handle.is_null() || dev_ptr.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let address = dev_ptr as usize;
        let device = device_of(address).ok_or(hipError_t::hipErrorInvalidValue)?;
        let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidValue)?;
        violations::check("hipIpcGetMemHandle", device);
        if d.pools.owns(address) {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let (allocation, offset) = d.memory.find(address).ok_or(hipError_t::hipErrorInvalidValue)?;
        if !allocation.charged {
            // A graph's reserved range, or memory opened from a handle.
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let file = match ipc::exported(allocation.base) {
            Some(file) => file,
            None => {
                let file =
                    Arc::new(shared::create("mem", allocation.size).map_err(|_| hipError_t::hipErrorOutOfMemory)?);
                let mut data = crate::machine::lock::lock(&allocation.data);
                // SAFETY: the file maps `size` bytes, the allocation's.
                unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), file.ptr(), allocation.size) };
                *data = Bytes::Shared(file.clone(), allocation.size);
                ipc::note_export(allocation.base, file.clone());
                file
            }
        };
        let exported = Handle {
            pid: ipc::this_process(),
            device: device as u32,
            size: allocation.size as u64,
            offset: offset as u64,
            name: file.name().to_owned(),
        };
        let out = hipIpcMemHandle_t { reserved: raw(exported.encode()?) };
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(handle, out) }
    })
}

/// `hipIpcOpenMemHandle`: the exported allocation in this process, on the
/// current device, at its base: clr's `IpcAttach` returns the attached
/// allocation's start (`getSvmPtr`), as CUDA returns the base, whatever
/// pointer inside it was exported (the handle keeps that offset, which
/// the opener adds itself). clr's checks in its
/// order: a null out-pointer or any flags but
/// `hipIpcMemLazyEnablePeerAccess` (0 on HIP 5, 1 from 6) are
/// `hipErrorInvalidValue`, a handle of no size too; a handle of this
/// process is `hipErrorInvalidContext`; one that cannot be attached (its
/// memory freed, its process gone, a device that cannot reach the
/// exporter's) is `hipErrorInvalidDevicePointer`. The same handle opened
/// again gives the same pointer, counted.
pub(crate) unsafe extern "C" fn hipIpcOpenMemHandle(
    dev_ptr: *mut *mut c_void,
    handle: hipIpcMemHandle_t,
    flags: u32,
) -> hipError_t {
    call(idx!("hipIpcOpenMemHandle"), || {
        if dev_ptr.is_null() || flags != lazy_enable_peer_access() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let Some(exported) = Handle::decode(&bytes(&handle.reserved)).filter(|h| h.size != 0) else {
            return Err(hipError_t::hipErrorInvalidValue);
        };
        if exported.pid == ipc::this_process() {
            return Err(hipError_t::hipErrorInvalidContext);
        }
        let device = current_device();
        let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
        let owner = exported.device as usize;
        if owner != device && !peers::peer_reachable(device, owner) {
            return Err(hipError_t::hipErrorInvalidDevicePointer);
        }
        let size = usize::try_from(exported.size).map_err(|_| hipError_t::hipErrorInvalidDevicePointer)?;
        let base = match ipc::reopen(&exported.name) {
            Some(base) => base,
            None => {
                let file = shared::SharedFile::open(&exported.name, size)
                    .map_err(|_| hipError_t::hipErrorInvalidDevicePointer)?;
                let allocation = d.memory.adopt(size, Bytes::Shared(Arc::new(file), size))?;
                ipc::note_open(&exported.name, allocation.base, device);
                allocation.base
            }
        };
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(dev_ptr, base as *mut c_void) }
    })
}

/// `hipIpcCloseMemHandle`: every stream of the memory's device waited
/// for (clr's `SyncAllStreams`), then one open of it counted down (the
/// last unmaps). Null, and a pointer that no open gave (or one closed as
/// often as it was opened), are `hipErrorInvalidValue`.
pub(crate) unsafe extern "C" fn hipIpcCloseMemHandle(dev_ptr: *mut c_void) -> hipError_t {
    call(idx!("hipIpcCloseMemHandle"), || {
        if dev_ptr.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let address = dev_ptr as usize;
        let device = device_of(address).ok_or(hipError_t::hipErrorInvalidValue)?;
        let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidValue)?;
        let (allocation, _) = d.memory.find(address).ok_or(hipError_t::hipErrorInvalidValue)?;
        if !allocation.imported {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        submit::synchronize_device("hipIpcCloseMemHandle", device)?;
        if ipc::close(allocation.base)?.is_some() {
            d.memory.release(allocation.base)?;
        }
        Ok(())
    })
}

/// `hipIpcGetEventHandle`: a handle for an event made with
/// `hipEventInterprocess` (and so `hipEventDisableTiming`); any other
/// event is `hipErrorInvalidConfiguration`, clr's base `Event::GetHandle`.
pub(crate) unsafe extern "C" fn hipIpcGetEventHandle(
    handle: *mut hipIpcEventHandle_t,
    event: hipEvent_t,
) -> hipError_t {
    call(idx!("hipIpcGetEventHandle"), || {
        if handle.is_null() || event.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let event = event::lookup(event).ok_or(hipError_t::hipErrorContextIsDestroyed)?;
        violations::check("hipIpcGetEventHandle", event.device);
        if event.flags & crate::bindings::hip::hipEventInterprocess == 0 {
            return Err(hipError_t::hipErrorInvalidConfiguration);
        }
        let page = event.share().map_err(|_| hipError_t::hipErrorInvalidValue)?;
        let exported =
            Handle { pid: page.owner(), device: event.device as u32, size: 0, offset: 0, name: page.name().to_owned() };
        let out = hipIpcEventHandle_t { reserved: raw(exported.encode()?) };
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(handle, out) }
    })
}

/// `hipIpcOpenEventHandle`: a new event of the current device (flags
/// `hipEventDisableTiming | hipEventInterprocess`) sharing the exported
/// one's recordings. A null out-pointer, and a handle whose event is gone
/// or was never exported, are `hipErrorInvalidValue`; a handle of this
/// process is `hipErrorInvalidContext`.
pub(crate) unsafe extern "C" fn hipIpcOpenEventHandle(
    event: *mut hipEvent_t,
    handle: hipIpcEventHandle_t,
) -> hipError_t {
    call(idx!("hipIpcOpenEventHandle"), || {
        if event.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let exported = Handle::decode(&bytes(&handle.reserved)).ok_or(hipError_t::hipErrorInvalidValue)?;
        let page = EventPage::open(&exported.name).map_err(|_| hipError_t::hipErrorInvalidValue)?;
        if page.owner() == ipc::this_process() {
            return Err(hipError_t::hipErrorInvalidContext);
        }
        let flags = crate::bindings::hip::hipEventDisableTiming | crate::bindings::hip::hipEventInterprocess;
        let opened = Arc::new(EventObj::opened(current_device(), flags, Arc::new(page)));
        let handle = new_handle();
        event::insert(handle, opened);
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(event, handle as hipEvent_t) }
    })
}
