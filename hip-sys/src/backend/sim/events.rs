//! Events: markers recorded on a stream, completed when the stream reaches
//! them, with the host time of completion for `hipEventElapsedTime`.

use super::entry::{call, idx, write_out};
use super::races::{self, Clock};
use super::runtime::{current_device, lock};
use super::streams::{self, new_handle};
use super::violations;
use crate::sync::CondvarExt;
use crate::{hipError_t, hipEvent_t, hipStream_t};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

struct EventState {
    /// Recordings made (0: never recorded).
    recorded: u64,
    /// Every recording up to this one has completed.
    completed_through: u64,
    /// Recordings after `completed_through` that have completed: an event
    /// recorded again on another stream can complete out of order, and a
    /// wait is for the recording it saw, not for any later one.
    completed_later: BTreeSet<u64>,
    /// The latest completed recording and its host time.
    time: Option<(u64, Instant)>,
    /// The race detector's clock of the latest recording (what waiting for
    /// it orders after), and which recording that is.
    clock: Option<(u64, Clock)>,
}

/// One event.
pub(crate) struct EventObj {
    pub device: usize,
    pub flags: u32,
    state: Mutex<EventState>,
    changed: Condvar,
}

impl EventState {
    /// Whether recording `generation` has completed (0, never recorded, has).
    fn done(&self, generation: u64) -> bool {
        generation <= self.completed_through || self.completed_later.contains(&generation)
    }

    /// The completion time of the latest recording, once it has completed.
    fn latest_time(&self) -> Option<Instant> {
        self.time.filter(|(g, _)| *g == self.recorded).map(|(_, t)| t)
    }
}

impl EventObj {
    pub fn last_recording(&self) -> u64 {
        lock(&self.state).recorded
    }

    /// The latest recording and, if race checking has it, its clock.
    pub fn last_recording_clock(&self) -> (u64, Option<Clock>) {
        let state = lock(&self.state);
        let clock = state.clock.as_ref().filter(|(g, _)| *g == state.recorded).map(|(_, c)| c.clone());
        (state.recorded, clock)
    }

    /// The host has seen recording `generation` complete: it is ordered
    /// after what that recording captured.
    fn host_saw(&self, generation: u64) {
        if !races::race_check_enabled() || generation == 0 {
            return;
        }
        let clock = lock(&self.state).clock.as_ref().filter(|(g, _)| *g == generation).map(|(_, c)| c.clone());
        if let Some(clock) = clock {
            races::host_join(&clock);
        }
    }

    pub fn wait(&self, generation: u64) {
        let mut state = lock(&self.state);
        while !state.done(generation) {
            state = self.changed.wait_unpoisoned(state);
        }
    }

    fn complete(&self, generation: u64) {
        let mut state = lock(&self.state);
        if !state.done(generation) {
            state.completed_later.insert(generation);
            loop {
                let next = state.completed_through + 1;
                if !state.completed_later.remove(&next) {
                    break;
                }
                state.completed_through = next;
            }
        }
        if state.time.is_none_or(|(g, _)| g < generation) {
            state.time = Some((generation, Instant::now()));
        }
        self.changed.notify_all();
    }
}

static EVENTS: Mutex<Option<HashMap<usize, Arc<EventObj>>>> = Mutex::new(None);

pub(crate) fn lookup(event: hipEvent_t) -> Option<Arc<EventObj>> {
    lock(&EVENTS).as_ref()?.get(&(event as usize)).cloned()
}

fn checked(function: &'static str, event: hipEvent_t) -> Result<Arc<EventObj>, hipError_t> {
    if event.is_null() {
        return Err(hipError_t::hipErrorInvalidHandle);
    }
    let event = lookup(event).ok_or(hipError_t::hipErrorContextIsDestroyed)?;
    violations::check(function, event.device);
    Ok(event)
}

/// The release and fence flags, of which clr allows at most one.
const RELEASE_FLAGS: u32 =
    crate::hipEventDisableSystemFence | crate::hipEventReleaseToDevice | crate::hipEventReleaseToSystem;
/// Every flag clr's `ihipEventCreateWithFlags` accepts.
const KNOWN_FLAGS: u32 =
    crate::hipEventBlockingSync | crate::hipEventDisableTiming | crate::hipEventInterprocess | RELEASE_FLAGS;

/// Whether clr accepts `flags`: only known bits, at most one release or
/// fence flag, and `hipEventInterprocess` only with `hipEventDisableTiming`.
fn valid_flags(flags: u32) -> bool {
    flags & !KNOWN_FLAGS == 0
        && (flags & RELEASE_FLAGS).count_ones() <= 1
        && (flags & crate::hipEventInterprocess == 0 || flags & crate::hipEventDisableTiming != 0)
}

fn create(out: *mut hipEvent_t, flags: u32) -> Result<(), hipError_t> {
    if out.is_null() || !valid_flags(flags) {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let event = Arc::new(EventObj {
        device: current_device(),
        flags,
        state: Mutex::new(EventState {
            recorded: 0,
            completed_through: 0,
            completed_later: BTreeSet::new(),
            time: None,
            clock: None,
        }),
        changed: Condvar::new(),
    });
    let handle = new_handle();
    lock(&EVENTS).get_or_insert_with(HashMap::new).insert(handle, event);
    // SAFETY: checked non-null.
    unsafe { write_out(out, handle as hipEvent_t) }
}

pub(crate) unsafe extern "C" fn hipEventCreate(event: *mut hipEvent_t) -> hipError_t {
    call(idx!("hipEventCreate"), || create(event, 0))
}

pub(crate) unsafe extern "C" fn hipEventCreateWithFlags(event: *mut hipEvent_t, flags: u32) -> hipError_t {
    call(idx!("hipEventCreateWithFlags"), || create(event, flags))
}

pub(crate) unsafe extern "C" fn hipEventRecord(event: hipEvent_t, stream: hipStream_t) -> hipError_t {
    call(idx!("hipEventRecord"), || {
        let event = checked("hipEventRecord", event)?;
        let queue = streams::checked_target("hipEventRecord", stream)?;
        if queue.device != event.device {
            // HIP and CUDA: the event and the stream must share a device.
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        let generation = {
            let mut state = lock(&event.state);
            state.recorded += 1;
            state.recorded
        };
        let recorded = event.clone();
        let op = streams::Op { want_clock: true, ..streams::Op::new("hipEventRecord") };
        let work = Box::new(move || {
            recorded.complete(generation);
            Ok(())
        });
        let clock = streams::submit_with(&queue, false, Vec::new(), op, work)?;
        if let Some(clock) = clock {
            let mut state = lock(&event.state);
            if state.clock.as_ref().is_none_or(|(g, _)| *g < generation) {
                state.clock = Some((generation, clock));
            }
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipEventSynchronize(event: hipEvent_t) -> hipError_t {
    call(idx!("hipEventSynchronize"), || {
        let event = checked("hipEventSynchronize", event)?;
        let generation = event.last_recording();
        event.wait(generation);
        event.host_saw(generation);
        super::faults::sticky().map_or(Ok(()), Err)
    })
}

pub(crate) unsafe extern "C" fn hipEventQuery(event: hipEvent_t) -> hipError_t {
    call(idx!("hipEventQuery"), || {
        let event = checked("hipEventQuery", event)?;
        let (completed, recorded) = {
            let state = lock(&event.state);
            (state.done(state.recorded), state.recorded)
        };
        if completed {
            event.host_saw(recorded);
            Ok(())
        } else {
            Err(hipError_t::hipErrorNotReady)
        }
    })
}

pub(crate) unsafe extern "C" fn hipEventElapsedTime(ms: *mut f32, start: hipEvent_t, stop: hipEvent_t) -> hipError_t {
    call(idx!("hipEventElapsedTime"), || {
        if ms.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let start = checked("hipEventElapsedTime", start)?;
        let stop = checked("hipEventElapsedTime", stop)?;
        if start.device != stop.device || (start.flags | stop.flags) & crate::hipEventDisableTiming != 0 {
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        let times = |e: &EventObj| {
            let s = lock(&e.state);
            (s.recorded, s.done(s.recorded), s.latest_time())
        };
        let (start_rec, start_done, start_time) = times(&start);
        let (stop_rec, stop_done, stop_time) = times(&stop);
        if start_rec == 0 || stop_rec == 0 {
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        if !start_done || !stop_done {
            return Err(hipError_t::hipErrorNotReady);
        }
        let (Some(a), Some(b)) = (start_time, stop_time) else {
            return Err(hipError_t::hipErrorNotReady);
        };
        let elapsed = if b >= a { (b - a).as_secs_f64() } else { -((a - b).as_secs_f64()) };
        // SAFETY: checked non-null.
        unsafe { write_out(ms, (elapsed * 1e3) as f32) }
    })
}

pub(crate) unsafe extern "C" fn hipEventDestroy(event: hipEvent_t) -> hipError_t {
    call(idx!("hipEventDestroy"), || {
        if event.is_null() {
            return Err(hipError_t::hipErrorInvalidHandle);
        }
        let removed = lock(&EVENTS).as_mut().and_then(|m| m.remove(&(event as usize)));
        let event = removed.ok_or(hipError_t::hipErrorContextIsDestroyed)?;
        violations::check("hipEventDestroy", event.device);
        Ok(())
    })
}
