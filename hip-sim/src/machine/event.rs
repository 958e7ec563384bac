//! Events: markers recorded on a stream, completed when the stream reaches
//! them, with the host time of completion for `hipEventElapsedTime`.

use super::capture::CapturedRecord;
use super::ipc::EventPage;
use super::lock::lock;
use super::queue::Recordings;
use super::races::{self, Clock};
use crate::bindings::hip::hipEvent_t;
use crate::sync::CondvarExt;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
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
    /// The latest `hipEventRecord`, if it was in a capture (no recording
    /// then), and the stream of the latest one (its race-detector
    /// component; `None` for the null stream or never recorded).
    captured: Option<CapturedRecord>,
    stream: Option<u32>,
}

/// One event.
pub(crate) struct EventObj {
    pub device: usize,
    pub flags: u32,
    state: Mutex<EventState>,
    changed: Condvar,
    /// Once the event is shared with another process (exported, or
    /// opened from a handle): its recordings, which both processes make
    /// and complete. Recordings are then numbered there.
    ipc: OnceLock<Arc<EventPage>>,
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
    /// A new event of `device`, never recorded.
    pub fn new(device: usize, flags: u32) -> EventObj {
        EventObj {
            device,
            flags,
            state: Mutex::new(EventState {
                recorded: 0,
                completed_through: 0,
                completed_later: BTreeSet::new(),
                time: None,
                clock: None,
                captured: None,
                stream: None,
            }),
            changed: Condvar::new(),
            ipc: OnceLock::new(),
        }
    }

    /// An event opened from another process's handle: its recordings are
    /// the page's.
    pub fn opened(device: usize, flags: u32, page: Arc<EventPage>) -> EventObj {
        let event = EventObj::new(device, flags);
        let _ = event.ipc.set(page);
        event
    }

    /// The event's page, made from its recordings so far at its first
    /// export.
    pub fn share(&self) -> std::io::Result<Arc<EventPage>> {
        if let Some(page) = self.ipc.get() {
            return Ok(page.clone());
        }
        let state = lock(&self.state);
        let page = Arc::new(EventPage::create(state.recorded, state.completed_through)?);
        Ok(self.ipc.get_or_init(|| page).clone())
    }

    /// The page, if the event is shared with another process.
    pub fn page(&self) -> Option<&Arc<EventPage>> {
        self.ipc.get()
    }

    /// Whether recording `generation` has completed, here or (shared) in
    /// either process.
    fn done_now(&self, state: &EventState, generation: u64) -> bool {
        state.done(generation) || self.ipc.get().is_some_and(|page| page.done(generation))
    }

    /// Start a new recording on the stream with component `stream`
    /// (`None`: the null stream); returns its number.
    pub fn begin_recording(&self, stream: Option<u32>) -> u64 {
        let mut state = lock(&self.state);
        state.recorded = match self.ipc.get() {
            Some(page) => page.record(),
            None => state.recorded + 1,
        };
        state.captured = None;
        state.stream = stream;
        state.recorded
    }

    /// The event was recorded in a capture (on the stream with component
    /// `stream`): no recording, the capture's nodes instead.
    pub fn captured_in(&self, record: CapturedRecord, stream: u32) {
        let mut state = lock(&self.state);
        state.captured = Some(record);
        state.stream = Some(stream);
    }

    /// The latest record if it was in a capture, and the stream of the
    /// latest record.
    pub fn capture_record(&self) -> (Option<CapturedRecord>, Option<u32>) {
        let state = lock(&self.state);
        (state.captured.clone(), state.stream)
    }

    /// Keep `clock` as the race detector's clock of recording
    /// `generation`, unless a later recording's is kept already.
    pub fn set_recording_clock(&self, generation: u64, clock: Clock) {
        let mut state = lock(&self.state);
        if state.clock.as_ref().is_none_or(|(g, _)| *g < generation) {
            state.clock = Some((generation, clock));
        }
    }

    /// Whether the latest recording has completed, and which it is.
    pub fn latest_done(&self) -> (bool, u64) {
        let state = lock(&self.state);
        let recorded = self.last_recorded(&state);
        (self.done_now(&state, recorded), recorded)
    }

    /// The latest recording, of either process when shared.
    fn last_recorded(&self, state: &EventState) -> u64 {
        self.ipc.get().map_or(state.recorded, |page| page.recorded())
    }

    /// The latest recording, whether it has completed, and its completion
    /// time once it has.
    pub fn timing(&self) -> (u64, bool, Option<Instant>) {
        let s = lock(&self.state);
        (s.recorded, s.done(s.recorded), s.latest_time())
    }

    pub fn last_recording(&self) -> u64 {
        self.last_recorded(&lock(&self.state))
    }

    /// The latest recording and, if race checking has it, its clock.
    pub fn last_recording_clock(&self) -> (u64, Option<Clock>) {
        let state = lock(&self.state);
        let recorded = self.last_recorded(&state);
        let clock = state.clock.as_ref().filter(|(g, _)| *g == recorded).map(|(_, c)| c.clone());
        (recorded, clock)
    }

    /// The host has seen recording `generation` complete: it is ordered
    /// after what that recording captured.
    pub fn host_saw(&self, generation: u64) {
        if !races::race_check_enabled() || generation == 0 {
            return;
        }
        let clock = lock(&self.state).clock.as_ref().filter(|(g, _)| *g == generation).map(|(_, c)| c.clone());
        if let Some(clock) = clock {
            races::host_join(&clock);
        }
    }

    pub fn wait(&self, generation: u64) {
        if let Some(page) = self.ipc.get() {
            // The other process completes recordings too: poll.
            return page.wait(generation);
        }
        let mut state = lock(&self.state);
        while !state.done(generation) {
            state = self.changed.wait_unpoisoned(state);
        }
    }

    pub fn complete(&self, generation: u64) {
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
        if let Some(page) = self.ipc.get() {
            page.complete(generation);
        }
        self.changed.notify_all();
    }
}

impl Recordings for EventObj {
    fn wait_for(&self, generation: u64) {
        self.wait(generation);
    }
}

/// The live events, by handle.
static EVENTS: Mutex<Option<HashMap<usize, Arc<EventObj>>>> = Mutex::new(None);

/// The live event `event` names.
pub(crate) fn lookup(event: hipEvent_t) -> Option<Arc<EventObj>> {
    lock(&EVENTS).as_ref()?.get(&(event as usize)).cloned()
}

/// Name `event` by `handle` (`hipEventCreate*`).
pub(crate) fn insert(handle: usize, event: Arc<EventObj>) {
    lock(&EVENTS).get_or_insert_with(HashMap::new).insert(handle, event);
}

/// Forget the event named `handle` (`hipEventDestroy`); the event, if it was one.
pub(crate) fn remove(handle: usize) -> Option<Arc<EventObj>> {
    lock(&EVENTS).as_mut().and_then(|m| m.remove(&handle))
}
