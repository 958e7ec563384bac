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
//! - [`underway()`]: whether any capture of this process is (one atomic load;
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

pub use crate::replay_order::ReplayOrder;
use crate::underway::{self, check_wait_raw};
use crate::{raw, Device, HipError, Result, Stream};
use hip_sys::hipStreamCaptureStatus;
use hip_sys::sync::MutexExt;
use std::any::Any;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

pub use crate::underway::{check_blocking, exclusive, global_underway, on_this_thread, relaxed, underway, CaptureMode};

/// The scopes of the listed captures, for [`of`].
static SCOPES: Mutex<Vec<Arc<CaptureScope>>> = Mutex::new(Vec::new());

/// Something captured work needs at every replay: kept alive by the graph
/// and by every executable graph made of it, and told of each launch.
pub trait GraphResource: Any + Send + Sync {
    /// Called before each launch of an executable graph that keeps it, for
    /// the launch on `stream`: order the replay after what it must follow
    /// (GPU waits only). An error stops the launch, which then calls
    /// [`after_replay`](Self::after_replay) of the resources that prepared
    /// before it, as for a launch that queued nothing.
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

    /// Whether launches must call [`before_replay`](Self::before_replay)
    /// and [`after_replay`](Self::after_replay) (the default). A resource
    /// that is only kept alive says `false`, and launches pass it by.
    fn observes_replays(&self) -> bool {
        true
    }

    /// A test a launch makes before calling the hooks, read once when an
    /// executable graph takes the resource: `Some((id, pending))` says
    /// that for a launch on the stream whose [`Stream::id`] is `id`, both
    /// hooks have nothing to do while `pending` reads 0, so the launch
    /// reads it instead of calling them (a memory's own stream, and its
    /// count of uses elsewhere). `None` (the default): always call them.
    /// `pending` must live as long as the resource.
    fn quiet_on(&self) -> Option<(u64, &AtomicUsize)> {
        None
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
    /// Complete with the origin's work queued before the capture began
    /// (recorded on a relay stream, see `mark_before`).
    before: crate::Event,
    kept: Mutex<Vec<Kept>>,
    /// The order its graph's launches take, if shared ([`CaptureScope::replay_in`]).
    order: Mutex<Option<Arc<ReplayOrder>>>,
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

    /// An event that completes with the work queued on `stream` before the
    /// capture began on it, if `stream` is the origin: what work on another
    /// stream waits for to follow that work (an event recorded on a
    /// capturing stream records into the graph instead, and HIP refuses a
    /// wait on one recorded there earlier, so this one is recorded on a
    /// stream that never captures).
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

    /// Launch the executable graphs of this capture's graph in `order`,
    /// with those of every other graph whose capture was given it: for
    /// graphs that share memory (blocks of one shared private pool), whose
    /// replays must never run at once. The first order given wins; without
    /// one, the graph has an order of its own.
    pub fn replay_in(&self, order: &Arc<ReplayOrder>) {
        self.order.lock_unpoisoned().get_or_insert_with(|| order.clone());
    }
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
    let scopes = SCOPES.lock_unpoisoned();
    Ok(scopes.iter().find(|s| s.id == id && s.device == stream.device()).cloned())
}

/// Wait on the host for `stream`, as [`Stream::synchronize`], but where a
/// capture of another thread forbids the wait (one in the Global mode, or
/// one of `stream` itself), wait for that capture to end first instead of
/// refusing: for work whose contract is to return only once its stream
/// has drained (a copy scope's end; a use that could not be recorded).
///
/// A capture whose closure waits for the calling thread then never ends:
/// do not call this while another thread's capture waits on this one.
///
/// # Errors
/// [`HipError::CaptureUnderway`] when the wait could never happen: the
/// calling thread captures in a mode other than Relaxed, or captures
/// `stream` itself, or `stream` captures through the raw API (not
/// listed); else HIP's status of `hipStreamSynchronize`.
#[doc(alias = "hipStreamSynchronize")]
pub fn synchronize_after_captures(stream: &Stream) -> Result<()> {
    loop {
        let seen = underway::changes();
        match stream.synchronize() {
            Err(HipError::CaptureUnderway { .. }) if others_forbid(stream)? => underway::wait_for_change(seen),
            other => return other,
        }
    }
}

/// Whether only other threads' listed captures forbid a wait for
/// `stream` (so that waiting for them to end lets it happen).
fn others_forbid(stream: &Stream) -> Result<bool> {
    if underway::mine_strict() {
        return Ok(false);
    }
    // SAFETY: a live stream of its device.
    let (status, _) = unsafe { raw::graph::capture_info(stream.device(), stream.as_raw()) }?;
    if status == hipStreamCaptureStatus::hipStreamCaptureStatusNone {
        return Ok(true);
    }
    Ok(scope_of(stream)?.is_some_and(|scope| !underway::is_mine(scope.id)))
}

/// Refuse a wait for `stream` (`hipStreamSynchronize`, `hipStreamQuery`)
/// that would break a capture, before it is made: `stream` captures (its
/// work is being recorded, not run; any capture, also one begun through
/// the raw API), or a Global capture is underway, or one of the calling
/// thread's that is not Relaxed (HIP refuses such a wait and invalidates
/// those captures).
///
/// # Errors
/// [`HipError::CaptureUnderway`] naming
/// `operation`; HIP's status of `hipStreamGetCaptureInfo`.
#[inline]
pub fn check_wait(operation: &'static str, stream: &Stream) -> Result<()> {
    check_wait_raw(operation, stream.device(), stream.as_raw())
}

/// Begin capturing `stream` in `mode` and list the capture (after any
/// exclusive work). The caller must [`end`] it, on every path.
pub(crate) fn begin(stream: &Stream, mode: CaptureMode) -> Result<Arc<CaptureScope>> {
    let device = stream.device();
    let scope = underway::list(mode, || {
        let before = mark_before(stream)?;
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
        let scope = Arc::new(CaptureScope {
            id,
            device,
            mode,
            origin: stream.id(),
            before,
            kept: Mutex::new(Vec::new()),
            order: Mutex::new(None),
        });
        SCOPES.lock_unpoisoned().push(scope.clone());
        Ok((id, scope))
    })?;
    Ok(scope)
}

/// Work that waits for the captures to end (it synchronizes), queued by
/// [`after_captures`].
type After = Box<dyn FnOnce() + Send>;
static AFTER: Mutex<Vec<After>> = Mutex::new(Vec::new());

/// Run `work` now if no capture is underway, else once the last one has
/// ended (on the thread that ends it). For cleanup that must wait for the
/// GPU, such as freeing an executable graph after its last launch.
pub fn after_captures(work: impl FnOnce() + Send + 'static) {
    if !underway() {
        return work();
    }
    AFTER.lock_unpoisoned().push(Box::new(work));
    // The last capture may have ended meanwhile, before the push.
    if !underway() {
        run_after_captures();
    }
}

/// Run what [`after_captures`] queued (each item once, whoever takes it).
fn run_after_captures() {
    let queued = std::mem::take(&mut *AFTER.lock_unpoisoned());
    for work in queued {
        work();
    }
}

/// An event that completes with the work queued so far on `stream`, and
/// that is recorded on another stream, one that never captures: clr
/// refuses a wait on an event recorded on a stream that captures now, if
/// the recording was not part of the capture (`hipErrorStreamCaptureIsolation`),
/// whoever waits.
fn mark_before(stream: &Stream) -> Result<crate::Event> {
    static RELAYS: Mutex<Vec<(Device, Stream)>> = Mutex::new(Vec::new());
    let device = stream.device();
    let relay = {
        let mut relays = RELAYS.lock_unpoisoned();
        match relays.iter().find(|(d, _)| *d == device) {
            Some((_, relay)) => relay.clone(),
            None => {
                let relay = Stream::new_on(device)?;
                relays.push((device, relay.clone()));
                relay
            }
        }
    };
    let queued = crate::Event::untimed_on(device)?;
    queued.record(stream)?;
    relay.wait(&queued)?;
    let before = crate::Event::untimed_on(device)?;
    before.record(&relay)?;
    Ok(before)
}

/// Unlist a capture that [`begin`] listed (its HIP capture ended); what
/// its graph keeps.
pub(crate) fn end(scope: &CaptureScope) -> (Vec<Arc<dyn GraphResource>>, Arc<ReplayOrder>) {
    SCOPES.lock_unpoisoned().retain(|s| !std::ptr::eq(&**s, scope));
    underway::unlist(scope.id, scope.mode);
    if !underway() {
        run_after_captures();
    }
    let order = scope.order.lock_unpoisoned().take().unwrap_or_default();
    (scope.take_kept(), order)
}
