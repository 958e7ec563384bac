//! Host-to-device uploads for library inputs.

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
