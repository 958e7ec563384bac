//! The cached strategy's bookkeeping: segments from the driver, split into
//! blocks, with free blocks tagged by the stream they were last used on.
//!
//! # Splitting policy
//!
//! Requests are rounded up to 512 bytes. Requests of at most 1 MiB are
//! *small*: they come from 2 MiB segments, and a free block is split when
//! at least 512 bytes would remain. Larger requests are *large*: a request
//! under 10 MiB gets a 20 MiB segment, a bigger one a segment of its size
//! rounded up to 2 MiB, and a free block is split only when more than
//! 1 MiB would remain. Small and large blocks never mix, so small
//! allocations cannot fragment large segments (PyTorch's policy).
//!
//! A request takes the smallest free block that fits (best fit), first
//! among the blocks last used on the same stream, then among all. Freed
//! neighbours of one segment and one stream are merged. Only segments whose
//! every block is free go back to the driver.
//!
//! In front of that sits a small exact-fit cache: a freed block goes into
//! a list keyed by (block size, stream) and the next request of that size
//! on that stream takes it back, in constant time. The lists are bounded
//! and are merged into the best-fit structure before the pool asks the
//! driver for memory and before it releases memory.

use hip_core::Stream;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

/// Rounding of every request.
pub const ROUND: usize = 512;
/// Largest small request.
pub const SMALL_LIMIT: usize = 1 << 20;
/// Segment size for small requests.
pub const SMALL_SEGMENT: usize = 2 << 20;
/// Large requests below this share a [`LARGE_SEGMENT`].
pub const MEDIUM_LIMIT: usize = 10 << 20;
/// Segment size for requests between 1 and 10 MiB.
pub const LARGE_SEGMENT: usize = 20 << 20;
/// Large segments are rounded to this.
pub const LARGE_ROUND: usize = 2 << 20;

/// Small or large.
pub type Class = u8;
/// The class of small blocks.
pub const SMALL: Class = 0;
const LARGE: Class = 1;

/// The block size a request of `bytes` gets.
#[inline]
pub fn block_size(bytes: usize) -> Option<usize> {
    bytes.max(1).checked_next_multiple_of(ROUND)
}

/// The class of a block size.
pub fn class_of(size: usize) -> Class {
    if size <= SMALL_LIMIT {
        SMALL
    } else {
        LARGE
    }
}

/// The segment to ask the driver for, for a block of `size`.
pub fn segment_size(size: usize) -> Option<usize> {
    match class_of(size) {
        SMALL => Some(SMALL_SEGMENT),
        _ if size < MEDIUM_LIMIT => Some(LARGE_SEGMENT),
        _ => size.checked_next_multiple_of(LARGE_ROUND),
    }
}

/// The class of a segment's blocks, from the segment's size.
fn class_of_segment(segment: usize) -> Class {
    if segment == SMALL_SEGMENT {
        SMALL
    } else {
        LARGE
    }
}

fn min_split(class: Class) -> usize {
    if class == SMALL {
        ROUND
    } else {
        SMALL_LIMIT + 1
    }
}

struct Block {
    size: usize,
    segment: usize,
    class: Class,
    /// `Some(stream last used on)` while the block is free.
    free: Option<Stream>,
}

fn stream_id(stream: &Stream) -> usize {
    stream.as_raw() as usize
}

/// A block handed out by [`Cache::take`].
pub struct Taken {
    pub ptr: usize,
    pub size: usize,
    /// The stream the block was last used on, when it is not the
    /// requesting one: the caller must order the new use after it.
    pub other_stream: Option<Stream>,
    /// The requesting stream, when the cache held a handle to it (saves
    /// the caller a clone).
    pub same_stream: Option<Stream>,
}

/// Blocks kept in the exact-fit lists at most.
const RECENT_LIMIT: usize = 1024;

/// A multiplicative hash for the (size, stream) keys: they are already
/// well spread, and SipHash would double the cost of a cache hit.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type Recent = HashMap<(usize, usize), Vec<(usize, Stream)>, BuildHasherDefault<KeyHasher>>;

/// Segments and blocks of one device.
#[derive(Default)]
pub struct Cache {
    segments: BTreeMap<usize, usize>,
    blocks: BTreeMap<usize, Block>,
    free_by_stream: BTreeSet<(Class, usize, usize, usize)>,
    free_by_size: BTreeSet<(Class, usize, usize)>,
    /// The exact-fit lists: freed blocks not yet merged back, by (size,
    /// stream). Their blocks still count as handed out in `blocks`.
    recent: Recent,
    recent_count: usize,
    /// For the expandable backing, by class, the chunk size of its
    /// segments (0: no stamps kept, as for the cached backing).
    stamp_chunks: [usize; 2],
    /// The [`Cache::mark`] count when a block over each chunk (by address)
    /// was last freed: every use of the chunk's memory was queued on its
    /// stream before a mark of a higher count.
    stamps: HashMap<usize, u64>,
    /// Marks made so far.
    marks: u64,
}

impl Cache {
    fn index_free(&mut self, ptr: usize) {
        if let Some(b) = self.blocks.get(&ptr) {
            if let Some(s) = &b.free {
                self.free_by_stream.insert((b.class, stream_id(s), b.size, ptr));
                self.free_by_size.insert((b.class, b.size, ptr));
            }
        }
    }

    fn unindex_free(&mut self, ptr: usize) {
        if let Some(b) = self.blocks.get(&ptr) {
            if let Some(s) = &b.free {
                self.free_by_stream.remove(&(b.class, stream_id(s), b.size, ptr));
                self.free_by_size.remove(&(b.class, b.size, ptr));
            }
        }
    }

    /// A block of exactly `size` last freed on `stream`, in constant time.
    pub fn take_recent(&mut self, size: usize, stream: &Stream) -> Option<Taken> {
        let (ptr, same) = self.recent.get_mut(&(size, stream_id(stream)))?.pop()?;
        self.recent_count -= 1;
        Some(Taken { ptr, size, other_stream: None, same_stream: Some(same) })
    }

    /// Keep a freed block of `size` (its block size) in the exact-fit
    /// lists; returns it back if they are full.
    pub fn give_back_recent(&mut self, ptr: usize, size: usize, stream: Stream) -> Result<(), Stream> {
        if self.recent_count >= RECENT_LIMIT {
            return Err(stream);
        }
        self.recent.entry((size, stream_id(&stream))).or_default().push((ptr, stream));
        self.recent_count += 1;
        Ok(())
    }

    /// Merge the exact-fit lists into the best-fit structure.
    pub fn flush_recent(&mut self) {
        let recent = std::mem::take(&mut self.recent);
        self.recent_count = 0;
        for (_, blocks) in recent {
            for (ptr, stream) in blocks {
                self.give_back(ptr, stream);
            }
        }
    }

    /// Take the best-fitting free block for `size` bytes (a block size),
    /// preferring blocks last used on `stream`.
    pub fn take(&mut self, size: usize, stream: &Stream) -> Option<Taken> {
        if let Some(taken) = self.take_recent(size, stream) {
            return Some(taken);
        }
        let class = class_of(size);
        let sid = stream_id(stream);
        let same = self
            .free_by_stream
            .range((class, sid, size, 0)..)
            .next()
            .filter(|(c, s, _, _)| *c == class && *s == sid)
            .map(|(_, _, _, p)| *p);
        let ptr = same.or_else(|| {
            self.free_by_size.range((class, size, 0)..).next().filter(|(c, _, _)| *c == class).map(|(_, _, p)| *p)
        })?;
        self.unindex_free(ptr);
        let block = self.blocks.get_mut(&ptr)?;
        let last = block.free.take()?;
        let remainder = block.size - size;
        if remainder >= min_split(class) {
            block.size = size;
            let (segment, class) = (block.segment, block.class);
            self.blocks.insert(ptr + size, Block { size: remainder, segment, class, free: Some(last.clone()) });
            self.index_free(ptr + size);
        }
        let size = self.blocks.get(&ptr).map_or(size, |b| b.size);
        let other_stream = (stream_id(&last) != sid).then_some(last);
        Some(Taken { ptr, size, other_stream, same_stream: None })
    }

    /// Add a segment from the driver and hand out its first `size` bytes.
    pub fn add_segment(&mut self, base: usize, segment: usize, size: usize, stream: &Stream) -> Taken {
        let class = class_of(size);
        self.segments.insert(base, segment);
        self.blocks.insert(base, Block { size: segment, segment: base, class, free: Some(stream.clone()) });
        self.index_free(base);
        // The fresh segment is free and on this stream: take splits it.
        self.take(size, stream).unwrap_or(Taken { ptr: base, size: segment, other_stream: None, same_stream: None })
    }

    /// Put back a segment whose release to the driver failed, as one free
    /// block (the device was synchronized: any stream tag will do).
    pub fn restore_segment(&mut self, base: usize, size: usize, stream: Stream) {
        self.segments.insert(base, size);
        self.blocks.insert(base, Block { size, segment: base, class: class_of_segment(size), free: Some(stream) });
        self.index_free(base);
    }

    /// Return the block at `ptr`, last used on `stream`; its size, or
    /// `None` if `ptr` is not a live block of this cache.
    pub fn give_back(&mut self, ptr: usize, stream: Stream) -> Option<usize> {
        let block = self.blocks.get_mut(&ptr)?;
        if block.free.is_some() {
            return None;
        }
        let (size, segment, class) = (block.size, block.segment, block.class);
        let sid = stream_id(&stream);
        block.free = Some(stream);
        self.stamp(ptr, size, segment, class);
        let mut start = ptr;
        // Merge with the next block if it is free, of this segment and stream.
        let end = ptr + size;
        if self.blocks.get(&end).is_some_and(|n| n.segment == segment && n.free.as_ref().map(stream_id) == Some(sid)) {
            self.unindex_free(end);
            if let Some(next) = self.blocks.remove(&end) {
                if let Some(b) = self.blocks.get_mut(&ptr) {
                    b.size += next.size;
                }
            }
        }
        // And with the previous one.
        let previous =
            self.blocks.range(..ptr).next_back().map(|(p, b)| (*p, b.size, b.segment, b.free.as_ref().map(stream_id)));
        if let Some((p, psize, pseg, pstream)) = previous {
            if p + psize == ptr && pseg == segment && pstream == Some(sid) {
                self.unindex_free(p);
                if let Some(merged) = self.blocks.remove(&ptr) {
                    if let Some(b) = self.blocks.get_mut(&p) {
                        b.size += merged.size;
                    }
                }
                start = p;
            }
        }
        self.index_free(start);
        Some(size)
    }

    /// Add `size` bytes at `ptr`, memory the expandable backing just
    /// mapped into `segment`, as a free block of `class` last used on
    /// `stream`, merged with the free neighbours of that segment and
    /// stream.
    pub fn add_free(&mut self, ptr: usize, size: usize, segment: usize, class: Class, stream: Stream) {
        self.blocks.insert(ptr, Block { size, segment, class, free: None });
        self.give_back(ptr, stream);
    }

    /// The size of the free block of `segment` last used on `stream` that
    /// ends at `end`; 0 if there is none.
    pub fn free_ending_at(&self, end: usize, segment: usize, stream: &Stream) -> usize {
        let sid = stream_id(stream);
        self.blocks
            .range(..end)
            .next_back()
            .filter(|(p, b)| *p + b.size == end && b.segment == segment && b.free.as_ref().map(stream_id) == Some(sid))
            .map_or(0, |(_, b)| b.size)
    }

    /// The free blocks (merged into the best-fit structure, not those in
    /// the exact-fit lists) in `start..end`, as (address, size).
    pub fn free_in(&self, start: usize, end: usize) -> Vec<(usize, usize)> {
        self.blocks.range(start..end).filter(|(_, b)| b.free.is_some()).map(|(p, b)| (*p, b.size)).collect()
    }

    /// Keep, for the expandable backing, when each chunk of its segments
    /// was last freed: `chunks` are its chunk sizes of small and large
    /// blocks.
    pub fn keep_stamps(&mut self, chunks: [usize; 2]) {
        self.stamp_chunks = chunks;
    }

    /// Stamp the chunks under `size` bytes at `ptr`, of `segment`'s
    /// blocks of `class`, as freed now.
    fn stamp(&mut self, ptr: usize, size: usize, segment: usize, class: Class) {
        let chunk = self.stamp_chunks.get(usize::from(class)).copied().unwrap_or(0);
        if chunk == 0 {
            return;
        }
        let first = segment + (ptr - segment) / chunk * chunk;
        for at in (first..ptr + size).step_by(chunk) {
            self.stamps.insert(at, self.marks);
        }
    }

    /// Mark this moment: chunks freed from now on are told from those
    /// freed before (every use of which their stream had queued already)
    /// by [`Cache::freed_before`]. The exact-fit lists are merged first.
    /// The mark's count.
    pub fn mark(&mut self) -> u64 {
        self.flush_recent();
        self.marks += 1;
        self.marks
    }

    /// Whether every block over the chunk at `at` was freed before mark
    /// `mark` ([`Cache::mark`]); not for a chunk of no stamp.
    pub fn freed_before(&self, at: usize, mark: u64) -> bool {
        self.stamps.get(&at).is_some_and(|&stamp| stamp < mark)
    }

    /// Forget the stamps of chunks in `start..end`, unmapped.
    pub fn forget_stamps(&mut self, start: usize, end: usize) {
        self.stamps.retain(|&at, _| at < start || at >= end);
    }

    /// The free blocks in `start..end` last used on `stream`, as (address,
    /// size).
    pub fn free_in_on(&self, start: usize, end: usize, stream: &Stream) -> Vec<(usize, usize)> {
        let sid = stream_id(stream);
        let on = |b: &Block| b.free.as_ref().map(stream_id) == Some(sid);
        self.blocks.range(start..end).filter(|(_, b)| on(b)).map(|(p, b)| (*p, b.size)).collect()
    }

    /// Tag every free block in `start..end` with `stream` and merge the
    /// neighbours among them of one segment. Only after synchronizing the
    /// device, when the streams blocks were last used on no longer matter:
    /// blocks freed on different streams then make one free range again.
    pub fn merge_free_in(&mut self, start: usize, end: usize, stream: &Stream) {
        let free: Vec<usize> = self.free_in(start, end).into_iter().map(|(p, _)| p).collect();
        for &p in &free {
            self.unindex_free(p);
        }
        let mut open: Option<usize> = None;
        for p in free {
            let joins =
                open.and_then(|o| self.blocks.get(&o).map(|b| (o, b.size, b.segment))).filter(|(o, size, segment)| {
                    o + size == p && self.blocks.get(&p).is_some_and(|b| b.segment == *segment)
                });
            match joins.and_then(|(o, ..)| self.blocks.remove(&p).map(|b| (o, b.size))) {
                Some((o, size)) => {
                    if let Some(b) = self.blocks.get_mut(&o) {
                        b.size += size;
                    }
                }
                None => {
                    if let Some(b) = self.blocks.get_mut(&p) {
                        b.free = Some(stream.clone());
                    }
                    open = Some(p);
                }
            }
        }
        for (p, _) in self.free_in(start, end) {
            self.index_free(p);
        }
    }

    /// Cut `start..end` out of the free block at `ptr` (which holds it):
    /// what is left on either side stays free, on the same stream. For the
    /// expandable backing, which unmaps the cut-out part.
    pub fn carve(&mut self, ptr: usize, start: usize, end: usize) {
        let Some(block) = self.blocks.get(&ptr) else { return };
        if block.free.is_none() || start < ptr || end > ptr + block.size || start >= end {
            return;
        }
        self.unindex_free(ptr);
        let Some(Block { size, segment, class, free: Some(stream) }) = self.blocks.remove(&ptr) else { return };
        for (at, len) in [(ptr, start - ptr), (end, ptr + size - end)] {
            if len > 0 {
                self.blocks.insert(at, Block { size: len, segment, class, free: Some(stream.clone()) });
                self.index_free(at);
            }
        }
    }

    /// Remove every segment whose blocks are all free; returns (base, size)
    /// of each, to be freed with the driver. Call after synchronizing the
    /// device: stream tags no longer matter then.
    pub fn remove_unused_segments(&mut self) -> Vec<(usize, usize)> {
        self.flush_recent();
        let mut unused = Vec::new();
        for (&base, &size) in &self.segments {
            if self.blocks.range(base..base + size).all(|(_, b)| b.free.is_some()) {
                unused.push((base, size));
            }
        }
        for &(base, size) in &unused {
            let ptrs: Vec<usize> = self.blocks.range(base..base + size).map(|(p, _)| *p).collect();
            for p in ptrs {
                self.unindex_free(p);
                self.blocks.remove(&p);
            }
            self.segments.remove(&base);
        }
        unused
    }

    /// The segment of the block at `ptr`.
    pub fn segment_of(&self, ptr: usize) -> Option<usize> {
        self.blocks.get(&ptr).map(|b| b.segment)
    }

    /// Live (handed out) blocks, as (ptr, size), for tests.
    pub fn live_blocks(&self) -> Vec<(usize, usize)> {
        self.blocks.iter().filter(|(_, b)| b.free.is_none()).map(|(p, b)| (*p, b.size)).collect()
    }
}
