//! The idle cleanup: a background thread that, once a device's pool has
//! been idle (no allocation or free) for a number of ticks, reclaims that
//! device's cache, once per idle period. Each device is passed explicitly.
//!
//! It starts with the first pool, ticking every `AMDGPU_POOL_CLEANUP_SECS`
//! seconds (default 60) and reclaiming after [`DEFAULT_IDLE_TICKS`] idle
//! ticks. [`start`] restarts it with other settings; [`stop`] stops and
//! joins it. What it trims, the process's pools, is handed to it by the
//! registry when the first pool starts. While a stream capture is
//! underway it reclaims nothing (a reclaim would break it): an idle device
//! is reclaimed at the first tick after the captures end.

use crate::pool::Pool;
use hip_core::Device;
use hip_sys::sync::{CondvarExt, MutexExt};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, Once, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// Idle ticks before a device is reclaimed.
pub const DEFAULT_IDLE_TICKS: u32 = 5;

struct Running {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: JoinHandle<()>,
}

static RUNNING: Mutex<Option<Running>> = Mutex::new(None);
static AUTO_START: Once = Once::new();

/// The pools the cleanup looks at, each tick: the registry's list, handed
/// over by [`start_once`].
static POOLS: OnceLock<fn() -> Vec<Pool>> = OnceLock::new();

/// Start the cleanup with the environment's period, once per process;
/// `pools` lists the pools to trim.
pub(crate) fn start_once(pools: fn() -> Vec<Pool>) {
    // The registry hands the same list every time: the first one stays.
    let _ = POOLS.set(pools);
    AUTO_START.call_once(|| {
        let seconds = std::env::var("AMDGPU_POOL_CLEANUP_SECS")
            .ok()
            .and_then(|v| match v.trim().parse::<u64>() {
                Ok(s) if s > 0 => Some(s),
                _ => {
                    log::warn!("AMDGPU_POOL_CLEANUP_SECS={v:?} is not a positive number of seconds; using 60");
                    None
                }
            })
            .unwrap_or(60);
        start(Duration::from_secs(seconds), DEFAULT_IDLE_TICKS);
    });
}

/// (Re)start the cleanup: tick every `period`; reclaim a device idle for
/// `idle_ticks` ticks.
pub fn start(period: Duration, idle_ticks: u32) {
    stop();
    let stop_signal = Arc::new((Mutex::new(false), Condvar::new()));
    let signal = stop_signal.clone();
    let spawned = std::thread::Builder::new()
        .name("hip-pool-cleanup".into())
        .spawn(move || run(period, idle_ticks.max(1), &signal));
    match spawned {
        Ok(thread) => *lock(&RUNNING) = Some(Running { stop: stop_signal, thread }),
        Err(e) => log::error!("cannot start the pool cleanup thread: {e}"),
    }
}

/// Stop the cleanup thread and wait for it.
pub fn stop() {
    let running = lock(&RUNNING).take();
    if let Some(running) = running {
        let (flag, wake) = &*running.stop;
        *lock(flag) = true;
        wake.notify_all();
        let _ = running.thread.join();
    }
}

/// Whether the cleanup thread runs.
pub fn is_running() -> bool {
    lock(&RUNNING).is_some()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock_unpoisoned()
}

fn run(period: Duration, idle_ticks: u32, stop: &(Mutex<bool>, Condvar)) {
    let mut idle: HashMap<Device, u32> = HashMap::new();
    loop {
        {
            let (flag, wake) = stop;
            let guard = lock(flag);
            let guard = wake.wait_timeout_while_unpoisoned(guard, period, |stopped| !*stopped);
            if *guard {
                return;
            }
        }
        let pools = POOLS.get().map_or_else(Vec::new, |pools| pools());
        for pool in pools {
            let device = pool.device();
            let count = idle.entry(device).or_insert(0);
            if pool.take_used() {
                *count = 0;
                continue;
            }
            *count = count.saturating_add(1);
            if *count == idle_ticks && hip_core::capture::underway() {
                // A reclaim would wait for the capture to end: try again
                // at the next tick instead.
                *count -= 1;
                continue;
            }
            if *count == idle_ticks {
                crate::ipc::collect();
                match pool.reclaim() {
                    Ok(bytes) => log::debug!("idle cleanup released {bytes} bytes on {device}"),
                    Err(e) => log::warn!("idle cleanup of {device}: {e}"),
                }
            }
        }
    }
}
