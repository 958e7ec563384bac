//! The per-thread GPU state and the functions that read and switch it.
//!
//! Each thread has a [`ThreadState`]: its device, its stream priority, one
//! lazily created stream per (device, priority), and streams installed by
//! [`set_stream`] / [`with_stream`]. A thread that never asks has none; the
//! first access creates it on [`default_device()`].
//!
//! The state is authoritative; HIP's own current device follows it. Switches
//! bind HIP at once when they can, and [`prepare_state`] re-binds before an
//! ambient HIP call if a bind failed. `raw` records HIP's current device as
//! this crate last set or read it (every bind goes through it), and the
//! thread's device is mirrored in a plain `Cell`, so the fast paths compare
//! two thread-local words and make no HIP call. Code that calls
//! `hipSetDevice` itself must restore HIP's device (as
//! [`crate::raw::on_device`] does).
//!
//! Nothing here drains HIP's last error: [`peek_last_error`] and
//! [`take_last_error`] are explicit.

use crate::raw::{self, bind};
use crate::stream::KeptStream;
use crate::{audit, check, Context, Device, HipError, Result, Stream};
use hip_sys::sync::MutexExt;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

/// One thread's GPU state.
pub struct ThreadState {
    /// Mirrored in [`Fast::device`]; changed only through `set`.
    device: Device,
    priority: i32,
    streams: SmallMap<(Device, i32), Stream>,
    installed: SmallMap<Device, Stream>,
}

impl ThreadState {
    fn new() -> ThreadState {
        let device = default_device();
        FAST.with(|fast| fast.device.set(device.ordinal() + 1));
        raw::expect(device.ordinal() + 1);
        ThreadState { device, priority: 0, streams: SmallMap::default(), installed: SmallMap::default() }
    }

    /// Make `device` the thread's device, in the state and its mirror.
    fn set(&mut self, device: Device) {
        self.device = device;
        FAST.with(|fast| fast.device.set(device.ordinal() + 1));
        raw::expect(device.ordinal() + 1);
    }
}

/// Streams of threads that have exited, kept for the next thread that
/// needs one on that device and priority. A thread's streams are never
/// destroyed: they are kept for the process (so cloning one changes no
/// count), thread-exit order between this crate's state and the HIP
/// runtime's own thread-locals is not defined, and thread pools would
/// otherwise create and destroy a stream per thread. So a process holds
/// as many of them as it ever had threads using one at the same time.
static IDLE_STREAMS: Mutex<Vec<((Device, i32), Stream)>> = Mutex::new(Vec::new());

impl Drop for ThreadState {
    fn drop(&mut self) {
        // The cached stream goes with the state it came from.
        let _ = FAST.try_with(|fast| fast.stream.set(None));
        IDLE_STREAMS.lock_unpoisoned().append(&mut self.streams.0);
    }
}

/// An idle stream for `key`, if an exited thread left one.
fn take_idle_stream(key: (Device, i32)) -> Option<Stream> {
    let mut idle = IDLE_STREAMS.lock_unpoisoned();
    // The most recently returned first: its work is the likeliest done.
    let position = idle.iter().rposition(|(k, _)| *k == key)?;
    Some(idle.remove(position).1)
}

/// Streams kept from exited threads, for tests and diagnostics.
pub fn idle_streams() -> usize {
    IDLE_STREAMS.lock_unpoisoned().len()
}

thread_local! {
    static STATE: RefCell<Option<ThreadState>> = const { RefCell::new(None) };
    static FAST: Fast = const { Fast { device: Cell::new(0), stream: Cell::new(None) } };
}

/// The fast paths' view of [`ThreadState`], in `Cell`s of types without a
/// destructor, so reading it is a thread-local load with no registration
/// check.
struct Fast {
    /// Ordinal + 1 of the thread's device; 0 before the state exists.
    /// Where it equals [`raw::bound`] HIP is on the thread's device.
    device: Cell<usize>,
    /// What [`stream`] would answer, when that is a kept stream; cleared by
    /// every other access to the state ([`with_state`]), so it is never
    /// stale.
    stream: Cell<Option<KeptStream>>,
}

/// Run `f` on this thread's state, creating it on the default device.
/// Anything may change, so the cached stream is forgotten.
#[track_caller]
fn with_state<R>(f: impl FnOnce(&mut ThreadState) -> R) -> R {
    audit::touch();
    FAST.with(|fast| fast.stream.set(None));
    STATE.with(|cell| f(cell.borrow_mut().get_or_insert_with(ThreadState::new)))
}

/// Whether this thread has GPU state yet (drops must never create it).
pub fn thread_state_exists() -> bool {
    STATE.try_with(|cell| cell.borrow().is_some()).unwrap_or(false)
}

/// A map for a handful of entries (devices × priorities a thread uses): a
/// linear scan of a vector beats hashing at this size.
struct SmallMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap(Vec::new())
    }
}

impl<K: PartialEq, V> SmallMap<K, V> {
    fn get(&self, key: &K) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => Some(std::mem::replace(v, value)),
            None => {
                self.0.push((key, value));
                None
            }
        }
    }

    fn remove(&mut self, key: &K) -> Option<V> {
        let position = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.swap_remove(position).1)
    }
}

// ---- the default device ----------------------------------------------------

static DEFAULT: AtomicUsize = AtomicUsize::new(0);
static DEFAULT_FROM_ENV: Once = Once::new();

/// The device new threads start on: device 0, `AMDGPU_DEFAULT_DEVICE` if
/// set at start, or what [`set_default_device`] chose. Only those change it.
pub fn default_device() -> Device {
    DEFAULT_FROM_ENV.call_once(|| {
        if let Ok(value) = std::env::var("AMDGPU_DEFAULT_DEVICE") {
            match value.trim().parse::<usize>().map_err(|_| None).and_then(|n| Device::new(n).map_err(Some)) {
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
///
/// # Errors
/// [`HipError::InvalidDevice`] when `device`'s ordinal is not below
/// [`Device::count`]; else as [`Device::count`]. The default is unchanged.
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
    match FAST.with(|fast| fast.device.get()) {
        0 => with_state(|s| s.device),
        n => {
            audit::touch();
            Device::from_ordinal_unchecked(n - 1)
        }
    }
}

/// Whether HIP is, by this crate's record, on the thread's device (its
/// ordinal + 1 if so): one thread-local load, the word `raw` keeps of
/// whether its record and the state's device agree.
#[inline]
fn bound_here() -> Option<usize> {
    let ready = raw::ready();
    (ready != 0).then_some(ready)
}

/// Bind HIP to the state's device unless the record says it is there.
fn sync_binding(state: &mut ThreadState) -> Result<Device> {
    if raw::bound() != state.device.ordinal() + 1 {
        bind(state.device)?;
    }
    Ok(state.device)
}

/// Make this thread's device `device`, for this thread only (binding HIP
/// with `hipSetDevice`).
///
/// # Errors
/// As [`Device::new`] (the state is then unchanged); else HIP's status of
/// `hipSetDevice` ([`HipError::Call`]), after the state has switched: the
/// next [`prepare_state`] binds again.
///
/// # Examples
/// ```
/// use hip_core::{default_device, device, set_device, Device};
///
/// let last = Device::new(Device::count()? - 1)?;
/// set_device(last)?;
/// assert_eq!(device(), last);
/// let elsewhere = std::thread::spawn(|| device()).join().unwrap();
/// assert_eq!(elsewhere, default_device()); // other threads keep theirs
/// # Ok::<(), hip_core::HipError>(())
/// ```
#[track_caller]
#[doc(alias = "hipSetDevice")]
pub fn set_device(device: Device) -> Result<()> {
    let device = Device::new(device.ordinal())?;
    with_state(|s| {
        s.set(device);
        sync_binding(s).map(drop)
    })
}

/// Make HIP's current device match this thread's state before an ambient
/// HIP call; returns the device. Already bound, it makes no HIP call: a
/// thread-local read and a compare.
///
/// # Errors
/// HIP's status of `hipSetDevice` ([`HipError::Call`]) when HIP had to be
/// bound and could not; [`HipError::Backend`] when no backend loads.
#[track_caller]
#[inline]
pub fn prepare_state() -> Result<Device> {
    match bound_here() {
        None => prepare_state_slow(),
        Some(n) => {
            audit::touch();
            Ok(Device::from_ordinal_unchecked(n - 1))
        }
    }
}

#[cold]
#[track_caller]
fn prepare_state_slow() -> Result<Device> {
    with_state(sync_binding)
}

/// Restores a thread's device and HIP binding when dropped (also on panic):
/// the device the state had, and HIP's device as recorded on entry
/// (`raw::bound`, ordinal + 1) where that was another one, i.e. inside a
/// [`raw::on_device`] switch, which expects HIP back on its device.
struct RestoreDevice {
    previous: Device,
    hip: usize,
}

impl Drop for RestoreDevice {
    fn drop(&mut self) {
        restore_device(self.previous, self.hip);
    }
}

fn restore_device(previous: Device, hip: usize) {
    with_state(|s| {
        s.set(previous);
        let restored = match hip {
            0 => sync_binding(s).map(drop),
            n if n == previous.ordinal() + 1 => sync_binding(s).map(drop),
            n if raw::bound() == n => Ok(()),
            n => bind(Device::from_ordinal_unchecked(n - 1)),
        };
        if let Err(error) = restored {
            log::warn!("restoring {previous}: {error}; the next HIP call retries");
        }
    });
}

/// What [`with_device`] restores when the thread was already on the device
/// and bound: nothing, unless `f` left that (then as [`RestoreDevice`]).
struct KeepDevice(usize);

impl Drop for KeepDevice {
    #[inline]
    fn drop(&mut self) {
        if bound_here() != Some(self.0) {
            restore_device(Device::from_ordinal_unchecked(self.0 - 1), self.0);
        }
    }
}

/// Run `f` with this thread's device set to `device`, then restore the
/// previous device, also if `f` panics. On a thread without state, the
/// state is created on the default device first, so that is what is
/// restored. If HIP cannot be bound, the state still switches and the next
/// [`prepare_state`] reports the error.
///
/// On the device the thread is already on (and bound to), it is a
/// thread-local read and a compare before and after `f`.
///
/// # Examples
/// ```
/// use hip_core::{device, with_device, Device};
///
/// let before = device();
/// let last = Device::new(Device::count()? - 1)?;
/// let inside = with_device(last, || device());
/// assert_eq!(inside, last);
/// assert_eq!(device(), before);
/// # Ok::<(), hip_core::HipError>(())
/// ```
#[track_caller]
#[inline]
pub fn with_device<R>(device: Device, f: impl FnOnce() -> R) -> R {
    let here = device.ordinal() + 1;
    if bound_here() == Some(here) {
        // The state and HIP are on `device`: nothing to switch, and
        // nothing to restore unless `f` switches for good.
        audit::touch();
        let _keep = KeepDevice(here);
        return f();
    }
    let hip = raw::bound();
    let previous = with_state(|s| {
        let previous = s.device;
        s.set(device);
        if let Err(error) = sync_binding(s) {
            log::warn!("switching to {device}: {error}");
        }
        previous
    });
    let _restore = RestoreDevice { previous, hip };
    f()
}

/// Run `f` with `ctx` current (its device), then restore.
#[track_caller]
pub fn with_context<R>(ctx: Context, f: impl FnOnce() -> R) -> R {
    with_device(ctx.device(), f)
}

// ---- streams -----------------------------------------------------------------

/// This thread's stream on its device: the one installed by
/// [`set_stream`] / [`with_stream`], else a stream made on first use for
/// (device, priority) and kept for the thread's life (then handed to the
/// next thread that needs one, see [`idle_streams`]). If HIP cannot
/// create one, the device's null stream is returned (and the error logged).
#[track_caller]
#[inline]
pub fn stream() -> Stream {
    match FAST.with(|fast| fast.stream.get()) {
        Some(kept) => {
            audit::touch();
            kept.stream()
        }
        None => stream_slow(),
    }
}

#[track_caller]
#[cold]
fn stream_slow() -> Stream {
    let stream = with_state(|s| {
        if let Some(installed) = s.installed.get(&s.device) {
            return installed.clone();
        }
        let key = (s.device, s.priority);
        if let Some(stream) = s.streams.get(&key) {
            return stream.clone();
        }
        let stream = take_idle_stream(key).unwrap_or_else(|| {
            Stream::kept_with_priority_on(key.0, key.1).unwrap_or_else(|error| {
                log::error!("creating this thread's stream on {}: {error}; using the null stream", key.0);
                Stream::null(key.0)
            })
        });
        s.streams.insert(key, stream.clone());
        stream
    });
    // Until the state is next touched, this is the answer.
    FAST.with(|fast| fast.stream.set(stream.as_kept()));
    stream
}

/// Make `stream` this thread's stream for its device, and that device this
/// thread's device.
///
/// # Errors
/// As [`set_device`] for the stream's device; the stream is installed only
/// when that returns `Ok`.
#[track_caller]
pub fn set_stream(stream: &Stream) -> Result<()> {
    set_device(stream.device())?;
    with_state(|s| s.installed.insert(stream.device(), stream.clone()));
    Ok(())
}

/// Run `f` with `stream` as this thread's stream (and its device as the
/// thread's device), then restore both, also on panic.
///
/// # Examples
/// ```
/// use hip_core::{stream, with_stream, Device, Stream};
///
/// let mine = Stream::new_on(Device::new(0)?)?;
/// with_stream(&mine, || {
///     assert_eq!(stream(), mine);
///     stream().synchronize()
/// })?;
/// assert_ne!(stream(), mine);
/// # Ok::<(), hip_core::HipError>(())
/// ```
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
    let status = if take { raw::last_error::take()? } else { raw::last_error::peek()? };
    Ok(check(status, if take { "hipGetLastError" } else { "hipPeekAtLastError" }).err())
}

/// HIP's last error on this thread, left in place.
///
/// What it holds depends on the HIP version
/// ([`hip_sys::last_error_is_sticky`]): under HIP 7 and CUDA, the last
/// failure since it was last taken; under HIP 5 and 6, the status of the
/// thread's last HIP call, success included. Read with `hipPeekAtLastError`.
///
/// # Errors
/// [`HipError::Backend`] when no backend loads; HIP's last error itself
/// is the `Ok(Some(_))` answer, not an `Err`.
#[doc(alias = "hipPeekAtLastError")]
pub fn peek_last_error() -> Result<Option<HipError>> {
    last_error(false)
}

/// HIP's last error on this thread, reset to success (see
/// [`peek_last_error`] for what it holds per HIP version). Read with
/// `hipGetLastError`.
///
/// # Errors
/// As [`peek_last_error`].
#[doc(alias = "hipGetLastError")]
pub fn take_last_error() -> Result<Option<HipError>> {
    last_error(true)
}
