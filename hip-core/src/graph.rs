//! Stream capture and graphs: [`Stream::capture`] records the work a
//! closure enqueues into a [`Graph`]; [`Graph::instantiate`] makes a
//! [`GraphExec`], which [`GraphExec::launch`] replays on a stream at the
//! cost of one call.
//!
//! A capture is a scope, as `std::thread::scope` is: it begins and ends on
//! the calling thread around the closure, so it cannot be ended from
//! another thread (HIP's `hipErrorStreamCaptureWrongThread`) and cannot
//! stay open across an `.await`. When the closure fails or panics, the
//! capture still ends and its graph is discarded. When HIP invalidated the
//! capture (a call the capture forbids, `hipErrorStreamCaptureInvalidated`
//! at the end), the stream is reset with an empty Relaxed capture, since
//! clr 6.2 and later leave it invalidated, refusing all later work.
//!
//! Work on other streams joins the capture through events, as HIP does: an
//! event recorded on the capturing stream and waited on by another stream
//! brings that stream in; it must be joined back (an event recorded there
//! and waited on by the capturing stream) before the closure returns.
//!
//! A graph keeps loaded the modules whose kernels it launches. The layers
//! above take part through [`crate::capture`]: the pool keeps
//! a hold on every buffer a capture uses (a [`GraphResource`] of the graph
//! and of every executable graph made of it, told of each launch, so that
//! replays are ordered with other work on those buffers and their blocks
//! are not reused while a replay may run), and allocations inside a
//! capture come from its private pool.

use crate::capture::{self, CaptureMode, CaptureScope, GraphResource};
use crate::replay_order::ReplayOrder;
use crate::{raw, Device, DeviceMismatch, GraphUpdateRefusal, HipError, Result, Stream};
use hip_sys::{hipError_t, hipGraphExec_t, hipGraph_t};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A captured graph: the operations, their order, and the addresses they
/// use. Destroyed on drop, under its device, from any thread.
pub struct Graph {
    handle: hipGraph_t,
    device: Device,
    /// What the captured work needs at every replay (see
    /// [`CaptureScope::keep`](crate::capture::CaptureScope::keep)).
    kept: Kept,
    /// The order its executable graphs launch in: its own, or that of
    /// the graphs it shares memory with.
    order: Arc<ReplayOrder>,
}

/// The resources a graph and its executable graphs keep.
type Kept = Arc<[Arc<dyn GraphResource>]>;

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Graph({:p} on {}, {} kept)", self.handle, self.device, self.kept.len())
    }
}

// SAFETY: HIP graph handles may be used from any thread; the graph is not
// changed after capture.
unsafe impl Send for Graph {}
// SAFETY: as above.
unsafe impl Sync for Graph {}

impl Graph {
    /// The device whose stream captured it.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The HIP handle, valid while `self` lives.
    pub fn as_raw(&self) -> hipGraph_t {
        self.handle
    }

    /// How many nodes (operations) it has (`hipGraphGetNodes`).
    ///
    /// # Errors
    /// HIP's status.
    #[doc(alias = "hipGraphGetNodes")]
    pub fn node_count(&self) -> Result<usize> {
        // SAFETY: a live graph.
        unsafe { raw::graph::node_count(self.handle) }
    }

    /// An executable graph of this graph (`hipGraphInstantiateWithFlags`).
    ///
    /// # Errors
    /// HIP's status.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{CaptureMode, Device, HipError, Stream};
    ///
    /// let stream = Stream::new_on(Device::new(0)?)?;
    /// let (graph, ()) = stream.capture(CaptureMode::Global, |_| Ok::<_, HipError>(()))?;
    /// let exec = graph.instantiate()?;
    /// assert_eq!(exec.device(), graph.device());
    /// exec.launch(&stream)?;
    /// stream.synchronize()?;
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipGraphInstantiate")]
    pub fn instantiate(&self) -> Result<GraphExec> {
        // SAFETY: a live graph of its device.
        let handle = unsafe { raw::graph::instantiate(self.device, self.handle) }?;
        Ok(GraphExec {
            handle,
            device: self.device,
            order: self.order.clone(),
            observers: observers(&self.kept),
            kept: self.kept.clone(),
        })
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: our live graph, destroyed once; execs hold their own copy.
        if let Err(error) = unsafe { raw::graph::destroy_graph(self.device, self.handle) } {
            log::error!("dropping a graph of {}: {error}", self.device);
        }
    }
}

/// An executable graph: a [`Graph`] ready to launch, any number of times,
/// on any stream of its device. Its launches run one after another, even
/// on different streams (each runs with the same baked addresses, so two
/// at once would race), and so do those of every executable graph made
/// from the same graph or captured into the same shared private pool
/// (`hip_pool::GraphPool`): see [`ReplayOrder`]. Dropped, it waits for its last launch to finish
/// before HIP frees it (HIP before 6.2 frees it at once, under the queued
/// work); dropped while a capture is underway (which forbids the wait), it
/// is freed when the captures have ended.
pub struct GraphExec {
    handle: hipGraphExec_t,
    device: Device,
    /// The order its launches take, shared with the executable graphs it
    /// shares memory with.
    order: Arc<ReplayOrder>,
    /// The graph's resources: released after the last launch is over.
    kept: Kept,
    /// Those of them each launch tells of itself, with their quick tests.
    observers: Box<[Observer]>,
}

impl std::fmt::Debug for GraphExec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GraphExec({:p} on {}, {} kept)", self.handle, self.device, self.kept.len())
    }
}

// SAFETY: HIP exec handles may be used from any thread; launches are
// serialized by the order's mutex.
unsafe impl Send for GraphExec {}
// SAFETY: as above.
unsafe impl Sync for GraphExec {}

impl GraphExec {
    /// The device it runs on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The HIP handle, valid while `self` lives (for calls made outside
    /// this crate; a launch through it is not ordered after this exec's
    /// other launches).
    pub fn as_raw(&self) -> hipGraphExec_t {
        self.handle
    }

    /// Enqueue one run of the graph on `stream` (`hipGraphLaunch`): every
    /// captured operation, in its captured order, with the addresses it
    /// captured. A launch on another stream than the last one's first
    /// waits (on the GPU) for the last one; on the same stream it costs
    /// one comparison over the raw launch.
    ///
    /// # Errors
    /// [`HipError::DeviceMismatch`] when the stream is on another device
    /// (before any HIP call); [`HipError::CaptureUnderway`] when the stream
    /// captures (a capture begun through [`Stream::capture`]);
    /// [`HipError::HostBorrowed`] when the graph copies into pinned host
    /// memory that the host views, or out of memory it writes (nothing is
    /// launched); else HIP's status of `hipGraphLaunch`, or of the ordering
    /// after the last launch (`hipEventRecord`, `hipStreamWaitEvent`), when
    /// nothing was launched.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{CaptureMode, Device, HipError, Stream};
    ///
    /// let stream = Stream::new_on(Device::new(0)?)?;
    /// let (graph, ()) = stream.capture(CaptureMode::Global, |_| Ok::<_, HipError>(()))?;
    /// let exec = graph.instantiate()?;
    /// for _ in 0..3 {
    ///     exec.launch(&stream)?; // one call per replay
    /// }
    /// stream.synchronize()?;
    /// assert!(stream.query()?);
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipGraphLaunch")]
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        DeviceMismatch::check("GraphExec::launch", "the stream", self.device, stream.device())?;
        #[cfg(feature = "tracing")]
        let _span = tracing::trace_span!("graph replay", device = ?self.device, stream = ?stream.id()).entered();
        if capture::underway() && stream.is_capturing()? {
            return Err(HipError::CaptureUnderway {
                operation: "GraphExec::launch",
                why: "its stream captures, and AMD's runtime would run the graph at once, outside the capture, \
                      while its replay hooks recorded into it; launch it after the capture ends, or capture the \
                      work itself",
            });
        }
        let mut launches = self.order.lock();
        let moved = launches.last.as_ref().is_none_or(|last| last.id() != stream.id());
        if moved {
            launches.order_after_last(stream)?;
        }
        let id = stream.id();
        for (i, observer) in self.observers.iter().enumerate().filter(|(_, o)| !o.quiet(id)) {
            if let Err(error) = observer.resource.before_replay(stream) {
                // Nothing is launched; those that prepared hear of the end
                // as of a launch that queued nothing (a host view waiting
                // for one goes on). For a quiet one the hook does nothing.
                for observer in &self.observers[..i] {
                    if let Err(error) = observer.resource.after_replay(stream) {
                        log::debug!("noting a replay that was not launched: {error}");
                    }
                }
                return Err(error);
            }
        }
        // SAFETY: a live exec and stream of one device (checked above).
        let launched = unsafe { raw::graph::launch(self.device, self.handle, stream.as_raw()) };
        if moved {
            launches.last = Some(stream.clone());
        }
        // The operand protocol's failure rule: a failed launch may have
        // queued part of the work, so every resource hears of it.
        let mut noted = Ok(());
        for observer in self.observers.iter().filter(|o| !o.quiet(id)) {
            noted = noted.and(observer.resource.after_replay(stream));
        }
        if noted.is_err() {
            if let Err(error) = capture::synchronize_after_captures(stream) {
                log::error!("synchronizing a stream after a replay could not be noted: {error}");
            }
        }
        launched.and(noted)
    }

    /// Prepare the graph for running, in `stream`'s order
    /// (`hipGraphUpload`), so that its first launch costs what later ones
    /// do. Launching without it is correct: the first launch uploads.
    ///
    /// # Errors
    /// [`HipError::DeviceMismatch`] when the stream is on another device
    /// (before any HIP call); else HIP's status of `hipGraphUpload`.
    #[doc(alias = "hipGraphUpload")]
    pub fn upload(&self, stream: &Stream) -> Result<()> {
        DeviceMismatch::check("GraphExec::upload", "the stream", self.device, stream.device())?;
        // SAFETY: a live exec and stream of one device (checked above).
        unsafe { raw::graph::upload(self.device, self.handle, stream.as_raw()) }
    }

    /// Give this executable graph the parameters of `graph`, which must
    /// have its shape (`hipGraphExecUpdate`): cheaper than a new
    /// instantiation when only addresses or values changed. Waits for the
    /// latest launch first. From then on it keeps what `graph` keeps (the
    /// buffers and modules its work uses), instead of what its own graph
    /// did.
    ///
    /// # Errors
    /// [`HipError::GraphUpdate`] with the reason when the shapes differ;
    /// [`HipError::DeviceMismatch`] for a graph of another device; HIP's
    /// status otherwise.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{CaptureMode, Device, HipError, Stream};
    ///
    /// let stream = Stream::new_on(Device::new(0)?)?;
    /// let (first, ()) = stream.capture(CaptureMode::Global, |_| Ok::<_, HipError>(()))?;
    /// let (second, ()) = stream.capture(CaptureMode::Global, |_| Ok::<_, HipError>(()))?;
    /// let mut exec = first.instantiate()?;
    /// exec.launch(&stream)?;
    /// exec.update(&second)?; // same shape: no new instantiation
    /// exec.launch(&stream)?;
    /// stream.synchronize()?;
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipGraphExecUpdate")]
    pub fn update(&mut self, graph: &Graph) -> Result<()> {
        DeviceMismatch::check("GraphExec::update", "the graph", self.device, graph.device)?;
        self.wait_for_last_launch()?;
        // SAFETY: live exec and graph of one device; no launch queued.
        let result = unsafe { raw::graph::update(self.device, self.handle, graph.handle) }?;
        match GraphUpdateRefusal::from_raw(result) {
            None => {
                // It runs the new graph's work now: it keeps what that
                // needs (the old resources go, no launch being queued).
                self.observers = observers(&graph.kept);
                self.kept = graph.kept.clone();
                self.order = graph.order.clone();
                Ok(())
            }
            Some(reason) => Err(HipError::GraphUpdate(reason)),
        }
    }

    /// Wait on the host for the latest launch (and so for every earlier
    /// one), with whatever was queued after it on its stream.
    ///
    /// # Errors
    /// As [`Stream::synchronize`]: [`HipError::CaptureUnderway`] while a
    /// capture forbids the wait.
    fn wait_for_last_launch(&self) -> Result<()> {
        let last = self.order.lock().last.clone();
        last.as_ref().map_or(Ok(()), Stream::synchronize)
    }
}

/// The resources of `kept` that launches tell of themselves.
fn observers(kept: &Kept) -> Box<[Observer]> {
    kept.iter()
        .filter(|r| r.observes_replays())
        .map(|r| Observer {
            quiet: r.quiet_on().map(|(id, pending)| (id, std::ptr::from_ref(pending))),
            resource: r.clone(),
        })
        .collect()
}

/// A resource a launch tells of itself, with its quick test
/// ([`GraphResource::quiet_on`]) read once.
struct Observer {
    resource: Arc<dyn GraphResource>,
    /// The stream id and the counter of the test.
    quiet: Option<(u64, *const AtomicUsize)>,
}

// SAFETY: the counter is an atomic inside `resource`, which is Send + Sync.
unsafe impl Send for Observer {}
// SAFETY: as above.
unsafe impl Sync for Observer {}

impl Observer {
    /// Whether a launch on the stream with id `stream` may pass it by.
    #[inline]
    fn quiet(&self, stream: u64) -> bool {
        // SAFETY: the counter lives as long as `resource`, which this holds
        // (`GraphResource::quiet_on`'s contract).
        self.quiet.is_some_and(|(id, pending)| id == stream && unsafe { &*pending }.load(Ordering::Acquire) == 0)
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        // The latest launch of its order: its own, or one ordered after it.
        let last = self.order.lock().last.clone();
        self.observers = Box::new([]);
        let kept = std::mem::replace(&mut self.kept, Arc::new([]));
        Retire { handle: self.handle, device: self.device, last, kept }.run();
    }
}

/// An executable graph being dropped: destroyed, with its resources let
/// go, once its last launch is over. A capture underway forbids the wait
/// (it synchronizes), so then the retirement waits for the captures to end.
struct Retire {
    handle: hipGraphExec_t,
    device: Device,
    last: Option<Stream>,
    kept: Kept,
}

// SAFETY: an exec handle may be used from any thread; it is destroyed once,
// by whichever thread runs the retirement.
unsafe impl Send for Retire {}

impl Retire {
    fn run(self) {
        let waited = self.last.as_ref().map_or(Ok(()), Stream::synchronize);
        match waited {
            Err(HipError::CaptureUnderway { .. }) => return capture::after_captures(move || self.run()),
            Err(error) => {
                log::error!("dropping an executable graph of {}: waiting for its last launch: {error}", self.device)
            }
            Ok(()) => {}
        }
        // SAFETY: our live exec, destroyed once, with no launch queued.
        if let Err(error) = unsafe { raw::graph::destroy_exec(self.device, self.handle) } {
            log::error!("dropping an executable graph of {}: {error}", self.device);
        }
        drop(self.kept);
    }
}

/// Ends a capture that its closure left by unwinding: the graph is
/// discarded and the stream reset.
struct OpenCapture<'a> {
    stream: &'a Stream,
    /// Taken when the closure returned: the capture is then ended in line.
    scope: Option<Arc<CaptureScope>>,
}

impl Drop for OpenCapture<'_> {
    fn drop(&mut self) {
        let Some(scope) = self.scope.take() else {
            return;
        };
        let (device, stream) = (self.stream.device(), self.stream.as_raw());
        // SAFETY: the live stream the capture began on.
        let ended = unsafe { raw::graph::end_capture(device, stream) };
        drop(capture::end(&scope));
        match ended {
            Ok(graph) => discard(device, graph),
            Err(error) => reset_after(self.stream, &error),
        }
    }
}

/// Drop the graph a capture just returned (HIP gives null for none).
fn discard(device: Device, handle: hipGraph_t) {
    if !handle.is_null() {
        drop(Graph { handle, device, kept: Arc::new([]), order: Arc::default() });
    }
}

/// After a failed end: clr leaves an invalidated stream invalidated; an
/// empty Relaxed capture ended at once resets it.
fn reset_after(stream: &Stream, error: &HipError) {
    if error.code() != Some(hipError_t::hipErrorStreamCaptureInvalidated) {
        return;
    }
    let (device, raw_stream) = (stream.device(), stream.as_raw());
    // SAFETY: a live stream, not capturing now (its capture was ended).
    let reset = unsafe { raw::graph::begin_capture(device, raw_stream, CaptureMode::Relaxed.raw()) }
        // SAFETY: as above; the empty capture just begun.
        .and_then(|()| unsafe { raw::graph::end_capture(device, raw_stream) });
    match reset {
        Ok(graph) => discard(device, graph),
        Err(error) => log::debug!("resetting a stream of {device} after an invalidated capture: {error}"),
    }
}

impl Stream {
    /// Capture the work `body` enqueues on this stream (and on streams it
    /// joins through events) into a [`Graph`], instead of running it.
    ///
    /// The capture begins before `body` and ends after it, on this thread.
    /// If `body` fails or panics, the capture ends, its graph is discarded,
    /// and the error or panic goes on.
    ///
    /// `body` may fail with any error that a [`HipError`] converts into
    /// (the facade's, a library's), which is what the capture then returns.
    ///
    /// # Errors
    /// `body`'s error; HIP's status of `hipStreamBeginCapture` (the null
    /// stream cannot capture: `hipErrorStreamCaptureUnsupported`) or of
    /// `hipStreamEndCapture`: `hipErrorStreamCaptureInvalidated` when a
    /// call the capture forbids was made meanwhile (the stream is reset),
    /// `hipErrorStreamCaptureUnjoined` when a stream that joined was not
    /// joined back (HIP then refuses further captures on this stream:
    /// drop it).
    ///
    /// # Examples
    /// ```
    /// use hip_core::{CaptureMode, Device, Stream};
    ///
    /// let stream = Stream::new_on(Device::new(0)?)?;
    /// let (graph, ()) = stream.capture(CaptureMode::Global, |_| Ok::<_, hip_core::HipError>(()))?;
    /// assert_eq!(graph.node_count()?, 0);
    /// let exec = graph.instantiate()?;
    /// exec.launch(&stream)?;
    /// stream.synchronize()?;
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipStreamBeginCapture")]
    #[doc(alias = "hipStreamEndCapture")]
    pub fn capture<R, E: From<HipError>>(
        &self,
        mode: CaptureMode,
        body: impl FnOnce(&Stream) -> std::result::Result<R, E>,
    ) -> std::result::Result<(Graph, R), E> {
        let device = self.device();
        #[cfg(feature = "tracing")]
        let _span = tracing::debug_span!("capture", device = ?device, stream = ?self.id(), mode = ?mode).entered();
        let scope = capture::begin(self, mode)?;
        let mut open = OpenCapture { stream: self, scope: Some(scope) };
        let outcome = body(self);
        let scope = open.scope.take();
        // SAFETY: the live stream the capture began on.
        let ended = unsafe { raw::graph::end_capture(device, self.as_raw()) };
        let (kept, order) = scope.map_or_else(Default::default, |scope| capture::end(&scope));
        let kept: Kept = kept.into();
        match (outcome, ended) {
            (Ok(value), Ok(handle)) => Ok((Graph { handle, device, kept, order }, value)),
            (Err(error), Ok(handle)) => {
                discard(device, handle);
                Err(error)
            }
            (outcome, Err(error)) => {
                reset_after(self, &error);
                Err(outcome.err().unwrap_or_else(|| error.into()))
            }
        }
    }

    /// Whether this stream is capturing now (`hipStreamIsCapturing`).
    ///
    /// # Errors
    /// HIP's status: `hipErrorStreamCaptureImplicit` for the null stream
    /// while a blocking stream of the device captures.
    #[doc(alias = "hipStreamIsCapturing")]
    pub fn is_capturing(&self) -> Result<bool> {
        // SAFETY: a live stream of its device.
        let status = unsafe { raw::graph::capture_status(self.device(), self.as_raw()) }?;
        Ok(status != hip_sys::hipStreamCaptureStatus::hipStreamCaptureStatusNone)
    }
}
