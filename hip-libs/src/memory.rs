//! Host-to-device uploads for library inputs, and reads of what the
//! libraries leave in pool memory.

use crate::Result;
use hip_core::Stream;

/// Copy `data` to device memory at `dst` after `stream`'s queued work,
/// waiting for the copy.
///
/// # Safety
/// `dst` is device memory valid for `size_of_val(data)` bytes.
pub(crate) unsafe fn upload_into<T: Copy>(dst: *mut std::ffi::c_void, data: &[T], stream: &Stream) -> Result<()> {
    // SAFETY: the caller guarantees `dst`; `data` is host memory of that
    // size, alive for the whole (blocking) copy.
    unsafe { hip_core::copy_after(dst, data.as_ptr().cast(), std::mem::size_of_val(data), stream) }?;
    Ok(())
}

/// Copy the start of `buffer` into `out` once the work queued on its
/// stream (and the uses of other streams, ordered first) has run, waiting
/// for the copy.
///
/// # Safety
/// The buffer holds at least `size_of_val(out)` bytes of valid `T`s.
pub(crate) unsafe fn download_from<T: Copy>(buffer: &hip_pool::Buffer, out: &mut [T]) -> Result<()> {
    let stream = buffer.stream();
    buffer.prepare_read(stream)?;
    // SAFETY: the caller guarantees the buffer's size; `out` is host
    // memory of that size, alive for the whole (blocking) copy.
    unsafe { hip_core::copy_after(out.as_mut_ptr().cast(), buffer.as_ptr(), std::mem::size_of_val(out), stream) }?;
    Ok(())
}
