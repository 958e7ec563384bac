//! The entry points: argument checks in NCCL 2.13's order, then the part
//! posted and queued on its stream (or kept for the group's end).

use super::comm::{self, Clique, Comm, IdBytes, Member, PreMul, Scalar};
use super::elements::{Element, Reduction};
use super::group::{in_group, with_group, Pending, Route};
use super::meeting::{self, Key, Kind, Meeting, Op, Post};
use super::timeout;
use crate::bindings::hip::hipStream_t;
use crate::bindings::rccl::*;
use crate::library::{accesses, span, write_out, Span};
use crate::machine::capture;
use crate::machine::lock::lock;
use crate::machine::queue::Target;
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations::{thread_name, AccessKind};
use crate::submit::{self, Op as SubmitOp};
use crate::targets;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A failed call: its result and what to tell the user.
type Failure = (ncclResult_t, String);

const INVALID_ARGUMENT: ncclResult_t = ncclResult_t::ncclInvalidArgument;
const INVALID_USAGE: ncclResult_t = ncclResult_t::ncclInvalidUsage;

thread_local! {
    /// The thread's last error message (`ncclGetLastError` with no
    /// communicator), and the string last handed out.
    static LAST: RefCell<(String, CString)> = RefCell::new((String::new(), CString::default()));
}

/// Run one entry point: its result, the message logged and kept for
/// `ncclGetLastError`, and `ncclInternalError` for a panic.
fn entry(function: &'static str, body: impl FnOnce() -> Result<(), Failure>) -> ncclResult_t {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(())) => ncclResult_t::ncclSuccess,
        Ok(Err((result, message))) => {
            log::error!("hip simulator: {function}: {message}");
            let _ = LAST.try_with(|l| l.borrow_mut().0 = format!("{function}: {message}"));
            if in_group() {
                with_group(|g| {
                    g.error.get_or_insert(result);
                });
            }
            result
        }
        Err(_) => {
            log::error!("hip simulator: internal panic in {function}");
            ncclResult_t::ncclInternalError
        }
    }
}

fn fail<T>(result: ncclResult_t, message: impl Into<String>) -> Result<T, Failure> {
    Err((result, message.into()))
}

/// The live communicator `handle`.
fn comm_of(handle: ncclComm_t) -> Result<Arc<Comm>, Failure> {
    if handle.is_null() {
        return fail(INVALID_ARGUMENT, "comm argument is NULL");
    }
    comm::comm(handle as usize)
        .ok_or_else(|| (INVALID_ARGUMENT, format!("communicator {handle:p} was destroyed or aborted, or never made")))
}

/// Write through an out-pointer, refusing null.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
unsafe fn out<T>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    // SAFETY: null or valid for a write (the caller's contract).
    unsafe { write_out(out, value, ()) }.map_err(|()| (INVALID_ARGUMENT, format!("{what} argument is NULL")))
}

/// The simulator's unique ids: a marker, this process and a number.
const ID_MARK: &[u8; 16] = b"amdgpu-sim-nccl\0";
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

pub(super) unsafe extern "C" fn ncclGetVersion(version: *mut c_int) -> ncclResult_t {
    // SAFETY: null or a valid out-pointer (C contract).
    entry("ncclGetVersion", || unsafe { out(version, 21304, "version") })
}

pub(super) unsafe extern "C" fn ncclGetUniqueId(id: *mut ncclUniqueId) -> ncclResult_t {
    entry("ncclGetUniqueId", || {
        let mut bytes = [0u8; 128];
        bytes[..16].copy_from_slice(ID_MARK);
        bytes[16..20].copy_from_slice(&std::process::id().to_le_bytes());
        bytes[20..28].copy_from_slice(&NEXT_ID.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        let value = ncclUniqueId { internal: bytes.map(|b| b as c_char) };
        // SAFETY: null or a valid out-pointer (C contract).
        unsafe { out(id, value, "uniqueId") }
    })
}

fn id_bytes(id: &ncclUniqueId) -> IdBytes {
    id.internal.map(|c| c as u8)
}

/// Check that `id` is one of this process's ids.
fn check_id(id: &IdBytes) -> Result<(), Failure> {
    if &id[..16] != ID_MARK {
        return fail(INVALID_ARGUMENT, "the unique id was not made by ncclGetUniqueId");
    }
    let pid = u32::from_le_bytes([id[16], id[17], id[18], id[19]]);
    if pid != std::process::id() {
        return fail(
            INVALID_USAGE,
            format!(
                "the unique id comes from process {pid}: the simulator's collectives join ranks of one process \
                 only (its devices are in-process); run every rank in this process, or use a GPU backend"
            ),
        );
    }
    Ok(())
}

fn join(
    comm_out: *mut ncclComm_t,
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
    virtual_id: Option<i32>,
) -> Result<(), Failure> {
    if comm_out.is_null() {
        return fail(INVALID_ARGUMENT, "comm argument is NULL");
    }
    if nranks < 1 || rank < 0 || rank >= nranks {
        return fail(INVALID_ARGUMENT, format!("rank {rank} of {nranks} ranks: the rank must be in 0..nranks"));
    }
    let (n, r) = (nranks as usize, rank as usize);
    let bytes = id_bytes(&id);
    check_id(&bytes)?;
    let device = current_device();
    if sim().device(device).is_none() {
        return fail(ncclResult_t::ncclUnhandledCudaError, format!("the current device {device} does not exist"));
    }
    let number = u64::from_le_bytes(bytes[20..28].try_into().unwrap_or([0; 8]));
    let clique = comm::joining(&bytes, n, || format!("unique id #{number}"));
    let made = {
        let mut state = lock(&clique.state);
        if clique.nranks != n {
            return fail(
                INVALID_USAGE,
                format!("rank {r} joins {} with {n} ranks, but its first rank said {}", clique.origin, clique.nranks),
            );
        }
        if state.members[r].is_some() {
            return fail(INVALID_USAGE, format!("rank {r} of {} joined twice", clique.origin));
        }
        for (other, member) in state.members.iter().enumerate() {
            let Some(member) = member else { continue };
            let shared = match (member.virtual_id, virtual_id) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            if member.device == device && shared {
                return fail(
                    INVALID_USAGE,
                    format!(
                        "Duplicate GPU detected: rank {r} and rank {other} of {} both on device {device}. NCCL allows \
                         one rank per GPU; RCCL allows several through ncclCommInitRankMulti with distinct virtual ids",
                        clique.origin
                    ),
                );
            }
        }
        crate::submit::watch_collectives(waits_for_peers);
        let made = Comm::register(&clique, r, device);
        state.members[r] = Some(Member { device, virtual_id, comm: Arc::downgrade(&made) });
        made
    };
    clique.joined.notify_all();
    // SAFETY: checked non-null; valid per the C contract.
    unsafe { comm_out.write(made.handle as ncclComm_t) };
    if in_group() {
        with_group(|g| g.joins.push((clique, made, bytes)));
        return Ok(());
    }
    await_joined(&clique, &made, Some(&bytes))
}

/// Wait for every rank of `clique` to join; on the timeout, undo `made`.
fn await_joined(clique: &Arc<Clique>, made: &Arc<Comm>, id: Option<&IdBytes>) -> Result<(), Failure> {
    let started = Instant::now();
    if clique.wait_joined(started + timeout()) {
        if let Some(id) = id {
            comm::joined(id, clique);
        }
        return Ok(());
    }
    let missing: Vec<usize> = {
        let mut state = lock(&clique.state);
        let missing = state.members.iter().enumerate().filter(|(_, m)| m.is_none()).map(|(i, _)| i).collect();
        state.members[made.rank] = None;
        missing
    };
    comm::unregister(made.handle);
    fail(
        ncclResult_t::ncclRemoteError,
        format!(
            "rank {} of {} waited {:?} for rank(s) {missing:?} to join, which never did",
            made.rank,
            clique.origin,
            started.elapsed()
        ),
    )
}

pub(super) unsafe extern "C" fn ncclCommInitRank(
    comm: *mut ncclComm_t,
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
) -> ncclResult_t {
    entry("ncclCommInitRank", || join(comm, nranks, id, rank, None))
}

pub(super) unsafe extern "C" fn ncclCommInitRankMulti(
    comm: *mut ncclComm_t,
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
    virtual_id: c_int,
) -> ncclResult_t {
    entry("ncclCommInitRankMulti", || join(comm, nranks, id, rank, Some(virtual_id)))
}

pub(super) unsafe extern "C" fn ncclCommInitAll(
    comms: *mut ncclComm_t,
    ndev: c_int,
    devlist: *const c_int,
) -> ncclResult_t {
    entry("ncclCommInitAll", || {
        if comms.is_null() {
            return fail(INVALID_ARGUMENT, "comms argument is NULL");
        }
        if ndev < 1 {
            return fail(INVALID_ARGUMENT, format!("ndev is {ndev}: at least one device"));
        }
        let n = ndev as usize;
        let devices: Vec<usize> = if devlist.is_null() {
            (0..n).collect()
        } else {
            // SAFETY: `devlist` holds `ndev` ints (C contract).
            let list = unsafe { std::slice::from_raw_parts(devlist, n) };
            let count = sim().devices.len();
            let mut out = Vec::with_capacity(n);
            for &d in list {
                if d < 0 || d as usize >= count {
                    return fail(INVALID_ARGUMENT, format!("device {d} in devlist: this machine has {count}"));
                }
                if out.contains(&(d as usize)) {
                    return fail(INVALID_USAGE, format!("Duplicate GPU detected: device {d} is in devlist twice"));
                }
                out.push(d as usize);
            }
            out
        };
        if devices.iter().any(|&d| d >= sim().devices.len()) {
            return fail(INVALID_ARGUMENT, format!("{n} devices asked for: this machine has {}", sim().devices.len()));
        }
        crate::submit::watch_collectives(waits_for_peers);
        let clique = Clique::new(n, format!("ncclCommInitAll of devices {devices:?}"));
        let mut state = lock(&clique.state);
        for (rank, &device) in devices.iter().enumerate() {
            let made = Comm::register(&clique, rank, device);
            state.members[rank] = Some(Member { device, virtual_id: None, comm: Arc::downgrade(&made) });
            // SAFETY: `comms` holds `ndev` communicators (C contract).
            unsafe { comms.add(rank).write(made.handle as ncclComm_t) };
        }
        Ok(())
    })
}

/// Take `comm` out of its clique: its open meetings fail for the peers
/// with `why`, and later ones that need it fail at once.
fn leave(comm: &Arc<Comm>, why: &'static str) {
    let meetings: Vec<Arc<Meeting>> = {
        let mut state = lock(&comm.clique.state);
        state.members[comm.rank] = None;
        state.gone[comm.rank] = Some(why);
        meeting::close_involving(&comm.clique, &mut state, comm.rank)
    };
    let message = format!("rank {}'s communicator was {why} with this call outstanding", comm.rank);
    // Only these wait for it: a destroy has waited for its own calls, an
    // abort has failed them, and a later call is refused by `gone`. Its
    // peers' other calls, which do not involve it, are left to complete.
    for m in meetings {
        m.fail(ncclResult_t::ncclRemoteError, &message, None);
    }
    comm::unregister(comm.handle);
}

pub(super) unsafe extern "C" fn ncclCommDestroy(handle: ncclComm_t) -> ncclResult_t {
    entry("ncclCommDestroy", || {
        if handle.is_null() {
            // NCCL's and RCCL's init.cc: nothing to destroy is a success.
            return Ok(());
        }
        let comm = comm_of(handle)?;
        // NCCL waits for the rank's outstanding operations; each ends by
        // its timeout at the latest, so this cannot hang.
        comm.wait_idle();
        leave(&comm, "destroyed");
        Ok(())
    })
}

pub(super) unsafe extern "C" fn ncclCommAbort(handle: ncclComm_t) -> ncclResult_t {
    entry("ncclCommAbort", || {
        if handle.is_null() {
            // As ncclCommDestroy.
            return Ok(());
        }
        let comm = comm_of(handle)?;
        comm.aborted.store(true, Ordering::Release);
        let posted = meeting::take_posted(comm.handle);
        let message = format!("rank {} aborted its communicator with this call outstanding", comm.rank);
        for m in posted.iter().filter(|m| !m.ended()) {
            m.fail(ncclResult_t::ncclRemoteError, &message, None);
        }
        leave(&comm, "aborted");
        comm.wait_idle();
        Ok(())
    })
}

pub(super) unsafe extern "C" fn ncclGetErrorString(result: ncclResult_t) -> *const c_char {
    match result.0 {
        0 => c"no error",
        1 => c"unhandled hip error",
        2 => c"unhandled system error",
        3 => c"internal error",
        4 => c"invalid argument",
        5 => c"invalid usage",
        6 => c"remote process exited or there was a network error",
        _ => c"unknown result code",
    }
    .as_ptr()
}

pub(super) unsafe extern "C" fn ncclGetLastError(handle: ncclComm_t) -> *const c_char {
    let from_comm = (!handle.is_null()).then(|| comm::comm(handle as usize)).flatten().map(|c| lock(&c.last).clone());
    LAST.try_with(|l| {
        let mut l = l.borrow_mut();
        let text = from_comm.filter(|s| !s.is_empty()).unwrap_or_else(|| l.0.clone());
        l.1 = CString::new(text.replace('\0', " ")).unwrap_or_default();
        l.1.as_ptr()
    })
    .unwrap_or(c"".as_ptr())
}

pub(super) unsafe extern "C" fn ncclCommGetAsyncError(handle: ncclComm_t, error: *mut ncclResult_t) -> ncclResult_t {
    entry("ncclCommGetAsyncError", || {
        let comm = comm_of(handle)?;
        // SAFETY: null or a valid out-pointer (C contract).
        unsafe { out(error, comm.async_error(), "asyncError") }
    })
}

pub(super) unsafe extern "C" fn ncclCommCount(handle: ncclComm_t, count: *mut c_int) -> ncclResult_t {
    entry("ncclCommCount", || {
        let comm = comm_of(handle)?;
        // SAFETY: null or a valid out-pointer (C contract).
        unsafe { out(count, comm.clique.nranks as c_int, "count") }
    })
}

pub(super) unsafe extern "C" fn ncclCommCuDevice(handle: ncclComm_t, device: *mut c_int) -> ncclResult_t {
    entry("ncclCommCuDevice", || {
        let comm = comm_of(handle)?;
        // SAFETY: null or a valid out-pointer (C contract).
        unsafe { out(device, comm.device as c_int, "device") }
    })
}

pub(super) unsafe extern "C" fn ncclCommUserRank(handle: ncclComm_t, rank: *mut c_int) -> ncclResult_t {
    entry("ncclCommUserRank", || {
        let comm = comm_of(handle)?;
        // SAFETY: null or a valid out-pointer (C contract).
        unsafe { out(rank, comm.rank as c_int, "rank") }
    })
}

fn element_of(datatype: ncclDataType_t) -> Result<Element, Failure> {
    Element::of(datatype).ok_or_else(|| (INVALID_ARGUMENT, format!("invalid type {}", datatype.0)))
}

pub(super) unsafe extern "C" fn ncclRedOpCreatePreMulSum(
    op: *mut ncclRedOp_t,
    scalar: *mut c_void,
    datatype: ncclDataType_t,
    residence: ncclScalarResidence_t,
    handle: ncclComm_t,
) -> ncclResult_t {
    entry("ncclRedOpCreatePreMulSum", || {
        let comm = comm_of(handle)?;
        let element = element_of(datatype)?;
        if op.is_null() || scalar.is_null() {
            return fail(INVALID_ARGUMENT, "op or scalar argument is NULL");
        }
        let scalar = match residence.0 {
            1 => {
                // SAFETY: a host scalar of the element type (C contract).
                let bytes = unsafe { std::slice::from_raw_parts(scalar.cast::<u8>(), element.size()) };
                Scalar::Host(bytes.to_vec())
            }
            0 => {
                let s = device_span(&comm, scalar as usize, element.size(), "scalar")?;
                Scalar::Device(s)
            }
            other => return fail(INVALID_ARGUMENT, format!("invalid scalar residence {other}")),
        };
        let number = comm.new_op();
        lock(&comm.premul).insert(number, PreMul { element, scalar });
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { op.write(ncclRedOp_t(number)) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn ncclRedOpDestroy(op: ncclRedOp_t, handle: ncclComm_t) -> ncclResult_t {
    entry("ncclRedOpDestroy", || {
        let comm = comm_of(handle)?;
        if op.0 < 5 {
            return fail(INVALID_ARGUMENT, format!("operation {} is built in, not made by ncclRedOpCreate*", op.0));
        }
        let removed = lock(&comm.premul).remove(&op.0);
        match removed {
            Some(_) => Ok(()),
            None => fail(INVALID_ARGUMENT, format!("operation {} was not made on this communicator", op.0)),
        }
    })
}

/// The device memory of `bytes` at `ptr`, on the communicator's device.
fn device_span(comm: &Comm, ptr: usize, bytes: usize, what: &str) -> Result<Span, Failure> {
    let found = span(ptr, bytes).ok_or_else(|| {
        (
            INVALID_ARGUMENT,
            format!("{what} {ptr:#x} is not device memory holding {bytes} bytes (NCCL takes device memory only)"),
        )
    })?;
    if found.device() != Some(comm.device) {
        return fail(
            INVALID_ARGUMENT,
            format!(
                "{what} {ptr:#x} is memory of device {}, rank {}'s communicator is on device {}",
                found.device().unwrap_or(usize::MAX),
                comm.rank,
                comm.device
            ),
        );
    }
    Ok(found)
}

/// The queue `stream` names, for a part on `comm`.
fn stream_of(comm: &Comm, stream: hipStream_t) -> Result<Target, Failure> {
    let target = if stream.is_null() { targets::null_target(comm.device) } else { targets::target(stream) }
        .map_err(|e| (INVALID_ARGUMENT, format!("stream {stream:p}: {e:?}")))?;
    if target.device != comm.device {
        return fail(
            INVALID_ARGUMENT,
            format!(
                "stream {stream:p} is of device {}, rank {}'s communicator of device {}",
                target.device, comm.rank, comm.device
            ),
        );
    }
    if capture::is_member(&target) {
        return fail(
            INVALID_USAGE,
            "collectives in a stream capture are not modelled by the simulator (NCCL captures them on a GPU)",
        );
    }
    Ok(target)
}

/// The reduction `op` names on `comm` for elements of `element`.
fn op_of(comm: &Comm, op: ncclRedOp_t, element: Element) -> Result<Op, Failure> {
    if let Some(r) = Reduction::builtin(op) {
        return Ok(Op::Builtin(r, op.0));
    }
    match lock(&comm.premul).get(&op.0) {
        Some(p) if p.element == element => Ok(Op::PreMul(p.element, p.scalar.clone())),
        Some(p) => fail(
            INVALID_ARGUMENT,
            format!("operation {} was made for {:?}, the call's type is {element:?}", op.0, p.element),
        ),
        None => fail(INVALID_ARGUMENT, format!("invalid reduction operation {}", op.0)),
    }
}

/// One checked call, before its buffers.
struct Call {
    comm: Arc<Comm>,
    kind: Kind,
    count: usize,
    element: Element,
    op: Op,
    other: Option<usize>,
}

/// The checks every call starts with: the communicator, its state, the
/// type, the operation and the root or peer.
fn begin(
    handle: ncclComm_t,
    kind: Kind,
    count: usize,
    datatype: ncclDataType_t,
    op: Option<ncclRedOp_t>,
    other: Option<c_int>,
) -> Result<Call, Failure> {
    let comm = comm_of(handle)?;
    let error = comm.async_error();
    if error != ncclResult_t::ncclSuccess {
        return fail(
            error,
            format!(
                "rank {}'s communicator has an asynchronous error ({}): abort it and make a new one",
                comm.rank,
                error.name().unwrap_or("unknown")
            ),
        );
    }
    let element = element_of(datatype)?;
    let op = match op {
        Some(op) => op_of(&comm, op, element)?,
        None => Op::None,
    };
    let n = comm.clique.nranks;
    let other = match other {
        Some(r) if r < 0 || r as usize >= n => {
            let what = if matches!(kind, Kind::Send | Kind::Recv) { "peer" } else { "root" };
            return fail(INVALID_ARGUMENT, format!("{what} {r} of a communicator of {n} ranks"));
        }
        Some(r) => Some(r as usize),
        None => None,
    };
    Ok(Call { comm, kind, count, element, op, other })
}

/// Check `send` (`send_bytes`, when read) and `recv` (`recv_bytes`, when
/// written), refuse overlaps other than the in-place form at `in_place`
/// bytes into the receive buffer (or send buffer, when negative), then
/// post or keep the part.
fn finish(
    call: Call,
    stream: hipStream_t,
    send: (*const c_void, usize, bool),
    recv: (*mut c_void, usize, bool),
    in_place: isize,
    route: Route,
) -> Result<(), Failure> {
    let target = stream_of(&call.comm, stream)?;
    if call.count == 0 {
        return Ok(());
    }
    let (sp, sb, reads) = send;
    let (rp, rb, writes) = recv;
    let send_span = if reads { Some(device_span(&call.comm, sp as usize, sb, "sendbuff")?) } else { None };
    let recv_span = if writes { Some(device_span(&call.comm, rp as usize, rb, "recvbuff")?) } else { None };
    if reads && writes {
        let (s, r) = (sp as usize as isize, rp as usize as isize);
        let in_place_ok = s == r + in_place;
        let overlap = (s as usize) < r as usize + rb && (r as usize) < s as usize + sb;
        if overlap && !in_place_ok {
            return fail(
                INVALID_ARGUMENT,
                format!(
                    "{}: sendbuff {sp:p} ({sb} bytes) and recvbuff {rp:p} ({rb} bytes) overlap, and not in the \
                     in-place form (sendbuff at byte {in_place} of recvbuff)",
                    call.kind.function()
                ),
            );
        }
    }
    let post = Post {
        comm: call.comm,
        kind: call.kind,
        count: call.count,
        element: call.element,
        op: call.op,
        other: call.other,
        send: send_span,
        recv: recv_span,
        thread: std::thread::current().id(),
        thread_name: thread_name(),
        grouped: in_group(),
    };
    let pending = Pending { target, route, post };
    if in_group() {
        with_group(|g| g.pending.push(pending));
        return Ok(());
    }
    let (posted, error) = post_all(vec![pending]);
    queue(posted);
    error.map_or(Ok(()), Err)
}

/// A posted part, ready to queue.
struct Posted {
    target: Target,
    meeting: Arc<Meeting>,
    party: usize,
    comm: Arc<Comm>,
    spans: Vec<(Span, AccessKind)>,
    function: &'static str,
}

/// Post each part to its meeting; the first error, if any.
fn post_all(parts: Vec<Pending>) -> (Vec<Posted>, Option<Failure>) {
    let mut posted = Vec::with_capacity(parts.len());
    let mut first_error = None;
    for Pending { target, route, post } in parts {
        let comm = post.comm.clone();
        let function = post.kind.function();
        let written = post.recv.iter().map(|r| (r.clone(), AccessKind::Write));
        let spans = written.chain(post.send.iter().map(|s| (s.clone(), AccessKind::Read))).collect();
        match post_one(&comm, route, post) {
            Ok((meeting, party)) => posted.push(Posted { target, meeting, party, comm, spans, function }),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    (posted, first_error)
}

/// Post one part: its meeting found (or opened) by its route.
fn post_one(comm: &Arc<Comm>, route: Route, post: Post) -> Result<(Arc<Meeting>, usize), Failure> {
    let rank = comm.rank;
    let n = comm.clique.nranks;
    let (meeting, party, key) = {
        let mut state = lock(&comm.clique.state);
        let needs: Vec<usize> = match route {
            Route::Collective => (0..n).collect(),
            Route::SendTo(p) | Route::RecvFrom(p) => vec![p],
        };
        if let Some(gone) = needs.iter().find_map(|&r| state.gone[r].map(|why| (r, why))) {
            let message = format!("{}: rank {}'s communicator was {}", post.kind.function(), gone.0, gone.1);
            drop(state);
            comm.fail(ncclResult_t::ncclRemoteError, &message);
            return fail(ncclResult_t::ncclRemoteError, message);
        }
        let (key, party, parties) = match route {
            Route::Collective => {
                let seq = state.collectives[rank];
                state.collectives[rank] += 1;
                (Key::Collective(seq), rank, n)
            }
            Route::SendTo(to) => {
                let seq = state.sends.entry((rank, to)).or_insert(0);
                *seq += 1;
                (Key::P2p { from: rank, to, seq: *seq - 1 }, 0, 2)
            }
            Route::RecvFrom(from) => {
                let seq = state.recvs.entry((from, rank)).or_insert(0);
                *seq += 1;
                (Key::P2p { from, to: rank, seq: *seq - 1 }, 1, 2)
            }
        };
        let meeting = meeting::open(&comm.clique, &mut state, key, parties);
        (meeting, party, key)
    };
    let result = meeting.post(party, post);
    if !matches!(result, Ok(false)) {
        let mut state = lock(&comm.clique.state);
        meeting::close(&comm.clique, &mut state, key, &meeting);
    }
    result.map(|_| (meeting, party))
}

/// Queue posted parts: one task per stream, holding that stream's parts
/// in call order (a group's parts on one stream run as one kernel does
/// on a GPU: a send and a receive with one peer do not wait for each
/// other).
fn queue(posted: Vec<Posted>) {
    let mut by_stream: Vec<(Target, Vec<Posted>)> = Vec::new();
    for p in posted {
        match by_stream.iter_mut().find(|(t, _)| Arc::ptr_eq(t, &p.target)) {
            Some((_, parts)) => parts.push(p),
            None => by_stream.push((p.target.clone(), vec![p])),
        }
    }
    for (target, parts) in by_stream {
        let function = parts[0].function;
        let spans: Vec<(Span, AccessKind)> = parts.iter().flat_map(|p| p.spans.iter().cloned()).collect();
        let op = SubmitOp::with(function, accesses(spans.iter().map(|(s, k)| (s, *k))));
        let parts: Vec<(Arc<Meeting>, usize, Arc<Comm>)> =
            parts.into_iter().map(|p| (p.meeting, p.party, p.comm)).collect();
        for (_, _, comm) in &parts {
            comm.task_queued();
        }
        let work_parts = parts.clone();
        let queued = submit::submit(&target, false, op, move || {
            for (meeting, party, _) in &work_parts {
                meeting.arrive(*party);
            }
            for (meeting, party, comm) in &work_parts {
                meeting.wait(*party, comm);
                comm.task_done();
            }
            Ok(())
        });
        if let Err(e) = queued {
            for (meeting, _, comm) in &parts {
                meeting.fail(
                    ncclResult_t::ncclUnhandledCudaError,
                    &format!("the stream refused the work: {e:?}"),
                    None,
                );
                comm.task_done();
            }
        }
    }
}

pub(super) unsafe extern "C" fn ncclAllReduce(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry("ncclAllReduce", || {
        let call = begin(comm, Kind::AllReduce, count, datatype, Some(op), None)?;
        let bytes = count.saturating_mul(call.element.size());
        finish(call, stream, (send, bytes, true), (recv, bytes, true), 0, Route::Collective)
    })
}

pub(super) unsafe extern "C" fn ncclBroadcast(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    root: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry("ncclBroadcast", || {
        let call = begin(comm, Kind::Broadcast, count, datatype, None, Some(root))?;
        let bytes = count.saturating_mul(call.element.size());
        let is_root = call.comm.rank == root as usize;
        finish(call, stream, (send, bytes, is_root), (recv, bytes, true), 0, Route::Collective)
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn ncclReduce(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    root: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry("ncclReduce", || {
        let call = begin(comm, Kind::Reduce, count, datatype, Some(op), Some(root))?;
        let bytes = count.saturating_mul(call.element.size());
        let is_root = call.comm.rank == root as usize;
        finish(call, stream, (send, bytes, true), (recv, bytes, is_root), 0, Route::Collective)
    })
}

pub(super) unsafe extern "C" fn ncclAllGather(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry("ncclAllGather", || {
        let call = begin(comm, Kind::AllGather, count, datatype, None, None)?;
        let bytes = count.saturating_mul(call.element.size());
        let (rank, n) = (call.comm.rank, call.comm.clique.nranks);
        let in_place = (rank * bytes) as isize;
        finish(call, stream, (send, bytes, true), (recv, bytes.saturating_mul(n), true), in_place, Route::Collective)
    })
}

pub(super) unsafe extern "C" fn ncclReduceScatter(
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    op: ncclRedOp_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry("ncclReduceScatter", || {
        let call = begin(comm, Kind::ReduceScatter, count, datatype, Some(op), None)?;
        let bytes = count.saturating_mul(call.element.size());
        let (rank, n) = (call.comm.rank, call.comm.clique.nranks);
        let in_place = -((rank * bytes) as isize);
        finish(call, stream, (send, bytes.saturating_mul(n), true), (recv, bytes, true), in_place, Route::Collective)
    })
}

pub(super) unsafe extern "C" fn ncclSend(
    send: *const c_void,
    count: usize,
    datatype: ncclDataType_t,
    peer: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry("ncclSend", || {
        let call = begin(comm, Kind::Send, count, datatype, None, Some(peer))?;
        let bytes = count.saturating_mul(call.element.size());
        let to = peer as usize;
        finish(call, stream, (send, bytes, true), (std::ptr::null_mut(), 0, false), 0, Route::SendTo(to))
    })
}

pub(super) unsafe extern "C" fn ncclRecv(
    recv: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    peer: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    entry("ncclRecv", || {
        let call = begin(comm, Kind::Recv, count, datatype, None, Some(peer))?;
        let bytes = count.saturating_mul(call.element.size());
        let from = peer as usize;
        finish(call, stream, (std::ptr::null(), 0, false), (recv, bytes, true), 0, Route::RecvFrom(from))
    })
}

pub(super) unsafe extern "C" fn ncclGroupStart() -> ncclResult_t {
    entry("ncclGroupStart", || {
        with_group(|g| {
            if g.depth == 0 {
                g.error = None;
            }
            g.depth += 1;
        });
        Ok(())
    })
}

pub(super) unsafe extern "C" fn ncclGroupEnd() -> ncclResult_t {
    entry("ncclGroupEnd", || {
        let (pending, joins, error) = with_group(|g| {
            if g.depth == 0 {
                return Err((INVALID_USAGE, "ncclGroupEnd without ncclGroupStart".to_owned()));
            }
            g.depth -= 1;
            if g.depth > 0 {
                return Ok(None);
            }
            Ok(Some((std::mem::take(&mut g.pending), std::mem::take(&mut g.joins), g.error.take())))
        })?
        .map_or((Vec::new(), Vec::new(), None), |t| t);
        let mut join_error = None;
        for (clique, made, id) in &joins {
            if let Err(e) = await_joined(clique, made, Some(id)) {
                join_error.get_or_insert(e);
            }
        }
        if let Some(result) = error {
            // As NCCL: a group with a failed call launches none of its
            // operations.
            return fail(
                result,
                format!("a call inside the group failed, so none of its {} operations ran", pending.len()),
            );
        }
        let (posted, post_error) = post_all(pending);
        queue(posted);
        join_error.or(post_error).map_or(Ok(()), Err)
    })
}

/// Whether a collective posted on `device` waits for ranks that have not
/// made their call: synchronizing the device then deadlocks on a GPU.
fn waits_for_peers(device: usize) -> bool {
    meeting::any_waits_for_posts_on(device)
}
