//! A property test of the pool against a model: random allocations, frees,
//! reclaims and limit changes, on two threads per device over two devices,
//! for the cached strategy and the expandable one (where the runtime has
//! virtual memory). Live blocks never overlap, the statistics match the
//! model, and at the end every byte is back with the driver.

use hip_core::{Device, Stream};
use hip_pool::{Buffer, Limit, Pool, PoolError, Strategy as PoolStrategy};
use proptest::prelude::*;
use std::sync::Arc;

#[derive(Debug, Clone)]
enum Op {
    Alloc { bytes: usize, stream: usize },
    Free { index: usize },
    Reclaim,
    HardLimit { mib: Option<usize> },
}

fn op() -> impl Strategy<Value = Op> {
    let sizes =
        prop_oneof![1usize..=4096, 4097usize..=(1 << 20), (1usize << 20)..=(12 << 20), (12usize << 20)..=(40 << 20)];
    prop_oneof![
        6 => (sizes, 0usize..2).prop_map(|(bytes, stream)| Op::Alloc { bytes, stream }),
        4 => any::<usize>().prop_map(|index| Op::Free { index }),
        1 => Just(Op::Reclaim),
        1 => prop::option::of(16usize..256).prop_map(|mib| Op::HardLimit { mib }),
    ]
}

fn assert_disjoint(pool: &Pool) {
    let mut blocks = pool.live_blocks();
    blocks.sort_unstable();
    for pair in blocks.windows(2) {
        assert!(pair[0].0 + pair[0].1 <= pair[1].0, "overlapping blocks {pair:?}");
    }
}

/// One worker: runs `ops` on `pool`, returns the buffers it still holds.
/// `limited`: some worker of this pool sets hard limits, so running out of
/// memory is allowed.
fn run(pool: Pool, streams: Arc<Vec<Stream>>, ops: Vec<Op>, limited: bool) -> Vec<Buffer> {
    let mut held: Vec<Buffer> = Vec::new();
    for op in ops {
        match op {
            Op::Alloc { bytes, stream } => match pool.alloc(bytes, &streams[stream]) {
                Ok(buffer) => {
                    assert!(buffer.block_size() >= bytes && buffer.block_size() % 512 == 0);
                    held.push(buffer);
                }
                Err(PoolError::OutOfMemory { .. }) if limited => {}
                Err(other) => panic!("allocation of {bytes} failed: {other}"),
            },
            Op::Free { index } if !held.is_empty() => drop(held.swap_remove(index % held.len())),
            Op::Free { .. } => {}
            Op::Reclaim => {
                pool.reclaim().unwrap();
            }
            Op::HardLimit { mib } => pool.set_hard_limit(mib.map_or(Limit::None, |m| Limit::Bytes(m << 20))),
        }
        assert_disjoint(&pool);
    }
    held
}

/// Run `ops` (one list per worker) on new pools of `strategy` and check
/// them against the model.
fn check(strategy: PoolStrategy, ops: Vec<Vec<Op>>) -> Result<(), TestCaseError> {
    let _x = hip_sys::sim::exclusive();
    let devices = Device::all().unwrap();
    if strategy == PoolStrategy::Expandable && !hip_core::raw::vmm::supported(devices[0]).unwrap() {
        eprintln!("skipped: the runtime has no virtual memory");
        return Ok(());
    }
    let on_sim = hip_sys::backend() == hip_sys::Backend::Sim;
    let baseline: Vec<usize> = devices.iter().map(|d| hip_sys::sim::live_allocations(d.ordinal())).collect();
    let pools: Vec<Pool> = devices.iter().take(2).map(|d| Pool::new(*d, strategy).unwrap()).collect();
    let streams: Vec<Arc<Vec<Stream>>> = pools
        .iter()
        .map(|p| Arc::new(vec![Stream::new_on(p.device()).unwrap(), Stream::new_on(p.device()).unwrap()]))
        .collect();
    let limited: Vec<bool> = (0..pools.len())
        .map(|p| {
            ops.iter()
                .enumerate()
                .filter(|(t, _)| t % pools.len() == p)
                .any(|(_, ops)| ops.iter().any(|o| matches!(o, Op::HardLimit { mib: Some(_) })))
        })
        .collect();
    let workers: Vec<_> = ops
        .into_iter()
        .enumerate()
        .map(|(t, ops)| {
            let pool = pools[t % pools.len()];
            let streams = streams[t % pools.len()].clone();
            let limited = limited[t % pools.len()];
            std::thread::spawn(move || (t, run(pool, streams, ops, limited)))
        })
        .collect();
    let mut held: Vec<Vec<Buffer>> = pools.iter().map(|_| Vec::new()).collect();
    for w in workers {
        let (p, buffers) = w.join().expect("a worker failed");
        held[p % pools.len()].extend(buffers);
    }
    for (pool, buffers) in pools.iter().zip(&held) {
        // The buffers themselves never overlap (a block handed out twice would).
        let mut ranges: Vec<(usize, usize)> = buffers.iter().map(|b| (b.as_ptr() as usize, b.block_size())).collect();
        ranges.sort_unstable();
        for pair in ranges.windows(2) {
            prop_assert!(pair[0].0 + pair[0].1 <= pair[1].0, "buffers overlap: {:?}", pair);
        }
        let stats = pool.stats();
        prop_assert_eq!(stats.allocated, buffers.iter().map(Buffer::block_size).sum::<usize>());
        prop_assert_eq!(stats.live_buffers, buffers.len());
        prop_assert!(stats.reserved >= stats.allocated);
        prop_assert!(stats.allocated_peak >= stats.allocated && stats.reserved_peak >= stats.reserved);
    }
    drop(held);
    for pool in &pools {
        pool.set_hard_limit(Limit::None);
        pool.reclaim().unwrap();
        prop_assert_eq!(pool.stats().reserved, 0);
        prop_assert_eq!(pool.stats().allocated, 0);
    }
    if on_sim {
        let after: Vec<usize> = devices.iter().map(|d| hip_sys::sim::live_allocations(d.ordinal())).collect();
        prop_assert_eq!(after, baseline);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn the_pool_matches_its_model(ops in prop::collection::vec(prop::collection::vec(op(), 1..40), 4)) {
        check(PoolStrategy::Cached, ops)?;
    }

    #[test]
    fn the_expandable_pool_matches_its_model(ops in prop::collection::vec(prop::collection::vec(op(), 1..40), 4)) {
        check(PoolStrategy::Expandable, ops)?;
    }
}
