//! Streams, events, graphs and executable graphs as generation-tagged handles, so that a destroyed or
//! never-created handle is an error, never a crash.
//!
//! CUDA takes a destroyed `cudaStream_t` or `cudaEvent_t` as a dangling
//! pointer and may crash the process; clr checks every stream and event
//! against the set it created (a locked hash lookup per call) and answers
//! `hipErrorContextIsDestroyed`. Here a HIP handle is not the CUDA object
//! but a slot of a [`Table`] and that slot's generation:
//!
//! ```text
//! handle = (slot + 1) << 32 | generation     (generation odd while live)
//! ```
//!
//! Resolving one is two atomic loads and a compare, with no lock and no
//! hash: the slot's chunk, then its generation. Destroying bumps the
//! generation (even: dead) before the CUDA object goes, so a stale handle
//! never matches again, and the slot is reused under a new generation.
//! Chunks of slots are never freed or moved, so a resolve never reads
//! freed memory. Values below 2^32 are never table handles: the null
//! stream (0), CUDA's legacy stream (1) and per-thread stream (2, HIP's
//! `hipStreamPerThread`) pass through as themselves; any other is a
//! handle that was never created.
//!
//! Using a handle on one thread while another destroys it is a race in
//! the caller, as in HIP: the resolve may succeed just before the destroy.

use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Mutex;

use crate::bindings::hip::{hipError_t, hipEvent_t, hipStream_t};
use crate::sync::MutexExt;

/// Slots per chunk.
const CHUNK: usize = 1024;
/// Chunks per table: at most `CHUNK * CHUNKS` live objects of one kind.
const CHUNKS: usize = 256;

struct Slot {
    /// Odd while the slot holds a live object.
    generation: AtomicU32,
    /// The CUDA object.
    raw: AtomicPtr<c_void>,
}

/// The slots that were freed, and how many were ever handed out.
struct Free {
    slots: Vec<u32>,
    used: u32,
}

/// The live objects of one kind.
pub(crate) struct Table {
    chunks: [AtomicPtr<Slot>; CHUNKS],
    free: Mutex<Free>,
}

/// Why a handle does not resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dead {
    /// A table handle whose object was destroyed (or a value that looks
    /// like one and never was).
    Destroyed,
    /// A value that is no handle at all.
    NeverCreated,
}

/// `handle`'s slot and generation, if it is a table handle.
fn split(handle: *mut c_void) -> Option<(usize, u32)> {
    let value = handle as usize as u64;
    let slot = (value >> 32).checked_sub(1)?;
    Some((usize::try_from(slot).ok()?, value as u32))
}

impl Table {
    /// An empty table.
    pub(crate) const fn new() -> Table {
        Table {
            chunks: [const { AtomicPtr::new(std::ptr::null_mut()) }; CHUNKS],
            free: Mutex::new(Free { slots: Vec::new(), used: 0 }),
        }
    }

    fn slot(&self, index: usize) -> Option<&Slot> {
        let chunk = self.chunks.get(index / CHUNK)?.load(Ordering::Acquire);
        if chunk.is_null() {
            return None;
        }
        // SAFETY: a published chunk holds CHUNK slots and is never freed.
        Some(unsafe { &*chunk.add(index % CHUNK) })
    }

    /// The CUDA object of `handle`; values below 2^32 pass through.
    #[inline]
    pub(crate) fn resolve(&self, handle: *mut c_void) -> Result<*mut c_void, Dead> {
        let Some((index, generation)) = split(handle) else {
            return match handle as usize {
                0..=2 => Ok(handle),
                _ => Err(Dead::NeverCreated),
            };
        };
        let slot = self.slot(index).ok_or(Dead::NeverCreated)?;
        if generation & 1 == 1 && slot.generation.load(Ordering::Acquire) == generation {
            Ok(slot.raw.load(Ordering::Acquire))
        } else {
            Err(Dead::Destroyed)
        }
    }

    /// A new handle for the CUDA object `raw`; `None` when the table is full.
    pub(crate) fn insert(&self, raw: *mut c_void) -> Option<*mut c_void> {
        let mut free = self.free.lock_unpoisoned();
        let index = match free.slots.pop() {
            Some(index) => index as usize,
            None => {
                let index = free.used as usize;
                if index >= CHUNK * CHUNKS {
                    return None;
                }
                let chunk = &self.chunks[index / CHUNK];
                if chunk.load(Ordering::Acquire).is_null() {
                    let slots: Box<[Slot]> = (0..CHUNK)
                        .map(|_| Slot { generation: AtomicU32::new(0), raw: AtomicPtr::new(std::ptr::null_mut()) })
                        .collect();
                    // Leaked on purpose: resolves may read a chunk at any
                    // time, so it lives as long as the process.
                    chunk.store(Box::leak(slots).as_mut_ptr(), Ordering::Release);
                }
                free.used += 1;
                index
            }
        };
        let slot = self.slot(index)?;
        let generation = slot.generation.load(Ordering::Relaxed).wrapping_add(1) | 1;
        slot.raw.store(raw, Ordering::Release);
        slot.generation.store(generation, Ordering::Release);
        Some(((index as u64 + 1) << 32 | u64::from(generation)) as usize as *mut c_void)
    }

    /// Retire `handle` and return its CUDA object, for the caller to
    /// destroy; the handle never resolves again.
    pub(crate) fn remove(&self, handle: *mut c_void) -> Result<*mut c_void, Dead> {
        let (index, generation) = split(handle).ok_or(Dead::NeverCreated)?;
        let mut free = self.free.lock_unpoisoned();
        let slot = self.slot(index).ok_or(Dead::NeverCreated)?;
        if generation & 1 == 0 || slot.generation.load(Ordering::Acquire) != generation {
            return Err(Dead::Destroyed);
        }
        slot.generation.store(generation.wrapping_add(1) & !1, Ordering::Release);
        let raw = slot.raw.swap(std::ptr::null_mut(), Ordering::AcqRel);
        free.slots.push(index as u32);
        Ok(raw)
    }

    /// The handle whose CUDA object is `raw` (for the libraries' get-stream
    /// calls, which answer CUDA's stream); values below 2^32 pass through.
    pub(crate) fn handle_of(&self, raw: *mut c_void) -> Option<*mut c_void> {
        if (raw as usize) <= 2 {
            return Some(raw);
        }
        let free = self.free.lock_unpoisoned();
        (0..free.used as usize).find_map(|index| {
            let slot = self.slot(index)?;
            let generation = slot.generation.load(Ordering::Acquire);
            (generation & 1 == 1 && slot.raw.load(Ordering::Acquire) == raw)
                .then(|| ((index as u64 + 1) << 32 | u64::from(generation)) as usize as *mut c_void)
        })
    }
}

/// The process's streams.
pub(crate) static STREAMS: Table = Table::new();
/// The process's events.
pub(crate) static EVENTS: Table = Table::new();

/// The process's graphs (made by `hipGraphCreate` or a capture).
pub(crate) static GRAPHS: Table = Table::new();
/// The process's executable graphs.
pub(crate) static EXECS: Table = Table::new();

/// Create a CUDA object with `create` (writing it through its out-pointer)
/// and hand out its handle in `table`, written to `out`; `destroy` undoes
/// the creation when the table is full. A null `out` is
/// `hipErrorInvalidValue`, before anything is created.
pub(crate) fn create_in(
    table: &'static Table,
    out: *mut *mut c_void,
    create: impl FnOnce(*mut *mut c_void) -> Result<(), hipError_t>,
    destroy: impl FnOnce(*mut c_void),
) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let mut raw: *mut c_void = std::ptr::null_mut();
    create(&mut raw)?;
    let Some(handle) = table.insert(raw) else {
        destroy(raw);
        return Err(hipError_t::hipErrorOutOfMemory);
    };
    // SAFETY: `out` is non-null and valid for a write (caller).
    unsafe { out.write(handle) };
    Ok(())
}

/// The CUDA stream of `stream`: a destroyed or never-created one is
/// `hipErrorContextIsDestroyed`, as clr answers.
#[inline]
pub(crate) fn stream_of(stream: hipStream_t) -> Result<*mut c_void, hipError_t> {
    STREAMS.resolve(stream.cast()).map_err(|_| hipError_t::hipErrorContextIsDestroyed)
}

/// The HIP stream whose CUDA stream is `raw`, for the libraries'
/// get-stream calls, which answer CUDA's; null where no live handle has it.
pub(crate) fn hip_stream_of(raw: *mut c_void) -> hipStream_t {
    STREAMS.handle_of(raw).unwrap_or(std::ptr::null_mut()).cast()
}

/// The CUDA event of `event`: null is `hipErrorInvalidHandle`, a destroyed
/// or never-created one `hipErrorContextIsDestroyed`, as clr answers.
#[inline]
pub(crate) fn event_of(event: hipEvent_t) -> Result<*mut c_void, hipError_t> {
    if event.is_null() {
        return Err(hipError_t::hipErrorInvalidHandle);
    }
    EVENTS.resolve(event.cast()).map_err(|_| hipError_t::hipErrorContextIsDestroyed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(n: usize) -> *mut c_void {
        (0x5555_0000 + n * 16) as *mut c_void
    }

    #[test]
    fn handles_resolve_while_live_and_never_after() {
        let table = Table::new();
        let a = table.insert(raw(1)).expect("room");
        let b = table.insert(raw(2)).expect("room");
        assert_ne!(a, b);
        assert!(a as usize > u32::MAX as usize, "a handle is never a small special value");
        assert_eq!(table.resolve(a), Ok(raw(1)));
        assert_eq!(table.resolve(b), Ok(raw(2)));
        assert_eq!(table.remove(a), Ok(raw(1)));
        assert_eq!(table.resolve(a), Err(Dead::Destroyed));
        assert_eq!(table.remove(a), Err(Dead::Destroyed), "destroyed twice");
        // The slot is reused under a new generation: the old handle stays dead.
        let c = table.insert(raw(3)).expect("room");
        assert_ne!(c, a);
        assert_eq!(split(c).map(|s| s.0), split(a).map(|s| s.0), "same slot");
        assert_eq!(table.resolve(a), Err(Dead::Destroyed));
        assert_eq!(table.resolve(c), Ok(raw(3)));
        assert_eq!(table.handle_of(raw(3)), Some(c));
        assert_eq!(table.handle_of(raw(1)), None);
    }

    #[test]
    fn special_and_foreign_values() {
        let table = Table::new();
        for special in 0..=2usize {
            assert_eq!(table.resolve(special as *mut c_void), Ok(special as *mut c_void));
        }
        assert_eq!(table.resolve(0x1234 as *mut c_void), Err(Dead::NeverCreated));
        assert_eq!(table.resolve(0x7fff_0bad_f00d_0001_usize as *mut c_void), Err(Dead::NeverCreated));
        assert_eq!(table.remove(std::ptr::null_mut()), Err(Dead::NeverCreated));
        // An even generation is never live.
        let a = table.insert(raw(1)).expect("room");
        let even = (a as usize + 1) as *mut c_void;
        assert_eq!(table.resolve(even), Err(Dead::Destroyed));
    }

    #[test]
    fn many_threads_insert_and_remove_without_mixing_handles() {
        let table = Table::new();
        std::thread::scope(|s| {
            for t in 0..4 {
                let table = &table;
                s.spawn(move || {
                    for i in 0..2000 {
                        let r = raw(t * 10_000 + i);
                        let h = table.insert(r).expect("room");
                        assert_eq!(table.resolve(h), Ok(r));
                        assert_eq!(table.remove(h), Ok(r));
                        assert_eq!(table.resolve(h), Err(Dead::Destroyed));
                    }
                });
            }
        });
        assert!(table.free.lock_unpoisoned().used <= 4, "slots are reused");
    }
}
