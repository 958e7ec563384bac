//! The per-thread GPU state and the functions that read and switch it.
//!
//! Each thread has a [`ThreadState`]: its device, its stream priority, one
//! lazily created stream per (device, priority), and streams installed by
//! [`set_stream`] / [`with_stream`]. A thread that never asks has none; the
//! first access creates it on [`default_device()`].
//!
//! The state is authoritative; HIP's own current device follows it. Switches
//! bind HIP at once when they can, and [`prepare_state`] re-binds before an
//! ambient HIP call if a bind failed. It keeps a shadow of the device this
//! layer last bound, so its fast path is a thread-local read and a compare.
//! Code that calls `hipSetDevice` itself must restore HIP's device (as
//! [`crate::raw::on_device`] does).
//!
//! Nothing here drains HIP's last error: [`peek_last_error`] and
//! [`take_last_error`] are explicit.

use crate::raw::{api, bind};
use crate::{audit, Context, Device, HipError, Result, Stream};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

/// One thread's GPU state.
pub struct ThreadState {
    device: Device,
    /// HIP's current device as this layer last bound it.
    bound: Option<Device>,
    priority: i32,
    streams: HashMap<(Device, i32), Stream>,
    installed: HashMap<Device, Stream>,
}

impl ThreadState {
    fn new() -> ThreadState {
        ThreadState {
            device: default_device(),
            bound: None,
            priority: 0,
            streams: HashMap::new(),
            installed: HashMap::new(),
        }
    }
}

thread_local! {
    static STATE: RefCell<Option<ThreadState>> = const { RefCell::new(None) };
}

/// Run `f` on this thread's state, creating it on the default device.
#[track_caller]
fn with_state<R>(f: impl FnOnce(&mut ThreadState) -> R) -> R {
    audit::touch();
    STATE.with(|cell| f(cell.borrow_mut().get_or_insert_with(ThreadState::new)))
}

/// Whether this thread has GPU state yet (drops must never create it).
pub fn thread_state_exists() -> bool {
    STATE
        .try_with(|cell| cell.borrow().is_some())
        .unwrap_or(false)
}

// ---- the default device ----------------------------------------------------

static DEFAULT: AtomicUsize = AtomicUsize::new(0);
static DEFAULT_FROM_ENV: Once = Once::new();

/// The device new threads start on: device 0, `AMDGPU_DEFAULT_DEVICE` if
/// set at start, or what [`set_default_device`] chose. Only those change it.
pub fn default_device() -> Device {
    DEFAULT_FROM_ENV.call_once(|| {
        if let Ok(value) = std::env::var("AMDGPU_DEFAULT_DEVICE") {
            match value
                .trim()
                .parse::<usize>()
                .map_err(|_| None)
                .and_then(|n| Device::new(n).map_err(Some))
            {
                Ok(device) => DEFAULT.store(device.ordinal(), Ordering::Relaxed),
                Err(reason) => log::warn!(
                    "AMDGPU_DEFAULT_DEVICE={value:?} ignored ({}); the default device stays 0",
                    reason.map_or_else(|| "not a device ordinal".to_string(), |e| e.to_string())
                ),
            }
        }
    });
    Device::from_ordinal_unchecked(DEFAULT.load(Ordering::Relaxed))
}

/// Make `device` the device that threads started from now on begin on.
/// Threads that already have state keep their device.
pub fn set_default_device(device: Device) -> Result<()> {
    let device = Device::new(device.ordinal())?;
    default_device(); // the environment is read first, so it cannot override this later
    DEFAULT.store(device.ordinal(), Ordering::Relaxed);
    Ok(())
}

// ---- the device --------------------------------------------------------------

/// This thread's device.
#[track_caller]
pub fn device() -> Device {
    with_state(|s| s.device)
}

/// Bind HIP to the state's device if the shadow says it is not.
fn sync_binding(state: &mut ThreadState) -> Result<Device> {
    if state.bound != Some(state.device) {
        state.bound = None;
        bind(state.device)?;
        state.bound = Some(state.device);
    }
    Ok(state.device)
}

/// Make this thread's device `device`, for this thread only.
#[track_caller]
pub fn set_device(device: Device) -> Result<()> {
    let device = Device::new(device.ordinal())?;
    with_state(|s| {
        s.device = device;
        sync_binding(s).map(drop)
    })
}

/// Make HIP's current device match this thread's state before an ambient
/// HIP call; returns the device. Already bound, it makes no HIP call.
#[track_caller]
#[inline]
pub fn prepare_state() -> Result<Device> {
    with_state(sync_binding)
}

/// Restores a thread's device and HIP binding when dropped (also on panic).
struct RestoreDevice(Device);

impl Drop for RestoreDevice {
    fn drop(&mut self) {
        let previous = self.0;
        with_state(|s| {
            s.device = previous;
            if let Err(error) = sync_binding(s) {
                log::warn!("restoring {previous}: {error}; the next HIP call retries");
            }
        });
    }
}

/// Run `f` with this thread's device set to `device`, then restore the
/// previous device, also if `f` panics. On a thread without state, the
/// state is created on the default device first, so that is what is
/// restored. If HIP cannot be bound, the state still switches and the next
/// [`prepare_state`] reports the error.
#[track_caller]
pub fn with_device<R>(device: Device, f: impl FnOnce() -> R) -> R {
    let previous = with_state(|s| {
        let previous = s.device;
        s.device = device;
        if let Err(error) = sync_binding(s) {
            log::warn!("switching to {device}: {error}");
        }
        previous
    });
    let _restore = RestoreDevice(previous);
    f()
}

/// The primary context of this thread's device.
#[track_caller]
pub fn context() -> Result<Context> {
    Context::primary(device())
}

/// Run `f` with `ctx` current (its device), then restore.
#[track_caller]
pub fn with_context<R>(ctx: Context, f: impl FnOnce() -> R) -> R {
    with_device(ctx.device(), f)
}

// ---- streams -----------------------------------------------------------------

/// This thread's stream on its device: the one installed by
/// [`set_stream`] / [`with_stream`], else a stream created on first use
/// for (device, priority) and kept for the thread's life. If HIP cannot
/// create one, the device's null stream is returned (and the error logged).
#[track_caller]
pub fn stream() -> Stream {
    with_state(|s| {
        if let Some(installed) = s.installed.get(&s.device) {
            return installed.clone();
        }
        let key = (s.device, s.priority);
        s.streams
            .entry(key)
            .or_insert_with(|| {
                Stream::with_priority_on(key.0, key.1).unwrap_or_else(|error| {
                    log::error!(
                        "creating this thread's stream on {}: {error}; using the null stream",
                        key.0
                    );
                    Stream::null(key.0)
                })
            })
            .clone()
    })
}

/// Make `stream` this thread's stream for its device, and that device this
/// thread's device.
#[track_caller]
pub fn set_stream(stream: &Stream) -> Result<()> {
    set_device(stream.device())?;
    with_state(|s| s.installed.insert(stream.device(), stream.clone()));
    Ok(())
}

/// Run `f` with `stream` as this thread's stream (and its device as the
/// thread's device), then restore both, also on panic.
#[track_caller]
pub fn with_stream<R>(stream: &Stream, f: impl FnOnce() -> R) -> R {
    let device = stream.device();
    with_device(device, || {
        let previous = with_state(|s| s.installed.insert(device, stream.clone()));
        struct RestoreStream(Device, Option<Stream>);
        impl Drop for RestoreStream {
            fn drop(&mut self) {
                let (device, previous) = (self.0, self.1.take());
                // The replaced stream is dropped after the state borrow ends.
                let _replaced = with_state(|s| match previous {
                    Some(p) => s.installed.insert(device, p),
                    None => s.installed.remove(&device),
                });
            }
        }
        let _restore = RestoreStream(device, previous);
        f()
    })
}

/// The priority of the streams [`stream`] creates for this thread.
#[track_caller]
pub fn priority() -> i32 {
    with_state(|s| s.priority)
}

/// Run `f` with stream priority `priority`, then restore it.
#[track_caller]
pub fn with_priority<R>(priority: i32, f: impl FnOnce() -> R) -> R {
    let previous = with_state(|s| std::mem::replace(&mut s.priority, priority));
    struct RestorePriority(i32);
    impl Drop for RestorePriority {
        fn drop(&mut self) {
            let p = self.0;
            with_state(|s| s.priority = p);
        }
    }
    let _restore = RestorePriority(previous);
    f()
}

// ---- the last error ----------------------------------------------------------

fn last_error(take: bool) -> Result<Option<HipError>> {
    let api = api()?;
    // SAFETY: no arguments.
    let status = unsafe {
        if take {
            (api.hipGetLastError)()
        } else {
            (api.hipPeekAtLastError)()
        }
    };
    Ok(crate::check(
        status,
        if take {
            "hipGetLastError"
        } else {
            "hipPeekAtLastError"
        },
    )
    .err())
}

/// HIP's last error on this thread, left in place.
pub fn peek_last_error() -> Result<Option<HipError>> {
    last_error(false)
}

/// HIP's last error on this thread, cleared.
pub fn take_last_error() -> Result<Option<HipError>> {
    last_error(true)
}
