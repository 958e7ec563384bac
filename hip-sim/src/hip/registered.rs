//! `hipHostRegister` / `hipHostUnregister`: the caller's host memory made
//! pinned, as clr 5.7 to 7.x does it (`ihipHostRegister`).
//!
//! Registered memory is tracked like `hipHostMalloc` memory: copies and
//! fills are bounded by it and the race detector watches it. The
//! simulator is stricter than clr where clr does not check: registering
//! bytes that are already pinned is `hipErrorHostMemoryAlreadyRegistered`
//! (CUDA's answer; clr would map the range twice), unregistering anything
//! but the base of a registration is `hipErrorHostMemoryNotRegistered`
//! (clr finds any interior pointer), and `hipHostFree` of registered
//! memory is `hipErrorInvalidValue`.

use crate::bindings::hip::hipError_t;
use crate::entry::call;
use crate::machine::addresses::device_of;
use crate::machine::calls::idx;
use crate::machine::capture;
use crate::machine::pinned;
use crate::machine::races::{self, Access};
use crate::machine::thread::current_device;
use crate::machine::violations::AccessKind;
use crate::submit;
use std::ffi::c_void;

/// The flags clr accepts: Portable 1, Mapped 2, IoMemory 4, ReadOnly 8.
const KNOWN_FLAGS: u32 = 15;

/// `hipHostRegister`: null, 0 bytes or flags above 15 are
/// `hipErrorInvalidValue`; the memory remembers the current device,
/// which `hipHostUnregister` synchronizes.
pub(crate) unsafe extern "C" fn hipHostRegister(ptr: *mut c_void, size: usize, flags: u32) -> hipError_t {
    call(idx!("hipHostRegister"), || {
        capture::check_allocation()?;
        if ptr.is_null() || size == 0 || flags > KNOWN_FLAGS {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if device_of(ptr as usize).is_some() {
            // A device address is not host memory (clr fails to pin it).
            return Err(hipError_t::hipErrorInvalidValue);
        }
        pinned::register_host(ptr as usize, size, current_device(), flags)
    })
}

/// `hipHostUnregister`: synchronizes the device that was current at
/// registration (pending copies may still use the memory), then forgets
/// the memory; it is the caller's again.
pub(crate) unsafe extern "C" fn hipHostUnregister(ptr: *mut c_void) -> hipError_t {
    call(idx!("hipHostUnregister"), || {
        capture::check_allocation()?;
        if ptr.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let host = pinned::unregister_host(ptr as usize)?;
        let synced = submit::synchronize_device("hipHostUnregister", host.device);
        let free = Access::new(&host.races, 0, host.size, AccessKind::Free);
        races::host_access("hipHostUnregister", host.device, &[free]);
        synced
    })
}
