//! The order of graph replays: [`ReplayOrder`], which the launches of
//! every executable graph that shares memory with another go through.
//!
//! A graph bakes the addresses of its memory, so two replays that share
//! memory must never run at once: replays of one executable graph, of two
//! made from one graph, and of graphs captured into one shared private
//! pool (whose later captures reuse blocks the earlier ones freed). Each
//! launch of such a set takes the set's order under its lock: on the
//! stream of the latest launch it costs one comparison; on another, the
//! new stream first waits (on the GPU) for an event recorded after the
//! latest launch. The lock is held until the launch is enqueued, so two
//! threads launching graphs of one set are ordered too.

use crate::{Event, Result, Stream};
use hip_sys::sync::MutexExt;
use std::sync::{Mutex, MutexGuard};

/// The order that a set of executable graphs sharing memory launch in
/// (see the module docs): a graph's own, or a shared private pool's, taken
/// by every graph captured into it
/// ([`CaptureScope::replay_in`](crate::capture::CaptureScope::replay_in)).
#[derive(Debug, Default)]
pub struct ReplayOrder {
    launches: Mutex<Launches>,
}

/// Where the set's launches went: what the next launch on another stream,
/// an update and a drop wait for.
#[derive(Debug, Default)]
pub(crate) struct Launches {
    /// The stream of the latest launch; every earlier launch is ordered
    /// before its later work.
    pub last: Option<Stream>,
    /// Reused to order a launch on a new stream after the last one.
    switch: Option<Event>,
}

impl ReplayOrder {
    /// The launches, locked for one launch (or a wait for the last).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Launches> {
        self.launches.lock_unpoisoned()
    }
}

impl Launches {
    /// Make `stream` wait for the last launch, if there was one.
    pub fn order_after_last(&mut self, stream: &Stream) -> Result<()> {
        let Some(last) = &self.last else {
            return Ok(());
        };
        let event = match self.switch.take() {
            Some(event) => event,
            None => Event::untimed_on(stream.device())?,
        };
        // A wait takes a snapshot of the recording: the event is free again after it.
        let ordered = event.record(last).and_then(|()| stream.wait(&event));
        self.switch = Some(event);
        ordered
    }
}
