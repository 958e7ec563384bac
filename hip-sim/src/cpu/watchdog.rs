//! The watchdog: a compiled kernel's launch that runs past its limit
//! (`AMDGPU_SIM_WATCHDOG`) is stopped and reported, where a GPU's
//! would hang until the driver's own watchdog, or forever.
//!
//! One host thread, started with the first watched launch, keeps the
//! launches running. When one passes its deadline, no host thread of it
//! starts another block (its first-fault mark drops to block 0), and each
//! is sent `SIGURG` every [`AGAIN`] until the launch ends: the launcher's
//! handler (launch.h) moves a thread interrupted in the kernel's own code
//! to a landing that faults its block, and leaves one interrupted in the
//! C library (which may hold a lock) to the next signal. `SIGURG` is the
//! signal because its default is to be ignored: a thread that receives
//! one with no handler in place goes on.

use crate::machine::lock::lock;
use crate::sync::CondvarExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often an expired launch's threads are signalled again.
const AGAIN: Duration = Duration::from_millis(20);

/// One launch being watched.
struct Watched {
    deadline: Instant,
    /// The launch's first-fault mark (launch.h): 0 stops its blocks.
    first_fault: Arc<AtomicU64>,
    /// The host threads running a part of it now.
    threads: Mutex<Vec<libc::pthread_t>>,
    expired: AtomicBool,
}

/// The watched launches, and the watchdog's wake-up.
struct Registry {
    watched: Mutex<Vec<Arc<Watched>>>,
    changed: Condvar,
}

static REGISTRY: Registry = Registry { watched: Mutex::new(Vec::new()), changed: Condvar::new() };

/// A launch under the watchdog, until dropped.
pub struct Watch(Option<Arc<Watched>>);

/// A host thread running a part of a watched launch, until dropped.
pub struct Running<'a> {
    watch: &'a Watch,
    thread: libc::pthread_t,
}

/// Watch a launch whose first-fault mark is `first_fault`, for `limit`
/// (none: not watched).
pub fn watch(limit: Option<Duration>, first_fault: &Arc<AtomicU64>) -> Watch {
    let Some(limit) = limit else { return Watch(None) };
    start();
    let watched = Arc::new(Watched {
        deadline: Instant::now() + limit,
        first_fault: first_fault.clone(),
        threads: Mutex::new(Vec::new()),
        expired: AtomicBool::new(false),
    });
    lock(&REGISTRY.watched).push(watched.clone());
    REGISTRY.changed.notify_all();
    Watch(Some(watched))
}

impl Watch {
    /// The calling host thread runs a part of the launch.
    pub fn enter(&self) -> Running<'_> {
        // SAFETY: a plain call that returns the calling thread's id.
        let thread = unsafe { libc::pthread_self() };
        if let Some(w) = &self.0 {
            lock(&w.threads).push(thread);
        }
        Running { watch: self, thread }
    }

    /// Whether the launch ran past its limit.
    pub fn expired(&self) -> bool {
        self.0.as_ref().is_some_and(|w| w.expired.load(Ordering::SeqCst))
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if let Some(w) = &self.watch.0 {
            // Under the lock the watchdog signals with: no signal reaches
            // this thread for this launch after it.
            lock(&w.threads).retain(|&t| t != self.thread);
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(w) = self.0.take() {
            lock(&REGISTRY.watched).retain(|other| !Arc::ptr_eq(other, &w));
        }
    }
}

/// Start the watchdog's thread, once.
fn start() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new().name("hip-sim-watchdog".into()).spawn(watch_loop);
        if let Err(e) = spawned {
            log::error!("hip simulator: cannot start the kernel watchdog ({e}): launches are not watched");
        }
    });
}

fn watch_loop() {
    let mut watched = lock(&REGISTRY.watched);
    loop {
        let now = Instant::now();
        let mut next = None::<Instant>;
        for w in watched.iter() {
            if now >= w.deadline {
                w.expired.store(true, Ordering::SeqCst);
                w.first_fault.store(0, Ordering::SeqCst);
                for &t in lock(&w.threads).iter() {
                    // SAFETY: `t` is a live thread: it is inside the
                    // launch, and leaves the list (under this lock) before
                    // it ends. SIGURG's handler is the launcher's, or the
                    // default, which ignores it.
                    unsafe { libc::pthread_kill(t, libc::SIGURG) };
                }
            }
            let at = if now >= w.deadline { now + AGAIN } else { w.deadline };
            next = Some(next.map_or(at, |n| n.min(at)));
        }
        watched = match next {
            Some(at) => REGISTRY.changed.wait_timeout_unpoisoned(watched, at.saturating_duration_since(Instant::now())),
            None => REGISTRY.changed.wait_unpoisoned(watched),
        };
    }
}
