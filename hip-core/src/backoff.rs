//! One timer thread that wakes waiting futures after a delay, so that a
//! future polling the GPU (an event query) sleeps between polls instead of
//! spinning or blocking its executor's thread.

use hip_sys::sync::{CondvarExt, MutexExt};
use std::sync::{Condvar, Mutex, OnceLock};
use std::task::Waker;
use std::time::{Duration, Instant};

/// The first delay between two polls.
pub(crate) const FIRST: Duration = Duration::from_micros(20);
/// The longest delay between two polls.
pub(crate) const LONGEST: Duration = Duration::from_millis(2);

/// The next delay after `delay`: doubled, up to [`LONGEST`].
pub(crate) fn next(delay: Duration) -> Duration {
    (delay * 2).min(LONGEST)
}

struct Timer {
    due: Mutex<Vec<(Instant, Waker)>>,
    changed: Condvar,
}

fn lock(timer: &Timer) -> std::sync::MutexGuard<'_, Vec<(Instant, Waker)>> {
    timer.due.lock_unpoisoned()
}

/// The timer, its thread started on first use; `None` if no thread could
/// be started.
fn timer() -> Option<&'static Timer> {
    static TIMER: OnceLock<Option<&'static Timer>> = OnceLock::new();
    *TIMER.get_or_init(|| {
        let timer: &'static Timer = Box::leak(Box::new(Timer { due: Mutex::new(Vec::new()), changed: Condvar::new() }));
        let started = std::thread::Builder::new().name("amdgpu-wait-timer".into()).spawn(move || run(timer));
        match started {
            Ok(_) => Some(timer),
            Err(error) => {
                log::error!("cannot start the wait timer thread ({error}): async waits poll without sleeping");
                None
            }
        }
    })
}

fn run(timer: &'static Timer) {
    let mut due = lock(timer);
    loop {
        let now = Instant::now();
        let mut ready = Vec::new();
        let mut k = 0;
        while k < due.len() {
            if due[k].0 <= now {
                ready.push(due.swap_remove(k).1);
            } else {
                k += 1;
            }
        }
        if !ready.is_empty() {
            drop(due);
            for waker in ready {
                waker.wake();
            }
            due = lock(timer);
            continue;
        }
        due = match due.iter().map(|(at, _)| *at).min() {
            Some(at) => timer.changed.wait_timeout_unpoisoned(due, at - now),
            None => timer.changed.wait_unpoisoned(due),
        };
    }
}

/// Wake `waker` once `delay` has passed (at once if there is no timer).
pub(crate) fn wake_after(delay: Duration, waker: &Waker) {
    let Some(timer) = timer() else {
        waker.wake_by_ref();
        return;
    };
    lock(timer).push((Instant::now() + delay, waker.clone()));
    timer.changed.notify_one();
}
