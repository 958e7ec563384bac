//! Managed memory: `hipMallocManaged`, `hipMemPrefetchAsync`,
//! `hipMemAdvise` and `hipMemRangeGetAttribute`, with clr's checks and
//! codes (`hip_hmm.cpp`) on a machine with heterogeneous memory management
//! (`hipDeviceAttributeManagedMemory` and `ConcurrentManagedAccess` 1, as
//! on an MI200 or MI300 with a current kernel) and without XNACK
//! (`PageableMemoryAccess` 0, the default): plain host memory that was not
//! allocated managed cannot be prefetched to a device.

use crate::bindings::hip::{
    hipError_t, hipMemAttachGlobal, hipMemAttachHost, hipMemRangeAttribute as R, hipMemoryAdvise as A, hipStream_t,
};
use crate::entry::{call, write_out};
use crate::machine::calls::idx;
use crate::machine::capture;
use crate::machine::lock::lock;
use crate::machine::managed::{self, CPU, NONE};
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::submit::{self, Op};
use crate::targets;
use std::ffi::c_void;

/// `HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED` and `…_COARSE_GRAINED`: the
/// coherency mode clr reports.
const FINE_GRAINED: i32 = 1;
const COARSE_GRAINED: i32 = 2;

/// Whether `device` names a device of this machine or the host (-1).
fn is_location(device: i32) -> bool {
    device == CPU || sim().ordinal(device).is_some()
}

pub(crate) unsafe extern "C" fn hipMallocManaged(ptr: *mut *mut c_void, size: usize, flags: u32) -> hipError_t {
    call(idx!("hipMallocManaged"), || {
        if sim().config.hip_major >= 7 {
            capture::check_allocation()?;
        }
        if ptr.is_null() || size == 0 || (flags != hipMemAttachGlobal && flags != hipMemAttachHost) {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let allocation = managed::allocate(current_device(), size)?;
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { write_out(ptr, allocation.allocation.base as *mut c_void) }
    })
}

/// The managed allocation holding `count` bytes at `ptr`, if any;
/// `hipErrorInvalidValue` for a range running past its end.
fn range(ptr: *const c_void, count: usize) -> Result<Option<std::sync::Arc<managed::Managed>>, hipError_t> {
    match managed::containing(ptr as usize) {
        Some((entry, offset)) if count > entry.allocation.requested().saturating_sub(offset) => {
            Err(hipError_t::hipErrorInvalidValue)
        }
        Some((entry, _)) => Ok(Some(entry)),
        None => Ok(None),
    }
}

pub(crate) unsafe extern "C" fn hipMemPrefetchAsync(
    ptr: *const c_void,
    count: usize,
    device: i32,
    stream: hipStream_t,
) -> hipError_t {
    call(idx!("hipMemPrefetchAsync"), || {
        if ptr.is_null() || count == 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let queue = targets::checked_target("hipMemPrefetchAsync", stream)?;
        let entry = range(ptr, count)?;
        if !is_location(device) {
            return Err(hipError_t::hipErrorInvalidDevice);
        }
        let Some(entry) = entry else {
            // System memory a device cannot page without XNACK.
            return if device == CPU { Ok(()) } else { Err(hipError_t::hipErrorNotSupported) };
        };
        // The pages move when the stream gets there; the bytes stay.
        submit::submit(&queue, false, Op::new("hipMemPrefetchAsync"), move || {
            lock(&entry.advice).last_prefetch = device;
            Ok(())
        })
    })
}

pub(crate) unsafe extern "C" fn hipMemAdvise(ptr: *const c_void, count: usize, advice: A, device: i32) -> hipError_t {
    call(idx!("hipMemAdvise"), || {
        if sim().config.hip_major >= 7 {
            capture::check_allocation()?;
        }
        let about_reading = advice == A::hipMemAdviseSetReadMostly || advice == A::hipMemAdviseUnsetReadMostly;
        if !about_reading && !is_location(device) {
            return Err(hipError_t::hipErrorInvalidDevice);
        }
        if ptr.is_null() || count == 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let Some(entry) = range(ptr, count)? else {
            // System memory: ROCr keeps its attributes, nobody reads them here.
            return Ok(());
        };
        let mut said = lock(&entry.advice);
        match advice {
            A::hipMemAdviseSetReadMostly => said.read_mostly = true,
            A::hipMemAdviseUnsetReadMostly => said.read_mostly = false,
            A::hipMemAdviseSetPreferredLocation => said.preferred = device,
            A::hipMemAdviseUnsetPreferredLocation => said.preferred = NONE,
            A::hipMemAdviseSetAccessedBy => {
                if !said.accessed_by.contains(&device) {
                    said.accessed_by.push(device);
                }
            }
            A::hipMemAdviseUnsetAccessedBy => said.accessed_by.retain(|&d| d != device),
            A::hipMemAdviseSetCoarseGrain => said.coarse_grain = true,
            A::hipMemAdviseUnsetCoarseGrain => said.coarse_grain = false,
            _ => return Err(hipError_t::hipErrorInvalidValue),
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipMemRangeGetAttribute(
    data: *mut c_void,
    data_size: usize,
    attribute: R,
    ptr: *const c_void,
    count: usize,
) -> hipError_t {
    call(idx!("hipMemRangeGetAttribute"), || {
        if data.is_null() || data_size == 0 || ptr.is_null() || count == 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let entry = range(ptr, count)?.ok_or(hipError_t::hipErrorInvalidValue)?;
        let said = lock(&entry.advice).clone();
        let one = |value: i32| {
            if data_size != 4 {
                return Err(hipError_t::hipErrorInvalidValue);
            }
            // SAFETY: checked non-null; the caller passes `data_size` (4) bytes.
            unsafe { write_out(data.cast::<i32>(), value) }
        };
        match attribute {
            R::hipMemRangeAttributeReadMostly => one(i32::from(said.read_mostly)),
            R::hipMemRangeAttributePreferredLocation => one(said.preferred),
            R::hipMemRangeAttributeLastPrefetchLocation => one(said.last_prefetch),
            R::hipMemRangeAttributeCoherencyMode => one(if said.coarse_grain { COARSE_GRAINED } else { FINE_GRAINED }),
            R::hipMemRangeAttributeAccessedBy => {
                if data_size % 4 != 0 {
                    return Err(hipError_t::hipErrorInvalidValue);
                }
                // SAFETY: checked non-null; the caller passes `data_size`
                // bytes, a whole number of `int`s.
                let out = unsafe { std::slice::from_raw_parts_mut(data.cast::<i32>(), data_size / 4) };
                for (slot, value) in out.iter_mut().zip(said.accessed_by.iter().copied().chain(std::iter::repeat(NONE)))
                {
                    *slot = value;
                }
                Ok(())
            }
            _ => Err(hipError_t::hipErrorInvalidValue),
        }
    })
}
