//! `Buffer`: device memory from a pool, returned to it on drop.

use crate::device_pool::Pool;
use crate::{Result, Strategy};
use hip_core::{audit, Device, Stream};
use std::ffi::c_void;
use std::mem::ManuallyDrop;

/// Device memory owned by a pool's block.
///
/// It knows its device, its size and the stream it was last used on. It
/// is `Send + Sync`: it can be dropped on any thread. With the cached
/// strategy, dropping it gives the block back to its device's pool with
/// **no HIP call and no access to any thread's GPU state**; the block is
/// reusable at once on the same stream, and on another stream after an
/// event orders the new use after the old one. With the `none` and
/// `async` strategies the drop frees through HIP, under the buffer's
/// device. Errors in a drop are logged; [`Buffer::free`] returns them.
pub struct Buffer {
    pool: Option<Pool>,
    ptr: usize,
    len: usize,
    block: usize,
    /// Moved into the pool on release (no clone on the hot path); dropped
    /// in `Drop` only if it was not.
    stream: ManuallyDrop<Stream>,
    released: bool,
}

impl Buffer {
    pub(crate) fn new(pool: Pool, ptr: usize, len: usize, block: usize, stream: Stream) -> Buffer {
        Buffer { pool: Some(pool), ptr, len, block, stream: ManuallyDrop::new(stream), released: false }
    }

    /// A zero-length buffer on `stream`'s device: no memory, null pointer.
    pub fn empty(stream: &Stream) -> Buffer {
        Buffer { pool: None, ptr: 0, len: 0, block: 0, stream: ManuallyDrop::new(stream.clone()), released: false }
    }

    /// The device address (null for an empty buffer).
    pub fn as_ptr(&self) -> *mut c_void {
        self.ptr as *mut c_void
    }

    /// The bytes asked for.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The size of the block behind the buffer (the request, rounded).
    pub fn block_size(&self) -> usize {
        self.block
    }

    /// The buffer's device.
    pub fn device(&self) -> Device {
        self.stream.device()
    }

    /// The stream the buffer was last used on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Record that the buffer is now used on `stream` (of the same
    /// device): its block will be freed in that stream's order.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        stream.expect_device(self.device(), "Buffer::set_stream")?;
        *self.stream = stream.clone();
        Ok(())
    }

    /// Give the memory back now, reporting any error.
    pub fn free(mut self) -> Result<()> {
        self.release()
    }

    fn release(&mut self) -> Result<()> {
        let Some(pool) = self.pool.take() else {
            return Ok(());
        };
        self.released = true;
        // SAFETY: taken once: `released` keeps Drop from dropping it again,
        // and `pool` is gone, so no other path reads it.
        let stream = unsafe { ManuallyDrop::take(&mut self.stream) };
        match pool.0.strategy {
            Strategy::Cached => {
                pool.0.give_back(self.ptr, self.block, stream);
                Ok(())
            }
            Strategy::None | Strategy::Async => Ok(pool.0.driver_free(self.ptr, self.block, &stream)?),
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        let device = self.device();
        if let Err(error) = self.release() {
            log::error!("dropping a buffer of {device}: {error}");
        }
        if !self.released {
            // SAFETY: not taken by `release` (an empty buffer): dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.stream) };
        }
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buffer({:#x}, {} bytes on device {})", self.ptr, self.len, self.device().ordinal())
    }
}
