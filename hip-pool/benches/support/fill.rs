//! A fill of a pooled buffer on a stream, under the operand protocol, for
//! the benches that queue work on their buffers. Included by path.

use hip_core::{raw, Stream};
use hip_pool::{enqueue, Access, Buffer, PoolError};

/// Fill `buffer` with 7s on `stream` under the operand protocol.
pub fn fill(buffer: &Buffer, stream: &Stream) {
    enqueue(stream, [(buffer, Access::Write)], || {
        // SAFETY: the buffer's bytes, kept alive past the fill by the protocol.
        unsafe { raw::mem::fill_async(stream.device(), buffer.as_ptr(), 7, buffer.len(), stream.as_raw()) }
            .map_err(PoolError::from)
    })
    .expect("a fill");
}
