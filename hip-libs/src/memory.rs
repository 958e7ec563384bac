//! Host-to-device uploads for library inputs.

use crate::Result;
use hip_core::Stream;
use hip_pool::Buffer;

/// A pool buffer on `stream`'s device holding a copy of `data` (the copy
/// has completed when this returns). The stream is synchronized first: a
/// block reused from the pool may still be read by work queued on it.
pub(crate) fn upload<T: Copy>(stream: &Stream, data: &[T]) -> Result<Buffer> {
    let bytes = std::mem::size_of_val(data);
    let buffer = hip_pool::alloc_on(stream.device(), bytes.max(1), stream)?;
    // SAFETY: both ranges hold `bytes` bytes for the whole (blocking) copy.
    unsafe { hip_core::raw::copy_after(buffer.as_ptr(), data.as_ptr().cast(), bytes, stream) }?;
    Ok(buffer)
}
