//! The simulator's RCCL through its C table, where it must be stricter
//! than a GPU or model what a GPU does wrong: two ranks on one device,
//! RCCL's virtual ids, ids of another process, overlapping buffers,
//! pre-multiplied sums, a group whose call failed, a peer that never
//! comes (named, after the timeout), an abort that releases its peers,
//! and `hipFree` while a collective waits for its peers (NCCL issue 48).
//! Every test holds `sim::exclusive()` and runs on two devices.

mod common;
use common::{api, download, malloc, set_device, stream, upload};
use hip_sys::bindings::hip::{hipError_t, hipStream_t};
use hip_sys::rccl::*;
use hip_sys::sim;
use std::ffi::{c_void, CStr};
use std::ptr::null_mut;
use std::time::Duration;

fn nccl() -> &'static RcclApi {
    sim::rccl_api()
}

fn ok(r: ncclResult_t) {
    assert_eq!(r, ncclResult_t::ncclSuccess, "{}", last(null_mut()));
}

fn last(comm: ncclComm_t) -> String {
    // SAFETY: returns a NUL-terminated string.
    unsafe { CStr::from_ptr((nccl().ncclGetLastError)(comm)) }.to_string_lossy().into_owned()
}

fn init_all() -> [ncclComm_t; 2] {
    let mut comms = [null_mut(); 2];
    // SAFETY: room for two communicators; a null list is devices 0 and 1.
    ok(unsafe { (nccl().ncclCommInitAll)(comms.as_mut_ptr(), 2, std::ptr::null()) });
    comms
}

fn destroy(comms: &[ncclComm_t]) {
    for &c in comms {
        // SAFETY: a live communicator, destroyed once.
        ok(unsafe { (nccl().ncclCommDestroy)(c) });
    }
}

fn async_error(comm: ncclComm_t) -> ncclResult_t {
    let mut e = ncclResult_t::ncclSuccess;
    // SAFETY: a live communicator and an out-pointer.
    ok(unsafe { (nccl().ncclCommGetAsyncError)(comm, &mut e) });
    e
}

fn sync(s: hipStream_t) {
    // SAFETY: a live stream.
    assert_eq!(unsafe { (api().hipStreamSynchronize)(s) }, hipError_t::hipSuccess);
}

/// A stream and `data` on device `d`.
fn on(d: i32, data: &[f32]) -> (hipStream_t, *mut c_void) {
    set_device(d);
    let s = stream();
    let p = upload(data);
    set_device(0);
    (s, p)
}

fn start() -> sim::Exclusive {
    let guard = sim::exclusive();
    sim::clear_violations();
    set_device(0);
    guard
}

fn all_reduce(comm: ncclComm_t, p: *mut c_void, n: usize, op: ncclRedOp_t, s: hipStream_t) -> ncclResult_t {
    // SAFETY: simulator memory or a pointer the simulator checks.
    unsafe { (nccl().ncclAllReduce)(p, p, n, ncclDataType_t::ncclFloat32, op, comm, s) }
}

#[test]
fn two_ranks_on_one_device_need_rccls_virtual_ids() {
    let _g = start();
    let mut id = ncclUniqueId::default();
    // SAFETY: an out-pointer.
    ok(unsafe { (nccl().ncclGetUniqueId)(&mut id) });
    let joiner = move |rank: i32, virtual_id: Option<i32>| {
        std::thread::spawn(move || {
            set_device(0);
            let mut comm = null_mut();
            // SAFETY: an out-pointer and an id of this process.
            let r = unsafe {
                match virtual_id {
                    Some(v) => (nccl().ncclCommInitRankMulti)(&mut comm, 2, id, rank, v),
                    None => (nccl().ncclCommInitRank)(&mut comm, 2, id, rank),
                }
            };
            (r, comm as usize, last(null_mut()))
        })
    };
    // Plain init of two ranks on device 0: NCCL's "Duplicate GPU".
    let previous = sim::set_collective_timeout(Duration::from_millis(300));
    let first = joiner(0, None);
    std::thread::sleep(Duration::from_millis(30));
    let (r, _, message) = joiner(1, None).join().unwrap();
    assert_eq!(r, ncclResult_t::ncclInvalidUsage);
    assert!(message.contains("Duplicate GPU detected: rank 1 and rank 0"), "{message}");
    assert!(message.contains("ncclCommInitRankMulti"), "{message}");
    let (r, _, message) = first.join().unwrap();
    sim::set_collective_timeout(previous);
    assert_eq!(r, ncclResult_t::ncclRemoteError, "rank 0 times out waiting for rank 1");
    assert!(message.contains("waited") && message.contains("[1]"), "{message}");
    // RCCL's several ranks on one device, each with its own virtual id.
    let mut id = ncclUniqueId::default();
    // SAFETY: an out-pointer.
    ok(unsafe { (nccl().ncclGetUniqueId)(&mut id) });
    let joiner = move |rank: i32| {
        std::thread::spawn(move || {
            set_device(0);
            let mut comm = null_mut();
            // SAFETY: as above.
            let r = unsafe { (nccl().ncclCommInitRankMulti)(&mut comm, 2, id, rank, rank) };
            (r, comm as usize)
        })
    };
    let (a, b) = (joiner(0), joiner(1));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    assert_eq!((a.0, b.0), (ncclResult_t::ncclSuccess, ncclResult_t::ncclSuccess));
    destroy(&[a.1 as ncclComm_t, b.1 as ncclComm_t]);
    assert_eq!(sim::live_communicators(0), 0);
}

#[test]
fn an_id_of_another_process_or_made_up_is_refused() {
    let _g = start();
    let mut id = ncclUniqueId::default();
    // SAFETY: an out-pointer.
    ok(unsafe { (nccl().ncclGetUniqueId)(&mut id) });
    // The process id sits after the 16-byte marker.
    id.internal[16] = id.internal[16].wrapping_add(1);
    let mut comm = null_mut();
    // SAFETY: an out-pointer.
    let r = unsafe { (nccl().ncclCommInitRank)(&mut comm, 2, id, 0) };
    assert_eq!(r, ncclResult_t::ncclInvalidUsage);
    assert!(last(null_mut()).contains("one process only"), "{}", last(null_mut()));
    // SAFETY: as above.
    let r = unsafe { (nccl().ncclCommInitRank)(&mut comm, 2, ncclUniqueId::default(), 0) };
    assert_eq!(r, ncclResult_t::ncclInvalidArgument);
    // SAFETY: as above; a rank out of range.
    let r = unsafe { (nccl().ncclCommInitRank)(&mut comm, 2, id, 2) };
    assert_eq!(r, ncclResult_t::ncclInvalidArgument);
}

#[test]
fn buffers_must_be_the_devices_and_overlap_only_in_place() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let comms = init_all();
    let (s0, p0) = on(0, &[1.0; 16]);
    let (_, p1) = on(1, &[1.0; 16]);
    let f32t = ncclDataType_t::ncclFloat32;
    // SAFETY: simulator memory, or pointers the simulator checks.
    unsafe {
        // Memory of device 1 for rank 0 (on device 0).
        let r = (nccl().ncclAllReduce)(p1, p0, 16, f32t, ncclRedOp_t::ncclSum, comms[0], s0);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
        assert!(last(null_mut()).contains("memory of device 1"), "{}", last(null_mut()));
        // Host memory.
        let host = [0f32; 16];
        let r = (nccl().ncclAllReduce)(host.as_ptr().cast(), p0, 16, f32t, ncclRedOp_t::ncclSum, comms[0], s0);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
        // Shifted by one element: overlapping, not in place.
        let r = (nccl().ncclAllReduce)(p0.cast::<f32>().add(1).cast(), p0, 8, f32t, ncclRedOp_t::ncclSum, comms[0], s0);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
        assert!(last(null_mut()).contains("overlap"), "{}", last(null_mut()));
        // Past the allocation's end.
        let r = (nccl().ncclAllReduce)(p0, p0, 17, f32t, ncclRedOp_t::ncclSum, comms[0], s0);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
        // A type and an operation NCCL 2.13 lacks.
        let r = (nccl().ncclAllReduce)(p0, p0, 16, ncclDataType_t(10), ncclRedOp_t::ncclSum, comms[0], s0);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
        let r = (nccl().ncclAllReduce)(p0, p0, 16, f32t, ncclRedOp_t(9), comms[0], s0);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
        // A stream of device 1.
        set_device(1);
        let s1 = stream();
        set_device(0);
        let r = (nccl().ncclAllReduce)(p0, p0, 16, f32t, ncclRedOp_t::ncclSum, comms[0], s1);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
    }
    // SAFETY: null out-pointers, which the simulator checks.
    unsafe {
        assert_eq!((nccl().ncclGetVersion)(null_mut()), ncclResult_t::ncclInvalidArgument);
        assert_eq!((nccl().ncclCommCount)(comms[0], null_mut()), ncclResult_t::ncclInvalidArgument);
        assert!(last(null_mut()).contains("count argument is NULL"), "{}", last(null_mut()));
    }
    assert_eq!(async_error(comms[0]), ncclResult_t::ncclSuccess, "refused calls leave no asynchronous error");
    destroy(&comms);
}

#[test]
fn pre_multiplied_sums_scale_each_ranks_input_by_its_own_scalar() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let comms = init_all();
    let (s0, p0) = on(0, &[1.0, 2.0, 3.0]);
    let (s1, p1) = on(1, &[10.0, 20.0, 30.0]);
    let f32t = ncclDataType_t::ncclFloat32;
    let (mut op0, mut op1) = (ncclRedOp_t(0), ncclRedOp_t(0));
    let mut two = 2.0f32;
    set_device(1);
    let half = upload(&[0.5]);
    set_device(0);
    // SAFETY: a host scalar, and a device scalar of rank 1's device.
    unsafe {
        ok((nccl().ncclRedOpCreatePreMulSum)(
            &mut op0,
            (&mut two as *mut f32).cast(),
            f32t,
            ncclScalarResidence_t::ncclScalarHostImmediate,
            comms[0],
        ));
        ok((nccl().ncclRedOpCreatePreMulSum)(&mut op1, half, f32t, ncclScalarResidence_t::ncclScalarDevice, comms[1]));
        // The wrong type for the operation.
        let r = (nccl().ncclAllReduce)(p0, p0, 3, ncclDataType_t::ncclFloat64, op0, comms[0], s0);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
        ok((nccl().ncclGroupStart)());
        ok(all_reduce(comms[0], p0, 3, op0, s0));
        ok(all_reduce(comms[1], p1, 3, op1, s1));
        ok((nccl().ncclGroupEnd)());
    }
    sync(s0);
    sync(s1);
    // 2 × rank 0 + 0.5 × rank 1, on both.
    assert_eq!(download(p0, 3), vec![7.0, 14.0, 21.0]);
    assert_eq!(download(p1, 3), vec![7.0, 14.0, 21.0]);
    // SAFETY: operations of these communicators.
    unsafe {
        ok((nccl().ncclRedOpDestroy)(op0, comms[0]));
        assert_eq!((nccl().ncclRedOpDestroy)(op0, comms[0]), ncclResult_t::ncclInvalidArgument);
        ok((nccl().ncclRedOpDestroy)(op1, comms[1]));
    }
    destroy(&comms);
}

#[test]
fn a_group_with_a_failed_call_launches_nothing() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let comms = init_all();
    let (s0, p0) = on(0, &[1.0; 4]);
    let (s1, p1) = on(1, &[2.0; 4]);
    // SAFETY: simulator memory; the second call's root is out of range.
    unsafe {
        ok((nccl().ncclGroupStart)());
        ok(all_reduce(comms[0], p0, 4, ncclRedOp_t::ncclSum, s0));
        let r = (nccl().ncclBroadcast)(p1, p1, 4, ncclDataType_t::ncclFloat32, 5, comms[1], s1);
        assert_eq!(r, ncclResult_t::ncclInvalidArgument);
        assert_eq!((nccl().ncclGroupEnd)(), ncclResult_t::ncclInvalidArgument);
        assert!(last(null_mut()).contains("none of its 1 operations ran"), "{}", last(null_mut()));
        assert_eq!((nccl().ncclGroupEnd)(), ncclResult_t::ncclInvalidUsage, "an end without a start");
    }
    sync(s0);
    assert_eq!(download(p0, 4), vec![1.0; 4], "rank 0's all-reduce never ran");
    destroy(&comms);
}

#[test]
fn a_rank_that_never_calls_is_named_after_the_timeout() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let comms = init_all();
    let (s0, p0) = on(0, &[1.0; 4]);
    let previous = sim::set_collective_timeout(Duration::from_millis(150));
    ok(all_reduce(comms[0], p0, 4, ncclRedOp_t::ncclSum, s0));
    sync(s0);
    sim::set_collective_timeout(previous);
    assert_eq!(async_error(comms[0]), ncclResult_t::ncclRemoteError);
    assert_eq!(async_error(comms[1]), ncclResult_t::ncclRemoteError, "every rank records it");
    let message = last(comms[0]);
    assert!(
        message.contains("ncclAllReduce #0") && message.contains("rank(s) [1], which never made the call"),
        "{message}"
    );
    assert_eq!(download(p0, 4), vec![1.0; 4], "nothing written");
    // A communicator with an error refuses more work.
    assert_eq!(all_reduce(comms[0], p0, 4, ncclRedOp_t::ncclSum, s0), ncclResult_t::ncclRemoteError);
    destroy(&comms);
}

#[test]
fn an_abort_releases_the_peers_at_once() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let comms = init_all();
    let (s0, p0) = on(0, &[1.0; 4]);
    ok(all_reduce(comms[0], p0, 4, ncclRedOp_t::ncclSum, s0));
    let started = std::time::Instant::now();
    // SAFETY: a live communicator, aborted once.
    ok(unsafe { (nccl().ncclCommAbort)(comms[1]) });
    sync(s0);
    assert!(started.elapsed() < sim::DEFAULT_COLLECTIVE_TIMEOUT / 2, "not by the timeout");
    assert_eq!(async_error(comms[0]), ncclResult_t::ncclRemoteError);
    assert!(last(comms[0]).contains("rank 1"), "{}", last(comms[0]));
    // SAFETY: the aborted communicator is gone.
    assert_eq!(unsafe { (nccl().ncclCommDestroy)(comms[1]) }, ncclResult_t::ncclInvalidArgument);
    destroy(&comms[..1]);
}

/// NCCL's and RCCL's `init.cc` answer a destroy or abort of a null
/// communicator with success (nothing to do); a destroyed one is unknown.
#[test]
fn destroying_or_aborting_a_null_communicator_succeeds() {
    let _g = start();
    // SAFETY: null is accepted by contract.
    ok(unsafe { (nccl().ncclCommDestroy)(null_mut()) });
    // SAFETY: as above.
    ok(unsafe { (nccl().ncclCommAbort)(null_mut()) });
}

/// A peer that leaves fails the calls that wait for it, and only those:
/// a rank's call that does not involve the peer (here a send to itself,
/// still queued behind a held stream) completes, and its communicator
/// has no error.
#[test]
fn a_leaving_peer_fails_only_the_calls_that_wait_for_it() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    // Rank 1 sends to itself on a held stream; rank 0 is destroyed
    // meanwhile, idle. Rank 1's call does not involve rank 0.
    let comms = init_all();
    let (s1, p1) = on(1, &[3.0; 4]);
    let (_, q1) = on(1, &[0.0; 4]);
    let hold = sim::hold_stream(s1).expect("hold rank 1's stream");
    // SAFETY: device memory of rank 1's device, 4 floats each; live streams and communicators.
    unsafe {
        ok((nccl().ncclGroupStart)());
        ok((nccl().ncclSend)(p1, 4, ncclDataType_t::ncclFloat32, 1, comms[1], s1));
        ok((nccl().ncclRecv)(q1, 4, ncclDataType_t::ncclFloat32, 1, comms[1], s1));
        ok((nccl().ncclGroupEnd)());
    }
    destroy(&comms[..1]);
    hold.release();
    sync(s1);
    assert_eq!(async_error(comms[1]), ncclResult_t::ncclSuccess, "{}", last(comms[1]));
    assert_eq!(download(q1.cast_const(), 4), vec![3.0; 4]);
    destroy(&comms[1..]);
}

#[test]
fn freeing_while_a_collective_waits_for_its_peers_is_the_deadlock_of_nccl_issue_48() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let comms = init_all();
    let (s0, p0) = on(0, &[1.0; 4]);
    let (s1, p1) = on(1, &[2.0; 4]);
    let scratch = malloc(64);
    ok(all_reduce(comms[0], p0, 4, ncclRedOp_t::ncclSum, s0));
    // On a GPU this hipFree blocks the launch rank 1 needs: recorded,
    // and here rank 1 is posted from another thread meanwhile.
    let (c1, q1, s1a) = (comms[1] as usize, p1 as usize, s1 as usize);
    let peer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        set_device(1);
        all_reduce(c1 as ncclComm_t, q1 as *mut c_void, 4, ncclRedOp_t::ncclSum, s1a as hipStream_t)
    });
    // SAFETY: memory from hipMalloc, freed once.
    assert_eq!(unsafe { (api().hipFree)(scratch) }, hipError_t::hipSuccess);
    ok(peer.join().unwrap());
    let deadlocks: Vec<_> =
        sim::violations().into_iter().filter(|v| v.kind == sim::ViolationKind::CollectiveDeadlock).collect();
    assert_eq!(deadlocks.len(), 1, "{deadlocks:?}");
    assert_eq!((deadlocks[0].function, deadlocks[0].object_device), ("hipFree", 0));
    assert!(deadlocks[0].to_string().contains("deadlocks"), "{}", deadlocks[0]);
    sync(s0);
    sync(s1);
    assert_eq!(download(p0, 4), vec![3.0; 4]);
    // Once every rank has posted (one thread: in a group), a free is
    // harmless.
    sim::clear_violations();
    // SAFETY: no arguments.
    ok(unsafe { (nccl().ncclGroupStart)() });
    ok(all_reduce(comms[0], p0, 4, ncclRedOp_t::ncclSum, s0));
    ok(all_reduce(comms[1], p1, 4, ncclRedOp_t::ncclSum, s1));
    // SAFETY: no arguments.
    ok(unsafe { (nccl().ncclGroupEnd)() });
    let scratch = malloc(64);
    // SAFETY: as above.
    assert_eq!(unsafe { (api().hipFree)(scratch) }, hipError_t::hipSuccess);
    assert_eq!(sim::violations(), vec![]);
    destroy(&comms);
}
