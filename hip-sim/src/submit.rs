//! Putting work on a stream: the ordering the stream semantics require (the
//! legacy null stream, event waits), the race detector's check of what the
//! work touches, and waiting for it; and device synchronization.

use super::machine::sim;
use super::targets::target;
use crate::bindings::hip::{hipError_t, hipStream_t};
use crate::machine::capture::{self, Enqueue};
use crate::machine::faults;
use crate::machine::lock::lock;
use crate::machine::node_kind::NodeKind;
use crate::machine::queue::{spawn_worker, Dep, StreamQueue, Target, Task, Work};
use crate::machine::races::{self, Access, Clock, Deferred, Stamp};
use crate::sync::CondvarExt;
use crate::trace::Flow;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

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
    /// What a graph node of it is, where its function does not say all
    /// (a launch names its kernel, a copy its `hipMemcpyKind`).
    pub node: Option<NodeKind>,
    /// Set when more of its memory is known only as it runs: checked then
    /// with the clock it is enqueued with (see `races::Deferred`).
    pub deferred: Option<Arc<Deferred>>,
    /// The event recording it makes, or waits for, for the timeline's
    /// arrows between streams.
    pub flow: Option<Flow>,
}

impl Op {
    /// An operation of `function` touching no memory.
    pub fn new(function: &'static str) -> Op {
        Op { function, accesses: Vec::new(), after: None, want_clock: false, node: None, deferred: None, flow: None }
    }

    /// An operation of `function` making `accesses`.
    pub fn with(function: &'static str, accesses: Vec<Access>) -> Op {
        Op { function, accesses, after: None, want_clock: false, node: None, deferred: None, flow: None }
    }
}

/// Queue `work` on `target` after what the stream semantics require; with
/// `blocking`, wait for it (running it in this thread if the queue is idle).
pub(crate) fn submit(
    target: &Target,
    blocking: bool,
    op: Op,
    work: impl Fn() -> Result<(), hipError_t> + Send + Sync + 'static,
) -> Result<(), hipError_t> {
    submit_with(target, blocking, Vec::new(), op, Arc::new(work)).map(drop)
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
    if let Enqueue::Captured = capture::on_enqueue(target, blocking, op.function, op.node, &op.accesses, &work)? {
        // A graph's replays are checked at their launch, from what the
        // capture knew: a deferred operation's later memory is not.
        if let Some(deferred) = &op.deferred {
            deferred.unchecked();
        }
        return Ok(None);
    }
    let work = crate::trace::traced(op.function, target, op.flow, work);
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
            after.join(&lock(&device.retired.blocking));
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
    let deferred = op.deferred.as_ref().filter(|_| checking);
    let want_clock = checking && (blocking || op.want_clock || !op.accesses.is_empty() || deferred.is_some());
    // A deferred operation is registered before it can be ordered before
    // anything (see `races::Deferred`).
    let registration = deferred.map(|_| Deferred::register());
    let (ticket, start, epoch, clock) = target.push(Task { deps, work }, checking.then_some(&after), want_clock);
    if let Some(clock) = &clock {
        let stamp = Stamp {
            clock,
            component: target.actor.component(),
            epoch,
            actor: &target.actor,
            function: op.function,
            device: target.device,
        };
        if let (Some(deferred), Some(registration)) = (deferred, registration) {
            deferred.stamp(registration, &stamp);
        }
        if !op.accesses.is_empty() {
            races::check(&stamp, &op.accesses);
        }
    } else if let Some(deferred) = &op.deferred {
        deferred.unchecked();
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

/// Queue `work` on `target` after what is queued there, outside the race
/// detector's clocks: for work whose accesses were checked against a clock
/// of its own (a node of a replayed graph's other lanes), on a stream that
/// does not capture.
pub(crate) fn submit_unstamped(target: &Target, work: Work) {
    let (_, start, _, _) = target.push(Task { deps: Vec::new(), work }, None, false);
    if start {
        spawn_worker(target.clone());
    }
}

fn live_streams(device: usize) -> Vec<Arc<StreamQueue>> {
    let Some(d) = sim().device(device) else {
        return Vec::new();
    };
    let mut streams = lock(&d.streams);
    streams.retain(|w| w.strong_count() > 0);
    streams.iter().filter_map(|w| w.upgrade()).collect()
}

/// Whether a collective posted on a device waits for ranks that have not
/// made their call: set by RCCL when it makes its first communicator, so
/// that the enqueue path names no library.
static COLLECTIVE_WAITS: OnceLock<fn(usize) -> bool> = OnceLock::new();

/// Have device synchronizations ask `waits` whether a collective posted on
/// their device waits for its peers (RCCL's; the first one given stays).
pub(crate) fn watch_collectives(waits: fn(usize) -> bool) {
    let _ = COLLECTIVE_WAITS.set(waits);
}

/// Wait for all work submitted so far on `device`, then let its pools
/// release memory above their thresholds.
pub(crate) fn synchronize_device(function: &'static str, device: usize) -> Result<(), hipError_t> {
    // On a GPU the synchronization holds back the launches that a
    // collective posted here may still wait for (NCCL issue 48).
    if COLLECTIVE_WAITS.get().is_some_and(|waits| waits(device)) {
        crate::machine::violations::record_collective_deadlock(function, device);
    }
    let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    let mut queues = live_streams(device);
    queues.push(d.null_stream.clone());
    let checking = races::race_check_enabled();
    let mut seen = Clock::default();
    if checking {
        seen.join(&lock(&d.retired.all));
    }
    for queue in queues {
        let count = queue.snapshot(checking.then_some(&mut seen));
        queue.wait_completed(count);
    }
    if checking {
        races::host_join(&seen);
    }
    d.pools.after_synchronize(&d.memory);
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
