//! The `async` backing: HIP's stream-ordered allocator with one explicit
//! pool per device, its release threshold at maximum (memory stays
//! reserved until a trim), trimmed by `reclaim`.

use super::pass_through::Driver;
use hip_core::raw::{api, on_device};
use hip_core::{check, Device, HipError, Stream};
use hip_sys::{hipMemPoolAttr, hipMemPool_t};
use std::ffi::c_void;

/// A device's explicit stream-ordered pool.
pub(crate) struct AsyncPool {
    pool: hipMemPool_t,
}

// SAFETY: a memory pool handle may be used from any thread.
unsafe impl Send for AsyncPool {}
// SAFETY: as above.
unsafe impl Sync for AsyncPool {}

impl AsyncPool {
    pub fn create(device: Device) -> Result<AsyncPool, HipError> {
        let api = api()?;
        // SAFETY: the props struct is plain data; zero is its documented default.
        let mut props: hip_sys::hipMemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = hip_sys::hipMemAllocationType::hipMemAllocationTypePinned;
        props.location.type_ = hip_sys::hipMemLocationType::hipMemLocationTypeDevice;
        props.location.id = device.ordinal() as i32;
        let mut pool: hipMemPool_t = std::ptr::null_mut();
        on_device(device, || {
            // SAFETY: valid pointers to the props and the out-handle.
            check(unsafe { (api.hipMemPoolCreate)(&mut pool, &props) }, "hipMemPoolCreate")
        })??;
        let mut threshold = u64::MAX;
        on_device(device, || {
            check(
                // SAFETY: a live pool; the attribute takes a uint64_t.
                unsafe {
                    (api.hipMemPoolSetAttribute)(
                        pool,
                        hipMemPoolAttr::hipMemPoolAttrReleaseThreshold,
                        (&mut threshold as *mut u64).cast(),
                    )
                },
                "hipMemPoolSetAttribute",
            )
        })??;
        Ok(AsyncPool { pool })
    }

    pub fn malloc(&self, device: Device, bytes: usize, stream: &Stream) -> Driver {
        let api = match api() {
            Ok(api) => api,
            Err(e) => return Driver::Failed(e),
        };
        let mut ptr: *mut c_void = std::ptr::null_mut();
        let status = on_device(device, || {
            // SAFETY: a live pool and stream; a valid out-pointer.
            unsafe { (api.hipMallocFromPoolAsync)(&mut ptr, bytes, self.pool, stream.as_raw()) }
        });
        match status {
            Ok(s) if s == hip_sys::hipError_t::hipErrorOutOfMemory => {
                // The pool's ladder handles it; it is not the caller's error.
                hip_core::raw::forget_expected_failure(s);
                Driver::OutOfMemory
            }
            Ok(s) => match check(s, "hipMallocFromPoolAsync") {
                Ok(()) => Driver::Ok(ptr as usize),
                Err(e) => Driver::Failed(e),
            },
            Err(e) => Driver::Failed(e),
        }
    }

    pub fn free(&self, device: Device, ptr: usize, stream: &Stream) -> Result<(), HipError> {
        let api = api()?;
        on_device(device, || {
            // SAFETY: `ptr` came from this pool and is freed once, in stream order.
            check(unsafe { (api.hipFreeAsync)(ptr as *mut c_void, stream.as_raw()) }, "hipFreeAsync")
        })?
    }

    /// Reserved bytes of the pool.
    pub fn reserved(&self, device: Device) -> Result<usize, HipError> {
        let api = api()?;
        let mut value = 0u64;
        on_device(device, || {
            check(
                // SAFETY: a live pool; the attribute is a uint64_t.
                unsafe {
                    (api.hipMemPoolGetAttribute)(
                        self.pool,
                        hipMemPoolAttr::hipMemPoolAttrReservedMemCurrent,
                        (&mut value as *mut u64).cast(),
                    )
                },
                "hipMemPoolGetAttribute",
            )
        })??;
        Ok(value as usize)
    }

    /// Release everything the pool holds beyond live allocations.
    pub fn trim(&self, device: Device) -> Result<(), HipError> {
        let api = api()?;
        // SAFETY: a live pool.
        on_device(device, || check(unsafe { (api.hipMemPoolTrimTo)(self.pool, 0) }, "hipMemPoolTrimTo"))?
    }
}
