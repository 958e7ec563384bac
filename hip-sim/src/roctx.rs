//! The simulator's ROCTx: each thread's nested ranges and marks, with
//! ROCTx's return values (a push answers the 0-based level it starts at,
//! a pop the level of the range it stops or -1 with none open), recorded
//! with their times in the process's timeline, which tests read
//! ([`profile_events`]).
//!
//! The timeline keeps the first [`MAX_PROFILE_EVENTS`] events after each
//! [`clear_profile_events`] and counts the rest, so a program that
//! annotates a long loop on the simulator does not grow without bound.

use crate::bindings::roctx::RoctxApi;
use crate::machine::lock::lock;
use std::cell::Cell;
use std::ffi::{c_char, c_int, CStr};
use std::sync::Mutex;
use std::time::Instant;

/// What one annotation was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileKind {
    /// `roctxRangePushA`: a range opened, with its message.
    Push(String),
    /// `roctxRangePop`: the thread's innermost range closed.
    Pop,
    /// `roctxMarkA`: an instant, with its message.
    Mark(String),
}

/// One annotation in the simulator's timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileEvent {
    /// The annotating thread.
    pub thread: std::thread::ThreadId,
    /// What it was.
    pub kind: ProfileKind,
    /// For a push, the level it started at; for a pop, the level of the
    /// range it stopped, or -1 when none was open; 0 for a mark.
    pub level: i32,
    /// When it was made.
    pub at: Instant,
}

/// The most events the timeline keeps between two clears.
pub const MAX_PROFILE_EVENTS: usize = 1 << 16;

struct Timeline {
    events: Vec<ProfileEvent>,
    dropped: u64,
}

static TIMELINE: Mutex<Timeline> = Mutex::new(Timeline { events: Vec::new(), dropped: 0 });

thread_local! {
    /// The thread's open ranges.
    static LEVEL: Cell<i32> = const { Cell::new(0) };
}

fn record(kind: ProfileKind, level: i32) {
    let event = ProfileEvent { thread: std::thread::current().id(), kind, level, at: Instant::now() };
    let mut timeline = lock(&TIMELINE);
    if timeline.events.len() < MAX_PROFILE_EVENTS {
        timeline.events.push(event);
    } else {
        timeline.dropped += 1;
    }
}

/// The message of a call: `None` for null, which ROCTx declares it never
/// takes (`ROCTX_NONNULL`).
///
/// # Safety
/// `message` is null or a NUL-terminated string.
unsafe fn message(function: &str, message: *const c_char) -> Option<String> {
    if message.is_null() {
        log::error!("hip simulator: {function} with a null message, which ROCTx never takes: ignored");
        return None;
    }
    // SAFETY: non-null and NUL-terminated (the caller's guarantee).
    Some(unsafe { CStr::from_ptr(message) }.to_string_lossy().into_owned())
}

unsafe extern "C" fn roctxMarkA(text: *const c_char) {
    // SAFETY: the C contract.
    if let Some(text) = unsafe { message("roctxMarkA", text) } {
        record(ProfileKind::Mark(text), 0);
    }
}

unsafe extern "C" fn roctxRangePushA(text: *const c_char) -> c_int {
    // SAFETY: the C contract.
    let Some(text) = (unsafe { message("roctxRangePushA", text) }) else { return -1 };
    let level = LEVEL.with(|l| l.replace(l.get() + 1));
    record(ProfileKind::Push(text), level);
    level
}

unsafe extern "C" fn roctxRangePop() -> c_int {
    let level = LEVEL.with(|l| {
        let open = l.get();
        if open == 0 {
            return -1;
        }
        l.set(open - 1);
        open - 1
    });
    record(ProfileKind::Pop, level);
    level
}

/// The simulator's ROCTx table.
pub(crate) static SIM_ROCTX: RoctxApi = RoctxApi { roctxMarkA, roctxRangePushA, roctxRangePop };

/// The annotations recorded since the last [`clear_profile_events`], in
/// the order they were made, and how many were left out past
/// [`MAX_PROFILE_EVENTS`].
pub fn profile_events() -> (Vec<ProfileEvent>, u64) {
    let timeline = lock(&TIMELINE);
    (timeline.events.clone(), timeline.dropped)
}

/// Forget the recorded annotations (each thread's open ranges stay open).
pub fn clear_profile_events() {
    let mut timeline = lock(&TIMELINE);
    timeline.events.clear();
    timeline.dropped = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_roctx_and_a_pop_with_none_open_is_minus_one() {
        std::thread::spawn(|| {
            // SAFETY: NUL-terminated messages.
            unsafe {
                assert_eq!(roctxRangePushA(c"outer".as_ptr()), 0);
                assert_eq!(roctxRangePushA(c"inner".as_ptr()), 1);
                roctxMarkA(c"here".as_ptr());
                assert_eq!(roctxRangePop(), 1);
                assert_eq!(roctxRangePop(), 0);
                assert_eq!(roctxRangePop(), -1);
                assert_eq!(roctxRangePushA(std::ptr::null()), -1, "null is refused");
            }
            let me = std::thread::current().id();
            let (events, _) = profile_events();
            let mine: Vec<(ProfileKind, i32)> =
                events.into_iter().filter(|e| e.thread == me).map(|e| (e.kind, e.level)).collect();
            assert_eq!(
                mine,
                [
                    (ProfileKind::Push("outer".into()), 0),
                    (ProfileKind::Push("inner".into()), 1),
                    (ProfileKind::Mark("here".into()), 0),
                    (ProfileKind::Pop, 1),
                    (ProfileKind::Pop, 0),
                    (ProfileKind::Pop, -1),
                ]
            );
        })
        .join()
        .unwrap();
    }
}
