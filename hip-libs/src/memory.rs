//! Host-to-device uploads for library inputs.

use crate::Result;
use hip_core::raw::{api, on_device};
use hip_core::{check, Stream};
use hip_pool::Buffer;

/// A pool buffer on `stream`'s device holding a copy of `data` (the copy
/// has completed when this returns). The stream is synchronized first: a
/// block reused from the pool may still be read by work queued on it.
pub(crate) fn upload<T: Copy>(stream: &Stream, data: &[T]) -> Result<Buffer> {
    let bytes = std::mem::size_of_val(data);
    let buffer = hip_pool::alloc_on(stream.device(), bytes.max(1), stream)?;
    if bytes > 0 {
        let api = api()?;
        stream.synchronize()?;
        // The blocking hipMemcpy: on failure no copy stays in flight that
        // could read `data` after the caller has freed it.
        on_device(stream.device(), || {
            check(
                // SAFETY: both ranges hold `bytes` bytes; the copy is synchronous.
                unsafe {
                    (api.hipMemcpy)(
                        buffer.as_ptr(),
                        data.as_ptr().cast(),
                        bytes,
                        hip_sys::hipMemcpyKind::hipMemcpyDefault,
                    )
                },
                "hipMemcpy",
            )
        })??;
    }
    Ok(buffer)
}
