//! The host's cores for a grid's blocks: host threads started when first
//! needed and kept for the process, each running one part of a launch
//! beside the stream's own thread.
//!
//! They are kept, not started per launch, because a launcher's host
//! thread keeps its fibers' stacks (one per thread of a block, behind a
//! guard page) from launch to launch: a fresh thread would map and
//! protect them again for every launch. A launch takes the idle ones;
//! two launches at once (two streams) share them, each running at least
//! on its own thread.

use crate::machine::lock::lock;
use crate::sync::CondvarExt;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex};

/// One part of a job, sent to a core.
struct Part {
    /// The job, its lifetime erased: [`on_cores`] waits until every part
    /// has run before the borrow it came from ends.
    job: *const (dyn Fn(usize) + Sync + 'static),
    /// Which part.
    index: usize,
    /// Counted down when the part has run.
    done: Arc<Latch>,
}

// SAFETY: the job is `Sync` (called from several threads at once), and it
// outlives the part (see `Part::job`).
unsafe impl Send for Part {}

/// A count of parts still running, and a wait for none.
struct Latch {
    left: Mutex<usize>,
    zero: Condvar,
}

impl Latch {
    fn count_down(&self) {
        let mut left = lock(&self.left);
        *left -= 1;
        if *left == 0 {
            self.zero.notify_all();
        }
    }

    fn wait(&self) {
        let mut left = lock(&self.left);
        while *left > 0 {
            left = self.zero.wait_unpoisoned(left);
        }
    }
}

/// The idle cores, and how many were started.
struct Cores {
    idle: Vec<Sender<Part>>,
    started: usize,
}

static CORES: Mutex<Cores> = Mutex::new(Cores { idle: Vec::new(), started: 0 });

/// Start one more core: a host thread that runs the parts it is sent.
fn start() -> Option<Sender<Part>> {
    let (send, receive) = channel::<Part>();
    let spawned = std::thread::Builder::new().name("hip-sim-core".into()).spawn(move || {
        while let Ok(part) = receive.recv() {
            // Counted down even if the job panics, so the launch never
            // waits for a part that will not end.
            struct Done(Arc<Latch>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.count_down();
                }
            }
            let _done = Done(part.done.clone());
            // SAFETY: `on_cores` keeps the job alive until this part has
            // counted down (see `Part::job`).
            let job = unsafe { &*part.job };
            job(part.index);
        }
    });
    spawned.ok().map(|_| send)
}

/// Run `job(0)`, `job(1)`, … `job(k - 1)` at once, each on its own host
/// thread (`job(0)` on the caller's), for `k` at most `parts` and at most
/// `cores`; returns `k` once every part has run.
pub fn on_cores(parts: usize, cores: usize, job: &(dyn Fn(usize) + Sync)) -> usize {
    let wanted = parts.min(cores).max(1) - 1;
    let mut helpers = Vec::with_capacity(wanted);
    {
        let mut pool = lock(&CORES);
        while helpers.len() < wanted {
            if let Some(idle) = pool.idle.pop() {
                helpers.push(idle);
            } else if pool.started < cores - 1 {
                let Some(core) = start() else { break };
                pool.started += 1;
                helpers.push(core);
            } else {
                break;
            }
        }
    }
    // Waits for every part sent, whatever happens to the caller's own.
    struct Wait(Arc<Latch>);
    impl Drop for Wait {
        fn drop(&mut self) {
            self.0.wait();
        }
    }
    let done = Arc::new(Latch { left: Mutex::new(0), zero: Condvar::new() });
    let wait = Wait(done.clone());
    // SAFETY: only the lifetime changes; `wait` (dropped before this
    // function returns, or unwinds) keeps the borrow alive until every
    // part has run.
    let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(job) };
    let mut sent = Vec::with_capacity(helpers.len());
    for (i, core) in helpers.into_iter().enumerate() {
        *lock(&done.left) += 1;
        if core.send(Part { job: erased, index: i + 1, done: done.clone() }).is_ok() {
            sent.push(core);
        } else {
            *lock(&done.left) -= 1;
        }
    }
    let k = sent.len() + 1;
    job(0);
    drop(wait);
    lock(&CORES).idle.extend(sent);
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The cores are the process's: these tests take them one at a time.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    #[test]
    fn every_part_runs_once_on_its_own_thread() {
        let _alone = lock(&ONE_AT_A_TIME);
        let ran = AtomicUsize::new(0);
        let threads = Mutex::new(Vec::new());
        let k = on_cores(4, 3, &|i| {
            ran.fetch_add(1 << (8 * i), Ordering::SeqCst);
            lock(&threads).push(std::thread::current().id());
        });
        assert_eq!(k, 3, "at most the cores asked for");
        assert_eq!(ran.load(Ordering::SeqCst), 0x01_01_01, "parts 0, 1 and 2, once each");
        let mut ids = lock(&threads).clone();
        ids.sort_by_key(|id| format!("{id:?}"));
        ids.dedup();
        assert_eq!(ids.len(), 3, "each part on a thread of its own");
        assert_eq!(on_cores(1, 8, &|i| assert_eq!(i, 0)), 1, "one part runs on the caller");
    }

    #[test]
    fn the_caller_returns_only_after_every_part() {
        let _alone = lock(&ONE_AT_A_TIME);
        let finished = AtomicUsize::new(0);
        on_cores(2, 2, &|i| {
            if i == 1 {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            finished.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(finished.load(Ordering::SeqCst), 2);
    }
}
