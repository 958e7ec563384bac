//! Blocking copies in a stream's order, for the crates above: built on the
//! thin layer's copies and a [`Stream`](crate::Stream)'s synchronize, so
//! they sit above both (apart from `raw`, which streams are built on).

use std::ffi::c_void;

use hip_sys::hipMemcpyKind;

use crate::raw::mem;
use crate::{Result, Stream};

/// Copy `bytes` between host and device memory (the direction taken from
/// the pointers) after the work queued on `stream`, returning only once the
/// copy is over.
///
/// The stream is synchronized first and the copy itself is the blocking
/// `hipMemcpy`: whatever fails, no copy is left in flight that could later
/// touch host memory the caller has already freed (an asynchronous copy
/// followed by a failed synchronize would).
///
/// One side must be host memory: `hipMemcpy` between two device pointers
/// of one device returns before the copy has run (HIP enqueues it on the
/// null stream). Copy between device memory with [`copy_device_after`].
///
/// # Errors
/// As [`Stream::synchronize`] (nothing is copied); else HIP's status of
/// `hipMemcpy`, or of binding the stream's device, as
/// [`HipError::Call`](crate::HipError::Call). No call for 0 bytes.
///
/// # Safety
/// Both ranges are valid for `bytes` until the call returns.
pub unsafe fn copy_after(dst: *mut c_void, src: *const c_void, bytes: usize, stream: &Stream) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    crate::underway::check_blocking("a synchronous copy (hipMemcpy)")?;
    #[cfg(feature = "tracing")]
    let _span = tracing::trace_span!("copy", bytes, device = ?stream.device(), stream = ?stream.id()).entered();
    stream.synchronize()?;
    // SAFETY: the caller guarantees both ranges.
    unsafe { mem::copy(stream.device(), dst, src, bytes) }
}

/// Copy `bytes` from device memory at `src` to device memory at `dst` (of
/// one device or two) in `stream`'s order, returning only once the copy is
/// over.
///
/// The copy is `hipMemcpyAsync` on `stream`, then the stream is
/// synchronized. A blocking `hipMemcpy` would not do: within one device it
/// returns before the copy has run, on the null stream, which streams
/// created non-blocking do not wait for. A failed synchronize can leave
/// the copy in flight, which touches device memory only.
///
/// # Errors
/// HIP's status of `hipMemcpyAsync`, or of binding the stream's device, as
/// [`HipError::Call`](crate::HipError::Call) (nothing queued); else as
/// [`Stream::synchronize`]. No call for 0 bytes.
///
/// # Safety
/// Both ranges are device memory valid for `bytes` until the copy has run.
pub unsafe fn copy_device_after(dst: *mut c_void, src: *const c_void, bytes: usize, stream: &Stream) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    // Before anything is queued: a copy enqueued into a capture that then
    // cannot be waited for would stay in its graph.
    crate::underway::check_wait_raw("a synchronous device copy", stream.device(), stream.as_raw())?;
    #[cfg(feature = "tracing")]
    let _span = tracing::trace_span!("device copy", bytes, device = ?stream.device(), stream = ?stream.id()).entered();
    // SAFETY: the caller guarantees both device ranges; the stream is live
    // (it is borrowed) and of its own device.
    unsafe {
        mem::copy_async(stream.device(), dst, src, bytes, hipMemcpyKind::hipMemcpyDeviceToDevice, stream.as_raw())
    }?;
    stream.synchronize()
}

/// Copy `data` from the host to device memory at `dst` in `stream`'s order
/// alone, returning only once the copy is over: `hipMemcpyAsync` on the
/// stream, then the stream synchronized.
///
/// Unlike [`copy_after`], the device's other streams are not waited for
/// (a blocking `hipMemcpy` waits for the legacy null stream, and so for
/// every blocking stream of the device, which may be held by work that
/// waits for this thread). `data` is taken by value so that a failed
/// synchronize, which can leave the copy in flight, leaks it instead of
/// freeing memory the copy may still read.
///
/// # Errors
/// [`HipError::CaptureUnderway`](crate::HipError::CaptureUnderway) while a
/// capture is underway (nothing queued); HIP's status of
/// `hipMemcpyAsync`, or of binding the stream's device, as
/// [`HipError::Call`](crate::HipError::Call) (nothing queued); else as
/// [`Stream::synchronize`]. No call for no data.
///
/// # Safety
/// `dst` is device memory of the stream's device valid for
/// `size_of_val(data)` bytes until the copy has run.
pub unsafe fn upload_after<T: Copy>(dst: *mut c_void, data: Vec<T>, stream: &Stream) -> Result<()> {
    let bytes = std::mem::size_of_val(data.as_slice());
    if bytes == 0 {
        return Ok(());
    }
    crate::underway::check_blocking("a host-to-device copy and a stream synchronize")?;
    #[cfg(feature = "tracing")]
    let _span = tracing::trace_span!("upload", bytes, device = ?stream.device(), stream = ?stream.id()).entered();
    let src = data.as_ptr().cast();
    // SAFETY: the caller guarantees the device range; `data` holds `bytes`
    // bytes and outlives the copy (kept until the synchronize returns, or
    // leaked); the stream is live (it is borrowed) and of its own device.
    unsafe {
        mem::copy_async(stream.device(), dst, src, bytes, hipMemcpyKind::hipMemcpyHostToDevice, stream.as_raw())
    }?;
    if let Err(error) = stream.synchronize() {
        std::mem::forget(data);
        return Err(error);
    }
    Ok(())
}
