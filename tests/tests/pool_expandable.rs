//! The expandable strategy (issue 52): a request a little larger than a
//! freed block extends it instead of taking new memory; a segment grows
//! into whole free chunks moved from its holes while its stream is idle,
//! and, while it is busy, into those freed before a fence its last growth
//! recorded, once that is done (else with new memory); a fragmenting
//! workload that runs the cached strategy out of memory under a limit fits;
//! a reclaim unmaps every free chunk and gives the addresses back; a graph
//! keeps the pages it uses mapped; peers reach the memory; buffers of
//! the strategy are shared with other processes, chunk by chunk.
//!
//! Where the runtime has no virtual memory (the simulator as HIP 5 or 6),
//! the pool refuses the strategy with an error naming the reason, and the
//! other tests skip, saying why.

use hip_core::raw::vmm;
use hip_core::{CaptureMode, Device, Stream};
use hip_pool::{Buffer, GrowthWaits, Limit, Pool, PoolError, Strategy};
use hip_sys::sim;

mod common;
use common::buffers::{fill, read};

const MIB: usize = 1 << 20;

/// An expandable pool on device 0 with a stream, the simulator held; `None`
/// (saying why) where the runtime has no virtual memory.
fn setup() -> Option<(sim::Exclusive, Pool, Stream)> {
    let guard = sim::exclusive();
    let device = Device::new(0).unwrap();
    if !vmm::supported(device).unwrap() {
        eprintln!("skipped: the runtime has no virtual memory on this device");
        return None;
    }
    Some((guard, Pool::new(device, Strategy::Expandable).unwrap(), Stream::new_on(device).unwrap()))
}

#[test]
fn the_strategy_is_refused_where_there_is_no_virtual_memory_and_named_by_amdgpu_pool() {
    let _x = sim::exclusive();
    assert_eq!(Strategy::parse("Expandable").unwrap(), Strategy::Expandable);
    let device = Device::new(0).unwrap();
    match Pool::new(device, Strategy::Expandable) {
        Ok(pool) => {
            assert!(vmm::supported(device).unwrap());
            assert_eq!(pool.strategy(), Strategy::Expandable);
        }
        Err(PoolError::Config(why)) => {
            assert!(!vmm::supported(device).unwrap(), "refused with virtual memory: {why}");
            assert!(why.contains("virtual memory") && why.contains("cached"), "{why}");
        }
        Err(other) => panic!("not a configuration error: {other}"),
    }
}

#[test]
fn a_request_a_little_larger_than_a_freed_block_extends_it() {
    let Some((_x, pool, stream)) = setup() else { return };
    let first = pool.alloc(100 * MIB, &stream).unwrap();
    let address = first.as_ptr();
    fill(&first, 1, &stream).unwrap();
    drop(first);
    let grown = pool.alloc(101 * MIB, &stream).unwrap();
    assert_eq!(grown.as_ptr(), address, "the freed block was extended in place");
    fill(&grown, 2, &stream).unwrap();
    assert!(read(&grown).iter().all(|&b| b == 2), "the whole block, across the seam, is memory");
    let stats = pool.stats();
    // 100 MiB is 5 chunks of 20 MiB; 101 MiB needs one more, not 101 MiB more.
    assert_eq!(stats.reserved, 120 * MIB, "{stats}");
    assert_eq!(stats.oom_retries, 0, "{stats}");
    drop(grown);
    pool.reclaim().unwrap();
}

/// [`setup`] on the simulator only, whose streams a test can keep busy.
fn setup_on_sim() -> Option<(sim::Exclusive, Pool, Stream)> {
    if !common::on_sim() {
        eprintln!("skipped: keeps a stream of the simulator busy");
        return None;
    }
    setup()
}

/// Keep `stream` of the simulator busy until some thread calls `call`:
/// the thread that lets it go, to join.
fn hold_until(stream: &Stream, call: &'static str) -> std::thread::JoinHandle<()> {
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    let calls = sim::call_count(call);
    std::thread::spawn(move || {
        let patience = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while sim::call_count(call) == calls && std::time::Instant::now() < patience {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        drop(hold);
    })
}

/// Held until the growth creates new memory: its mapping waits, on the
/// null stream, for the blocking streams (as HIP's does), this one too.
const NEW_MEMORY: &str = "hipMemCreate";

/// A growth of `pool` for 55 MiB after a 50 MiB buffer is freed in front
/// of a 30 MiB one that stays (at 50..80 MiB, four chunks mapped): the
/// freed block's two whole chunks are idle unless `hold` keeps the stream
/// busy until some thread calls it. The grown buffer, filled and read
/// back.
fn grow_after_a_hole(pool: &Pool, stream: &Stream, hold: Option<&'static str>) -> Buffer {
    let hole = pool.alloc(50 * MIB, stream).unwrap();
    let keep = pool.alloc(30 * MIB, stream).unwrap();
    fill(&hole, 3, stream).unwrap();
    fill(&keep, 4, stream).unwrap();
    drop(hole);
    stream.synchronize().unwrap();
    assert_eq!(pool.stats().reserved, 80 * MIB, "{}", pool.stats());
    let held = hold.map(|call| hold_until(stream, call));
    let grown = pool.alloc(55 * MIB, stream).unwrap();
    if let Some(released) = held {
        released.join().unwrap();
    }
    fill(&grown, 5, stream).unwrap();
    assert!(read(&grown).iter().all(|&b| b == 5), "the grown buffer is memory, moved chunks and new");
    assert!(read(&keep).iter().all(|&b| b == 4), "the buffer that stayed keeps its bytes");
    grown
}

#[test]
fn a_segment_grows_into_its_idle_free_chunks_before_new_memory() {
    let Some((_x, pool, stream)) = setup() else { return };
    let grown = grow_after_a_hole(&pool, &stream, None);
    let stats = pool.stats();
    // 55 MiB needs three chunks: the hole's two whole ones (0..40 MiB)
    // move behind the kept buffer, one is new: 100 MiB, not 140.
    assert_eq!((stats.reserved, stats.moved_chunks), (100 * MIB, 2), "{stats}");
    assert_eq!(stats.reserved_peak, 100 * MIB, "the move never held both: {stats}");
    drop(grown);
    pool.reclaim().unwrap();
    assert_eq!(pool.stats().reserved, 0);
    if common::on_sim() {
        assert_eq!(common::stream_races(), []);
        // A busy stream may still use the hole: a growth that does not
        // wait for it grows with new memory.
        let busy = Pool::new(stream.device(), Strategy::Expandable).unwrap();
        busy.set_growth_waits(GrowthWaits::Never).unwrap();
        let grown = grow_after_a_hole(&busy, &stream, Some(NEW_MEMORY));
        let stats = busy.stats();
        assert_eq!((stats.reserved, stats.moved_chunks), (140 * MIB, 0), "{stats}");
        drop(grown);
        busy.reclaim().unwrap();
    }
}

#[test]
fn a_busy_segment_grows_into_the_chunks_freed_before_its_last_growth_finished() {
    let Some((_x, pool, stream)) = setup_on_sim() else { return };
    // The stream busy, the hole's chunks may still be in use: a growth
    // that does not wait maps new memory, and records a fence on the
    // stream after their free.
    pool.set_growth_waits(GrowthWaits::Never).unwrap();
    let grown = grow_after_a_hole(&pool, &stream, Some(NEW_MEMORY));
    assert_eq!(pool.stats().moved_chunks, 0);
    // Free now: the hole and the kept buffer after it (0..80 MiB), its
    // last two chunks freed after the fence; the fence is done.
    stream.synchronize().unwrap();
    // 100 MiB on the busy stream again: five chunks after the grown
    // buffer's 5 MiB. Only the hole's two, freed before the fence, move.
    let released = hold_until(&stream, "hipMemUnmap");
    let large = pool.alloc(100 * MIB, &stream).unwrap();
    released.join().unwrap();
    let stats = pool.stats();
    assert_eq!((stats.reserved, stats.moved_chunks), (200 * MIB, 2), "{stats}");
    fill(&large, 6, &stream).unwrap();
    assert!(read(&large).iter().all(|&b| b == 6), "the grown buffer is memory, moved chunks and new");
    assert!(read(&grown).iter().all(|&b| b == 5), "the buffer grown before keeps its bytes");
    drop((large, grown));
    pool.reclaim().unwrap();
    assert_eq!(pool.stats().reserved, 0);
    assert_eq!(common::stream_races(), []);
}

#[test]
fn a_growth_on_a_busy_stream_waits_for_it_where_the_mapping_would() {
    let Some((_x, pool, stream)) = setup_on_sim() else { return };
    // The simulator maps as AMD's runtime does, on the null stream after
    // every blocking stream: by default a growth waits for its busy stream
    // first (held until it does), and the hole's two whole chunks move
    // (100 MiB, not 140).
    let grown = grow_after_a_hole(&pool, &stream, Some("hipStreamSynchronize"));
    let stats = pool.stats();
    assert_eq!((stats.reserved, stats.moved_chunks), (100 * MIB, 2), "{stats}");
    drop(grown);
    pool.reclaim().unwrap();
    // A stream of other code may be non-blocking, which the mapping does
    // not wait for: its growth does not wait either, unless told to.
    let api = hip_sys::hip().unwrap();
    let mut theirs = std::ptr::null_mut();
    // SAFETY: a stream made for this test, destroyed below.
    let made = unsafe { (api.hipStreamCreateWithFlags)(&mut theirs, hip_sys::hipStreamNonBlocking) };
    assert_eq!(made, hip_sys::hipError_t::hipSuccess);
    for (waits, hold, (reserved, moved)) in
        [(None, NEW_MEMORY, (140 * MIB, 0)), (Some(GrowthWaits::Always), "hipStreamSynchronize", (100 * MIB, 2))]
    {
        let pool = Pool::new(stream.device(), Strategy::Expandable).unwrap();
        if let Some(waits) = waits {
            pool.set_growth_waits(waits).unwrap();
        }
        let native = hip_core::raw::stream::native(theirs).unwrap();
        // SAFETY: `theirs` lives until after this stream and its uses.
        let foreign = unsafe { Stream::from_raw(stream.device(), native) }.unwrap();
        let grown = grow_after_a_hole(&pool, &foreign, Some(hold));
        let stats = pool.stats();
        assert_eq!((stats.reserved, stats.moved_chunks), (reserved, moved), "{waits:?}: {stats}");
        drop(grown);
        pool.reclaim().unwrap();
    }
    // SAFETY: made above; nothing uses it any more.
    unsafe { hip_core::raw::stream::destroy(stream.device(), theirs) }.unwrap();
    assert_eq!(common::stream_races(), []);
    let cached = Pool::new(stream.device(), Strategy::Cached).unwrap();
    let refused = cached.set_growth_waits(GrowthWaits::Always).unwrap_err().to_string();
    assert!(refused.contains("Expandable"), "{refused}");
}

/// A buffer that stays, each step.
const PIN: usize = 5 * MIB / 4;

/// Each step: a buffer a little larger than the last (10.5 MiB and up),
/// and a 1.25 MiB one that stays; the first dies. The cached strategy
/// gives the first a 12 MiB segment and the survivor its tail, which then
/// pins the segment: every step takes a new one, no freed block fits the
/// next request, and a reclaim can release nothing.
fn pinning_steps(pool: &Pool, stream: &Stream, steps: usize) -> Result<Vec<Buffer>, PoolError> {
    let mut kept = Vec::new();
    for step in 0..steps {
        let growing = pool.alloc(21 * MIB / 2 + step * 16 * 1024, stream)?;
        kept.push(pool.alloc(PIN, stream)?);
        drop(growing);
    }
    Ok(kept)
}

#[test]
fn a_fragmenting_workload_that_runs_cached_out_of_memory_fits_in_expandable() {
    let Some((_x, expandable, stream)) = setup() else { return };
    let cached = Pool::new(stream.device(), Strategy::Cached).unwrap();
    let limit = Limit::Bytes(100 * MIB);
    for pool in [cached, expandable] {
        pool.set_hard_limit(limit);
    }
    let steps = 12;
    let outcome = pinning_steps(&cached, &stream, steps);
    assert!(matches!(outcome, Err(PoolError::OutOfMemory { .. })), "cached fitted: {}", cached.stats());
    drop(outcome);
    let kept = pinning_steps(&expandable, &stream, steps).expect("the expandable pool fits the workload");
    let stats = expandable.stats();
    assert!(stats.reserved <= 60 * MIB && stats.live_buffers == steps, "{stats}");
    assert_eq!(stats.oom_retries, 0, "{stats}");
    drop(kept);
    for pool in [cached, expandable] {
        pool.set_hard_limit(Limit::None);
        pool.reclaim().unwrap();
        assert_eq!(pool.stats().reserved, 0);
    }
}

#[test]
fn a_reclaim_unmaps_every_free_chunk_and_gives_the_addresses_back() {
    let Some((_x, pool, stream)) = setup() else { return };
    let live = sim::live_allocations(0);
    let small = pool.alloc(4096, &stream).unwrap();
    let large = pool.alloc(50 * MIB, &stream).unwrap();
    let keep = pool.alloc(30 * MIB, &stream).unwrap();
    fill(&large, 3, &stream).unwrap();
    fill(&keep, 4, &stream).unwrap();
    drop((small, large));
    let before = pool.stats();
    // A small chunk; 50 MiB takes three large chunks (0..60 MiB), and 30
    // MiB the 10 MiB left free at their end and one chunk more.
    assert_eq!(before.reserved, 2 * MIB + 80 * MIB, "{before}");
    let released = pool.reclaim().unwrap();
    let after = pool.stats();
    // The large free block is 0..50 MiB: chunks 0 and 1 (0..40 MiB) are
    // whole inside it; chunk 2 (40..60) holds the live buffer's start.
    assert_eq!(released, 2 * MIB + 40 * MIB, "{after}");
    assert_eq!(after.reserved, 40 * MIB, "{after}");
    assert!(read(&keep).iter().all(|&b| b == 4), "the live buffer's bytes stay");
    // The gap is mapped again for the next request.
    let again = pool.alloc(45 * MIB, &stream).unwrap();
    fill(&again, 5, &stream).unwrap();
    assert!(read(&again).iter().all(|&b| b == 5));
    drop((again, keep));
    pool.reclaim().unwrap();
    assert_eq!(pool.stats().reserved, 0);
    if common::on_sim() {
        assert_eq!(sim::live_allocations(0), live, "the reservations went back");
        assert_eq!(common::stream_races(), []);
    }
}

#[test]
fn a_graph_keeps_the_pages_it_uses_mapped() {
    let Some((_x, pool, stream)) = setup() else { return };
    let used = pool.alloc(30 * MIB, &stream).unwrap();
    let (graph, ()) = stream.capture(CaptureMode::Global, |s| fill(&used, 6, s)).unwrap();
    let exec = graph.instantiate().unwrap();
    drop(graph);
    drop(used);
    // The block is held by the exec, not free: nothing of it is unmapped.
    pool.reclaim().unwrap();
    assert!(pool.stats().reserved >= 30 * MIB, "{}", pool.stats());
    exec.launch(&stream).unwrap();
    stream.synchronize().unwrap();
    drop(exec);
    pool.reclaim().unwrap();
    assert_eq!(pool.stats().reserved, 0);
    if common::on_sim() {
        assert_eq!(common::stream_races(), [], "a replay touched unmapped memory");
    }
}

#[test]
fn a_peer_reads_the_memory_through_the_access_the_pool_set() {
    let Some((_x, pool, stream)) = setup() else { return };
    let Some(peer) = Device::all().unwrap().into_iter().find(|d| *d != stream.device()) else {
        eprintln!("skipped: needs two devices");
        return;
    };
    if !peer.can_access_peer(stream.device()).unwrap() {
        eprintln!("skipped: {peer} cannot reach {}", stream.device());
        return;
    }
    let buffer = pool.alloc(3 * MIB, &stream).unwrap();
    assert_eq!(vmm::access(stream.device(), buffer.as_ptr(), peer).unwrap(), vmm::Access::ReadWrite);
    fill(&buffer, 7, &stream).unwrap();
    stream.synchronize().unwrap();
    assert!(read(&buffer).iter().all(|&b| b == 7));
}

/// A raw fill of `len` bytes at `ptr` on `stream`.
///
/// # Safety
/// `len` bytes of live device memory of `stream`'s device at `ptr`.
unsafe fn raw_fill(ptr: *mut std::ffi::c_void, byte: u8, len: usize, stream: &Stream) {
    // SAFETY: the caller's promise.
    unsafe { hip_core::raw::mem::fill_async(stream.device(), ptr, byte, len, stream.as_raw()) }.unwrap();
}

/// The other process of the test below.
const OPENER: &str = "POOL_EXPANDABLE_OPENER";

#[test]
fn a_buffer_of_the_strategy_is_shared_with_another_process_chunk_by_chunk() {
    let test = "a_buffer_of_the_strategy_is_shared_with_another_process_chunk_by_chunk";
    if let Ok(handle) = std::env::var(OPENER) {
        let bytes: Vec<u8> =
            (0..handle.len() / 2).map(|i| u8::from_str_radix(&handle[2 * i..2 * i + 2], 16).unwrap()).collect();
        let handle = hip_pool::ipc::IpcHandle::from_bytes(&bytes).unwrap();
        let stream = Stream::new_on(Device::new(0).unwrap()).unwrap();
        let opened = hip_pool::ipc::open(&handle, &stream).unwrap();
        // Ordered after the exporter's queued fills by the handle's event;
        // the chunks in their order.
        let bytes = read(&opened);
        assert!(bytes[..5 * MIB].iter().all(|&b| b == 7), "the exporter's bytes in the first chunk");
        assert!(bytes[5 * MIB..].iter().all(|&b| b == 8), "the exporter's bytes in the second chunk");
        fill(&opened, 9, &stream).unwrap();
        stream.synchronize().unwrap();
        return;
    }
    let Some((_x, pool, stream)) = setup() else { return };
    let yama = std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope").unwrap_or_default();
    if yama.trim().parse::<u32>().is_ok_and(|scope| scope >= 2) {
        eprintln!("skipped: Yama's ptrace_scope {} lets no process take another's descriptors", yama.trim());
        return;
    }
    // Under ptrace_scope 1 the child may not take its parent's descriptors
    // unless the parent allows it.
    hip_pool::ipc::allow_openers().unwrap();
    // Past the first 20 MiB chunk: the buffer lies across two.
    let _before = pool.alloc(15 * MIB, &stream).unwrap();
    let buffer = pool.alloc(10 * MIB, &stream).unwrap();
    fill(&buffer, 7, &stream).unwrap();
    // The part in the second chunk (from 20 MiB of the segment) told apart.
    let second = buffer.as_ptr().cast::<u8>().wrapping_add(5 * MIB);
    // SAFETY: the buffer's last 5 MiB, alive past the fill; queued after the
    // first fill on the buffer's own stream.
    unsafe { raw_fill(second.cast(), 8, 5 * MIB, &stream) };
    let handle = hip_pool::ipc::share(&buffer).unwrap();
    let hex: String = handle.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
    let backend = hip_sys::backend().to_string();
    common::rerun_this_test(test, &[(OPENER, hex.as_ref()), ("AMDGPU_BACKEND", backend.as_ref())]);
    stream.synchronize().unwrap();
    assert!(read(&buffer).iter().all(|&b| b == 9), "the other process's write, in the same memory");
    drop(buffer);
    assert_eq!(hip_pool::ipc::collect(), 0, "closed by the other process: the block went back");
}
