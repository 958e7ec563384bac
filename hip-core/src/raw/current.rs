//! HIP's current device: the crate's one `hipGetDevice` and one
//! `hipSetDevice`, the record of what they last saw, and the two ways to
//! run a call under a device, [`on_device`] and [`run_on`].

use crate::{check, Device, Result};
use std::cell::Cell;

use super::api;

/// `hipGetDevice`: HIP's current device on this thread, as HIP sees it.
///
/// # Errors
/// HIP's status of `hipGetDevice`; [`HipError::Backend`](crate::HipError::Backend)
/// without a backend.
#[doc(alias = "hipGetDevice")]
pub fn hip_current_device() -> Result<Device> {
    let api = api()?;
    let mut ordinal = 0;
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.hipGetDevice)(&mut ordinal) }, "hipGetDevice")?;
    let device = Device::from_ordinal_unchecked(ordinal as usize);
    set_bound(device.ordinal() + 1);
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
    /// Ordinal + 1 of the device the thread state wants HIP on, as the
    /// state last said ([`expect`]); 0 before it exists. Kept here, next
    /// to [`BOUND`], only so that one word can say whether the two agree.
    static EXPECTED: Cell<usize> = const { Cell::new(0) };
    /// [`BOUND`] where it equals [`EXPECTED`], else 0: whether HIP is on
    /// the thread's device, in one load (`prepare_state`'s fast path).
    static READY: Cell<usize> = const { Cell::new(0) };
}

/// HIP's current device as this crate last set or read it (no HIP call),
/// as ordinal + 1; 0 when unknown.
#[inline]
pub(crate) fn bound() -> usize {
    BOUND.with(Cell::get)
}

/// Ordinal + 1 of the thread's device when HIP is on it by the record,
/// else 0: one thread-local load.
#[inline]
pub(crate) fn ready() -> usize {
    READY.with(Cell::get)
}

/// The thread state's device is now `expected` (ordinal + 1).
pub(crate) fn expect(expected: usize) {
    EXPECTED.with(|e| e.set(expected));
    READY.with(|r| r.set(if expected == bound() { expected } else { 0 }));
}

/// Record HIP's current device (ordinal + 1, 0 for unknown).
fn set_bound(bound: usize) {
    BOUND.with(|b| b.set(bound));
    READY.with(|r| r.set(if bound == EXPECTED.with(Cell::get) { bound } else { 0 }));
}

/// Make `device` HIP's current device on this thread (no state change).
pub(crate) fn bind(device: Device) -> Result<()> {
    let api = api()?;
    set_bound(0);
    // SAFETY: plain integer argument.
    check(unsafe { (api.hipSetDevice)(device.ordinal() as i32) }, "hipSetDevice")?;
    set_bound(device.ordinal() + 1);
    Ok(())
}

/// Run `call` with `device` current in HIP, then restore HIP's previous
/// device, also if `call` panics. Reads and changes no per-thread state of
/// this crate; makes no HIP call beyond `hipGetDevice` when `device` is
/// already current. It asks HIP rather than trust [`run_on`]'s record, so
/// a drop lands on the right device even after foreign code moved HIP.
///
/// # Errors
/// HIP's status of `hipGetDevice` or `hipSetDevice` (then `call` does not
/// run); `call`'s own result is the `Ok` value.
pub fn on_device<R>(device: Device, call: impl FnOnce() -> R) -> Result<R> {
    let previous = hip_current_device()?;
    if previous == device {
        return Ok(call());
    }
    switch(previous, device, call)
}

/// Bind `device`, run `call`, bind `previous` back (also on panic).
fn switch<R>(previous: Device, device: Device, call: impl FnOnce() -> R) -> Result<R> {
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
/// all. Another recorded device is switched from and restored without
/// asking HIP; with no record it is `on_device`. It reads no thread state.
/// Drops use [`on_device`], which asks HIP.
///
/// # Errors
/// As [`on_device`].
#[inline]
pub fn run_on<R>(device: Device, call: impl FnOnce() -> R) -> Result<R> {
    match bound() {
        n if n == device.ordinal() + 1 => Ok(call()),
        0 => on_device(device, call),
        n => switch(Device::from_ordinal_unchecked(n - 1), device, call),
    }
}
