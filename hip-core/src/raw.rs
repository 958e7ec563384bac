//! The one place hip-core reaches the C table, and `on_device`.
//!
//! [`on_device`] is what every `Drop` and explicit free uses: it binds a
//! device for one call and restores HIP's previous device, without reading,
//! creating or changing the per-thread state ([`crate::ThreadState`]). That is
//! rule 1 of the design: a drop can run on any thread, in the middle of
//! any other work, and must leave that thread exactly as it found it.
//!
//! Every `hipSetDevice` of the crate goes through one function, which keeps a
//! record of HIP's current device on the thread. [`run_on`], for the hot
//! calls made outside drops (launches, event records, library calls),
//! trusts that record and makes no HIP call when it already names the
//! device; [`on_device`] asks HIP every time, so a drop is right even
//! after foreign code moved HIP's device without restoring it.

use crate::{check, Device, Result};
use hip_sys::{hipError_t, HipApi};
use std::cell::Cell;
use std::ffi::CStr;

/// The process's HIP table, or why there is none.
pub fn api() -> Result<&'static HipApi> {
    Ok(hip_sys::hip()?)
}

/// HIP's name and description of `status` (numbers when HIP has none).
pub(crate) fn error_text(status: hipError_t) -> (String, String) {
    let Ok(api) = hip_sys::hip() else {
        return (format!("hipError {}", status.0), "no HIP backend".to_string());
    };
    // SAFETY: hipGetErrorName/String take any code and return a static,
    // NUL-terminated string (or null, handled below).
    let (name, text) = unsafe { ((api.hipGetErrorName)(status), (api.hipGetErrorString)(status)) };
    let read = |p: *const std::ffi::c_char| {
        if p.is_null() {
            None
        } else {
            // SAFETY: non-null and NUL-terminated per the HIP API.
            Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        }
    };
    (
        read(name).unwrap_or_else(|| format!("hipError {}", status.0)),
        read(text).unwrap_or_else(|| "unknown error".to_string()),
    )
}

/// HIP's current device on this thread, as HIP sees it (a HIP call).
pub fn hip_current_device() -> Result<Device> {
    let api = api()?;
    let mut ordinal = 0;
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.hipGetDevice)(&mut ordinal) }, "hipGetDevice")?;
    let device = Device::from_ordinal_unchecked(ordinal as usize);
    BOUND.with(|bound| bound.set(device.ordinal() + 1));
    Ok(device)
}

thread_local! {
    /// Ordinal + 1 of HIP's current device on this thread as this crate
    /// last set or read it; 0 when unknown (a bind failed). Every
    /// `hipSetDevice` of this crate goes through [`bind`], so it is true
    /// as long as code calling `hipSetDevice` itself restores HIP's
    /// device, the rule the thread state already relies on. A record of
    /// HIP's own state, not thread state: it never says what the thread's
    /// device *should* be.
    static BOUND: Cell<usize> = const { Cell::new(0) };
}

/// HIP's current device as this crate last set or read it (no HIP call),
/// as ordinal + 1; 0 when unknown.
#[inline]
pub(crate) fn bound() -> usize {
    BOUND.with(Cell::get)
}

/// Make `device` HIP's current device on this thread (no state change).
pub(crate) fn bind(device: Device) -> Result<()> {
    let api = api()?;
    BOUND.with(|bound| bound.set(0));
    // SAFETY: plain integer argument.
    check(unsafe { (api.hipSetDevice)(device.ordinal() as i32) }, "hipSetDevice")?;
    BOUND.with(|bound| bound.set(device.ordinal() + 1));
    Ok(())
}

/// Run `call` with `device` current in HIP, then restore HIP's previous
/// device, also if `call` panics. Reads and changes no per-thread state of
/// this crate; makes no HIP call beyond `hipGetDevice` when `device` is
/// already current. It asks HIP rather than trust [`run_on`]'s record, so
/// a drop lands on the right device even after foreign code moved HIP.
pub fn on_device<R>(device: Device, call: impl FnOnce() -> R) -> Result<R> {
    let previous = hip_current_device()?;
    if previous == device {
        return Ok(call());
    }
    switch(device, call)
}

/// Bind `device`, run `call`, bind `previous` back (also on panic).
fn switch<R>(device: Device, call: impl FnOnce() -> R) -> Result<R> {
    let previous = match bound() {
        0 => hip_current_device()?,
        n => Device::from_ordinal_unchecked(n - 1),
    };
    bind(device)?;
    struct Restore(Device);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Err(error) = bind(self.0) {
                log::error!("could not restore HIP device {}: {error}", self.0.ordinal());
            }
        }
    }
    let _restore = Restore(previous);
    Ok(call())
}

/// Run `call` with `device` current in HIP, for calls made outside drops.
///
/// Like [`on_device`], but when this crate's record of HIP's device says
/// it is `device` already (after any ambient call or bind to it, and
/// inside another switch to it), it trusts the record: no HIP call at
/// all. Otherwise it switches and restores as `on_device` does. It reads
/// no thread state. Drops use [`on_device`], which asks HIP.
#[inline]
pub fn run_on<R>(device: Device, call: impl FnOnce() -> R) -> Result<R> {
    if bound() == device.ordinal() + 1 {
        return Ok(call());
    }
    switch(device, call)
}

/// Forget the thread's last error when it is `status`, a failure this
/// layer expected and handled (an out-of-memory answer that the pool
/// recovers from), so that code which checks `hipGetLastError` after its
/// own work, as libraries do, does not take it for its own.
///
/// Under HIP 7 (and CUDA) a failure stays the thread's last error until it
/// is read; under HIP 5 and 6 the next call overwrites it anyway, so this
/// is needed only for 7 and harmless before. Never called from a drop:
/// rule 1 keeps drops away from `hipGetLastError`.
pub fn forget_expected_failure(status: hipError_t) {
    let Ok(api) = hip_sys::hip() else { return };
    // SAFETY: no arguments.
    if unsafe { (api.hipPeekAtLastError)() } == status {
        // SAFETY: no arguments.
        let _ = unsafe { (api.hipGetLastError)() };
    }
}

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
/// # Safety
/// Both ranges are valid for `bytes` until the call returns.
pub unsafe fn copy_after(
    dst: *mut std::ffi::c_void,
    src: *const std::ffi::c_void,
    bytes: usize,
    stream: &crate::Stream,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    let api = api()?;
    stream.synchronize()?;
    on_device(stream.device(), || {
        // SAFETY: the caller guarantees both ranges; hipMemcpy is synchronous.
        check(unsafe { (api.hipMemcpy)(dst, src, bytes, hip_sys::hipMemcpyKind::hipMemcpyDefault) }, "hipMemcpy")
    })?
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
/// # Safety
/// Both ranges are device memory valid for `bytes` until the copy has run.
pub unsafe fn copy_device_after(
    dst: *mut std::ffi::c_void,
    src: *const std::ffi::c_void,
    bytes: usize,
    stream: &crate::Stream,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    let api = api()?;
    let kind = hip_sys::hipMemcpyKind::hipMemcpyDeviceToDevice;
    on_device(stream.device(), || {
        // SAFETY: the caller guarantees both device ranges; the stream is live.
        check(unsafe { (api.hipMemcpyAsync)(dst, src, bytes, kind, stream.as_raw()) }, "hipMemcpyAsync")
    })??;
    stream.synchronize()
}
