//! Stream capture as clr does it, per HIP version: which streams capture
//! into which graph, and which calls a capture forbids.
//!
//! # The state (clr's `hip::Stream` capture fields and three lists)
//!
//! A capture begins on its *origin* stream and grows to the streams that
//! wait on an event recorded in it (*joined* streams, which report the same
//! status and id). Every member stream has the nodes its next operation
//! depends on (clr's `lastCapturedNodes_`). Captures are listed process-wide
//! (`g_allCapturingStreams`; the Global-mode ones also in
//! `g_captureStreams`) and per thread (`tls.capture_streams_`: the
//! non-Relaxed captures the thread began). The lists are process-wide, not
//! per device, as clr's are. Each thread also has its interaction mode
//! (`hipThreadExchangeStreamCaptureMode`, Global at first).
//!
//! # The rules (clr `hip_internal.hpp`'s checks, `hip_graph.cpp`, `hip_stream.cpp`, `hip_event.cpp`)
//!
//! | check | calls | refused when | code | invalidates (HIP 6 and 7) |
//! |---|---|---|---|---|
//! | [`check_allocation`] | `hipMalloc`, `hipFree`, `hipHostMalloc`, `hipHostFree`, `hipHostRegister`, `hipHostUnregister` | thread mode not Relaxed and the thread has a capture, or mode Global and any Global capture exists | 900 | those captures |
//! | [`check_synchronous`] | `hipMemcpy`, `hipMemcpyPeer`, `hipMemset`, `hipMemsetD32` | any capture (HIP 5: any Global capture) | 906 | every capture |
//! | [`check_device_synchronize`] | `hipDeviceSynchronize` | any capture (HIP 6 and 7 only) | 900 | every capture |
//! | [`check_stream_wait`] | `hipStreamSynchronize`, `hipStreamQuery` of a stream | the stream captures, or (thread mode not Relaxed) any Global capture or one of the thread's | 900 | the stream's capture, else those captures |
//! | [`check_event_wait`] | `hipEventQuery`, `hipEventSynchronize` | the event was recorded in a capture still active (HIP 6 and 7) | 907 | that capture |
//! | [`check_other_stream_wait`] | `hipEventSynchronize`, `hipEventQuery` (CUDA's rule, see below) of an event recorded outside captures | as for a stream that does not capture | 900 | those captures |
//! | [`on_enqueue`] | every asynchronous operation | its stream's capture is invalidated | 901 | — |
//! | [`on_enqueue`] (HIP 7) | work on the legacy null stream | a blocking stream of the device captures | 906 | those captures |
//!
//! An operation on a capturing stream becomes a node of the capture's graph
//! instead of running. `hipEventRecord` on one makes no node: the event
//! remembers the stream's last nodes, and a stream that waits on it joins
//! the capture (a fork) or, if already a member, depends on them (a join).
//! An event recorded outside the capture adds no dependency to a capture
//! (clr waits on the hardware queue, so a replay does not wait for it). A
//! wait on an event recorded before the capture began on a now-capturing
//! stream is 905.
//!
//! # Per version
//!
//! HIP 5 is clr 5.7: nothing ever invalidates a capture, and synchronous
//! copies are refused only for Global captures. HIP 6 is modelled by 6.2
//! and later, its strictest minors (6.0 and 6.1 behave as 5.7 here).
//! HIP 7 adds what 7.x changed: invalidating a capture invalidates all its
//! streams, and legacy-stream work during a capture is an error.
//!
//! # Stricter than clr, on purpose
//!
//! clr invalidates only a capture's origin stream (joined streams keep
//! capturing into a graph it may delete); here the whole capture is
//! invalidated. clr never returns 902 and corrupts the graphs instead when
//! a member of one capture waits on an event of another; here that is 902.
//! `hipEventQuery` of an event recorded outside captures is refused as
//! `hipEventSynchronize` is, during a Global capture or one of the
//! thread's: clr allows it, CUDA does not (`cudaErrorStreamCaptureUnsupported`,
//! the capture invalidated), and code must run on both.
//! Stream-ordered allocations inside a capture become graph memory nodes,
//! with rules of their own (`graph_memory.rs`). Everything else, including clr's leftovers
//! (after 904 the origin stays Active but unlisted; after 901 it stays
//! Invalidated until a new capture on it ends), is as clr does it.

use super::graph::{Node, NodeKind};
use super::graph_memory::NodeMemory;
use super::handles::new_handle;
use super::lock::lock;
use super::queue::{StreamQueue, Work};
use super::races::Access;
use super::sim;
use crate::bindings::hip::{hipError_t, hipStreamCaptureMode, hipStreamCaptureStatus};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

const GLOBAL: hipStreamCaptureMode = hipStreamCaptureMode::hipStreamCaptureModeGlobal;
const RELAXED: hipStreamCaptureMode = hipStreamCaptureMode::hipStreamCaptureModeRelaxed;

/// One capture: its graph in the making and the streams capturing into it.
pub(crate) struct Capture {
    /// clr's capture id: process-wide, from 1.
    pub id: u64,
    /// The mode it began with.
    pub mode: hipStreamCaptureMode,
    /// The device of its origin stream (the graph's device).
    pub device: usize,
    /// The handle its graph has (`hipStreamGetCaptureInfo_v2` shows it
    /// while capturing, `hipStreamEndCapture` returns it).
    pub graph: usize,
    state: Mutex<CaptureState>,
}

struct CaptureState {
    invalidated: bool,
    nodes: Vec<Node>,
    /// Every member stream (origin first), by race-detector component.
    members: Vec<u32>,
    /// Lanes handed out: each member's nodes form one lane of the graph
    /// (the origin's is 0), which replays may run beside the others.
    lanes: usize,
    /// Whether any member is a blocking stream, with its device.
    blocking_on: Vec<usize>,
}

/// A stream's part in a capture.
struct Member {
    capture: Arc<Capture>,
    origin: bool,
    /// Its lane in the graph.
    lane: usize,
    /// The nodes (indices) the stream's next operation depends on.
    last: Vec<usize>,
    /// The node handles of `last`, as `hipStreamGetCaptureInfo_v2` hands
    /// them out (valid until the stream's next captured operation).
    exported: Vec<crate::bindings::hip::hipGraphNode_t>,
}

// SAFETY: `exported` holds node handle values, never dereferenced.
unsafe impl Send for Member {}

type Members = HashMap<u32, Member>;

/// Put `member` in for the stream with component `key` (counted in
/// [`MEMBER_COUNT`] if the stream had no entry).
fn enter(map: &mut Members, key: u32, member: Member) {
    if map.insert(key, member).is_none() {
        MEMBER_COUNT.fetch_add(1, Ordering::AcqRel);
    }
}

/// Take out the entry of the stream with component `key`, if any.
fn leave(map: &mut Members, key: u32) -> Option<Member> {
    let member = map.remove(&key);
    if member.is_some() {
        MEMBER_COUNT.fetch_sub(1, Ordering::AcqRel);
    }
    member
}

/// An event's recording in a capture.
#[derive(Clone)]
pub(crate) struct CapturedRecord {
    capture: Weak<Capture>,
    nodes: Vec<usize>,
}

/// The capture state of every stream that is or was in one, by component.
static MEMBERS: Mutex<Option<Members>> = Mutex::new(None);
/// How many streams have a member entry: while 0, enqueues skip the map.
static MEMBER_COUNT: AtomicUsize = AtomicUsize::new(0);
/// The listed captures (clr's `g_allCapturingStreams`, by capture).
static LISTED: Mutex<Vec<Arc<Capture>>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The thread's interaction mode (`hipThreadExchangeStreamCaptureMode`).
    static THREAD_MODE: Cell<u32> = const { Cell::new(0) };
    /// The non-Relaxed captures this thread began (`tls.capture_streams_`).
    static THREAD_CAPTURES: RefCell<Vec<Weak<Capture>>> = const { RefCell::new(Vec::new()) };
}

fn major() -> u32 {
    sim().config.hip_major
}

fn invalidates() -> bool {
    major() >= 6
}

impl Capture {
    fn invalidate(&self) {
        if invalidates() {
            lock(&self.state).invalidated = true;
        }
    }

    /// Whether the capture was invalidated.
    pub fn is_invalidated(&self) -> bool {
        lock(&self.state).invalidated
    }
}

fn thread_captures() -> Vec<Arc<Capture>> {
    THREAD_CAPTURES.with(|list| {
        let mut list = list.borrow_mut();
        list.retain(|c| c.strong_count() > 0);
        list.iter().filter_map(Weak::upgrade).collect()
    })
}

fn listed() -> Vec<Arc<Capture>> {
    lock(&LISTED).clone()
}

/// The thread's interaction mode.
fn thread_mode() -> hipStreamCaptureMode {
    hipStreamCaptureMode(THREAD_MODE.with(Cell::get))
}

/// `hipThreadExchangeStreamCaptureMode`: set the thread's mode, return the old one.
pub(crate) fn exchange_mode(mode: hipStreamCaptureMode) -> Result<hipStreamCaptureMode, hipError_t> {
    if mode.0 > RELAXED.0 {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    Ok(hipStreamCaptureMode(THREAD_MODE.with(|m| m.replace(mode.0))))
}

/// Invalidate `captures` and answer `code`.
fn refuse(captures: &[Arc<Capture>], code: hipError_t) -> Result<(), hipError_t> {
    for capture in captures {
        capture.invalidate();
    }
    Err(code)
}

/// The captures an unsafe call of this thread conflicts with (clr's
/// `CHECK_STREAM_CAPTURE_SUPPORTED`): none in Relaxed mode; the thread's
/// own; in Global mode, else every Global capture.
fn conflicting() -> Vec<Arc<Capture>> {
    let mode = thread_mode();
    if mode == RELAXED {
        return Vec::new();
    }
    let own = thread_captures();
    if !own.is_empty() || mode != GLOBAL {
        return own;
    }
    listed().into_iter().filter(|c| c.mode == GLOBAL).collect()
}

/// `hipMalloc`, `hipFree` and the host allocation calls.
pub(crate) fn check_allocation() -> Result<(), hipError_t> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    let conflicts = conflicting();
    if conflicts.is_empty() {
        Ok(())
    } else {
        refuse(&conflicts, hipError_t::hipErrorStreamCaptureUnsupported)
    }
}

/// Synchronous copies and fills.
pub(crate) fn check_synchronous() -> Result<(), hipError_t> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    let all = listed();
    let refused = if major() >= 6 { !all.is_empty() } else { all.iter().any(|c| c.mode == GLOBAL) };
    if refused {
        refuse(&all, hipError_t::hipErrorStreamCaptureImplicit)
    } else {
        Ok(())
    }
}

/// `hipDeviceSynchronize`.
pub(crate) fn check_device_synchronize() -> Result<(), hipError_t> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 || major() < 6 {
        return Ok(());
    }
    let all = listed();
    if all.is_empty() {
        Ok(())
    } else {
        refuse(&all, hipError_t::hipErrorStreamCaptureUnsupported)
    }
}

/// The capture `queue` is a member of, if any.
fn capture_of(queue: &StreamQueue) -> Option<Arc<Capture>> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return None;
    }
    lock(&MEMBERS).as_ref()?.get(&queue.actor.component()).map(|m| m.capture.clone())
}

/// `hipStreamSynchronize` and `hipStreamQuery` of `queue` (not the null
/// stream): clr's `StreamCaptureOngoing`.
pub(crate) fn check_stream_wait(queue: &StreamQueue) -> Result<(), hipError_t> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 || queue.is_null {
        return Ok(());
    }
    if let Some(capture) = capture_of(queue) {
        return refuse(&[capture], hipError_t::hipErrorStreamCaptureUnsupported);
    }
    check_other_stream_wait()
}

/// A wait for a stream that does not capture (or an event recorded on
/// one): refused by the Global captures and the thread's own, unless the
/// thread is Relaxed (HIP 5: whatever the thread's mode).
pub(crate) fn check_other_stream_wait() -> Result<(), hipError_t> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    let conflicts = if major() >= 6 {
        if thread_mode() == RELAXED {
            Vec::new()
        } else {
            let global: Vec<_> = listed().into_iter().filter(|c| c.mode == GLOBAL).collect();
            if global.is_empty() {
                thread_captures()
            } else {
                global
            }
        }
    } else {
        // 5.7: a never-captured stream counts as Global-mode; no thread mode.
        let mut any: Vec<_> = listed().into_iter().filter(|c| c.mode == GLOBAL).collect();
        any.extend(thread_captures());
        any
    };
    if conflicts.is_empty() {
        Ok(())
    } else {
        refuse(&conflicts, hipError_t::hipErrorStreamCaptureUnsupported)
    }
}

/// `hipEventQuery` and `hipEventSynchronize` of an event whose last
/// recording was `record` (in a capture) on `stream`.
pub(crate) fn check_event_wait(record: Option<&CapturedRecord>) -> Result<(), hipError_t> {
    let Some(capture) = record.and_then(|r| r.capture.upgrade()) else {
        return Ok(());
    };
    if major() < 6 || capture.is_invalidated() || !has_members(&capture) {
        return Ok(());
    }
    refuse(&[capture], hipError_t::hipErrorCapturedEvent)
}

fn has_members(capture: &Arc<Capture>) -> bool {
    !lock(&capture.state).members.is_empty()
}

/// `hipStreamBeginCapture` on `queue` (not the null stream).
pub(crate) fn begin(queue: &Arc<StreamQueue>, mode: hipStreamCaptureMode) -> Result<(), hipError_t> {
    if mode.0 > RELAXED.0 {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let mut members = lock(&MEMBERS);
    let map = members.get_or_insert_with(HashMap::new);
    let key = queue.actor.component();
    if let Some(member) = map.get(&key) {
        if !member.capture.is_invalidated() {
            // Already capturing, as origin or joined.
            return Err(hipError_t::hipErrorIllegalState);
        }
    }
    let capture = Arc::new(Capture {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        mode,
        device: queue.device,
        graph: new_handle(),
        state: Mutex::new(CaptureState {
            invalidated: false,
            nodes: Vec::new(),
            members: vec![key],
            lanes: 1,
            blocking_on: if queue.blocking { vec![queue.device] } else { Vec::new() },
        }),
    });
    enter(map, key, Member { capture: capture.clone(), origin: true, lane: 0, last: Vec::new(), exported: Vec::new() });
    drop(members);
    if mode != RELAXED {
        THREAD_CAPTURES.with(|list| list.borrow_mut().push(Arc::downgrade(&capture)));
    }
    lock(&LISTED).push(capture);
    Ok(())
}

/// What ending a capture gave.
pub(crate) struct Ended {
    /// The captured nodes, in capture order (a topological order).
    pub nodes: Vec<Node>,
    /// The graph's device.
    pub device: usize,
    /// The graph's handle.
    pub graph: usize,
}

/// `hipStreamEndCapture` on `queue` (not the null stream).
pub(crate) fn end(queue: &StreamQueue) -> Result<Ended, hipError_t> {
    let key = queue.actor.component();
    let mut members = lock(&MEMBERS);
    let Some(map) = members.as_mut() else {
        return Err(hipError_t::hipErrorIllegalState);
    };
    let Some(member) = map.get(&key) else {
        return Err(hipError_t::hipErrorIllegalState);
    };
    if !member.origin {
        return Err(hipError_t::hipErrorStreamCaptureUnmatched);
    }
    let capture = member.capture.clone();
    let origin_last = member.last.clone();
    if capture.mode != RELAXED && !thread_captures().iter().any(|c| Arc::ptr_eq(c, &capture)) {
        return Err(hipError_t::hipErrorStreamCaptureWrongThread);
    }
    THREAD_CAPTURES.with(|list| list.borrow_mut().retain(|c| !c.ptr_eq(&Arc::downgrade(&capture))));
    lock(&LISTED).retain(|c| !Arc::ptr_eq(c, &capture));
    let mut state = lock(&capture.state);
    if state.invalidated {
        // clr: the graph is dropped; the origin stays Invalidated.
        state.nodes.clear();
        return Err(hipError_t::hipErrorStreamCaptureInvalidated);
    }
    if unjoined(&state.nodes, &origin_last) {
        // clr: no graph; the origin stays Active, unlisted (only a
        // destroy resets it).
        return Err(hipError_t::hipErrorStreamCaptureUnjoined);
    }
    let nodes = std::mem::take(&mut state.nodes);
    for component in state.members.drain(..) {
        leave(map, component);
    }
    Ok(Ended { nodes, device: capture.device, graph: capture.graph })
}

/// Whether a node other than the origin's last ones has no successor
/// (clr: an empty node after the origin's last nodes, then more than one
/// leaf).
fn unjoined(nodes: &[Node], origin_last: &[usize]) -> bool {
    let mut has_successor = vec![false; nodes.len()];
    for node in nodes {
        for &dep in &node.deps {
            has_successor[dep] = true;
        }
    }
    (0..nodes.len()).any(|i| !has_successor[i] && !origin_last.contains(&i))
}

/// `hipStreamDestroy` of `queue`: it leaves its capture; an origin ends
/// its capture for every member (clr leaks the graph).
pub(crate) fn on_destroy(queue: &StreamQueue) {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return;
    }
    let key = queue.actor.component();
    let mut members = lock(&MEMBERS);
    let Some(map) = members.as_mut() else { return };
    let Some(member) = leave(map, key) else { return };
    let capture = member.capture;
    let mut state = lock(&capture.state);
    state.members.retain(|&c| c != key);
    if member.origin {
        for component in state.members.drain(..) {
            leave(map, component);
        }
        state.nodes.clear();
        drop(state);
        lock(&LISTED).retain(|c| !Arc::ptr_eq(c, &capture));
    }
}

/// The capture status of `queue` (not the null stream).
fn status(queue: &StreamQueue) -> hipStreamCaptureStatus {
    match capture_of(queue) {
        None => hipStreamCaptureStatus::hipStreamCaptureStatusNone,
        Some(c) if c.is_invalidated() => hipStreamCaptureStatus::hipStreamCaptureStatusInvalidated,
        Some(_) => hipStreamCaptureStatus::hipStreamCaptureStatusActive,
    }
}

/// The capture status `hipStreamIsCapturing` and `hipStreamGetCaptureInfo`
/// report for `queue`: for the null stream, None, or 906 while a blocking
/// stream captures (see [`null_stream_status`]).
pub(crate) fn reported_status(queue: &StreamQueue) -> Result<hipStreamCaptureStatus, hipError_t> {
    if queue.is_null {
        null_stream_status()?;
        return Ok(hipStreamCaptureStatus::hipStreamCaptureStatusNone);
    }
    Ok(status(queue))
}

/// The status the null stream reports: 906 while any blocking stream (of
/// any device, as clr's `StreamCaptureBlocking`) captures.
fn null_stream_status() -> Result<(), hipError_t> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    let members = lock(&MEMBERS);
    let blocking = members.as_ref().is_some_and(|m| {
        m.values().any(|member| {
            let state = lock(&member.capture.state);
            !state.invalidated && !state.blocking_on.is_empty()
        })
    });
    if blocking {
        Err(hipError_t::hipErrorStreamCaptureImplicit)
    } else {
        Ok(())
    }
}

/// What `hipStreamGetCaptureInfo_v2` reports of a capturing stream.
pub(crate) struct Dependencies {
    /// The capture's id.
    pub id: u64,
    /// The handle of the graph being captured.
    pub graph: usize,
    /// The stream's last nodes, as node handles (valid until its next
    /// captured operation), and how many.
    pub nodes: *const crate::bindings::hip::hipGraphNode_t,
    pub count: usize,
}

/// The last nodes of `queue` in its active capture, with the capture's id
/// and graph.
pub(crate) fn dependencies(queue: &StreamQueue) -> Option<Dependencies> {
    let mut members = lock(&MEMBERS);
    let member = members.as_mut()?.get_mut(&queue.actor.component())?;
    let capture = member.capture.clone();
    let state = lock(&capture.state);
    if state.invalidated {
        return None;
    }
    member.exported =
        member.last.iter().map(|&i| state.nodes[i].handle as crate::bindings::hip::hipGraphNode_t).collect();
    Some(Dependencies {
        id: capture.id,
        graph: capture.graph,
        nodes: member.exported.as_ptr(),
        count: member.exported.len(),
    })
}

/// What an asynchronous operation on `queue` becomes.
pub(crate) enum Enqueue {
    /// Run it: the stream does not capture.
    Run,
    /// It became a node of the stream's capture.
    Captured,
}

/// An operation of `function` (a node of kind `node`, where the function
/// does not say all) about to be enqueued on `queue` (`blocking`: the
/// caller waits for it): a node of its capture if it captures, 901 if the
/// capture was invalidated, else run (after the HIP 7 legacy-stream check).
pub(crate) fn on_enqueue(
    queue: &StreamQueue,
    blocking: bool,
    function: &'static str,
    node: Option<NodeKind>,
    accesses: &[Access],
    work: &Work,
) -> Result<Enqueue, hipError_t> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return Ok(Enqueue::Run);
    }
    if queue.is_null {
        if major() >= 7 {
            let blocking: Vec<_> = listed()
                .into_iter()
                .filter(|c| !c.is_invalidated() && lock(&c.state).blocking_on.contains(&queue.device))
                .collect();
            if !blocking.is_empty() {
                return refuse(&blocking, hipError_t::hipErrorStreamCaptureImplicit).map(|()| Enqueue::Run);
            }
        }
        return Ok(Enqueue::Run);
    }
    let captured = in_capture(queue, |member, state| {
        if blocking {
            // Waiting for work that is not run: every such call is refused
            // by its own check first; this is the backstop.
            state.invalidated = invalidates();
            return Err(hipError_t::hipErrorStreamCaptureUnsupported);
        }
        let kind = node.unwrap_or_else(|| NodeKind::of(function));
        let op = Captured { kind, function, accesses: accesses.to_vec(), work: work.clone(), memory: None };
        add_node(member, state, op);
        Ok(())
    });
    match captured {
        None => Ok(Enqueue::Run),
        Some(result) => result.map(|()| Enqueue::Captured),
    }
}

/// Run `f` with `queue`'s part in its capture and the capture's state,
/// `None` when it is in none; 901 when the capture was invalidated.
fn in_capture<R>(
    queue: &StreamQueue,
    f: impl FnOnce(&mut Member, &mut CaptureState) -> Result<R, hipError_t>,
) -> Option<Result<R, hipError_t>> {
    let mut members = lock(&MEMBERS);
    let member = members.as_mut()?.get_mut(&queue.actor.component())?;
    let capture = member.capture.clone();
    let mut state = lock(&capture.state);
    if state.invalidated {
        return Some(Err(hipError_t::hipErrorStreamCaptureInvalidated));
    }
    Some(f(member, &mut state))
}

/// What a captured operation is, before it is placed in its graph.
struct Captured {
    kind: NodeKind,
    function: &'static str,
    accesses: Vec<Access>,
    work: Work,
    memory: Option<NodeMemory>,
}

/// Add `op` as a node after `member`'s last ones, in its lane; it becomes
/// its last. (`state` is its capture's.)
fn add_node(member: &mut Member, state: &mut CaptureState, op: Captured) {
    let index = state.nodes.len();
    let Captured { kind, function, accesses, work, memory } = op;
    let deps = std::mem::replace(&mut member.last, vec![index]);
    state.nodes.push(Node { handle: new_handle(), kind, function, accesses, work, deps, lane: member.lane, memory });
}

/// Whether `queue` captures now, for the calls that act differently in a
/// capture (clr's `STREAM_CAPTURE`): 901 if its capture was invalidated.
pub(crate) fn capturing(queue: &StreamQueue) -> Result<bool, hipError_t> {
    match capture_of(queue) {
        None => Ok(false),
        Some(c) if c.is_invalidated() => Err(hipError_t::hipErrorStreamCaptureInvalidated),
        Some(_) => Ok(true),
    }
}

/// Add a graph memory node (`hipMallocAsync` or `hipFreeAsync` of
/// `function`) to the capture of `queue`, which [`capturing`] said
/// captures.
pub(crate) fn add_memory_node(
    queue: &StreamQueue,
    function: &'static str,
    memory: NodeMemory,
) -> Result<(), hipError_t> {
    let kind = match memory {
        NodeMemory::Allocate(_) => NodeKind::MemAlloc,
        NodeMemory::Free(_) => NodeKind::MemFree,
    };
    let op = Captured { kind, function, accesses: Vec::new(), work: Arc::new(|| Ok(())), memory: Some(memory) };
    in_capture(queue, |member, state| {
        add_node(member, state, op);
        Ok(())
    })
    .unwrap_or(Err(hipError_t::hipErrorIllegalState))
}

/// Whether any capture is underway in the process.
pub(crate) fn any_underway() -> bool {
    MEMBER_COUNT.load(Ordering::Acquire) > 0
}

/// `hipEventRecord` on `queue`: the event's record if the stream captures
/// (no node is made), `None` if it does not (a real recording), 901 never
/// (clr records for real on an invalidated stream).
pub(crate) fn record_event(queue: &StreamQueue) -> Option<CapturedRecord> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return None;
    }
    let members = lock(&MEMBERS);
    let member = members.as_ref()?.get(&queue.actor.component())?;
    if member.capture.is_invalidated() {
        return None;
    }
    Some(CapturedRecord { capture: Arc::downgrade(&member.capture), nodes: member.last.clone() })
}

/// What `hipStreamWaitEvent` does on a capturing stream or with a
/// captured event.
pub(crate) enum Wait {
    /// Not a capture matter: wait for real.
    Real,
    /// Handled by the capture (a fork, a join, or an outside event a
    /// capturing stream ignores).
    Done,
}

/// `hipStreamWaitEvent(queue, event)`, where the event's last recording
/// was `record` (in a capture) and happened on the stream with
/// component `recorded_on` (if any recording).
pub(crate) fn wait_event(
    queue: &StreamQueue,
    record: Option<&CapturedRecord>,
    recorded_on: Option<u32>,
) -> Result<Wait, hipError_t> {
    if MEMBER_COUNT.load(Ordering::Acquire) == 0 {
        return Ok(Wait::Real);
    }
    let key = queue.actor.component();
    let mut members = lock(&MEMBERS);
    let map = members.get_or_insert_with(HashMap::new);
    let record_capture = record.and_then(|r| r.capture.upgrade()).filter(has_members);
    let Some(capture) = record_capture else {
        // An event recorded outside any capture: 905 if its stream
        // captures now (recorded before that capture began).
        if let Some(on) = recorded_on.and_then(|on| map.get(&on)) {
            if !on.capture.is_invalidated() {
                return Err(hipError_t::hipErrorStreamCaptureIsolation);
            }
        }
        return Ok(if map.contains_key(&key) { Wait::Done } else { Wait::Real });
    };
    let nodes = record.map(|r| r.nodes.clone()).unwrap_or_default();
    match map.get_mut(&key) {
        Some(member) if Arc::ptr_eq(&member.capture, &capture) => {
            for node in nodes {
                if !member.last.contains(&node) {
                    member.last.push(node);
                }
            }
            Ok(Wait::Done)
        }
        Some(member) if !member.capture.is_invalidated() => Err(hipError_t::hipErrorStreamCaptureMerge),
        _ => {
            // A fork: the stream joins the capture.
            let mut state = lock(&capture.state);
            if state.invalidated {
                return Ok(Wait::Done);
            }
            state.members.push(key);
            if queue.blocking && !state.blocking_on.contains(&queue.device) {
                state.blocking_on.push(queue.device);
            }
            let lane = state.lanes;
            state.lanes += 1;
            drop(state);
            enter(map, key, Member { capture, origin: false, lane, last: nodes, exported: Vec::new() });
            Ok(Wait::Done)
        }
    }
}

/// Whether `queue` is a member of a capture (any status).
pub(crate) fn is_member(queue: &StreamQueue) -> bool {
    capture_of(queue).is_some()
}
