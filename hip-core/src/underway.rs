//! Which stream captures are underway, below every resource type: the
//! counters and the gate that [`crate::capture`] lists its captures in,
//! and the checks that a stream's or a device's synchronize, and the
//! blocking copies, make before they run (a refused call is a typed error,
//! not a broken capture).
//!
//! Only plain values live here (ids, devices, modes), so that `Stream`,
//! `Device` and the copies may ask without importing the capture scopes.

use crate::{raw, Device, HipError, Result};
use hip_sys::sync::MutexExt;
use hip_sys::{hipStreamCaptureMode, hipStreamCaptureStatus, hipStream_t};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// How a capture interacts with calls HIP forbids while it runs
/// (`hipStreamCaptureMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CaptureMode {
    /// Unsafe calls (allocation, synchronization) on any thread not in
    /// Relaxed mode break the capture.
    #[default]
    Global,
    /// Unsafe calls break the capture only on the capturing thread.
    ThreadLocal,
    /// No call breaks the capture; the caller keeps it sound.
    Relaxed,
}

impl CaptureMode {
    pub(crate) fn raw(self) -> hipStreamCaptureMode {
        match self {
            CaptureMode::Global => hipStreamCaptureMode::hipStreamCaptureModeGlobal,
            CaptureMode::ThreadLocal => hipStreamCaptureMode::hipStreamCaptureModeThreadLocal,
            CaptureMode::Relaxed => hipStreamCaptureMode::hipStreamCaptureModeRelaxed,
        }
    }
}

/// One listed capture.
struct Listed {
    id: u64,
    mode: CaptureMode,
}

/// The listed captures, and whether [`exclusive`] work holds new ones back.
struct Gate {
    listed: Vec<Listed>,
    exclusive: bool,
    /// How many times a capture was listed or unlisted, so that a waiter
    /// for the next change cannot miss it ([`wait_for_change`]).
    changes: u64,
}

static GATE: Mutex<Gate> = Mutex::new(Gate { listed: Vec::new(), exclusive: false, changes: 0 });
static CHANGED: Condvar = Condvar::new();
/// `GATE.listed.len()`, read without the lock.
static UNDERWAY: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The ids of the captures this thread has begun and not ended.
    static MINE: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// How many of them are not Relaxed (those its waits would break).
    static MINE_STRICT: Cell<usize> = const { Cell::new(0) };
}

/// Whether any capture begun through [`Stream::capture`](crate::Stream::capture)
/// is underway, on any thread (one atomic load).
#[inline]
pub fn underway() -> bool {
    UNDERWAY.load(Ordering::Acquire) != 0
}

/// Whether a capture begun in [`CaptureMode::Global`] is underway: then a
/// driver allocation or a synchronization on *any* thread not in the
/// Relaxed mode breaks it.
pub fn global_underway() -> bool {
    underway() && GATE.lock_unpoisoned().listed.iter().any(|l| l.mode == CaptureMode::Global)
}

/// Whether the calling thread is inside a [`Stream::capture`](crate::Stream::capture).
pub fn on_this_thread() -> bool {
    MINE.with(|mine| !mine.borrow().is_empty())
}

/// Whether the capture `id` was begun on the calling thread (and is
/// underway).
pub(crate) fn is_mine(id: u64) -> bool {
    MINE.with(|mine| mine.borrow().contains(&id))
}

/// Whether the calling thread has a capture underway that is not Relaxed:
/// its own waits break it, so waiting for captures to end never returns.
pub(crate) fn mine_strict() -> bool {
    MINE_STRICT.with(Cell::get) != 0
}

/// How many times a capture was listed or unlisted so far.
pub(crate) fn changes() -> u64 {
    GATE.lock_unpoisoned().changes
}

/// Block until a capture is listed or unlisted after [`changes`] said
/// `seen`.
pub(crate) fn wait_for_change(seen: u64) {
    let mut gate = GATE.lock_unpoisoned();
    while gate.changes == seen {
        gate = CHANGED.wait(gate).unwrap_or_else(std::sync::PoisonError::into_inner);
    }
}

/// [`check_wait`](crate::capture::check_wait) of the stream `handle` of
/// `device`.
#[inline]
pub(crate) fn check_wait_raw(operation: &'static str, device: Device, handle: hipStream_t) -> Result<()> {
    if !underway() {
        return Ok(());
    }
    check_wait_slow(operation, device, handle)
}

#[cold]
fn check_wait_slow(operation: &'static str, device: Device, handle: hipStream_t) -> Result<()> {
    // SAFETY: the caller's live stream of `device`.
    let (status, _) = unsafe { raw::graph::capture_info(device, handle) }?;
    if status != hipStreamCaptureStatus::hipStreamCaptureStatusNone {
        return Err(HipError::CaptureUnderway {
            operation,
            why: "it waits for a stream that captures, whose work is recorded, not run",
        });
    }
    strict_captures(operation, Awaited::Stream)
}

/// What a refused wait waits for.
#[derive(Clone, Copy)]
enum Awaited {
    Stream,
    Event,
}

/// Refuse a wait that would break a capture: one of the calling thread's
/// that is not Relaxed, or one in the Global mode on any thread; the
/// error says whose, and what to do.
fn strict_captures(operation: &'static str, awaited: Awaited) -> Result<()> {
    let why = match (awaited, mine_strict(), global_underway()) {
        (_, false, false) => return Ok(()),
        (Awaited::Stream, true, _) => {
            "it waits for a stream, which breaks this thread's own capture (Global or ThreadLocal mode); wait \
             after the capture ends"
        }
        (Awaited::Event, true, _) => {
            "waiting for or querying an event breaks this thread's own capture (Global or ThreadLocal mode); \
             wait after the capture ends"
        }
        (Awaited::Stream, false, true) => {
            "it waits for a stream while another thread captures in the Global mode, which any thread's wait \
             breaks; wait for that capture to end, or have it capture in the ThreadLocal or Relaxed mode"
        }
        (Awaited::Event, false, true) => {
            "waiting for or querying an event breaks a capture in the Global mode that another thread has \
             underway; wait for that capture to end, or have it capture in the ThreadLocal or Relaxed mode"
        }
    };
    Err(HipError::CaptureUnderway { operation, why })
}

/// Refuse a host wait for an event, or a query of one
/// (`hipEventSynchronize`, `hipEventQuery`), that would break a capture:
/// while a Global capture, or one of the calling thread's that is not
/// Relaxed, is underway (HIP refuses the wait, CUDA the query too, and
/// both invalidate those captures).
///
/// # Errors
/// [`HipError::CaptureUnderway`] naming `operation`.
#[inline]
pub(crate) fn check_event_wait(operation: &'static str) -> Result<()> {
    if !underway() {
        return Ok(());
    }
    strict_captures(operation, Awaited::Event)
}

/// Refuse a blocking copy or fill (`hipMemcpy`, `hipMemset`) or a device
/// synchronize while any capture is underway: on AMD either breaks every
/// capture of the process, whatever its mode.
///
/// # Errors
/// [`HipError::CaptureUnderway`] naming `operation`.
#[inline]
pub fn check_blocking(operation: &'static str) -> Result<()> {
    if !underway() {
        return Ok(());
    }
    Err(HipError::CaptureUnderway {
        operation,
        why: "a blocking copy, fill or device synchronize on any thread breaks every capture underway (on AMD)",
    })
}

/// Run `call` with the calling thread in the Relaxed capture mode while
/// any capture is underway (`hipThreadExchangeStreamCaptureMode`), and the
/// mode restored after, also on a panic; with none underway, just `call`.
///
/// For a call that is safe for every capture but that HIP refuses in the
/// Global mode (and then breaks the capture): an allocation or free of
/// memory no captured work uses, such as new pool memory or pinned host
/// memory made or freed on any thread.
///
/// # Errors
/// HIP's status of `hipThreadExchangeStreamCaptureMode` (then `call` does
/// not run).
pub fn relaxed<R>(call: impl FnOnce() -> R) -> Result<R> {
    if !underway() {
        return Ok(call());
    }
    let previous = raw::graph::exchange_capture_mode(CaptureMode::Relaxed.raw())?;
    struct Restore(hipStreamCaptureMode);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Err(error) = raw::graph::exchange_capture_mode(self.0) {
                log::error!("restoring the thread's capture mode: {error}");
            }
        }
    }
    let _restore = Restore(previous);
    Ok(call())
}

/// Run `work`, which would break a capture (it synchronizes a device or
/// frees through the driver), when no capture is underway, and hold new
/// captures back until it returns.
///
/// # Errors
/// [`HipError::CaptureUnderway`] naming `operation` when the calling
/// thread is inside a capture (waiting for it would never end).
pub fn exclusive<R>(operation: &'static str, work: impl FnOnce() -> R) -> Result<R> {
    if on_this_thread() {
        return Err(HipError::CaptureUnderway {
            operation,
            why: "it synchronizes or frees device memory, and waiting for the capture to end would never return",
        });
    }
    let mut gate = GATE.lock_unpoisoned();
    while gate.exclusive || !gate.listed.is_empty() {
        gate = CHANGED.wait(gate).unwrap_or_else(std::sync::PoisonError::into_inner);
    }
    gate.exclusive = true;
    drop(gate);
    let _done = Reopen;
    Ok(work())
}

/// Ends exclusive work, also on a panic.
struct Reopen;

impl Drop for Reopen {
    fn drop(&mut self) {
        GATE.lock_unpoisoned().exclusive = false;
        CHANGED.notify_all();
    }
}

/// Begin a capture in `mode` with `begin` (which returns its id) once no
/// exclusive work runs, under the gate's lock (none can start meanwhile),
/// and list it.
pub(crate) fn list<T>(mode: CaptureMode, begin: impl FnOnce() -> Result<(u64, T)>) -> Result<T> {
    let mut gate = GATE.lock_unpoisoned();
    while gate.exclusive {
        gate = CHANGED.wait(gate).unwrap_or_else(std::sync::PoisonError::into_inner);
    }
    let (id, value) = begin()?;
    gate.listed.push(Listed { id, mode });
    gate.changes += 1;
    UNDERWAY.store(gate.listed.len(), Ordering::Release);
    MINE.with(|mine| mine.borrow_mut().push(id));
    if mode != CaptureMode::Relaxed {
        MINE_STRICT.with(|mine| mine.set(mine.get() + 1));
    }
    Ok(value)
}

/// Unlist the capture `id` (begun in `mode` on this thread).
pub(crate) fn unlist(id: u64, mode: CaptureMode) {
    {
        let mut gate = GATE.lock_unpoisoned();
        gate.listed.retain(|l| l.id != id);
        gate.changes += 1;
        UNDERWAY.store(gate.listed.len(), Ordering::Release);
    }
    MINE.with(|mine| mine.borrow_mut().retain(|m| *m != id));
    if mode != CaptureMode::Relaxed {
        MINE_STRICT.with(|mine| mine.set(mine.get().saturating_sub(1)));
    }
    CHANGED.notify_all();
}
