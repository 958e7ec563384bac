//! Streams: in-order work queues drained by worker threads.
//!
//! A queue runs its tasks in submission order. A worker thread is spawned
//! when work arrives on an idle queue and exits when the queue is empty, so
//! idle streams cost no thread. A blocking call (`hipMemcpy`) on an idle
//! queue runs its task in the calling thread. Tasks may wait on other
//! queues (the legacy null stream) or on events (`hipStreamWaitEvent`)
//! before running.

use super::entry::{call, idx, write_out};
use super::events::EventObj;
use super::races::{self, Access, Actor, Clock, Stamp};
use super::runtime::{current_device, lock, sim};
use super::{faults, violations};
use crate::sync::{CondvarExt, MutexExt};
use crate::{hipError_t, hipStream_t};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Work on a stream; an error is a device fault (sticky, as on ROCm 7).
type Work = Box<dyn FnOnce() -> Result<(), hipError_t> + Send>;

/// Something a task waits for before running.
pub(crate) enum Dep {
    /// A queue has completed this many tasks.
    Stream(Arc<StreamQueue>, u64),
    /// An event has completed this recording.
    Event(Arc<EventObj>, u64),
}

impl Dep {
    fn wait(&self) {
        match self {
            Dep::Stream(queue, count) => queue.wait_completed(*count),
            Dep::Event(event, generation) => event.wait(*generation),
        }
    }
}

struct Task {
    deps: Vec<Dep>,
    work: Work,
}

struct QueueState {
    tasks: VecDeque<Task>,
    enqueued: u64,
    completed: u64,
    running: bool,
    /// The stream's vector clock (the race detector's): what its latest
    /// operation is ordered after.
    clock: Clock,
}

/// One stream (or a device's null stream).
pub(crate) struct StreamQueue {
    pub device: usize,
    pub is_null: bool,
    /// Created without `hipStreamNonBlocking`: synchronizes with the null stream.
    pub blocking: bool,
    pub flags: u32,
    pub priority: i32,
    /// The stream as the race detector names it, with its clock component.
    pub actor: Actor,
    state: Mutex<QueueState>,
    changed: Condvar,
}

/// The queue a piece of work goes to.
pub(crate) type Target = Arc<StreamQueue>;

impl StreamQueue {
    /// A new queue; `name` is how race reports name it.
    pub fn new(device: usize, is_null: bool, flags: u32, priority: i32, name: String) -> Arc<StreamQueue> {
        Arc::new(StreamQueue {
            device,
            is_null,
            blocking: flags & crate::hipStreamNonBlocking == 0,
            flags,
            priority,
            actor: Actor::stream(races::new_component(), name),
            state: Mutex::new(QueueState {
                tasks: VecDeque::new(),
                enqueued: 0,
                completed: 0,
                running: false,
                clock: Clock::default(),
            }),
            changed: Condvar::new(),
        })
    }

    /// The tasks enqueued so far, joining the stream's clock into `clock`
    /// (both read at one instant).
    fn snapshot(&self, clock: Option<&mut Clock>) -> u64 {
        let state = lock(&self.state);
        if let Some(clock) = clock {
            clock.join(&state.clock);
        }
        state.enqueued
    }

    /// The stream's clock if it has run everything enqueued, else `None`.
    pub fn idle_clock(&self) -> Option<Clock> {
        let state = lock(&self.state);
        (state.completed == state.enqueued).then(|| state.clock.clone())
    }

    pub fn wait_completed(&self, count: u64) {
        let mut state = lock(&self.state);
        while state.completed < count {
            state = self.changed.wait_unpoisoned(state);
        }
    }

    /// Add a task; returns its ticket (the completed count that means done)
    /// and whether the caller must start a drain. With `after` (race
    /// checking on), the stream's clock joins it and ticks, and the task's
    /// epoch comes back, with the clock if `want_clock`.
    fn push(&self, task: Task, after: Option<&Clock>, want_clock: bool) -> (u64, bool, u32, Option<Clock>) {
        let mut state = lock(&self.state);
        state.tasks.push_back(task);
        state.enqueued += 1;
        let start = !state.running;
        state.running = true;
        let (epoch, clock) = match after {
            Some(after) => {
                state.clock.join(after);
                let epoch = races::tick(&mut state.clock, &self.actor);
                (epoch, want_clock.then(|| state.clock.clone()))
            }
            None => (0, None),
        };
        (state.enqueued, start, epoch, clock)
    }

    /// Run queued tasks in this thread until `until` tasks have completed
    /// (or the queue is empty); returns true if tasks remain.
    fn drain(&self, until: Option<u64>) -> bool {
        loop {
            let task = {
                let mut state = lock(&self.state);
                if until.is_some_and(|n| state.completed >= n) && !state.tasks.is_empty() {
                    return true;
                }
                match state.tasks.pop_front() {
                    Some(task) => task,
                    None => {
                        state.running = false;
                        self.changed.notify_all();
                        return false;
                    }
                }
            };
            for dep in &task.deps {
                dep.wait();
            }
            if let Err(error) = (task.work)() {
                log::error!("hip simulator: device fault on device {}: {error:?}", self.device);
                faults::inject_sticky_fault(error);
            }
            let mut state = lock(&self.state);
            state.completed += 1;
            self.changed.notify_all();
        }
    }
}

impl Drop for StreamQueue {
    /// A stream goes away once its work has run: device synchronization
    /// (and, for a blocking stream, the null stream) still orders after it.
    fn drop(&mut self) {
        if self.is_null || !races::race_check_enabled() {
            return;
        }
        let clock = &self.state.get_mut_unpoisoned().clock;
        if let Some(d) = super::runtime::try_sim().and_then(|sim| sim.device(self.device)) {
            lock(&d.retired).join(clock);
            if self.blocking {
                lock(&d.retired_blocking).join(clock);
            }
        }
    }
}

fn spawn_worker(queue: Arc<StreamQueue>) {
    let name = format!("hip-sim-stream-d{}", queue.device);
    let worker = queue.clone();
    if std::thread::Builder::new().name(name).spawn(move || worker.drain(None)).is_err() {
        // No thread to be had: drain here rather than lose the work.
        queue.drain(None);
    }
}

/// What the race detector needs of an enqueued operation.
pub(crate) struct Op {
    /// The HIP or library function that enqueues it.
    pub function: &'static str,
    /// The memory it reads, writes or frees.
    pub accesses: Vec<Access>,
    /// A clock it is also ordered after (the recording an event wait waits for).
    pub after: Option<Clock>,
    /// Whether the caller wants the operation's clock back (an event record).
    pub want_clock: bool,
}

impl Op {
    /// An operation of `function` touching no memory.
    pub fn new(function: &'static str) -> Op {
        Op { function, accesses: Vec::new(), after: None, want_clock: false }
    }

    /// An operation of `function` making `accesses`.
    pub fn with(function: &'static str, accesses: Vec<Access>) -> Op {
        Op { function, accesses, after: None, want_clock: false }
    }
}

/// Queue `work` on `target` after what the stream semantics require; with
/// `blocking`, wait for it (running it in this thread if the queue is idle).
pub(crate) fn submit(
    target: &Target,
    blocking: bool,
    op: Op,
    work: impl FnOnce() -> Result<(), hipError_t> + Send + 'static,
) -> Result<(), hipError_t> {
    submit_with(target, blocking, Vec::new(), op, Box::new(work)).map(drop)
}

/// As [`submit`], after `deps` too; returns the operation's clock when
/// `op.want_clock` asks for it (and race checking is on).
pub(crate) fn submit_with(
    target: &Target,
    blocking: bool,
    mut deps: Vec<Dep>,
    op: Op,
    work: Work,
) -> Result<Option<Clock>, hipError_t> {
    let device = sim().device(target.device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    let checking = races::race_check_enabled();
    let mut after = Clock::default();
    if target.is_null {
        for stream in live_streams(target.device) {
            if stream.blocking {
                let count = stream.snapshot(checking.then_some(&mut after));
                deps.push(Dep::Stream(stream, count));
            }
        }
        if checking {
            after.join(&lock(&device.retired_blocking));
        }
    } else if target.blocking {
        let null = device.null_stream.clone();
        let count = null.snapshot(checking.then_some(&mut after));
        deps.push(Dep::Stream(null, count));
    }
    if checking {
        races::join_host_into(&mut after);
        if let Some(event) = &op.after {
            after.join(event);
        }
    }
    let want_clock = checking && (blocking || op.want_clock || !op.accesses.is_empty());
    let (ticket, start, epoch, clock) = target.push(Task { deps, work }, checking.then_some(&after), want_clock);
    if let Some(clock) = &clock {
        if !op.accesses.is_empty() {
            let stamp = Stamp {
                clock,
                component: target.actor.component(),
                epoch,
                actor: &target.actor,
                function: op.function,
                device: target.device,
            };
            races::check(&stamp, &op.accesses);
        }
    }
    if blocking {
        if start && target.drain(Some(ticket)) {
            spawn_worker(target.clone());
        }
        target.wait_completed(ticket);
        if let Some(clock) = &clock {
            races::host_join(clock);
        }
        if let Some(error) = faults::sticky() {
            return Err(error);
        }
    } else if start {
        spawn_worker(target.clone());
    }
    Ok(if op.want_clock { clock } else { None })
}

fn live_streams(device: usize) -> Vec<Arc<StreamQueue>> {
    let Some(d) = sim().device(device) else {
        return Vec::new();
    };
    let mut streams = lock(&d.streams);
    streams.retain(|w| w.strong_count() > 0);
    streams.iter().filter_map(|w| w.upgrade()).collect()
}

/// Wait for all work submitted so far on `device`, then let its pools
/// release memory above their thresholds.
pub(crate) fn synchronize_device(device: usize) -> Result<(), hipError_t> {
    let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    let mut queues = live_streams(device);
    queues.push(d.null_stream.clone());
    let checking = races::race_check_enabled();
    let mut seen = Clock::default();
    if checking {
        seen.join(&lock(&d.retired));
    }
    for queue in queues {
        let count = queue.snapshot(checking.then_some(&mut seen));
        queue.wait_completed(count);
    }
    if checking {
        races::host_join(&seen);
    }
    d.pools.after_synchronize();
    faults::sticky().map_or(Ok(()), Err)
}

/// A stream held still by [`hold_stream`]: work queued behind it does not
/// run until this is released (or dropped).
#[derive(Debug)]
pub struct StreamHold {
    gate: Arc<(Mutex<bool>, Condvar)>,
}

impl StreamHold {
    /// Let the stream run on.
    pub fn release(self) {}
}

impl Drop for StreamHold {
    fn drop(&mut self) {
        let (open, changed) = &*self.gate;
        *lock(open) = true;
        changed.notify_all();
    }
}

/// Hold `stream` still (null is the calling thread's current device's null
/// stream): a task that waits for the returned [`StreamHold`] is queued on
/// it, so tests can tell a call that waits for the stream from one that
/// returns at once. Not a HIP call: it is not counted and checks no device.
///
/// # Errors
/// `hipErrorContextIsDestroyed` for a handle that is not a live stream.
pub fn hold_stream(stream: hipStream_t) -> Result<StreamHold, hipError_t> {
    let queue = target(stream)?;
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let waiting = gate.clone();
    submit(&queue, false, Op::new("hold_stream"), move || {
        let (open, changed) = &*waiting;
        let mut is_open = lock(open);
        while !*is_open {
            is_open = changed.wait_unpoisoned(is_open);
        }
        Ok(())
    })?;
    Ok(StreamHold { gate })
}

// ---- handles -------------------------------------------------------------

static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(0x5000_0000);
static STREAMS: Mutex<Option<HashMap<usize, Arc<StreamQueue>>>> = Mutex::new(None);

/// A fresh, never reused handle value (also used for events and modules).
pub(crate) fn new_handle() -> usize {
    NEXT_HANDLE.fetch_add(0x10, Ordering::Relaxed)
}

/// `hipStreamPerThread`: the calling thread's own stream on the current device.
const PER_THREAD: usize = 2;
/// `hipStreamLegacy`: the current device's null stream, from HIP 6.3.
const LEGACY: usize = 1;

/// Whether the simulated HIP knows `hipStreamLegacy`: clr handles it from
/// 6.3. HIP 6 is modelled by its strictest minor where minors differ, so
/// only 7 does.
fn legacy_known() -> bool {
    sim().config.hip_major >= 7
}

thread_local! {
    /// The thread's `hipStreamPerThread` stream of each device, made on
    /// first use.
    static PER_THREAD_STREAMS: RefCell<Vec<Option<Arc<StreamQueue>>>> = const { RefCell::new(Vec::new()) };
}

/// The calling thread's per-thread stream on `device`: a blocking stream
/// with default flags and normal priority, as clr's
/// `tls.stream_per_thread_obj_`. While the thread is exiting (its
/// thread-locals gone), the device's null stream stands in: it orders
/// work at least as strictly.
fn per_thread(device: usize) -> Result<Target, hipError_t> {
    let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    let made = PER_THREAD_STREAMS.try_with(|streams| {
        let mut streams = streams.borrow_mut();
        if streams.len() <= device {
            streams.resize(device + 1, None);
        }
        streams[device]
            .get_or_insert_with(|| {
                let name = format!("the per-thread stream of thread {} on device {device}", violations::thread_name());
                let queue = StreamQueue::new(device, false, crate::hipStreamDefault, NORMAL_PRIORITY, name);
                lock(&d.streams).push(Arc::downgrade(&queue));
                queue
            })
            .clone()
    });
    Ok(made.unwrap_or_else(|_| d.null_stream.clone()))
}

/// The queue for a non-null handle, if it is a live stream.
fn lookup(stream: hipStream_t) -> Option<Arc<StreamQueue>> {
    lock(&STREAMS).as_ref()?.get(&(stream as usize)).cloned()
}

/// The queue a stream handle names: null is the current device's null
/// stream, `hipStreamPerThread` the thread's own stream on it, and
/// `hipStreamLegacy` the null stream where the simulated HIP knows it; an
/// unknown handle is `hipErrorContextIsDestroyed`, as HIP answers for
/// destroyed streams.
pub(crate) fn target(stream: hipStream_t) -> Result<Target, hipError_t> {
    target_or(stream, hipError_t::hipErrorContextIsDestroyed)
}

/// As [`target`], with the error this call gives for an unknown handle.
pub(crate) fn target_or(stream: hipStream_t, unknown: hipError_t) -> Result<Target, hipError_t> {
    match stream as usize {
        0 => null_target(current_device()),
        LEGACY if legacy_known() => null_target(current_device()),
        PER_THREAD => per_thread(current_device()),
        _ => lookup(stream).ok_or(unknown),
    }
}

pub(crate) fn null_target(device: usize) -> Result<Target, hipError_t> {
    Ok(sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?.null_stream.clone())
}

/// [`target`], recording a violation if the stream is not on the current device.
pub(crate) fn checked_target(function: &'static str, stream: hipStream_t) -> Result<Target, hipError_t> {
    let queue = target(stream)?;
    violations::check(function, queue.device);
    Ok(queue)
}

// ---- the C entry points ----------------------------------------------------

fn create(out: *mut hipStream_t, flags: u32, priority: i32) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    if flags > crate::hipStreamNonBlocking {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let device = current_device();
    let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    // clr: at most -1 is High (-1), at least 1 is Low (1), else Normal (0).
    let priority = priority.clamp(GREATEST_PRIORITY, LEAST_PRIORITY);
    let handle = new_handle();
    let queue = StreamQueue::new(device, false, flags, priority, format!("stream {handle:#x} of device {device}"));
    lock(&d.streams).push(Arc::downgrade(&queue));
    lock(&STREAMS).get_or_insert_with(HashMap::new).insert(handle, queue);
    // SAFETY: checked non-null; valid per the C contract.
    unsafe { write_out(out, handle as hipStream_t) }
}

/// Stream priorities, clr's `Priority` (lower is more urgent): Low.
pub(crate) const LEAST_PRIORITY: i32 = 1;
/// Normal: the priority of streams made without one.
pub(crate) const NORMAL_PRIORITY: i32 = 0;
/// High.
pub(crate) const GREATEST_PRIORITY: i32 = -1;

pub(crate) unsafe extern "C" fn hipStreamCreate(stream: *mut hipStream_t) -> hipError_t {
    call(idx!("hipStreamCreate"), || create(stream, 0, NORMAL_PRIORITY))
}

pub(crate) unsafe extern "C" fn hipStreamCreateWithFlags(stream: *mut hipStream_t, flags: u32) -> hipError_t {
    call(idx!("hipStreamCreateWithFlags"), || create(stream, flags, NORMAL_PRIORITY))
}

pub(crate) unsafe extern "C" fn hipStreamCreateWithPriority(
    stream: *mut hipStream_t,
    flags: u32,
    priority: i32,
) -> hipError_t {
    call(idx!("hipStreamCreateWithPriority"), || create(stream, flags, priority))
}

pub(crate) unsafe extern "C" fn hipStreamDestroy(stream: hipStream_t) -> hipError_t {
    call(idx!("hipStreamDestroy"), || {
        match stream as usize {
            0 | PER_THREAD => return Err(hipError_t::hipErrorInvalidHandle),
            LEGACY if legacy_known() => return Err(hipError_t::hipErrorInvalidHandle),
            _ => {}
        }
        let queue = lock(&STREAMS)
            .as_mut()
            .and_then(|m| m.remove(&(stream as usize)))
            .ok_or(hipError_t::hipErrorContextIsDestroyed)?;
        violations::check("hipStreamDestroy", queue.device);
        // Work already queued still runs (its worker holds the queue).
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipStreamSynchronize(stream: hipStream_t) -> hipError_t {
    call(idx!("hipStreamSynchronize"), || {
        let queue = checked_target("hipStreamSynchronize", stream)?;
        // An empty blocking task waits for everything before it, including,
        // for the null stream, the device's blocking streams.
        submit(&queue, true, Op::new("hipStreamSynchronize"), || Ok(()))?;
        if let Some(d) = sim().device(queue.device) {
            d.pools.after_synchronize();
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipStreamQuery(stream: hipStream_t) -> hipError_t {
    call(idx!("hipStreamQuery"), || {
        let queue = checked_target("hipStreamQuery", stream)?;
        if let Some(clock) = queue.idle_clock() {
            // Seen done: the host is now ordered after its work.
            if races::race_check_enabled() {
                races::host_join(&clock);
            }
            Ok(())
        } else {
            Err(hipError_t::hipErrorNotReady)
        }
    })
}

pub(crate) unsafe extern "C" fn hipStreamWaitEvent(
    stream: hipStream_t,
    event: crate::hipEvent_t,
    flags: u32,
) -> hipError_t {
    call(idx!("hipStreamWaitEvent"), || {
        if flags != 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let queue = checked_target("hipStreamWaitEvent", stream)?;
        let event = super::events::lookup(event).ok_or(hipError_t::hipErrorInvalidHandle)?;
        match event.last_recording_clock() {
            (0, _) => Ok(()),
            (generation, clock) => {
                let op = Op { after: clock, ..Op::new("hipStreamWaitEvent") };
                submit_with(&queue, false, vec![Dep::Event(event, generation)], op, Box::new(|| Ok(()))).map(drop)
            }
        }
    })
}

pub(crate) unsafe extern "C" fn hipStreamGetPriority(stream: hipStream_t, priority: *mut i32) -> hipError_t {
    call(idx!("hipStreamGetPriority"), || {
        let queue = target(stream)?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(priority, queue.priority) }
    })
}

pub(crate) unsafe extern "C" fn hipStreamGetFlags(stream: hipStream_t, flags: *mut u32) -> hipError_t {
    call(idx!("hipStreamGetFlags"), || {
        // clr: `flags != nullptr && stream != nullptr`, else InvalidValue;
        // 7.x reads hipStreamLegacy as a stream object, which the
        // simulator refuses as the null stream.
        if stream.is_null() || stream as usize == LEGACY {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let queue = target(stream)?;
        // SAFETY: null is rejected by write_out.
        unsafe { write_out(flags, queue.flags) }
    })
}

pub(crate) unsafe extern "C" fn hipDeviceGetStreamPriorityRange(least: *mut i32, greatest: *mut i32) -> hipError_t {
    call(idx!("hipDeviceGetStreamPriorityRange"), || {
        // SAFETY: HIP accepts null for either; write_out would reject null, so test first.
        unsafe {
            if !least.is_null() {
                write_out(least, LEAST_PRIORITY)?;
            }
            if !greatest.is_null() {
                write_out(greatest, GREATEST_PRIORITY)?;
            }
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipDeviceSynchronize() -> hipError_t {
    call(idx!("hipDeviceSynchronize"), || synchronize_device(current_device()))
}
