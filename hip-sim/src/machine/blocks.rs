//! Blocks handed out of allocations by a memory pool above the runtime:
//! where each buffer starts and how long it is. A pool tells the
//! simulator ([`note_block`], [`forget_block`]), so that a compiled kernel
//! reaches exactly its buffer (a byte past it, or a block the pool holds
//! free, faults) and the race detector sees exactly its bytes: finer than
//! a GPU, which faults only outside its pages.

use super::addresses::{device_of, holding};
use super::lock::lock;
use super::managed;
use super::memory::Allocation;
use super::sim;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

/// The blocks handed out, by address: their lengths; and the allocations
/// already marked as a pool's, by base: their sizes (so that only a
/// segment's first block looks its allocation up).
struct Blocks {
    handed_out: BTreeMap<usize, usize>,
    pooled: BTreeMap<usize, (usize, Weak<Allocation>)>,
}

static BLOCKS: Mutex<Blocks> = Mutex::new(Blocks { handed_out: BTreeMap::new(), pooled: BTreeMap::new() });

/// A pool handed out `len` bytes at device address `address` as one buffer.
pub fn note_block(address: usize, len: usize) {
    if address == 0 || len == 0 {
        return;
    }
    let mut blocks = lock(&BLOCKS);
    // A freed allocation's entry lingers until an allocation over its
    // addresses replaces it: it counts only while the allocation lives.
    let known = holding(&blocks.pooled, address, |(size, _)| *size).is_some_and(|(_, (_, a))| a.strong_count() > 0);
    if !known {
        if let Some(allocation) = allocation_at(address) {
            allocation.pooled.store(true, Ordering::Relaxed);
            blocks.pooled.retain(|&base, (size, _)| {
                base + *size <= allocation.base || base >= allocation.base + allocation.size
            });
            blocks.pooled.insert(allocation.base, (allocation.size, Arc::downgrade(&allocation)));
        }
    }
    blocks.handed_out.insert(address, len);
}

/// The allocation holding device (or managed) address `address`.
fn allocation_at(address: usize) -> Option<Arc<Allocation>> {
    match device_of(address) {
        Some(device) => sim().device(device)?.memory.find(address).map(|(a, _)| a),
        None => managed::containing(address).map(|(m, _)| m.allocation.clone()),
    }
}

/// The buffer at `address` went back to its pool.
pub fn forget_block(address: usize) {
    lock(&BLOCKS).handed_out.remove(&address);
}

/// How a pool's blocks cover an address of an allocation.
pub(crate) enum Cover {
    /// No pool hands out blocks of the allocation: it is one buffer.
    Whole,
    /// The block holding `address`: (its address, its length).
    Block(usize, usize),
    /// A pool told of blocks in the allocation, and none holds `address`:
    /// memory the pool holds free.
    Free,
}

/// How the blocks pools told of cover `address` in `allocation`.
pub(crate) fn cover(allocation: &Allocation, address: usize) -> Cover {
    if !allocation.pooled.load(Ordering::Relaxed) {
        return Cover::Whole;
    }
    match holding(&lock(&BLOCKS).handed_out, address, |&len| len) {
        Some((start, &len)) => Cover::Block(start, len),
        None => Cover::Free,
    }
}
