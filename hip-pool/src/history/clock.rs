//! The history's clock: a time stamp an event, at a few nanoseconds.
//!
//! `Instant::now` costs 20 to 45 ns on x86-64 Linux (a vDSO call that
//! reads the time-stamp counter and scales it under a sequence lock), and
//! an event took two of them per allocate-and-free pair. Where the kernel
//! itself keeps time with the time-stamp counter (its clock source is
//! `tsc`, so the counter runs at one constant rate on every core), an
//! event reads the counter alone (`rdtsc`), and the counts become
//! `Instant`s when the history is read: each count is placed between the
//! clock's starting pair (`Instant`, count) and a pair taken at the read,
//! so the rate is measured over the whole history, within the jitter of
//! two reads (about 0.1 % after 50 µs). Elsewhere the stamp is
//! nanoseconds since the clock's start, read from `Instant`.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The clock's starting pair, and whether stamps are counter ticks.
struct Start {
    at: Instant,
    ticks: u64,
    counter: bool,
}

static START: OnceLock<Start> = OnceLock::new();

fn start() -> &'static Start {
    START.get_or_init(|| {
        let counter = counter_is_the_kernels_clock();
        Start { at: Instant::now(), ticks: if counter { read_counter() } else { 0 }, counter }
    })
}

/// Whether the kernel keeps time with the time-stamp counter (it checks
/// that the counter is constant-rate and in step across cores before it
/// picks it).
fn counter_is_the_kernels_clock() -> bool {
    cfg!(all(target_arch = "x86_64", target_os = "linux"))
        && std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .is_ok_and(|s| s.trim() == "tsc")
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn read_counter() -> u64 {
    // SAFETY: `rdtsc` reads a register every x86-64 processor has; it has
    // no preconditions.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn read_counter() -> u64 {
    0
}

/// A stamp of now.
#[inline]
pub(crate) fn stamp() -> u64 {
    let start = start();
    if start.counter {
        read_counter()
    } else {
        u64::try_from(start.at.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// Turns stamps into `Instant`s, with the rate measured up to its making.
pub(crate) struct Reader {
    start: &'static Start,
    /// Nanoseconds a tick (1 without the counter).
    rate: f64,
}

impl Reader {
    pub(crate) fn new() -> Reader {
        let start = start();
        let rate = if start.counter {
            let (now, ticks) = (Instant::now(), read_counter());
            let ticks = ticks.saturating_sub(start.ticks);
            if ticks == 0 {
                1.0
            } else {
                now.duration_since(start.at).as_nanos() as f64 / ticks as f64
            }
        } else {
            1.0
        };
        Reader { start, rate }
    }

    pub(crate) fn instant(&self, stamp: u64) -> Instant {
        let ticks = if self.start.counter { stamp.saturating_sub(self.start.ticks) } else { stamp };
        self.start.at + Duration::from_nanos((ticks as f64 * self.rate) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_become_the_instants_they_were_taken_at() {
        let before = Instant::now();
        let first = stamp();
        std::thread::sleep(Duration::from_millis(20));
        let second = stamp();
        let after = Instant::now();
        let reader = Reader::new();
        let (a, b) = (reader.instant(first), reader.instant(second));
        let slack = Duration::from_micros(200);
        assert!(a + slack >= before && a <= before + Duration::from_millis(5), "{a:?} {before:?}");
        assert!(b >= a + Duration::from_millis(19), "20 ms apart: {:?}", b - a);
        assert!(b <= after + slack, "{b:?} {after:?}");
    }
}
