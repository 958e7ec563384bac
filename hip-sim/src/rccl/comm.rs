//! Communicators and their cliques: who joined, under which id, on which
//! device; each rank's error state; and the registries that find them.

use super::elements::Element;
use crate::bindings::rccl::ncclResult_t;
use crate::library::Span;
use crate::machine::handles::new_handle;
use crate::machine::lock::lock;
use crate::sync::CondvarExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

/// The bytes of an `ncclUniqueId`.
pub(crate) type IdBytes = [u8; 128];

/// The ranks of one communicator across its devices.
pub(crate) struct Clique {
    pub nranks: usize,
    /// What made it: `ncclCommInitAll`, or the unique id the ranks joined by.
    pub origin: String,
    pub state: Mutex<CliqueState>,
    /// Signalled when a rank joins.
    pub joined: Condvar,
}

/// A clique's ranks and the numbering of their calls (the meetings they
/// post to are `meeting`'s, which locks this state around them).
pub(crate) struct CliqueState {
    /// Each rank's communicator, once it joined (`None` before, and again
    /// once it was destroyed or aborted: see `gone`).
    pub members: Vec<Option<Member>>,
    /// Ranks whose communicator was destroyed or aborted, with which.
    pub gone: Vec<Option<&'static str>>,
    /// The next collective's number, per rank, as posted.
    pub collectives: Vec<u64>,
    /// The next send's and receive's number per (sender, receiver).
    pub sends: HashMap<(usize, usize), u64>,
    pub recvs: HashMap<(usize, usize), u64>,
}

/// One joined rank.
#[derive(Clone)]
pub(crate) struct Member {
    pub device: usize,
    /// RCCL's virtual id (`ncclCommInitRankMulti`), for several ranks on
    /// one device.
    pub virtual_id: Option<i32>,
    pub comm: Weak<Comm>,
}

impl Clique {
    pub fn new(nranks: usize, origin: String) -> Arc<Clique> {
        Arc::new(Clique {
            nranks,
            origin,
            state: Mutex::new(CliqueState {
                members: vec![None; nranks],
                gone: vec![None; nranks],
                collectives: vec![0; nranks],
                sends: HashMap::new(),
                recvs: HashMap::new(),
            }),
            joined: Condvar::new(),
        })
    }

    /// Wait until every rank joined or `deadline`; whether all did.
    pub fn wait_joined(&self, deadline: Instant) -> bool {
        let mut state = lock(&self.state);
        loop {
            if state.members.iter().all(Option::is_some) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self.joined.wait_timeout_unpoisoned(state, deadline - now);
        }
    }

    /// Every live communicator of the clique.
    pub fn comms(&self) -> Vec<Arc<Comm>> {
        lock(&self.state).members.iter().flatten().filter_map(|m| m.comm.upgrade()).collect()
    }
}

/// A scalar of a pre-multiplied sum.
#[derive(Clone)]
pub(crate) enum Scalar {
    /// Read at the call (`ncclScalarHostImmediate`).
    Host(Vec<u8>),
    /// Read when the collective runs (`ncclScalarDevice`).
    Device(Span),
}

/// An operation made by `ncclRedOpCreatePreMulSum`.
#[derive(Clone)]
pub(crate) struct PreMul {
    pub element: Element,
    pub scalar: Scalar,
}

/// One rank's communicator.
pub(crate) struct Comm {
    pub handle: usize,
    pub clique: Arc<Clique>,
    pub rank: usize,
    pub device: usize,
    /// The first asynchronous error and its message.
    error: Mutex<Option<(ncclResult_t, String)>>,
    /// The last error's message, for `ncclGetLastError`.
    pub last: Mutex<String>,
    pub aborted: AtomicBool,
    /// Tasks queued on streams and not yet finished.
    outstanding: Mutex<usize>,
    idle: Condvar,
    /// Its pre-multiplied sums by operation number.
    pub premul: Mutex<HashMap<u32, PreMul>>,
    next_op: AtomicU32,
}

impl Comm {
    /// Make rank `rank` of `clique` on `device` and register it.
    pub fn register(clique: &Arc<Clique>, rank: usize, device: usize) -> Arc<Comm> {
        let comm = Arc::new(Comm {
            handle: new_handle(),
            clique: clique.clone(),
            rank,
            device,
            error: Mutex::new(None),
            last: Mutex::new(String::new()),
            aborted: AtomicBool::new(false),
            outstanding: Mutex::new(0),
            idle: Condvar::new(),
            premul: Mutex::new(HashMap::new()),
            next_op: AtomicU32::new(5),
        });
        lock(&COMMS).get_or_insert_with(HashMap::new).insert(comm.handle, comm.clone());
        comm
    }

    /// Record an asynchronous error (the first one stays) and its message.
    pub fn fail(&self, result: ncclResult_t, message: &str) {
        log::error!("hip simulator: RCCL rank {} (device {}): {message}", self.rank, self.device);
        let mut error = lock(&self.error);
        if error.is_none() {
            *error = Some((result, message.to_owned()));
        }
        *lock(&self.last) = message.to_owned();
    }

    /// The asynchronous error, `ncclSuccess` if none.
    pub fn async_error(&self) -> ncclResult_t {
        lock(&self.error).as_ref().map_or(ncclResult_t::ncclSuccess, |e| e.0)
    }

    /// A task of this rank was queued.
    pub fn task_queued(&self) {
        *lock(&self.outstanding) += 1;
    }

    /// A task of this rank finished.
    pub fn task_done(&self) {
        let mut n = lock(&self.outstanding);
        *n = n.saturating_sub(1);
        if *n == 0 {
            self.idle.notify_all();
        }
    }

    /// Wait until no task of this rank is queued (each meeting ends by its
    /// timeout at the latest).
    pub fn wait_idle(&self) {
        let mut n = lock(&self.outstanding);
        while *n > 0 {
            n = self.idle.wait_timeout_unpoisoned(n, Duration::from_millis(50));
        }
    }

    /// A fresh operation number for a pre-multiplied sum.
    pub fn new_op(&self) -> u32 {
        self.next_op.fetch_add(1, Ordering::Relaxed)
    }
}

static COMMS: Mutex<Option<HashMap<usize, Arc<Comm>>>> = Mutex::new(None);
/// Cliques still being joined through `ncclCommInitRank`, by id.
static JOINING: Mutex<Option<HashMap<IdBytes, Arc<Clique>>>> = Mutex::new(None);

/// The communicator `handle`, if it is live.
pub(crate) fn comm(handle: usize) -> Option<Arc<Comm>> {
    lock(&COMMS).as_ref()?.get(&handle).cloned()
}

/// Forget the communicator `handle`.
pub(crate) fn unregister(handle: usize) -> Option<Arc<Comm>> {
    lock(&COMMS).as_mut()?.remove(&handle)
}

/// Live communicators on `device`.
pub fn live_communicators(device: usize) -> usize {
    lock(&COMMS).as_ref().map_or(0, |m| m.values().filter(|c| c.device == device).count())
}

/// The clique being joined under `id`, made for `nranks` if there is none.
pub(crate) fn joining(id: &IdBytes, nranks: usize, origin: impl FnOnce() -> String) -> Arc<Clique> {
    lock(&JOINING).get_or_insert_with(HashMap::new).entry(*id).or_insert_with(|| Clique::new(nranks, origin())).clone()
}

/// Stop finding `clique` under `id` (every rank joined, or it failed).
pub(crate) fn joined(id: &IdBytes, clique: &Arc<Clique>) {
    let mut map = lock(&JOINING);
    if let Some(m) = map.as_mut() {
        if m.get(id).is_some_and(|c| Arc::ptr_eq(c, clique)) {
            m.remove(id);
        }
    }
}
