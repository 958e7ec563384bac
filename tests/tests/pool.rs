//! The memory pool's rules, on a backend with two or more devices. The
//! checks that count HIP calls, violations or live allocations need the
//! simulator and say so elsewhere.

use hip_core::{set_device, Device, Stream};
use hip_pool::{Limit, Pool, PoolError, Strategy};
use hip_sys::sim;
use std::time::Duration;

mod common;

use common::{on_sim, on_thread, violations_of};

fn two_devices() -> Option<(Device, Device, sim::Exclusive)> {
    let guard = sim::exclusive();
    if Device::count().unwrap_or(0) < 2 {
        eprintln!("skipped: needs two devices");
        return None;
    }
    Some((Device::new(0).unwrap(), Device::new(1).unwrap(), guard))
}

fn hip_calls_on_this_thread() -> u64 {
    hip_sys::HipApi::SYMBOLS.iter().map(|f| sim::thread_call_count(f)).sum()
}

#[test]
fn reclaim_of_device_1_from_a_device_0_thread() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    on_thread("reclaimer", move || {
        set_device(d0).unwrap();
        let s0 = Stream::new_on(d0).unwrap();
        let s1 = Stream::new_on(d1).unwrap();
        drop(hip_pool::alloc_on(d0, 1 << 20, &s0).unwrap());
        drop(hip_pool::alloc_on(d1, 1 << 20, &s1).unwrap());
        let live0 = sim::live_allocations(0);
        let live1 = sim::live_allocations(1);
        assert!(hip_pool::stats(d1).cached() > 0);
        let released = hip_pool::reclaim(d1).unwrap();
        assert!(released > 0);
        assert_eq!(hip_pool::stats(d1).cached(), 0);
        if on_sim() {
            assert!(sim::live_allocations(1) < live1, "device 1's cache went back to HIP");
            assert_eq!(sim::live_allocations(0), live0, "device 0's cache is untouched");
        }
        assert!(hip_pool::stats(d0).cached() > 0);
        assert_eq!(hip_core::device(), d0);
    });
    assert_eq!(violations_of("reclaimer"), []);
}

#[test]
fn a_buffer_dropped_on_another_thread_makes_no_hip_call_and_is_reused() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    let s1 = Stream::new_on(d1).unwrap();
    let buffer = hip_pool::alloc_on(d1, 4096, &s1).unwrap();
    let address = buffer.as_ptr() as usize;
    let calls = on_thread("pool-dropper", move || {
        set_device(d0).unwrap();
        let before = hip_calls_on_this_thread();
        drop(buffer);
        hip_calls_on_this_thread() - before
    });
    if on_sim() {
        assert_eq!(calls, 0, "the drop called HIP");
    }
    assert_eq!(violations_of("pool-dropper"), []);
    let again = hip_pool::alloc_on(d1, 4096, &s1).unwrap();
    assert_eq!(again.as_ptr() as usize, address, "the block is reused");
}

#[test]
fn cross_stream_reuse_waits_on_an_event() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    if !on_sim() {
        eprintln!("skipped: counting HIP calls needs the simulator");
        return;
    }
    on_thread("streams", move || {
        let pool = Pool::new(d1, Strategy::Cached).unwrap();
        let (a, b) = (Stream::new_on(d1).unwrap(), Stream::new_on(d1).unwrap());
        drop(pool.alloc(10_000, &a).unwrap());
        let (records, waits) = (sim::thread_call_count("hipEventRecord"), sim::thread_call_count("hipStreamWaitEvent"));
        let same = pool.alloc(10_000, &a).unwrap();
        assert_eq!(sim::thread_call_count("hipEventRecord"), records, "same-stream reuse needs no event");
        drop(same);
        let other = pool.alloc(10_000, &b).unwrap();
        assert_eq!(sim::thread_call_count("hipEventRecord"), records + 1);
        assert_eq!(sim::thread_call_count("hipStreamWaitEvent"), waits + 1);
        assert_eq!(sim::thread_call_count("hipDeviceSynchronize"), 0, "never a device synchronize");
        assert_eq!(pool.stats().hits, 2);
        drop(other);
    });
}

#[test]
fn the_ladder_releases_the_cache_for_a_request_that_fits_only_then() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    on_thread("ladder", move || {
        let pool = Pool::new(d1, Strategy::Cached).unwrap();
        let stream = Stream::new_on(d1).unwrap();
        pool.set_hard_limit(Limit::Bytes(64 << 20));
        drop(pool.alloc(40 << 20, &stream).unwrap()); // 40 MiB cached
        let big = pool.alloc(50 << 20, &stream).unwrap(); // fits only without the cache
        let stats = pool.stats();
        assert!(stats.oom_retries >= 1, "{stats}");
        assert_eq!(stats.reserved, 50 << 20);
        drop(big);

        let mallocs = sim::thread_call_count("hipMalloc");
        let error = pool.alloc(100 << 20, &stream).unwrap_err();
        match &error {
            PoolError::OutOfMemory { device, requested, limit, reserved, allocated, .. } => {
                assert_eq!((*device, *requested, *limit, *allocated), (d1, 100 << 20, Some(64 << 20), 0));
                assert_eq!(*reserved, 0, "the ladder released the cache");
            }
            other => panic!("expected OutOfMemory, got {other}"),
        }
        let text = error.to_string();
        assert!(text.contains("out of memory") && text.contains("104857600"), "{text}");
        if on_sim() {
            assert_eq!(sim::thread_call_count("hipMalloc"), mallocs, "the hard limit refused before hipMalloc");
        }
        assert_eq!(pool.stats().ooms, 1);
    });
}

#[test]
fn a_driver_out_of_memory_climbs_the_ladder() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    if !on_sim() {
        eprintln!("skipped: filling a device is only done on the simulator");
        return;
    }
    on_thread("driver-oom", move || {
        let capacity = sim::configured_memory();
        let pool = Pool::new(d1, Strategy::Cached).unwrap();
        let stream = Stream::new_on(d1).unwrap();
        drop(pool.alloc(capacity / 2 + (16 << 20), &stream).unwrap());
        // The cached block blocks this one until the ladder reclaims it.
        let second = pool.alloc(capacity / 2 + (32 << 20), &stream).unwrap();
        assert!(pool.stats().oom_retries >= 1);
        // The peak counts what the driver gave, never a request it refused.
        let peak = pool.stats().reserved_peak;
        assert!(peak <= capacity, "peak reserved {peak} above the device's {capacity} bytes");
        // The driver's out-of-memory answer was handled: it is not left as
        // the thread's last error for the next library to trip on (HIP 7).
        assert_eq!(hip_core::take_last_error().unwrap(), None);
        drop(second);
        pool.reclaim().unwrap();
    });
}

#[test]
fn other_errors_propagate_without_retries() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    if !on_sim() {
        eprintln!("skipped: fault injection needs the simulator");
        return;
    }
    on_thread("fault", move || {
        let pool = Pool::new(d1, Strategy::Cached).unwrap();
        let stream = Stream::new_on(d1).unwrap();
        assert!(sim::inject_fault(sim::Fault {
            function: "hipMalloc".into(),
            nth: 1,
            error: hip_sys::hipError_t::hipErrorInvalidValue
        }));
        let error = pool.alloc(1 << 20, &stream).unwrap_err();
        sim::reset_faults();
        match error {
            PoolError::Hip(e) => {
                assert_eq!(e.code(), Some(hip_sys::hipError_t::hipErrorInvalidValue))
            }
            other => panic!("expected the HIP error, got {other}"),
        }
        assert_eq!(pool.stats().oom_retries, 0);
        assert_eq!(pool.stats().reserved, 0);
        drop(pool.alloc(1 << 20, &stream).unwrap());
    });
}

#[test]
fn the_cleanup_reclaims_only_the_idle_device_once_per_idle_period() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    let s0 = Stream::new_on(d0).unwrap();
    let s1 = Stream::new_on(d1).unwrap();
    drop(hip_pool::alloc_on(d0, 1 << 20, &s0).unwrap());
    drop(hip_pool::alloc_on(d1, 1 << 20, &s1).unwrap());
    let (r0, r1) = (hip_pool::stats(d0).reclaims, hip_pool::stats(d1).reclaims);
    hip_pool::cleanup::start(Duration::from_millis(10), 3);
    // Keep device 0 busy for many ticks; leave device 1 idle.
    let deadline = std::time::Instant::now() + Duration::from_millis(300);
    while std::time::Instant::now() < deadline {
        drop(hip_pool::alloc_on(d0, 1 << 20, &s0).unwrap());
        std::thread::sleep(Duration::from_millis(2));
    }
    hip_pool::cleanup::stop();
    assert_eq!(hip_pool::stats(d1).reclaims, r1 + 1, "device 1 reclaimed once in its idle period");
    assert_eq!(hip_pool::stats(d1).cached(), 0);
    assert_eq!(hip_pool::stats(d0).reclaims, r0, "busy device 0 is left alone");
    assert!(hip_pool::stats(d0).cached() > 0);
    assert_eq!(violations_of("hip-pool-cleanup"), []);
    // A new idle period after use: reclaimed once more.
    drop(hip_pool::alloc_on(d1, 1 << 20, &s1).unwrap());
    hip_pool::cleanup::start(Duration::from_millis(10), 3);
    std::thread::sleep(Duration::from_millis(200));
    hip_pool::cleanup::stop();
    assert_eq!(hip_pool::stats(d1).reclaims, r1 + 2);
}

#[test]
fn async_and_none_strategies_allocate_and_free() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    for strategy in [Strategy::Async, Strategy::None] {
        let pool = Pool::new(d1, strategy).unwrap();
        let stream = Stream::new_on(d1).unwrap();
        let b = pool.alloc(3000, &stream).unwrap();
        assert_eq!((b.len(), b.block_size(), b.device()), (3000, 3072, d1));
        let stats = pool.stats();
        assert_eq!((stats.allocated, stats.driver_allocations), (3072, 1), "{strategy:?}");
        b.free().unwrap();
        let stats = pool.stats();
        assert_eq!((stats.allocated, stats.reserved, stats.driver_frees), (0, 0, 1), "{strategy:?}");
        pool.reclaim().unwrap();
    }
}

#[test]
fn zero_bytes_is_an_empty_buffer_and_wrong_streams_are_errors() {
    let Some((d0, d1, _x)) = two_devices() else {
        return;
    };
    let s0 = Stream::new_on(d0).unwrap();
    let empty = hip_pool::alloc_on(d0, 0, &s0).unwrap();
    assert!(empty.is_empty() && empty.as_ptr().is_null());
    let error = hip_pool::alloc_on(d1, 64, &s0).unwrap_err();
    assert!(error.to_string().contains("device"), "{error}");
    assert!(Limit::parse("AMDGPU_HARD_MEMORY_LIMIT", "lots").is_err());
}

#[test]
fn reclaim_releases_blocks_parked_in_other_threads_caches() {
    let Some((_, d1, _x)) = two_devices() else { return };
    let pool = Pool::new(d1, Strategy::Cached).unwrap();
    let (parked_tx, parked_rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let stream = Stream::new_on(d1).unwrap();
        drop(pool.alloc(64 << 10, &stream).unwrap()); // parked in this thread's cache
        parked_tx.send(()).unwrap();
        go_rx.recv().unwrap(); // stay alive while the main thread reclaims
        let again = pool.alloc(64 << 10, &stream).unwrap();
        drop(again);
    });
    parked_rx.recv().unwrap();
    let stats = pool.stats();
    assert_eq!((stats.allocated, stats.live_buffers), (0, 0), "parked blocks are not allocated: {stats}");
    assert!(stats.reserved > 0);
    let live = sim::live_allocations(1);
    let released = pool.reclaim().unwrap();
    assert!(released > 0, "the parked block's segment went back");
    assert_eq!(pool.stats().reserved, 0);
    if on_sim() {
        assert!(sim::live_allocations(1) < live);
    }
    go_tx.send(()).unwrap();
    holder.join().unwrap();
    assert_eq!(pool.stats().live_buffers, 0);
}

#[test]
fn threads_sharing_a_device_reuse_their_own_blocks_without_the_pool() {
    let Some((d0, _, _x)) = two_devices() else { return };
    let pool = Pool::new(d0, Strategy::Cached).unwrap();
    let workers: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                let stream = Stream::new_on(d0).unwrap();
                let first = pool.alloc(4096, &stream).unwrap().as_ptr() as usize;
                for _ in 0..100 {
                    let b = pool.alloc(4096, &stream).unwrap();
                    assert_eq!(b.as_ptr() as usize, first, "the thread's own block comes back");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let stats = pool.stats();
    assert_eq!(stats.hits + stats.misses, 404);
    assert_eq!(stats.live_buffers, 0);
    assert!(stats.hits >= 400, "{stats}");
}

#[test]
fn stats_stay_exact_while_threads_exit_and_caches_drain() {
    // Threads park a block in their cache and exit (their cache drains into
    // the pool) while this thread reads the statistics, which subtract the
    // parked bytes from the allocated ones. Each read must see a state that
    // existed: never more parked than allocated (an underflow, a panic in
    // a debug build), never more allocated than reserved. Exclusive: its
    // allocations would change the live counts other tests compare.
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let pool = Pool::new(device, Strategy::Cached).unwrap();
    let stream = Stream::new_on(device).unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut reads = 0u64;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let stats = pool.stats();
                assert!(stats.allocated <= stats.reserved, "{stats:?}");
                assert!(stats.live_buffers <= 1, "at most one buffer is live at a time: {stats:?}");
                reads += 1;
            }
            reads
        })
    };
    for round in 0..2000 {
        let stream = stream.clone();
        let flush = round % 2 == 0;
        std::thread::spawn(move || {
            drop(pool.alloc(4096, &stream).unwrap());
            if flush {
                // The other path out of a cache: a reclaim drains it.
                pool.reclaim().unwrap();
            }
        })
        .join()
        .unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(reader.join().expect("stats() panicked or saw an impossible state") > 0);
    let stats = pool.stats();
    assert_eq!((stats.allocated, stats.live_buffers), (0, 0), "{stats:?}");
}

/// The allocation path takes the pool's lock as few times as it can: not
/// at all for a block from the thread's own cache, once for a free block
/// of the pool, and for new memory once to look, once to reserve and once
/// to count (a second look, after taking this thread's own cached blocks
/// back, only when it has some). Counted by the pool itself
/// (`PoolStats::lock_acquisitions`; reading the statistics takes it once).
#[test]
fn the_allocation_path_takes_the_pools_lock_once_per_step() {
    let Some((_, d1, _x)) = two_devices() else {
        return;
    };
    on_thread("locks", move || {
        let pool = Pool::new(d1, Strategy::Cached).unwrap();
        let stream = Stream::new_on(d1).unwrap();
        // Each step's acquisitions, less the one of reading them.
        let locks = |step: &mut dyn FnMut()| {
            let before = pool.stats().lock_acquisitions;
            step();
            pool.stats().lock_acquisitions - before - 1
        };
        let mut kept = None;
        assert_eq!(
            locks(&mut || kept = Some(pool.alloc(1 << 20, &stream).unwrap())),
            3,
            "new memory: look, reserve, count"
        );
        drop(kept.take());
        assert_eq!(locks(&mut || kept = Some(pool.alloc(1 << 20, &stream).unwrap())), 0, "this thread's cache");
        // A block another thread cached comes back to the pool when that
        // thread ends; here it is a free block of the pool.
        std::thread::scope(|s| s.spawn(|| drop(pool.alloc(1 << 19, &stream).unwrap())).join().unwrap());
        assert_eq!(locks(&mut || drop(pool.alloc(1 << 19, &stream).unwrap())), 1, "a free block of the pool");
        // With blocks in this thread's cache that do not fit, a request the
        // pool cannot serve looks twice: before and after taking them back.
        drop(kept.take());
        assert_eq!(locks(&mut || drop(pool.alloc(3 << 20, &stream).unwrap())), 4, "new memory, own blocks given back");
        pool.reclaim().unwrap();
    });
}
