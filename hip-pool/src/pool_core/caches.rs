//! Per-thread caches of recently freed blocks (cached strategy), in front
//! of a device pool ([`PoolInner`]).
//!
//! A block freed on a thread is parked in that thread's cache for its pool,
//! tagged with its stream; the next allocation of the same size on the same
//! stream by that thread takes it back without touching the pool's lock,
//! so threads sharing a device do not contend on it. The rules hold:
//!
//! - a drop makes no HIP call and touches no thread GPU state (the cache is
//!   this module's own thread-local, not `hip-core`'s);
//! - `reclaim(device)` first moves every parked block of every live thread
//!   back into the pool, then releases;
//! - statistics subtract parked blocks, so current values stay exact.
//!
//! # Layout
//!
//! Each pool has a small process-unique id (its index among all pools). A
//! thread keeps a vector of [`Slot`]s indexed by that id, so finding the
//! cache is one bounds check and one load, with no search and no reference
//! count change. A slot holds a last-in first-out list of parked blocks
//! (`list`), each with its size and its stream's [`Stream::id`] inline (a
//! hit compares two integers per block and follows no pointer) and the
//! block's [`Record`], moved in and out as one pointer. Slots are also
//! listed in their pool's registry ([`PoolInner::thread_caches`]), for the
//! threads that drain or count them.
//!
//! # Protocol
//!
//! The list of a slot belongs to its owning thread, with two exceptions
//! that need the pool's registry lock: a *stealer* (a reclaim, a statistics
//! read, a listing of parked addresses) and the owner itself on its slow
//! paths (flushing before the pool goes to the driver; thread exit). Two
//! flags decide who may touch the list, written with plain atomic stores:
//!
//! - the owner, around every fast-path access: `busy = true` (relaxed);
//!   the light side of the asymmetric barrier ([`crate::barrier`]: a
//!   compiler fence with membarrier, else a `SeqCst` fence); read `steal`
//!   (acquire). If it is set, the owner clears `busy` and takes the slow
//!   path (the pool, under its lock) instead. Otherwise it uses the list
//!   and ends with `busy = false` (release).
//! - a stealer, holding the registry lock: `steal = true` (relaxed) on
//!   every slot it wants; the heavy side of the barrier (membarrier on
//!   every thread of the process, else a `SeqCst` fence); then it waits
//!   until each slot's `busy` reads false (acquire), uses the lists, and
//!   clears `steal` (release).
//!
//! Both sides store one flag, pass a barrier that acts as a `SeqCst`
//! fence on both, then load the other flag (Dekker's pattern): of two
//! such fences one comes first, so either the owner sees `steal` and
//! stays out, or the stealer sees `busy` and waits for the release that
//! ends the owner's access. An owner that reads `steal` false after a
//! stealer has finished reads the stealer's release of it, so it sees the
//! stealer's changes; a stealer that reads `busy` false reads the owner's
//! release, so it sees the owner's. The owner never blocks and never takes
//! a lock while `busy` is set, so a stealer's wait is a few instructions
//! long (or a preemption). Stealers and the owner's slow paths hold the
//! registry lock, so they exclude one another; the lock order is
//! registry, then pool.
//!
//! A statistics read keeps `steal` set on every slot while it reads the
//! parked totals and the pool's counters, so no block moves between a
//! cache and the pool in between: a read never sees a block both parked
//! and returned (or neither).
//!
//! Caches are bounded (`list::MAX_BLOCKS`, `list::MAX_BYTES`); beyond
//! that, and when a thread exits, blocks go back to the pool. Before the
//! pool asks the driver for memory, the allocating thread's cache is
//! flushed too.
//! Blocks with pending stream-use events never enter a cache (see
//! `device_pool::pending`).

use super::list::List;
use super::{PoolInner, Record};
use crate::barrier;
use crate::device_pool::Returned;
use hip_core::Stream;
use hip_sys::sync::MutexExt;
use std::cell::{Cell, RefCell, UnsafeCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, MutexGuard};

/// A slot's list of parked blocks and their records.
type Parked = List<Box<Record>>;

/// One thread's cache for one pool; see the module docs for who may touch
/// `list` when.
pub(crate) struct Slot {
    /// Set by the owner while it uses `list` on a fast path.
    busy: AtomicBool,
    /// Set by a stealer while it uses `list` (or keeps it still).
    steal: AtomicBool,
    list: UnsafeCell<Parked>,
}

// SAFETY: `list` is only reached by one thread at a time, per the protocol
// in the module docs (the owner inside a busy section that saw no steal,
// or whoever holds the pool's registry lock while no busy section runs);
// the flags are atomics and a `Stream` is `Send`.
unsafe impl Sync for Slot {}
// SAFETY: as above; every field is `Send`.
unsafe impl Send for Slot {}

impl Slot {
    fn new() -> Slot {
        Slot { busy: AtomicBool::new(false), steal: AtomicBool::new(false), list: UnsafeCell::new(List::new()) }
    }

    /// Run `f` on the list as its owner, unless a stealer holds the slot.
    #[inline(always)]
    fn owned<R>(&self, fenced: bool, f: impl FnOnce(&mut Parked) -> R) -> Option<R> {
        self.owned_with(fenced, (), |list, ()| f(list)).ok()
    }

    /// [`Slot::owned`] handing `value` to `f`; `value` back if a stealer
    /// holds the slot.
    #[inline(always)]
    fn owned_with<T, R>(&self, fenced: bool, value: T, f: impl FnOnce(&mut Parked, T) -> R) -> Result<R, T> {
        self.busy.store(true, Ordering::Relaxed);
        barrier::light(fenced);
        if self.steal.load(Ordering::Acquire) {
            self.busy.store(false, Ordering::Release);
            return Err(value);
        }
        // SAFETY: the owner's busy section saw no steal: no stealer touches
        // the list until `busy` is cleared below (module docs), and the
        // owner's own slow paths do not run inside this call.
        let result = f(unsafe { &mut *self.list.get() }, value);
        self.busy.store(false, Ordering::Release);
        Ok(result)
    }
}

pub(crate) type Shared = Arc<Slot>;

/// The pool's registry of slots, locked.
fn registry(pool: &PoolInner) -> MutexGuard<'_, Vec<Shared>> {
    pool.thread_caches.lock_unpoisoned()
}

/// The list of a slot for a holder of the registry lock while no busy
/// section runs on it (a stealer that waited, or the owner itself).
///
/// # Safety
///
/// The caller holds `pool`'s registry lock and is either the slot's owner
/// thread or a stealer that set `steal` and saw `busy` clear after the
/// heavy barrier (see [`Steal`]).
#[allow(clippy::mut_from_ref, reason = "exclusive by the protocol, which the caller upholds")]
unsafe fn list_of(slot: &Slot) -> &mut Parked {
    // SAFETY: exclusive by the caller's contract.
    unsafe { &mut *slot.list.get() }
}

/// This thread's slots, by pool id, and the barrier mode.
struct Local {
    slots: Vec<Option<(&'static PoolInner, Shared)>>,
    fenced: bool,
}

impl Drop for Local {
    fn drop(&mut self) {
        // The slots go now; the fast path must not find one of them.
        let _ = LAST.try_with(|last| last.set(Last::NONE));
        for (pool, slot) in self.slots.drain(..).flatten() {
            let mut registry = registry(pool);
            // SAFETY: the owner, holding the registry lock.
            let list = unsafe { list_of(&slot) };
            // The cache's hits become the pool's, and its blocks go back,
            // under the registry lock (see the module docs).
            pool.core.add_hits(std::mem::take(&mut list.hits));
            return_blocks(pool, list);
            registry.retain(|c| !Arc::ptr_eq(c, &slot));
        }
    }
}

/// Give every block of a list to its pool.
fn return_blocks(pool: &PoolInner, list: &mut Parked) {
    pool.core.give_back_all(list.drain().map(|record| record.returned()));
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
    static LAST: Cell<Last> = const { Cell::new(Last::NONE) };
}

/// The slot this thread used last, copied out of [`LOCAL`] into a `Cell`
/// of plain data (no destructor, no borrow flag), so a thread that keeps
/// using one pool finds its slot with one load and a compare.
#[derive(Clone, Copy)]
struct Last {
    /// The slot's pool id + 1; 0 for none.
    pool: usize,
    /// Valid while `LOCAL` holds the slot: slots are never removed from it
    /// until `Local` drops, which clears this first.
    slot: *const Slot,
    fenced: bool,
}

impl Last {
    const NONE: Last = Last { pool: 0, slot: std::ptr::null(), fenced: false };
}

/// Run `f` with this thread's slot for `pool` (made on first use when
/// `create`), `None` if there is none or the thread is exiting.
#[inline(always)]
fn with_slot<R>(pool: &'static PoolInner, create: bool, f: impl FnOnce(&Slot, bool) -> Option<R>) -> Option<R> {
    match with_last_slot(pool, f, |slot, fenced, f| f(slot, fenced)) {
        Ok(result) => result,
        Err(f) => with_slot_slow(pool, create, f),
    }
}

/// The fast path of every slot lookup: run `f` on the slot this thread
/// used last, handing it `value`, if that slot is `pool`'s; else `value`
/// back.
#[inline(always)]
fn with_last_slot<T, R>(pool: &'static PoolInner, value: T, f: impl FnOnce(&Slot, bool, T) -> R) -> Result<R, T> {
    let last = LAST.with(Cell::get);
    if last.pool != pool.id + 1 {
        return Err(value);
    }
    // SAFETY: `LOCAL` holds this slot (see `Last::slot`).
    Ok(f(unsafe { &*last.slot }, last.fenced, value))
}

fn with_slot_slow<R>(pool: &'static PoolInner, create: bool, f: impl FnOnce(&Slot, bool) -> Option<R>) -> Option<R> {
    LOCAL
        .try_with(|local| {
            {
                let local = local.borrow();
                if let Some(local) = &*local {
                    if let Some(Some((_, slot))) = local.slots.get(pool.id) {
                        LAST.set(Last { pool: pool.id + 1, slot: Arc::as_ptr(slot), fenced: local.fenced });
                        return f(slot, local.fenced);
                    }
                }
            }
            if !create {
                return None;
            }
            let (slot, fenced) = make_slot(local, pool)?;
            f(&slot, fenced)
        })
        .ok()
        .flatten()
}

#[cold]
fn make_slot(local: &RefCell<Option<Local>>, pool: &'static PoolInner) -> Option<(Shared, bool)> {
    let mut local = local.try_borrow_mut().ok()?;
    let local = local.get_or_insert_with(|| Local { slots: Vec::new(), fenced: barrier::light_is_fence() });
    if local.slots.len() <= pool.id {
        local.slots.resize_with(pool.id + 1, || None);
    }
    let slot: Shared = Arc::new(Slot::new());
    registry(pool).push(slot.clone());
    local.slots[pool.id] = Some((pool, slot.clone()));
    Some((slot, local.fenced))
}

/// A parked block of exactly `size` last used on `stream`, from this
/// thread, with its record.
#[inline]
pub(super) fn take(pool: &'static PoolInner, size: usize, stream: &Stream) -> Option<Box<Record>> {
    let id = stream.id();
    with_slot(pool, false, |slot, fenced| slot.owned(fenced, |list| list.take(size, id))?)
}

/// Park a freed block in this thread's cache; the record back if it is
/// full, held by a stealer, or the thread is exiting.
#[inline]
pub(super) fn give(pool: &'static PoolInner, record: Box<Record>) -> Result<(), Box<Record>> {
    let parked = with_last_slot(pool, record, |slot, fenced, record| {
        slot.owned_with(fenced, record, |list, record| list.give(record.block, record.stream.id(), record))
            .and_then(|parked| parked)
    });
    match parked {
        Ok(parked) => parked,
        Err(record) => give_slow(pool, record),
    }
}

#[cold]
fn give_slow(pool: &'static PoolInner, record: Box<Record>) -> Result<(), Box<Record>> {
    let mut record = Some(record);
    with_slot_slow(pool, true, |slot, fenced| {
        slot.owned(fenced, |list| match record.take() {
            Some(r) => list.give(r.block, r.stream.id(), r).map_err(|r| record = Some(r)).ok(),
            None => None,
        })?
    });
    record.map_or(Ok(()), Err)
}

/// Take this thread's parked blocks of `pool` out of its cache, for the
/// pool to take back under the lock it holds anyway.
pub(super) fn take_own(pool: &'static PoolInner) -> Vec<Returned> {
    let Ok(Some(slot)) = LOCAL.try_with(|local| {
        let local = local.try_borrow().ok()?;
        local.as_ref()?.slots.get(pool.id)?.as_ref().map(|(_, slot)| slot.clone())
    }) else {
        return Vec::new();
    };
    let _registry = registry(pool);
    // SAFETY: the owner, holding the registry lock.
    let list = unsafe { list_of(&slot) };
    list.drain().map(|record| record.returned()).collect()
}

/// Every slot of a pool held still: `steal` set on each, the heavy barrier
/// passed and each `busy` seen clear, under the registry lock. Dropping it
/// gives the slots back to their owners.
struct Steal<'a> {
    slots: MutexGuard<'a, Vec<Shared>>,
}

impl<'a> Steal<'a> {
    /// `None` if the barrier failed (owners may be inside busy sections
    /// that this thread cannot see).
    fn all(pool: &'a PoolInner) -> Option<Steal<'a>> {
        let slots = registry(pool);
        if slots.is_empty() {
            // No slot to hold still, and none can be registered while the
            // registry lock is held: no barrier needed.
            return Some(Steal { slots });
        }
        for slot in slots.iter() {
            slot.steal.store(true, Ordering::Relaxed);
        }
        let steal = Steal { slots };
        if !barrier::heavy() {
            log::error!("pool of {}: the memory barrier failed; thread caches left alone", pool.core.device);
            return None;
        }
        for slot in steal.slots.iter() {
            let mut spins = 0u32;
            while slot.busy.load(Ordering::Acquire) {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        Some(steal)
    }

    fn lists(&mut self) -> impl Iterator<Item = &mut Parked> {
        // SAFETY: the registry lock is held, `steal` is set on every slot
        // and each one's `busy` was seen clear after the heavy barrier.
        self.slots.iter().map(|slot| unsafe { list_of(slot) })
    }
}

impl Drop for Steal<'_> {
    fn drop(&mut self) {
        for slot in self.slots.iter() {
            slot.steal.store(false, Ordering::Release);
        }
    }
}

/// Move every thread's parked blocks of `pool` back into the pool.
pub(super) fn flush_all(pool: &'static PoolInner) {
    if let Some(mut steal) = Steal::all(pool) {
        for list in steal.lists() {
            return_blocks(pool, list);
        }
    }
}

/// Parked blocks and hits over every thread's cache of a pool.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub bytes: usize,
    pub blocks: usize,
    pub hits: u64,
}

/// Run `read` with the [`Totals`] of every thread's cache of `pool` while
/// every cache is held still, so that no block moves between a cache and
/// the pool until `read` returns (it may lock the pool). If the caches
/// cannot be held, `read` gets nothing but the pool's own view is still
/// taken under its lock.
pub(crate) fn with_totals<R>(pool: &PoolInner, read: impl FnOnce(Totals) -> R) -> R {
    let Some(mut steal) = Steal::all(pool) else {
        return read(Totals::default());
    };
    let totals = steal.lists().fold(Totals::default(), |t, list| Totals {
        bytes: t.bytes + list.bytes,
        blocks: t.blocks + list.len,
        hits: t.hits + list.hits,
    });
    let result = read(totals);
    drop(steal);
    result
}

/// Addresses parked in any thread's cache of `pool`.
pub(crate) fn parked_addresses(pool: &PoolInner) -> Vec<usize> {
    let Some(mut steal) = Steal::all(pool) else {
        return Vec::new();
    };
    steal.lists().flat_map(|list| list.items().map(|record| record.ptr)).collect()
}
