//! The `async` backing: HIP's stream-ordered allocator with one explicit
//! pool per device, its release threshold at maximum (memory stays
//! reserved until a trim), trimmed by `reclaim`.

use super::pass_through::Driver;
use hip_core::raw;
use hip_core::{Device, HipError, Stream};
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
        let pool = raw::pool::create(device)?;
        // SAFETY: a live pool of `device`; the threshold is a uint64_t.
        unsafe { raw::pool::set_u64(device, pool, hipMemPoolAttr::hipMemPoolAttrReleaseThreshold, u64::MAX) }?;
        Ok(AsyncPool { pool })
    }

    pub fn malloc(&self, device: Device, bytes: usize, stream: &Stream) -> Driver {
        // SAFETY: a live pool of `device`; the stream is live (borrowed)
        // and of `device` (the pool's caller checked).
        Driver::of(
            unsafe { raw::pool::malloc_async(device, self.pool, bytes, stream.as_raw()) }.map(|ptr| ptr as usize),
        )
    }

    pub fn free(&self, device: Device, ptr: usize, stream: &Stream) -> Result<(), HipError> {
        // SAFETY: `ptr` came from this pool and is freed once, in the order
        // of a stream after its uses.
        unsafe { raw::pool::free_async(device, ptr as *mut c_void, stream.as_raw()) }
    }

    /// Reserved bytes of the pool.
    pub fn reserved(&self, device: Device) -> Result<usize, HipError> {
        // SAFETY: a live pool of `device`; the attribute is a uint64_t.
        let reserved =
            unsafe { raw::pool::get_u64(device, self.pool, hipMemPoolAttr::hipMemPoolAttrReservedMemCurrent) }?;
        Ok(reserved as usize)
    }

    /// Release everything the pool holds beyond live allocations.
    pub fn trim(&self, device: Device) -> Result<(), HipError> {
        // SAFETY: a live pool of `device`.
        unsafe { raw::pool::trim_to(device, self.pool, 0) }
    }
}
