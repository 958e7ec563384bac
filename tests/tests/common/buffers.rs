//! Pool buffers filled and read under the operand protocol, for the
//! tests of the pool's rules (capture, strategies).

use hip_core::raw::mem;
use hip_core::Stream;
use hip_pool::{enqueue, Access, Buffer, PoolError};

/// Enqueue a fill of `buffer` with `byte` on `stream`, under the operand protocol.
pub fn fill(buffer: &Buffer, byte: u8, stream: &Stream) -> Result<(), PoolError> {
    enqueue(stream, [(buffer, Access::Write)], || {
        // SAFETY: the buffer's bytes, kept alive past the work by the protocol.
        unsafe { mem::fill_async(stream.device(), buffer.as_ptr(), byte, buffer.len(), stream.as_raw()) }
            .map_err(PoolError::from)
    })
}

/// The buffer's bytes, read after everything queued on it.
pub fn read(buffer: &Buffer) -> Vec<u8> {
    buffer.stream().synchronize().unwrap();
    let mut out = vec![0u8; buffer.len()];
    // SAFETY: `len` bytes each side.
    unsafe { mem::copy(buffer.device(), out.as_mut_ptr().cast(), buffer.as_ptr(), buffer.len()) }.unwrap();
    out
}
