//! Meetings: one collective of every rank, or one send with its receive.
//!
//! A call *posts* its part to the meeting when it is made (in a group: at
//! `ncclGroupEnd`), which is where mismatched calls are found; its stream
//! *arrives* when the queued work reaches it. The rank whose stream
//! arrives last computes every rank's output, then all of them go on.
//! A meeting that cannot complete ends in an error instead of a hang:
//! a mismatch at once, a rank that never posts or never arrives after
//! the timeout, an aborted or destroyed peer at once.

use super::comm::{Clique, CliqueState, Comm, Scalar};
use super::elements::{reduce, Element, Reduction};
use super::timeout;
use crate::bindings::rccl::ncclResult_t;
use crate::library::Span;
use crate::machine::lock::lock;
use crate::sync::CondvarExt;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::ThreadId;
use std::time::Instant;

/// Which meeting of a clique: the n-th collective, or the n-th send from
/// one rank to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Collective(u64),
    P2p { from: usize, to: usize, seq: u64 },
}

/// The meetings of each clique that some but not all parties have posted
/// to, by the clique's address and the key. Touched only with the clique's
/// state locked (the functions take it as a witness), so that a post and a
/// rank's leaving see each other whole.
static OPEN: Mutex<Option<OpenMeetings>> = Mutex::new(None);

/// The open meetings, by clique address and key.
type OpenMeetings = HashMap<(usize, Key), Arc<Meeting>>;

/// The meetings each communicator (by handle) posted to, for an abort.
static POSTED: Mutex<Option<HashMap<usize, Vec<Weak<Meeting>>>>> = Mutex::new(None);

fn clique_id(clique: &Clique) -> usize {
    std::ptr::from_ref(clique) as usize
}

/// The open meeting `key` of `clique` (whose state `_locked` is), made
/// for `parties` if there is none.
pub(crate) fn open(clique: &Clique, _locked: &mut CliqueState, key: Key, parties: usize) -> Arc<Meeting> {
    let mut open = lock(&OPEN);
    open.get_or_insert_with(HashMap::new)
        .entry((clique_id(clique), key))
        .or_insert_with(|| Meeting::new(key, parties))
        .clone()
}

/// Close `meeting`, the open meeting `key` of `clique`, if it still is.
pub(crate) fn close(clique: &Clique, _locked: &mut CliqueState, key: Key, meeting: &Arc<Meeting>) {
    let mut open = lock(&OPEN);
    let map = open.get_or_insert_with(HashMap::new);
    if map.get(&(clique_id(clique), key)).is_some_and(|m| Arc::ptr_eq(m, meeting)) {
        map.remove(&(clique_id(clique), key));
    }
}

/// Close and return the open meetings of `clique` that involve `rank`.
pub(crate) fn close_involving(clique: &Clique, _locked: &mut CliqueState, rank: usize) -> Vec<Arc<Meeting>> {
    let mut open = lock(&OPEN);
    let map = open.get_or_insert_with(HashMap::new);
    let id = clique_id(clique);
    let keys: Vec<(usize, Key)> =
        map.iter().filter(|((c, _), m)| *c == id && m.involves(rank)).map(|(k, _)| *k).collect();
    keys.iter().filter_map(|k| map.remove(k)).collect()
}

/// Whether an open meeting waits for posts on `device` (a device
/// synchronize then deadlocks on a GPU).
pub(crate) fn any_waits_for_posts_on(device: usize) -> bool {
    lock(&OPEN).as_ref().is_some_and(|m| m.values().any(|m| m.waits_for_posts_on(device)))
}

/// The live meetings the communicator `handle` posted to, forgotten.
pub(crate) fn take_posted(handle: usize) -> Vec<Arc<Meeting>> {
    let posted = lock(&POSTED).as_mut().and_then(|m| m.remove(&handle)).unwrap_or_default();
    posted.iter().filter_map(Weak::upgrade).collect()
}

/// What a part does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    AllReduce,
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    Send,
    Recv,
}

impl Kind {
    /// NCCL's name of the call.
    pub fn function(self) -> &'static str {
        match self {
            Kind::AllReduce => "ncclAllReduce",
            Kind::Broadcast => "ncclBroadcast",
            Kind::Reduce => "ncclReduce",
            Kind::AllGather => "ncclAllGather",
            Kind::ReduceScatter => "ncclReduceScatter",
            Kind::Send => "ncclSend",
            Kind::Recv => "ncclRecv",
        }
    }
}

/// The reduction a part asks for, as the rank gave it.
#[derive(Clone)]
pub(crate) enum Op {
    None,
    Builtin(Reduction, u32),
    PreMul(Element, Scalar),
}

impl Op {
    /// How two ranks' operations must agree: the same built-in, or both
    /// pre-multiplied sums (each rank has its own scalar).
    fn agrees(&self, other: &Op) -> bool {
        match (self, other) {
            (Op::None, Op::None) => true,
            (Op::Builtin(_, a), Op::Builtin(_, b)) => a == b,
            (Op::PreMul(..), Op::PreMul(..)) => true,
            _ => false,
        }
    }

    fn describe(&self) -> String {
        match self {
            Op::None => "none".into(),
            Op::Builtin(r, n) => format!("{r:?} ({n})"),
            Op::PreMul(..) => "a pre-multiplied sum".into(),
        }
    }
}

/// One rank's part of a meeting.
pub(crate) struct Post {
    pub comm: Arc<Comm>,
    pub kind: Kind,
    /// Elements: per rank (all-gather's send, reduce-scatter's receive).
    pub count: usize,
    pub element: Element,
    pub op: Op,
    /// The root (broadcast, reduce) or the peer (send, receive).
    pub other: Option<usize>,
    pub send: Option<Span>,
    pub recv: Option<Span>,
    pub thread: ThreadId,
    pub thread_name: String,
    pub grouped: bool,
}

struct State {
    posts: Vec<Option<Post>>,
    arrived: Vec<bool>,
    outcome: Option<Result<(), String>>,
}

/// One meeting of a clique.
pub(crate) struct Meeting {
    pub key: Key,
    state: Mutex<State>,
    done: Condvar,
}

impl Meeting {
    pub fn new(key: Key, parties: usize) -> Arc<Meeting> {
        Arc::new(Meeting {
            key,
            state: Mutex::new(State {
                posts: (0..parties).map(|_| None).collect(),
                arrived: vec![false; parties],
                outcome: None,
            }),
            done: Condvar::new(),
        })
    }

    fn name(&self, kind: Kind) -> String {
        match self.key {
            Key::Collective(n) => format!("{} #{n}", kind.function()),
            Key::P2p { from, to, seq } => format!("send #{seq} from rank {from} to rank {to}"),
        }
    }

    /// Post `post` as party `party`. Whether every party has now posted,
    /// or the error this call gets (the meeting then fails for every
    /// party).
    pub fn post(self: &Arc<Self>, party: usize, post: Post) -> Result<bool, (ncclResult_t, String)> {
        let mut state = lock(&self.state);
        let name = self.name(post.kind);
        // One thread posting two ranks of one meeting outside a group
        // blocks in the first call on a GPU (NCCL waits there for the
        // peers), so it never makes the second.
        for other in state.posts.iter().flatten() {
            if other.thread == post.thread && !(other.grouped && post.grouped) {
                let message = format!(
                    "thread {} posted ranks {} and {} of {name} outside a group: with one thread driving several \
                     ranks, NCCL blocks in the first call waiting for the others and never returns. Put the calls \
                     between ncclGroupStart and ncclGroupEnd",
                    post.thread_name, other.comm.rank, post.comm.rank
                );
                drop(state);
                self.fail(ncclResult_t::ncclInvalidUsage, &message, Some(&post.comm));
                return Err((ncclResult_t::ncclInvalidUsage, message));
            }
        }
        let mismatch = state.posts.iter().flatten().find_map(|other| mismatch(other, &post));
        let comm = post.comm.clone();
        state.posts[party] = Some(post);
        if let Some(what) = mismatch {
            let message = format!("{name}: the ranks' calls do not match ({what}); every rank must make the same call");
            drop(state);
            self.fail(ncclResult_t::ncclInvalidUsage, &message, Some(&comm));
            return Err((ncclResult_t::ncclInvalidUsage, message));
        }
        // Only meetings still alive matter to an abort: the finished ones
        // go, so the list stays as long as what is in flight.
        let mut all = lock(&POSTED);
        let posted = all.get_or_insert_with(HashMap::new).entry(comm.handle).or_default();
        posted.retain(|m| m.strong_count() > 0);
        posted.push(Arc::downgrade(self));
        drop(all);
        Ok(state.posts.iter().all(Option::is_some))
    }

    /// Fail the meeting with `message`; every rank of the clique (`comm`'s)
    /// records the error.
    pub fn fail(&self, result: ncclResult_t, message: &str, comm: Option<&Arc<Comm>>) {
        let mut state = lock(&self.state);
        if state.outcome.is_some() {
            return;
        }
        state.outcome = Some(Err(message.to_owned()));
        let posted: Vec<Arc<Comm>> = state.posts.iter().flatten().map(|p| p.comm.clone()).collect();
        // The clique's state is locked only after the meeting's: a rank's
        // leaving locks them the other way round.
        drop(state);
        let comms = match comm {
            Some(c) => c.clique.comms(),
            None => posted,
        };
        self.done.notify_all();
        for c in comms {
            c.fail(result, message);
        }
    }

    /// Whether it has ended, well or not.
    pub fn ended(&self) -> bool {
        lock(&self.state).outcome.is_some()
    }

    /// Whether party `device`'s rank posted and some party has not.
    pub fn waits_for_posts_on(&self, device: usize) -> bool {
        let state = lock(&self.state);
        state.outcome.is_none()
            && state.posts.iter().flatten().any(|p| p.comm.device == device)
            && state.posts.iter().any(Option::is_none)
    }

    /// Whether `rank` takes part (every rank of a collective; the two of
    /// a send).
    pub fn involves(&self, rank: usize) -> bool {
        match self.key {
            Key::Collective(_) => true,
            Key::P2p { from, to, .. } => from == rank || to == rank,
        }
    }

    /// Party `party`'s stream reached the meeting; the last one computes.
    pub fn arrive(&self, party: usize) {
        let mut state = lock(&self.state);
        state.arrived[party] = true;
        if state.outcome.is_none() && state.arrived.iter().all(|a| *a) && state.posts.iter().all(Option::is_some) {
            let posts: Vec<&Post> = state.posts.iter().flatten().collect();
            let outcome = compute(&posts).map_err(|e| format!("{}: {e}", self.name(posts[0].kind)));
            state.outcome = Some(outcome);
            drop(state);
            self.done.notify_all();
        }
    }

    /// Wait for the meeting to end; party `party` (of `comm`) gives up after
    /// the timeout, failing it for every rank.
    pub fn wait(&self, party: usize, comm: &Arc<Comm>) {
        let started = Instant::now();
        let deadline = started + timeout();
        let mut state = lock(&self.state);
        while state.outcome.is_none() {
            let now = Instant::now();
            if now >= deadline {
                let kind = state.posts[party].as_ref().map_or(Kind::AllReduce, |p| p.kind);
                let mut message =
                    format!("rank {}'s {} waited {:?} for", comm.rank, self.name(kind), now.duration_since(started));
                let ranks = |want: &dyn Fn(usize) -> bool| -> Vec<usize> {
                    (0..state.posts.len()).filter(|&i| want(i)).map(|i| self.rank_of(i)).collect()
                };
                let unposted = ranks(&|i| state.posts[i].is_none());
                let unarrived = ranks(&|i| state.posts[i].is_some() && !state.arrived[i]);
                if !unposted.is_empty() {
                    let _ = write!(message, " rank(s) {unposted:?}, which never made the call");
                }
                if !unarrived.is_empty() {
                    let _ = write!(
                        message,
                        "{} rank(s) {unarrived:?}, whose streams never reached it (work queued before it there \
                         waits for this rank, or the stream is held)",
                        if unposted.is_empty() { "" } else { " and" }
                    );
                }
                drop(state);
                self.fail(ncclResult_t::ncclRemoteError, &message, Some(comm));
                return;
            }
            state = self.done.wait_timeout_unpoisoned(state, deadline - now);
        }
    }

    /// The rank of party `party`.
    fn rank_of(&self, party: usize) -> usize {
        match self.key {
            Key::Collective(_) => party,
            Key::P2p { from, to, .. } => {
                if party == 0 {
                    from
                } else {
                    to
                }
            }
        }
    }
}

/// How two parts disagree, if they do.
fn mismatch(a: &Post, b: &Post) -> Option<String> {
    let p2p = |k: Kind| matches!(k, Kind::Send | Kind::Recv);
    if a.kind != b.kind && !(p2p(a.kind) && p2p(b.kind)) {
        return Some(format!(
            "rank {} called {}, rank {} {}",
            a.comm.rank,
            a.kind.function(),
            b.comm.rank,
            b.kind.function()
        ));
    }
    if a.count != b.count {
        return Some(format!("rank {} has count {}, rank {} count {}", a.comm.rank, a.count, b.comm.rank, b.count));
    }
    if a.element != b.element {
        return Some(format!(
            "rank {} has type {:?}, rank {} type {:?}",
            a.comm.rank, a.element, b.comm.rank, b.element
        ));
    }
    if !a.op.agrees(&b.op) {
        return Some(format!(
            "rank {} reduces by {}, rank {} by {}",
            a.comm.rank,
            a.op.describe(),
            b.comm.rank,
            b.op.describe()
        ));
    }
    if !p2p(a.kind) && a.other != b.other {
        return Some(format!("rank {} has root {:?}, rank {} root {:?}", a.comm.rank, a.other, b.comm.rank, b.other));
    }
    None
}

/// The bytes of a part's input, each rank's pre-multiplication applied.
fn input(post: &Post, bytes: usize) -> Result<Vec<u8>, String> {
    let span = post.send.as_ref().ok_or("no send buffer")?;
    let data = span.bytes(bytes).map_err(|e| format!("{e:?}"))?;
    match &post.op {
        Op::PreMul(element, scalar) => {
            let s = match scalar {
                Scalar::Host(b) => b.clone(),
                Scalar::Device(span) => span.bytes(element.size()).map_err(|e| format!("{e:?}"))?,
            };
            Ok(reduce(*element, &Reduction::PreMulSum(s), &[&data]))
        }
        _ => Ok(data),
    }
}

fn write(post: &Post, bytes: &[u8]) -> Result<(), String> {
    post.recv.as_ref().ok_or("no receive buffer")?.write_bytes(bytes).map_err(|e| format!("{e:?}"))
}

/// Compute every party's output from every party's input: all inputs
/// are read before any output is written, so in-place calls are right.
fn compute(posts: &[&Post]) -> Result<(), String> {
    let first = posts[0];
    let size = first.element.size();
    let bytes = first.count * size;
    let n = posts.len();
    let reduction = match &first.op {
        Op::Builtin(r, _) => r.clone(),
        _ => Reduction::Sum,
    };
    let root = first.other.unwrap_or(0);
    match first.kind {
        Kind::AllReduce | Kind::Reduce => {
            let inputs = posts.iter().map(|p| input(p, bytes)).collect::<Result<Vec<_>, _>>()?;
            let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
            let out = reduce(first.element, &reduction, &slices);
            if first.kind == Kind::Reduce {
                return write(posts[root], &out);
            }
            posts.iter().try_for_each(|p| write(p, &out))
        }
        Kind::Broadcast => {
            let data = posts[root].send.as_ref().ok_or("no send buffer at the root")?;
            let data = data.bytes(bytes).map_err(|e| format!("{e:?}"))?;
            posts.iter().try_for_each(|p| write(p, &data))
        }
        Kind::AllGather => {
            let mut all = Vec::with_capacity(n * bytes);
            for p in posts {
                all.extend(input(p, bytes)?);
            }
            posts.iter().try_for_each(|p| write(p, &all))
        }
        Kind::ReduceScatter => {
            let inputs = posts.iter().map(|p| input(p, n * bytes)).collect::<Result<Vec<_>, _>>()?;
            let outs: Vec<Vec<u8>> = (0..n)
                .map(|r| {
                    let slices: Vec<&[u8]> = inputs.iter().map(|i| &i[r * bytes..(r + 1) * bytes]).collect();
                    reduce(first.element, &reduction, &slices)
                })
                .collect();
            posts.iter().zip(outs).try_for_each(|(p, out)| write(p, &out))
        }
        Kind::Send | Kind::Recv => {
            // Party 0 is the sender, party 1 the receiver.
            let data = input(posts[0], bytes)?;
            write(posts[1], &data)
        }
    }
}
