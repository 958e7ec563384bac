//! Streams: in-order work queues drained by worker threads.
//!
//! A queue runs its tasks in submission order. A worker thread is spawned
//! when work arrives on an idle queue and exits when the queue is empty, so
//! idle streams cost no thread. A blocking call (`hipMemcpy`) on an idle
//! queue runs its task in the calling thread. Tasks may wait on other
//! queues (the legacy null stream) or on events (`hipStreamWaitEvent`)
//! before running.

use super::faults;
use super::lock::lock;
use super::races::{self, Actor, Clock};
use crate::bindings::hip::hipError_t;
use crate::sync::{CondvarExt, MutexExt};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

/// Work on a stream; an error is a device fault (sticky, as on ROCm 7).
/// It can run more than once: a captured operation is a graph node that
/// every launch of the graph runs again.
pub(crate) type Work = Arc<dyn Fn() -> Result<(), hipError_t> + Send + Sync>;

/// What runs once a task has been counted complete ([`when_counted`]).
type AfterCounted = Vec<Box<dyn FnOnce()>>;

thread_local! {
    /// Whether this thread is running a task (`Some`), and what runs once
    /// its queue has counted it complete.
    static COUNTED: std::cell::RefCell<Option<AfterCounted>> = const { std::cell::RefCell::new(None) };
}

/// Run `f` once the task this thread is running has been counted complete
/// by its queue (at once outside a task). An event's completion goes
/// here: whoever sees the event complete then also sees its stream past
/// the record, as on a GPU, where a stream whose last work was the record
/// is idle the moment the event completes.
pub(crate) fn when_counted(f: impl FnOnce() + 'static) {
    let deferred = COUNTED.with(|c| match c.borrow_mut().as_mut() {
        Some(after) => {
            after.push(Box::new(f));
            None
        }
        None => Some(f),
    });
    if let Some(f) = deferred {
        f();
    }
}

/// Something that completes numbered recordings, which a task can wait
/// for: an event. Named here and implemented by the event, so the queue
/// that waits knows nothing else of events (they know of captures, which
/// know of queues).
pub(crate) trait Recordings: Send + Sync {
    /// Block until recording `generation` has completed.
    fn wait_for(&self, generation: u64);
}

/// Something a task waits for before running.
pub(crate) enum Dep {
    /// A queue has completed this many tasks.
    Stream(Arc<StreamQueue>, u64),
    /// An event has completed this recording.
    Event(Arc<dyn Recordings>, u64),
}

impl Dep {
    fn wait(&self) {
        match self {
            Dep::Stream(queue, count) => queue.wait_completed(*count),
            Dep::Event(event, generation) => event.wait_for(*generation),
        }
    }
}

/// A piece of work and what it waits for.
pub(crate) struct Task {
    pub deps: Vec<Dep>,
    pub work: Work,
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
    /// Where the stream's final clock goes when it is gone: its device's.
    retired: Arc<Retired>,
    state: Mutex<QueueState>,
    changed: Condvar,
}

/// The joined final clocks of a device's streams that are gone (their
/// work has run).
#[derive(Default)]
pub(crate) struct Retired {
    /// Of every stream: device synchronization orders after them.
    pub all: Mutex<Clock>,
    /// Of the blocking streams only: the null stream orders after them.
    pub blocking: Mutex<Clock>,
}

/// The queue a piece of work goes to.
pub(crate) type Target = Arc<StreamQueue>;

impl StreamQueue {
    /// A new queue of `device`; `name` is how race reports name it, and
    /// `retired` is where its final clock goes when it is gone (the
    /// device's).
    pub fn new(
        device: usize,
        is_null: bool,
        flags: u32,
        priority: i32,
        name: String,
        retired: Arc<Retired>,
    ) -> Arc<StreamQueue> {
        Arc::new(StreamQueue {
            device,
            is_null,
            blocking: flags & crate::bindings::hip::hipStreamNonBlocking == 0,
            flags,
            priority,
            actor: Actor::stream(races::new_component(), name),
            retired,
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
    pub fn snapshot(&self, clock: Option<&mut Clock>) -> u64 {
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
    pub fn push(&self, task: Task, after: Option<&Clock>, want_clock: bool) -> (u64, bool, u32, Option<Clock>) {
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
    pub fn drain(&self, until: Option<u64>) -> bool {
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
            let outer = COUNTED.with(|c| c.borrow_mut().replace(Vec::new()));
            let result = (task.work)();
            let after = COUNTED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer)).unwrap_or_default();
            if let Err(error) = result {
                log::error!("hip simulator: device fault on device {}: {error:?}", self.device);
                faults::inject_sticky_fault(error);
            }
            {
                let mut state = lock(&self.state);
                state.completed += 1;
                self.changed.notify_all();
            }
            for f in after {
                f();
            }
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
        lock(&self.retired.all).join(clock);
        if self.blocking {
            lock(&self.retired.blocking).join(clock);
        }
    }
}

/// Drain `queue` on a new worker thread.
pub(crate) fn spawn_worker(queue: Arc<StreamQueue>) {
    let name = format!("hip-sim-stream-d{}", queue.device);
    let worker = queue.clone();
    if std::thread::Builder::new().name(name).spawn(move || worker.drain(None)).is_err() {
        // No thread to be had: drain here rather than lose the work.
        queue.drain(None);
    }
}

/// Stream priorities, clr's `Priority` (lower is more urgent): Low.
pub(crate) const LEAST_PRIORITY: i32 = 1;
/// Normal: the priority of streams made without one.
pub(crate) const NORMAL_PRIORITY: i32 = 0;
/// High.
pub(crate) const GREATEST_PRIORITY: i32 = -1;
