//! Operations whose memory is known only when they run.
//!
//! rocSOLVER's pointer-array batches (`rocsolver_?getrf_batched` and the
//! others) read the addresses of their problems from a device array when
//! their kernels run. At the call that array may still be filled by a copy
//! queued before it, so the problems' memory cannot be known then. Such an
//! operation is checked when it runs, with the clock it was given when it
//! was enqueued: the same ordering, decided later.
//!
//! # The protocol
//!
//! 1. The library makes a [`Deferred`] and gives it to the submission
//!    (`submit::Op::deferred`), with the accesses it knows at the call
//!    (the pointer arrays, its other operands), checked at once.
//! 2. The submission stamps it with the operation's clock and epoch while
//!    it holds the registry of pending operations ([`Deferred::stamp`]), so
//!    no access can be recorded between the enqueue and the registration.
//!    A captured operation is never checked: it is marked unchecked.
//! 3. Until it is checked, every access recorded by any operation notes
//!    the pending operations it is ordered after (`Record::after`), and no
//!    record replaces another: the pending operation may still conflict
//!    with what a later access would replace.
//! 4. When it runs, the work reads its addresses and calls
//!    [`Deferred::check`] (waiting for the stamp, which the submission gives
//!    before it returns), once per operand it finds: records noted as
//!    ordered after it are no conflict; any other conflicting record
//!    unordered with its clock is a race, reported with the thread that
//!    enqueued it. It leaves the registry when the work is dropped, after
//!    it ran (or unrun).

use super::{check_as, Access, Actor, Clock, Reporter, Stamp};
use crate::machine::lock::lock;
use crate::sync::CondvarExt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// A deferred operation enqueued and not yet checked.
#[derive(Clone, Copy)]
pub(super) struct Pending {
    pub id: u64,
    component: u32,
    epoch: u32,
}

impl Pending {
    /// Whether an operation with `clock` is ordered after this one.
    pub fn ordered_before(&self, clock: &Clock) -> bool {
        clock.get(self.component) >= self.epoch
    }
}

/// The pending operations.
static PENDING: Mutex<Vec<Pending>> = Mutex::new(Vec::new());
/// How many there are, read without the lock on every check.
static PENDING_COUNT: AtomicUsize = AtomicUsize::new(0);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The pending operations now (none, without locking, when there are none).
pub(super) fn pending() -> Vec<Pending> {
    if PENDING_COUNT.load(Ordering::Acquire) == 0 {
        return Vec::new();
    }
    lock(&PENDING).clone()
}

/// The registry held from before an operation is enqueued until it is
/// stamped ([`Deferred::register`]).
pub(crate) struct Registration(MutexGuard<'static, Vec<Pending>>);

/// What a deferred operation knows of itself.
enum State {
    /// Enqueued; the submission has not stamped it yet.
    Waiting,
    /// Not checked: captured into a graph, or race checking is off.
    Unchecked,
    /// Stamped and pending until dropped.
    Stamped(Box<Owned>),
}

/// A [`Stamp`] kept until the operation runs, with who enqueued it.
struct Owned {
    id: u64,
    clock: Clock,
    component: u32,
    epoch: u32,
    actor: Actor,
    function: &'static str,
    device: usize,
    reporter: Reporter,
}

/// An operation checked when it runs (see the module docs).
pub(crate) struct Deferred {
    state: Mutex<State>,
    stamped: Condvar,
}

impl Deferred {
    /// A deferred operation about to be enqueued.
    pub fn new() -> Deferred {
        Deferred { state: Mutex::new(State::Waiting), stamped: Condvar::new() }
    }

    /// Hold the registry until [`stamp`](Deferred::stamp): taken before the
    /// operation is enqueued.
    pub fn register() -> Registration {
        Registration(lock(&PENDING))
    }

    /// Stamp the operation, enqueued as `stamp` says, into the registry
    /// held since before its enqueue.
    pub fn stamp(&self, mut registration: Registration, stamp: &Stamp<'_>) {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        registration.0.push(Pending { id, component: stamp.component, epoch: stamp.epoch });
        PENDING_COUNT.fetch_add(1, Ordering::AcqRel);
        drop(registration);
        let owned = Owned {
            id,
            clock: stamp.clock.clone(),
            component: stamp.component,
            epoch: stamp.epoch,
            actor: stamp.actor.clone(),
            function: stamp.function,
            device: stamp.device,
            reporter: Reporter::here(),
        };
        *lock(&self.state) = State::Stamped(Box::new(owned));
        self.stamped.notify_all();
    }

    /// Mark the operation as never checked (captured, or checking off).
    pub fn unchecked(&self) {
        *lock(&self.state) = State::Unchecked;
        self.stamped.notify_all();
    }

    /// Check `accesses`, found as the operation runs, with the clock of
    /// its enqueue (nothing for an unchecked operation).
    pub fn check(&self, accesses: &[Access]) {
        let mut state = lock(&self.state);
        while matches!(*state, State::Waiting) {
            state = self.stamped.wait_unpoisoned(state);
        }
        let State::Stamped(owned) = &*state else {
            return;
        };
        let stamp = Stamp {
            clock: &owned.clock,
            component: owned.component,
            epoch: owned.epoch,
            actor: &owned.actor,
            function: owned.function,
            device: owned.device,
        };
        check_as(&stamp, accesses, Some(owned.id), Some(&owned.reporter));
    }
}

impl Default for Deferred {
    fn default() -> Deferred {
        Deferred::new()
    }
}

impl Drop for Deferred {
    fn drop(&mut self) {
        // Once its work is dropped, after it ran or unrun (a faulted
        // stream), nothing more of it is checked.
        if let State::Stamped(owned) = &*lock(&self.state) {
            leave(owned.id);
        }
    }
}

fn leave(id: u64) {
    let mut pending = lock(&PENDING);
    let before = pending.len();
    pending.retain(|p| p.id != id);
    if pending.len() < before {
        PENDING_COUNT.fetch_sub(1, Ordering::AcqRel);
    }
}
