//! The use tracker for memory with no own stream (pinned host memory):
//! byte ranges decide which uses on other streams wait for each other, and
//! host waits wait for the conflicting uses only.
//!
//! A held simulator stream shows which waits were made: a use that must
//! wait for the held stream's entry is not done while it is held, one that
//! must not is.

use hip_core::Stream;
use hip_pool::{Access, UseList};
use hip_sys::sim;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn on_sim() -> bool {
    hip_sys::backend() == hip_sys::Backend::Sim
}

/// Whether `stream`'s queued work completes within a second.
fn completes(stream: &Stream) -> bool {
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline {
        if stream.query().unwrap() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// A list with a write of bytes `0..64` recorded on a stream that is held
/// (so the entry's event stays pending), with the hold and the stream.
fn pending_write() -> (Arc<UseList>, Stream, sim::StreamHold) {
    let list = Arc::new(UseList::default());
    let held = Stream::new().unwrap();
    let hold = sim::hold_stream(held.as_raw()).unwrap();
    list.prepare(&held, 0..64, Access::Write).unwrap();
    list.record(&held, 0..64, Access::Write).unwrap();
    assert!(!list.is_empty());
    (list, held, hold)
}

#[test]
fn disjoint_bytes_on_another_stream_do_not_wait() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream");
        return;
    }
    let (list, _held, hold) = pending_write();
    let other = Stream::new().unwrap();
    list.prepare(&other, 64..128, Access::Write).unwrap();
    list.record(&other, 64..128, Access::Write).unwrap();
    assert!(completes(&other), "a write of other bytes waited for the held stream");
    hold.release();
}

#[test]
fn overlapping_bytes_on_another_stream_wait() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream");
        return;
    }
    for access in [Access::Read, Access::Write] {
        let (list, _held, hold) = pending_write();
        let other = Stream::new().unwrap();
        list.prepare(&other, 32..96, access).unwrap();
        list.record(&other, 32..96, access).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(!other.query().unwrap(), "a {access:?} of written bytes ran before the write");
        hold.release();
        assert!(completes(&other));
    }
}

#[test]
fn reads_of_the_same_bytes_on_two_streams_do_not_wait() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream");
        return;
    }
    let list = Arc::new(UseList::default());
    let held = Stream::new().unwrap();
    let hold = sim::hold_stream(held.as_raw()).unwrap();
    list.prepare(&held, 0..64, Access::Read).unwrap();
    list.record(&held, 0..64, Access::Read).unwrap();
    let other = Stream::new().unwrap();
    list.prepare(&other, 0..64, Access::Read).unwrap();
    list.record(&other, 0..64, Access::Read).unwrap();
    assert!(completes(&other), "a read waited for another read");
    // The host may read under pending reads, but not write.
    list.wait_host(Access::Read).unwrap();
    assert!(!list.is_empty(), "a host read dropped pending reads");
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        hold.release();
    });
    list.wait_host(Access::Write).unwrap();
    assert!(held.query().unwrap(), "a host write returned before the held read ran");
    assert!(list.is_empty());
    releaser.join().unwrap();
}

#[test]
fn waiting_for_all_uses_waits_for_every_stream() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream");
        return;
    }
    let (list, held, hold) = pending_write();
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        hold.release();
    });
    list.wait_all().unwrap();
    assert!(held.query().unwrap(), "wait_all returned before the held write ran");
    assert!(list.is_empty());
    releaser.join().unwrap();
}

/// A write on another stream that covers the bytes of earlier entries is
/// ordered after them; the host's wait for everything then needs only its
/// entry, and is still after all of them.
#[test]
fn a_covering_write_orders_the_host_after_every_earlier_use() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream");
        return;
    }
    let (list, held, hold) = pending_write();
    let other = Stream::new().unwrap();
    list.prepare(&other, 0..128, Access::Write).unwrap();
    list.record(&other, 0..128, Access::Write).unwrap();
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        hold.release();
    });
    list.wait_host(Access::Write).unwrap();
    assert!(held.query().unwrap() && other.query().unwrap(), "the host wait returned before the uses ran");
    releaser.join().unwrap();
}
