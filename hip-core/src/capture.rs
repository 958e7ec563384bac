//! The captures underway through [`Stream::capture`], for the layers above
//! that must behave differently while one runs: the pool, the libraries,
//! the facade's synchronous calls.
//!
//! A capture records work instead of running it, and HIP forbids, during
//! one, much of what a runtime does behind its users' backs: querying an
//! event recorded in it (`hipErrorCapturedEvent`), allocating or freeing
//! through the driver, synchronizing a stream or the device (on AMD, a
//! synchronous copy on *any* thread breaks *every* capture). The pieces
//! here let those layers ask and act:
//!
//! - [`underway`]: whether any capture of this process is (one atomic load;
//!   while it says no, nothing below costs anything);
//! - [`of`]: the [`CaptureScope`] a stream captures into, if it is one of
//!   ours (the origin stream or one joined to it through an event);
//! - [`CaptureScope::keep`]: something the captured work needs at every
//!   replay, a [`GraphResource`]: the graph, then every executable graph
//!   made of it, keeps it alive, and each launch calls its
//!   [`before_replay`](GraphResource::before_replay) and
//!   [`after_replay`](GraphResource::after_replay) (the pool's buffers
//!   order their other uses around replays this way);
//! - [`exclusive`]: run work that would break a capture (a device
//!   synchronize, driver frees) when none is underway, holding new
//!   captures back meanwhile; refused on a thread that is capturing.
//!
//! Captures begun through the raw API are not listed: the layers above do
//! not know about them and may break them.

use crate::{raw, Device, HipError, Result, Stream};
use hip_sys::sync::MutexExt;
use hip_sys::{hipStreamCaptureMode, hipStreamCaptureStatus};
use std::any::Any;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

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

/// Something captured work needs at every replay: kept alive by the graph
/// and by every executable graph made of it, and told of each launch.
pub trait GraphResource: Any + Send + Sync {
    /// Called before each launch of an executable graph that keeps it, for
    /// the launch on `stream`: order the replay after what it must follow
    /// (GPU waits only). An error stops the launch.
    ///
    /// # Errors
    /// The HIP call that failed.
    fn before_replay(&self, stream: &Stream) -> Result<()> {
        let _ = stream;
        Ok(())
    }

    /// Called after each launch was enqueued on `stream`: note the replay
    /// for what must follow it. On an error, the launch synchronizes
    /// `stream` before returning it.
    ///
    /// # Errors
    /// The HIP call that failed.
    fn after_replay(&self, stream: &Stream) -> Result<()> {
        let _ = stream;
        Ok(())
    }
}

/// A kept resource, by key, as its type (for [`CaptureScope::keep`]'s
/// look-up) and as a resource (for the launches).
struct Kept {
    key: usize,
    any: Arc<dyn Any + Send + Sync>,
    resource: Arc<dyn GraphResource>,
}

/// One capture underway through [`Stream::capture`]: its id, device and
/// mode, and what its graph will keep.
pub struct CaptureScope {
    id: u64,
    device: Device,
    mode: CaptureMode,
    origin: u64,
    /// Recorded on the origin stream just before the capture began.
    before: crate::Event,
    kept: Mutex<Vec<Kept>>,
}

impl std::fmt::Debug for CaptureScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CaptureScope({} on {}, {:?})", self.id, self.device, self.mode)
    }
}

impl CaptureScope {
    /// HIP's id of the capture (`hipStreamGetCaptureInfo`).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The device of the capturing stream.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The mode it was begun in.
    pub fn mode(&self) -> CaptureMode {
        self.mode
    }

    /// [`Stream::id`] of the stream it began on.
    pub fn origin(&self) -> u64 {
        self.origin
    }

    /// An event recorded on `stream` just before the capture began on it,
    /// if `stream` is the origin: what work on another stream waits for to
    /// follow the origin's work queued before the capture (an event
    /// recorded on a capturing stream records into the graph instead).
    pub fn before(&self, stream: &Stream) -> Option<&crate::Event> {
        (stream.id() == self.origin).then_some(&self.before)
    }

    /// The resource kept under `key` if there is one of type `T`, else
    /// `make()`'s, now kept under `key`: the graph keeps it alive and
    /// tells it of every launch.
    pub fn keep<T: GraphResource>(&self, key: usize, make: impl FnOnce() -> T) -> Arc<T> {
        let mut kept = self.kept.lock_unpoisoned();
        if let Some(found) = kept.iter().find(|k| k.key == key).and_then(|k| k.any.clone().downcast::<T>().ok()) {
            return found;
        }
        let made = Arc::new(make());
        kept.push(Kept { key, any: made.clone(), resource: made.clone() });
        made
    }

    /// What the graph keeps (taken once, at the end).
    fn take_kept(&self) -> Vec<Arc<dyn GraphResource>> {
        self.kept.lock_unpoisoned().drain(..).map(|k| k.resource).collect()
    }
}

/// The listed captures, and whether [`exclusive`] work holds new ones back.
struct Gate {
    scopes: Vec<Arc<CaptureScope>>,
    exclusive: bool,
}

static GATE: Mutex<Gate> = Mutex::new(Gate { scopes: Vec::new(), exclusive: false });
static CHANGED: Condvar = Condvar::new();
/// `GATE.scopes.len()`, read without the lock.
static UNDERWAY: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// How many captures this thread has begun and not ended.
    static MINE: Cell<usize> = const { Cell::new(0) };
}

/// Whether any capture begun through [`Stream::capture`] is underway, on
/// any thread (one atomic load).
#[inline]
pub fn underway() -> bool {
    UNDERWAY.load(Ordering::Acquire) != 0
}

/// Whether the capture of id `id` (a [`CaptureScope::id`]) is still
/// underway.
pub fn is_underway(id: u64) -> bool {
    underway() && GATE.lock_unpoisoned().scopes.iter().any(|s| s.id == id)
}

/// Whether a capture begun in [`CaptureMode::Global`] is underway: then a
/// driver allocation or a synchronization on *any* thread not in the
/// Relaxed mode breaks it.
pub fn global_underway() -> bool {
    underway() && GATE.lock_unpoisoned().scopes.iter().any(|s| s.mode == CaptureMode::Global)
}

/// Whether the calling thread is inside a [`Stream::capture`].
pub fn on_this_thread() -> bool {
    MINE.with(Cell::get) != 0
}

/// The capture `stream` records into, when it is one begun through
/// [`Stream::capture`] (on this stream, or on one it joined through an
/// event). `None` at the cost of one atomic load while no capture is
/// underway; else one `hipStreamGetCaptureInfo`.
///
/// # Errors
/// HIP's status of `hipStreamGetCaptureInfo`: for the legacy null stream
/// while a blocking stream of its device captures,
/// `hipErrorStreamCaptureImplicit` (no work may go there then).
#[inline]
pub fn of(stream: &Stream) -> Result<Option<Arc<CaptureScope>>> {
    if !underway() {
        return Ok(None);
    }
    scope_of(stream)
}

#[cold]
fn scope_of(stream: &Stream) -> Result<Option<Arc<CaptureScope>>> {
    // SAFETY: a live stream of its device.
    let (status, id) = unsafe { raw::graph::capture_info(stream.device(), stream.as_raw()) }?;
    if status == hipStreamCaptureStatus::hipStreamCaptureStatusNone {
        return Ok(None);
    }
    let gate = GATE.lock_unpoisoned();
    Ok(gate.scopes.iter().find(|s| s.id == id && s.device == stream.device()).cloned())
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
    while gate.exclusive || !gate.scopes.is_empty() {
        gate = CHANGED.wait(gate).unwrap_or_else(std::sync::PoisonError::into_inner);
    }
    gate.exclusive = true;
    drop(gate);
    let _done = Reopen;
    Ok(work())
}

/// [`exclusive`] without waiting: `None` while a capture is underway.
pub fn try_exclusive<R>(work: impl FnOnce() -> R) -> Option<R> {
    if on_this_thread() {
        return None;
    }
    let mut gate = GATE.lock_unpoisoned();
    if gate.exclusive || !gate.scopes.is_empty() {
        return None;
    }
    gate.exclusive = true;
    drop(gate);
    let _done = Reopen;
    Some(work())
}

/// Ends exclusive work, also on a panic.
struct Reopen;

impl Drop for Reopen {
    fn drop(&mut self) {
        GATE.lock_unpoisoned().exclusive = false;
        CHANGED.notify_all();
    }
}

/// Begin capturing `stream` in `mode` and list the capture (after any
/// exclusive work). The caller must [`end`] it, on every path.
pub(crate) fn begin(stream: &Stream, mode: CaptureMode) -> Result<Arc<CaptureScope>> {
    let device = stream.device();
    let mut gate = GATE.lock_unpoisoned();
    while gate.exclusive {
        gate = CHANGED.wait(gate).unwrap_or_else(std::sync::PoisonError::into_inner);
    }
    let before = crate::Event::untimed_on(device)?;
    before.record(stream)?;
    // Under the gate's lock: exclusive work cannot start in between.
    // SAFETY: a live stream of its device.
    unsafe { raw::graph::begin_capture(device, stream.as_raw(), mode.raw()) }?;
    // SAFETY: as above; it captures now.
    let id = match unsafe { raw::graph::capture_info(device, stream.as_raw()) } {
        Ok((_, id)) => id,
        Err(error) => {
            // SAFETY: as above: end what was just begun.
            if let Ok(graph) = unsafe { raw::graph::end_capture(device, stream.as_raw()) } {
                if !graph.is_null() {
                    // SAFETY: the empty graph just returned, destroyed once.
                    let _ = unsafe { raw::graph::destroy_graph(device, graph) };
                }
            }
            return Err(error);
        }
    };
    let scope = Arc::new(CaptureScope { id, device, mode, origin: stream.id(), before, kept: Mutex::new(Vec::new()) });
    gate.scopes.push(scope.clone());
    UNDERWAY.store(gate.scopes.len(), Ordering::Release);
    MINE.with(|mine| mine.set(mine.get() + 1));
    Ok(scope)
}

/// Unlist a capture that [`begin`] listed (its HIP capture ended); what
/// its graph keeps.
pub(crate) fn end(scope: &CaptureScope) -> Vec<Arc<dyn GraphResource>> {
    {
        let mut gate = GATE.lock_unpoisoned();
        gate.scopes.retain(|s| !std::ptr::eq(&**s, scope));
        UNDERWAY.store(gate.scopes.len(), Ordering::Release);
    }
    MINE.with(|mine| mine.set(mine.get().saturating_sub(1)));
    CHANGED.notify_all();
    scope.take_kept()
}
