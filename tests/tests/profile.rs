//! Profiler ranges and marks (`amdgpu::profile`) on the simulator, whose
//! ROCTx records each thread's annotations: ranges nest and pair per
//! thread, close innermost first whatever order their guards drop in,
//! close on unwind, and cost nothing once switched off. Every test holds
//! `sim::exclusive()` (switching ranges off is process-wide) and runs on
//! a thread of its own, whose annotations it reads.

use amdgpu::profile;
use hip_sys::sim::{self, ProfileKind};

/// Run `f` on a fresh thread and return what it annotated: each event's
/// kind and level, in order.
fn annotations_of(f: impl FnOnce() + Send + 'static) -> Vec<(ProfileKind, i32)> {
    let thread = std::thread::spawn(f);
    let id = thread.thread().id();
    thread.join().expect("the thread runs");
    let (events, dropped) = sim::profile_events();
    assert_eq!(dropped, 0, "the timeline kept every event");
    events.into_iter().filter(|e| e.thread == id).map(|e| (e.kind, e.level)).collect()
}

fn push(name: &str, level: i32) -> (ProfileKind, i32) {
    (ProfileKind::Push(name.to_owned()), level)
}

fn pop(level: i32) -> (ProfileKind, i32) {
    (ProfileKind::Pop, level)
}

fn mark(name: &str) -> (ProfileKind, i32) {
    (ProfileKind::Mark(name.to_owned()), 0)
}

#[test]
fn ranges_nest_and_pair_on_their_thread() {
    let _x = sim::exclusive();
    assert!(profile::enabled(), "the simulator has ROCTx");
    let seen = annotations_of(|| {
        let _step = profile::range("step");
        {
            let _forward = profile::range("forward");
            profile::mark("checkpoint");
        }
        let _backward = profile::range("backward");
    });
    assert_eq!(
        seen,
        [push("step", 0), push("forward", 1), mark("checkpoint"), pop(1), push("backward", 1), pop(1), pop(0)]
    );
}

#[test]
fn a_range_dropped_before_an_inner_one_closes_with_it() {
    let _x = sim::exclusive();
    let seen = annotations_of(|| {
        let outer = profile::range("outer");
        let inner = profile::range("inner");
        drop(outer); // the library closes innermost first: nothing yet
        profile::mark("between");
        drop(inner); // closes "inner", then "outer"
        let _after = profile::range("after");
    });
    assert_eq!(seen, [push("outer", 0), push("inner", 1), mark("between"), pop(1), pop(0), push("after", 0), pop(0)]);
}

#[test]
fn ranges_close_on_unwind() {
    let _x = sim::exclusive();
    let seen = annotations_of(|| {
        let unwound = std::panic::catch_unwind(|| {
            let _range = profile::range("fails");
            panic!("inside the range");
        });
        assert!(unwound.is_err());
        let _next = profile::range("next");
    });
    assert_eq!(seen, [push("fails", 0), pop(0), push("next", 0), pop(0)]);
}

#[test]
fn threads_keep_their_own_ranges() {
    let _x = sim::exclusive();
    let (ready, go) =
        (std::sync::Arc::new(std::sync::Barrier::new(2)), std::sync::Arc::new(std::sync::Barrier::new(2)));
    let (r, g) = (ready.clone(), go.clone());
    let other = std::thread::spawn(move || {
        let _theirs = profile::range("theirs");
        r.wait();
        g.wait();
    });
    let other_id = other.thread().id();
    let seen = annotations_of(move || {
        ready.wait(); // "theirs" is open on the other thread
        let _mine = profile::range("mine");
        go.wait();
    });
    other.join().unwrap();
    assert_eq!(seen, [push("mine", 0), pop(0)], "levels count this thread's ranges only");
    let (events, _) = sim::profile_events();
    let theirs: Vec<_> = events.into_iter().filter(|e| e.thread == other_id).map(|e| (e.kind, e.level)).collect();
    assert_eq!(theirs, [push("theirs", 0), pop(0)]);
}

#[test]
fn a_name_is_cut_at_a_nul_and_may_be_empty() {
    let _x = sim::exclusive();
    let seen = annotations_of(|| {
        let _cut = profile::range("before\0after");
        profile::mark("");
    });
    assert_eq!(seen, [push("before", 0), mark(""), pop(0)]);
}

#[test]
fn a_forgotten_range_stays_open_and_later_ranges_nest_in_it() {
    let _x = sim::exclusive();
    let seen = annotations_of(|| {
        std::mem::forget(profile::range("forgotten"));
        let _later = profile::range("later");
    });
    assert_eq!(seen, [push("forgotten", 0), push("later", 1), pop(1)]);
}

#[test]
fn switched_off_ranges_and_marks_do_nothing_and_open_ones_still_close() {
    let _x = sim::exclusive();
    let seen = annotations_of(|| {
        let open = profile::range("open");
        profile::set_enabled(false);
        assert!(!profile::enabled());
        let _ignored = profile::range("ignored");
        profile::mark("ignored");
        drop(open);
        profile::set_enabled(true);
        profile::mark("back");
    });
    profile::set_enabled(true);
    assert_eq!(seen, [push("open", 0), pop(0), mark("back")]);
}
