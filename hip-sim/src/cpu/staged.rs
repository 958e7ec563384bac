//! A buffer's bytes as a compiled kernel reaches them: copied into a
//! mapping of their own whose last requested byte ends just before a
//! guard page (to 16 bytes: the start keeps the alignment of a 16-byte
//! vector), with a guard page before it too, so that an access past either
//! end faults there.
//!
//! Mappings are kept from launch to launch (up to [`KEPT_BYTES`]): a fresh
//! mapping's first touch of each page costs more than the copy. One kept
//! after a launch remembers whose bytes it holds, and as of how many
//! writes to them ([`Bytes::writes`]); the next launch of the same buffer
//! takes it back with no copy while nothing has written the buffer since.
//! A kernel that reads the same inputs launch after launch copies them
//! once.
//!
//! [`Bytes::writes`]: crate::machine::memory::Bytes::writes

use crate::bindings::hip::hipError_t;
use crate::machine::lock::lock;
use crate::machine::memory::Allocation;
use std::sync::{Arc, Mutex, Weak};

/// The host page.
pub(super) const PAGE: usize = 4096;
/// How far a staged buffer's end may fall short of its guard page.
const ALIGN: usize = 16;
/// At most this many bytes of mappings are kept between launches.
const KEPT_BYTES: usize = 1 << 30;

/// A buffer's bytes in a mapping between guard pages.
pub(super) struct Staged {
    /// The device address of the buffer's first byte.
    pub base: usize,
    /// The bytes the allocation was asked for.
    pub len: usize,
    map: *mut u8,
    map_len: usize,
    /// Where the buffer's first byte lies in the mapping.
    data: *mut u8,
    writable: bool,
    /// Whose bytes it holds, once the launch is over (see [`Staged::holds`]).
    holds: Option<Holds>,
}

/// The buffer whose bytes a kept mapping holds: `len` bytes from `start`
/// in `allocation`, as of its `writes`-th write. The weak reference keeps
/// the allocation's record from being reused by another allocation while
/// the mapping is kept, so comparing it is comparing allocations.
struct Holds {
    allocation: Weak<Allocation>,
    start: usize,
    len: usize,
    writes: u64,
}

impl Holds {
    fn is(&self, allocation: &Arc<Allocation>, start: usize, len: usize, writes: u64) -> bool {
        Weak::as_ptr(&self.allocation) == Arc::as_ptr(allocation)
            && (self.start, self.len, self.writes) == (start, len, writes)
    }
}

/// A mapping kept between launches: its address and length, whether its
/// data pages are writable (else read-only; its guard pages are in place),
/// and whose bytes it holds, if it holds any.
struct Kept {
    map: usize,
    map_len: usize,
    writable: bool,
    holds: Option<Holds>,
}

/// Kept mappings, oldest first.
static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// The buffer `len` bytes from `start` in `allocation` (at device address
/// `base`), `bytes` its bytes: in a mapping between guard pages, read-only
/// unless `writable`. `writes` is how many writes its bytes have had, if
/// they can be counted: a kept mapping that holds them as of that many is
/// taken as it is, with no copy.
pub(super) fn stage(
    allocation: &Arc<Allocation>,
    start: usize,
    bytes: &[u8],
    writes: Option<u64>,
    writable: bool,
) -> Result<Staged, hipError_t> {
    let base = allocation.base + start;
    let len = bytes.len();
    let body = len.div_ceil(ALIGN) * ALIGN;
    let pages = body.div_ceil(PAGE).max(1) * PAGE;
    let map_len = pages + 2 * PAGE;
    let (kept, same) = take(map_len, |h| writes.is_some_and(|w| h.is(allocation, start, len, w)));
    let (map, was_writable) = match kept {
        Some(kept) => (kept.map as *mut u8, kept.writable),
        None => {
            // SAFETY: a fresh anonymous mapping; the result is checked.
            let map = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    map_len,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if map == libc::MAP_FAILED {
                return Err(hipError_t::hipErrorOutOfMemory);
            }
            (map.cast::<u8>(), false)
        }
    };
    // SAFETY: `PAGE + pages - body` is inside the data pages, and `len ≤
    // body` bytes fit from there.
    let data = unsafe { map.add(PAGE + pages - body) };
    // From here the mapping is unmapped or kept when `staged` drops.
    let mut staged = Staged { base, len, map, map_len, data, writable: was_writable, holds: None };
    if !same {
        staged.protect(true)?;
        // SAFETY: `len` bytes into the data pages (above), made writable;
        // `bytes` is another allocation's memory.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, len) };
    }
    // What the kernel only reads is read-only: a write through a cast
    // pointer faults (and is reported) instead of being lost.
    staged.protect(writable)?;
    Ok(staged)
}

/// A kept mapping of `map_len` bytes: one whose bytes are `wanted`'s if
/// there is one (and true), else another (and false), the oldest first.
fn take(map_len: usize, wanted: impl Fn(&Holds) -> bool) -> (Option<Kept>, bool) {
    let mut kept = lock(&KEPT);
    if let Some(at) = kept.iter().position(|k| k.map_len == map_len && k.holds.as_ref().is_some_and(&wanted)) {
        return (Some(kept.remove(at)), true);
    }
    // One that holds nothing, or bytes of a freed allocation, before one
    // whose bytes a later launch could take.
    let idle = |k: &Kept| k.holds.as_ref().is_none_or(|h| h.allocation.strong_count() == 0);
    let at = kept
        .iter()
        .position(|k| k.map_len == map_len && idle(k))
        .or_else(|| kept.iter().position(|k| k.map_len == map_len));
    (at.map(|at| kept.remove(at)), false)
}

impl Staged {
    /// Make the data pages writable, or read-only.
    fn protect(&mut self, writable: bool) -> Result<(), hipError_t> {
        if self.writable == writable {
            return Ok(());
        }
        let prot = if writable { libc::PROT_READ | libc::PROT_WRITE } else { libc::PROT_READ };
        // SAFETY: the pages between the two guards, inside the mapping.
        if unsafe { libc::mprotect(self.map.add(PAGE).cast(), self.map_len - 2 * PAGE, prot) } != 0 {
            return Err(hipError_t::hipErrorOutOfMemory);
        }
        self.writable = writable;
        Ok(())
    }

    /// The host address of device address `address`, if it is this
    /// buffer's (with `end`, its one-past-the-end too).
    pub fn host(&self, address: usize, end: bool) -> Option<*mut u8> {
        let offset = address.checked_sub(self.base)?;
        // SAFETY: at most one past the end of the staged bytes.
        (offset < self.len || (end && offset == self.len)).then(|| unsafe { self.data.add(offset) })
    }

    /// The device address a host address in the mapping stands for (the
    /// guard pages included), as an offset from the buffer's start.
    pub fn offset_of(&self, host: usize) -> Option<isize> {
        let map = self.map as usize;
        (host >= map && host < map + self.map_len).then(|| host as isize - self.data as isize)
    }

    /// Copy the bytes back into `bytes`.
    pub fn write_back(&self, bytes: &mut [u8]) {
        // SAFETY: `len` staged bytes into the allocation's `len`.
        unsafe { std::ptr::copy_nonoverlapping(self.data, bytes.as_mut_ptr(), self.len) };
    }

    /// Say that the bytes are those of the buffer `start` bytes into
    /// `allocation` as of its `writes`-th write, for a later launch to take
    /// back once this one is over.
    pub fn holds(&mut self, allocation: &Arc<Allocation>, start: usize, writes: u64) {
        self.holds = Some(Holds { allocation: Arc::downgrade(allocation), start, len: self.len, writes });
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        let mine =
            Kept { map: self.map as usize, map_len: self.map_len, writable: self.writable, holds: self.holds.take() };
        let mut kept = lock(&KEPT);
        let mut total = kept.iter().map(|k| k.map_len).sum::<usize>() + mine.map_len;
        // The oldest make room for the newest.
        let mut unmap = Vec::new();
        while total > KEPT_BYTES && !kept.is_empty() {
            let old = kept.remove(0);
            total -= old.map_len;
            unmap.push(old);
        }
        if total <= KEPT_BYTES {
            kept.push(mine);
        } else {
            unmap.push(mine);
        }
        drop(kept);
        for k in unmap {
            // SAFETY: a mapping made by `stage` and owned by no one else,
            // unmapped once.
            unsafe { libc::munmap(k.map as *mut libc::c_void, k.map_len) };
        }
    }
}
