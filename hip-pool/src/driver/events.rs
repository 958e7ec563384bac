//! Ordering events, reused: one free list per device, and
//! [`order_after`], which orders one stream's later work after another's.
//!
//! Creating an event costs a driver call (and is slow when threads do it
//! at once), so the events that order uses of buffers across streams come
//! from here and go back here. Giving one back makes no HIP call, so a
//! buffer's drop may do it (rule 1).

use hip_core::{Device, Event, HipError, Stream};
use hip_sys::sync::MutexExt;
use std::collections::VecDeque;
use std::sync::Mutex;

/// Devices with a free list of their own; events of higher ordinals are
/// destroyed when given back.
const DEVICES: usize = 64;

/// Free events kept per device at most.
const KEEP: usize = 1024;

#[allow(clippy::declare_interior_mutable_const)] // the array initializer only
const EMPTY: Mutex<VecDeque<Event>> = Mutex::new(VecDeque::new());
static FREE: [Mutex<VecDeque<Event>>; DEVICES] = [EMPTY; DEVICES];

fn list(device: Device) -> Option<std::sync::MutexGuard<'static, VecDeque<Event>>> {
    FREE.get(device.ordinal()).map(|m| m.lock_unpoisoned())
}

/// An untimed event of `device`: a free one, else a new one.
///
/// A free event may still have a recording in flight that earlier waits
/// refer to. That is safe to record again: `hipStreamWaitEvent` (and
/// CUDA's) waits for the recording that was the event's latest when the
/// wait was enqueued, whatever is recorded afterwards (clr's wait keeps a
/// reference to that recording's marker; the simulator tracks each
/// recording's completion apart). Asking first whether the recording is
/// over would cost a `hipEventQuery` per use on another stream, a third
/// of that path on CUDA (and a query, which a capture underway forbids).
pub(crate) fn take(device: Device) -> Result<Event, HipError> {
    match list(device).and_then(|mut free| free.pop_front()) {
        Some(event) => Ok(event),
        None => Event::untimed_on(device),
    }
}

/// Return an event that nobody will wait on or record again (waits
/// already enqueued keep their snapshot). No HIP call unless the free list
/// is full, when the event is destroyed under its device: never call it
/// from a drop.
pub(crate) fn give(event: Event) {
    if let Some(mut free) = list(event.device()) {
        if free.len() < KEEP {
            free.push_back(event);
            return;
        }
    }
    drop(event);
}

/// Make `stream` wait for all work queued so far on `previous`.
///
/// When `previous` captures, the work queued on it is what came before the
/// capture (captured work does not run then): `stream` waits for the event
/// the capture recorded there as it began, since one recorded now would
/// record into the graph (and a stream waiting on it would join the
/// capture).
///
/// # Errors
/// HIP's status of the event calls; [`HipError::CaptureUnderway`] when
/// `previous` joined a capture begun elsewhere (its work before joining
/// has no event to wait for).
pub(crate) fn order_after(previous: &Stream, stream: &Stream) -> Result<(), HipError> {
    if let Some(scope) = hip_core::capture::of(previous)? {
        return match scope.before(previous) {
            Some(event) => stream.wait(event),
            None => Err(HipError::CaptureUnderway {
                operation: "ordering memory after a stream",
                why: "the stream joined a capture begun on another stream, so the work queued on it \
                      before cannot be waited for",
            }),
        };
    }
    let event = take(previous.device())?;
    let result = event.record(previous).and_then(|()| stream.wait(&event));
    // The wait took a snapshot of the recording: the event is free again.
    give(event);
    result
}
