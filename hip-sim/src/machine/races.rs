//! The stream-race detector: vector clocks over streams and the host, and
//! per-allocation access logs checked when work is enqueued.
//!
//! Every stream has a component of the clock; the host has one (component
//! 0). A stream's clock says which work of every stream (and which host
//! actions) its next operation is ordered after. An operation enqueued on
//! stream S joins the host's clock (and, for the legacy null stream, the
//! clocks the stream semantics order it after), ticks S's own component
//! and takes that value as its epoch `(S, t)`. A record of an earlier
//! access at `(c, t)` is ordered before an operation with clock `C` when
//! `C[c] >= t` (FastTrack's epoch test), so logs keep epochs, not clocks.
//!
//! Everything is decided from the program's synchronization alone, not
//! from when the work happened to run, so a race is reported on every
//! run, not only on unlucky ones. Nearly every operation is checked when
//! it is enqueued; one whose memory is known only when it runs (a library
//! call that reads device pointer arrays) is checked then, with the clock
//! of its enqueue ([`Deferred`]).

mod deferred;

pub(crate) use deferred::Deferred;

use super::lock::lock;
use super::violations::{self, AccessKind, RaceOp, StreamRace, Violation, ViolationKind};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A vector clock: entry `i` is the latest epoch of component `i` known.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub(crate) struct Clock(Vec<u32>);

impl Clock {
    fn get(&self, component: u32) -> u32 {
        self.0.get(component as usize).copied().unwrap_or(0)
    }

    /// Make this clock at least `other` in every component.
    pub fn join(&mut self, other: &Clock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            *mine = (*mine).max(*theirs);
        }
    }

    /// Advance `component` by one; returns its new value.
    fn tick(&mut self, component: u32) -> u32 {
        let i = component as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += 1;
        self.0[i]
    }
}

/// The host's component: host threads share one clock (see the module
/// docs of the simulator, "Stream races").
const HOST: u32 = 0;
static HOST_CLOCK: Mutex<Clock> = Mutex::new(Clock(Vec::new()));
static NEXT_COMPONENT: AtomicU32 = AtomicU32::new(1);

/// A fresh clock component for a new stream.
pub(crate) fn new_component() -> u32 {
    NEXT_COMPONENT.fetch_add(1, Ordering::Relaxed)
}

/// What the detector does with a race (`AMDGPU_SIM_RACES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `off`: nothing is checked.
    Off,
    /// `record` (the default): each race is a [`ViolationKind::StreamRace`]
    /// violation.
    Record,
    /// `fail`: as `record`, and a race on a thread that does not
    /// [`expect_races`] stops the process with the race on stderr, so a
    /// whole test suite can be run with zero races as its bar.
    Fail,
}

fn mode() -> Mode {
    static MODE: OnceLock<Mode> = OnceLock::new();
    *MODE.get_or_init(|| match std::env::var("AMDGPU_SIM_RACES") {
        Ok(value) => match value.trim() {
            "off" | "0" | "no" => Mode::Off,
            "record" | "" | "1" | "on" => Mode::Record,
            "fail" => Mode::Fail,
            other => {
                log::warn!("hip simulator: AMDGPU_SIM_RACES={other:?} is none of record, fail or off; recording");
                Mode::Record
            }
        },
        Err(_) => Mode::Record,
    })
}

/// Whether races are checked: `AMDGPU_SIM_RACES=record` (the default),
/// `fail`, or `off`.
pub fn race_check_enabled() -> bool {
    mode() != Mode::Off
}

thread_local! {
    static EXPECTED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// While the guard lives, races found on this thread are recorded but do
/// not stop the process under `AMDGPU_SIM_RACES=fail`: for tests that race
/// on purpose.
#[must_use = "races are expected only while the guard lives"]
pub struct ExpectRaces(());

impl Drop for ExpectRaces {
    fn drop(&mut self) {
        let _ = EXPECTED.try_with(|e| e.set(e.get().saturating_sub(1)));
    }
}

/// Expect races on this thread until the guard is dropped (see
/// [`ExpectRaces`]).
pub fn expect_races() -> ExpectRaces {
    let _ = EXPECTED.try_with(|e| e.set(e.get() + 1));
    ExpectRaces(())
}

/// Stop the process on an unexpected race under `AMDGPU_SIM_RACES=fail`.
fn fail_if_unexpected(race: &StreamRace, reporter: &Reporter) {
    if mode() == Mode::Fail && !reporter.expected {
        eprintln!(
            "hip simulator: stream race on thread {:?}: {race}. AMDGPU_SIM_RACES=fail stops the process at the \
             first race; order the two operations (an event, or one stream), or run with record to collect them",
            reporter.thread
        );
        std::process::abort();
    }
}

/// Join `clock` into the host's: the host has waited for that work.
pub(crate) fn host_join(clock: &Clock) {
    lock(&HOST_CLOCK).join(clock);
}

/// Join the host's clock into `clock`: work enqueued now follows every
/// host action so far.
pub(crate) fn join_host_into(clock: &mut Clock) {
    clock.join(&lock(&HOST_CLOCK));
}

/// Who performs an operation: a stream (its component and name) or the host.
#[derive(Clone)]
pub(crate) struct Actor {
    component: u32,
    name: Arc<str>,
}

impl Actor {
    pub fn stream(component: u32, name: String) -> Actor {
        Actor { component, name: name.into() }
    }
}

/// One remembered access to a range of an allocation.
struct Record {
    start: usize,
    end: usize,
    kind: AccessKind,
    component: u32,
    epoch: u32,
    function: &'static str,
    actor: Arc<str>,
    /// The deferred operations, enqueued but not yet checked when this
    /// access was recorded, that it is ordered after (see [`Deferred`]).
    after: Vec<u64>,
}

/// Records kept per allocation at most; the oldest goes first beyond it.
/// Accesses ordered after and covering older ones replace them, so real
/// logs stay far below it.
const MAX_RECORDS: usize = 64;

/// The accesses of one allocation (device memory or pinned host memory).
pub(crate) struct RaceLog {
    records: Mutex<Vec<Record>>,
    /// Where the allocation starts, for descriptions.
    base: usize,
    /// The allocation's device, or `None` for pinned host memory.
    device: Option<usize>,
}

impl RaceLog {
    pub fn new(base: usize, device: Option<usize>) -> Arc<RaceLog> {
        Arc::new(RaceLog { records: Mutex::new(Vec::new()), base, device })
    }

    /// Forget every access: the memory now belongs to a new allocation
    /// (a pool block handed out again after its free completed).
    pub fn reset(&self) {
        lock(&self.records).clear();
    }

    /// Mark the first `len` bytes as having no memory behind them yet, by
    /// `function` (a graph allocation reserved at capture): any access
    /// before an [`AccessKind::Allocate`] ordered after this is a use after
    /// free.
    pub fn unmapped(&self, len: usize, function: &'static str) {
        let mut records = lock(&self.records);
        records.clear();
        records.push(Record {
            start: 0,
            end: len,
            kind: AccessKind::Free,
            component: HOST,
            epoch: 0,
            function,
            actor: host_actor().name,
            after: Vec::new(),
        });
    }
}

/// An access an operation makes: `len` bytes from `offset` of an allocation.
#[derive(Clone)]
pub(crate) struct Access {
    log: Arc<RaceLog>,
    offset: usize,
    len: usize,
    kind: AccessKind,
}

impl Access {
    pub fn new(log: &Arc<RaceLog>, offset: usize, len: usize, kind: AccessKind) -> Access {
        Access { log: log.clone(), offset, len, kind }
    }
}

/// The operation being checked: its clock, epoch and names.
pub(crate) struct Stamp<'a> {
    pub clock: &'a Clock,
    pub component: u32,
    pub epoch: u32,
    pub actor: &'a Actor,
    pub function: &'static str,
    /// The device the operation runs for (its stream's device).
    pub device: usize,
}

/// Check `accesses` of the operation `stamp` against the logs, record a
/// violation for each conflict (at most one per access), and log them.
pub(crate) fn check(stamp: &Stamp<'_>, accesses: &[Access]) {
    check_as(stamp, accesses, None, None);
}

/// The thread an operation was enqueued from, which a race names, and
/// whether it expects races ([`expect_races`]).
pub(crate) struct Reporter {
    thread: String,
    expected: bool,
}

impl Reporter {
    /// This thread.
    pub fn here() -> Reporter {
        Reporter { thread: violations::thread_name(), expected: EXPECTED.try_with(|e| e.get()).unwrap_or(0) > 0 }
    }
}

/// [`check`] for the operation `stamp`, which is the deferred operation
/// `own` when it is checked as it runs: records of operations ordered
/// after it (enqueued later, recorded first) are no conflict of its. A
/// race names `reporter`'s thread, or (by default, looked up only then)
/// this one.
fn check_as(stamp: &Stamp<'_>, accesses: &[Access], own: Option<u64>, reporter: Option<&Reporter>) {
    let pending = deferred::pending();
    // While a deferred operation waits to be checked, keep the records it
    // may conflict with: none is replaced by a later access.
    let replace = pending.iter().all(|p| Some(p.id) == own);
    let after: Vec<u64> =
        pending.iter().filter(|p| Some(p.id) != own && p.ordered_before(stamp.clock)).map(|p| p.id).collect();
    for access in accesses {
        if access.len == 0 {
            continue;
        }
        let (start, end) = (access.offset, access.offset + access.len);
        let mut found = None;
        let mut records = lock(&access.log.records);
        records.retain(|r| {
            if r.end <= start || r.start >= end {
                return true;
            }
            if own.is_some_and(|id| r.after.contains(&id)) {
                // Enqueued after this operation and ordered after it.
                return true;
            }
            let ordered = stamp.clock.get(r.component) >= r.epoch;
            if access.kind == AccessKind::Allocate && ordered {
                // Fresh memory: nothing ordered before the mapping, a
                // free included, can conflict with what follows it.
                return false;
            }
            let conflict = r.kind != AccessKind::Read || access.kind != AccessKind::Read;
            let freed = r.kind == AccessKind::Free && access.kind != AccessKind::Allocate;
            if conflict && found.is_none() && (freed || !ordered) {
                let (lo, hi) = (start.max(r.start), end.min(r.end));
                found = Some(StreamRace {
                    first: RaceOp { function: r.function, stream: r.actor.to_string(), access: r.kind },
                    second: RaceOp {
                        function: stamp.function,
                        stream: stamp.actor.name.to_string(),
                        access: access.kind,
                    },
                    address: access.log.base + lo,
                    len: hi - lo,
                    memory: match access.log.device {
                        Some(d) => format!("device {d} memory at {:#x}", access.log.base),
                        None => format!("pinned host memory at {:#x}", access.log.base),
                    },
                    after_free: ordered,
                });
            }
            // An earlier access ordered before this one and inside its range
            // adds nothing a later check needs: this one conflicts wherever
            // it would (a write only gives way to a write or free).
            let covered = ordered && r.start >= start && r.end <= end;
            let dominated = access.kind != AccessKind::Read || r.kind == AccessKind::Read;
            !(replace && covered && dominated && r.kind != AccessKind::Free)
        });
        if records.len() >= MAX_RECORDS {
            records.remove(0);
        }
        records.push(Record {
            start,
            end,
            kind: access.kind,
            component: stamp.component,
            epoch: stamp.epoch,
            function: stamp.function,
            actor: stamp.actor.name.clone(),
            after: after.clone(),
        });
        drop(records);
        if let Some(race) = found {
            let here;
            let reporter = match reporter {
                Some(reporter) => reporter,
                None => {
                    here = Reporter::here();
                    &here
                }
            };
            log::debug!("hip simulator: {race}");
            fail_if_unexpected(&race, reporter);
            let object_device = access.log.device.unwrap_or(stamp.device);
            let thread = reporter.thread.clone();
            violations::record(Violation {
                race: Some(race),
                ..Violation::of(ViolationKind::StreamRace, stamp.function, object_device, stamp.device, thread)
            });
        }
    }
}

/// An access by the host itself (a free), ordered after every host
/// synchronization so far: ticks the host's component and checks.
pub(crate) fn host_access(function: &'static str, device: usize, accesses: &[Access]) {
    if !race_check_enabled() {
        return;
    }
    let (clock, epoch) = {
        let mut host = lock(&HOST_CLOCK);
        let epoch = host.tick(HOST);
        (host.clone(), epoch)
    };
    let actor = host_actor();
    check(&Stamp { clock: &clock, component: HOST, epoch, actor: &actor, function, device }, accesses);
}

fn host_actor() -> Actor {
    static HOST_ACTOR: OnceLock<Arc<str>> = OnceLock::new();
    Actor { component: HOST, name: HOST_ACTOR.get_or_init(|| Arc::from("the host")).clone() }
}

impl Actor {
    /// The actor's clock component.
    pub fn component(&self) -> u32 {
        self.component
    }

    /// How races name it.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Tick `clock` for a new operation of `actor`; returns the epoch.
pub(crate) fn tick(clock: &mut Clock, actor: &Actor) -> u32 {
    clock.tick(actor.component)
}
