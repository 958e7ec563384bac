//! Ordering events, reused: one free list per device.
//!
//! Creating an event costs a driver call (and is slow when threads do it
//! at once), so the events that order uses of buffers across streams come
//! from here and go back here. Giving one back makes no HIP call, so a
//! buffer's drop may do it (rule 1).

use hip_core::{Device, Event, HipError};
use std::sync::Mutex;

/// Devices with a free list of their own; events of higher ordinals are
/// destroyed when given back.
const DEVICES: usize = 64;

/// Free events kept per device at most.
const KEEP: usize = 1024;

#[allow(clippy::declare_interior_mutable_const)] // the array initializer only
const EMPTY: Mutex<Vec<Event>> = Mutex::new(Vec::new());
static FREE: [Mutex<Vec<Event>>; DEVICES] = [EMPTY; DEVICES];

fn list(device: Device) -> Option<std::sync::MutexGuard<'static, Vec<Event>>> {
    FREE.get(device.ordinal()).map(|m| m.lock().unwrap_or_else(|p| p.into_inner()))
}

/// An untimed event of `device`, reused if one is free.
pub(crate) fn take(device: Device) -> Result<Event, HipError> {
    if let Some(event) = list(device).and_then(|mut free| free.pop()) {
        return Ok(event);
    }
    Event::untimed_on(device)
}

/// Return an event that nobody will wait on or record again (waits
/// already enqueued keep their snapshot). No HIP call unless the free list
/// is full, when the event is destroyed under its device: never call it
/// from a drop.
pub(crate) fn give(event: Event) {
    if let Some(mut free) = list(event.device()) {
        if free.len() < KEEP {
            free.push(event);
            return;
        }
    }
    drop(event);
}
