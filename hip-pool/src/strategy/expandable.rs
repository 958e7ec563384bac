//! The expandable strategy's bookkeeping: for each stream and block class
//! one reserved address range (a *segment*), the chunks mapped into it
//! with their physical handles, and where the next chunks go. Pure data,
//! no HIP call; the blocks themselves live in the cached strategy's
//! [`Cache`], with the segment's base as their segment, so that blocks
//! merge across chunk boundaries.
//!
//! # Where a segment grows
//!
//! PyTorch's policy (Note [Expandable Segments]): a request that no free
//! block fits is served at the first unmapped gap of its stream's segment
//! whose free block just before it (on that stream) and the gap together
//! hold it. Only what the free block lacks is mapped, rounded up to whole
//! chunks, so a request a little larger than a freed block extends that
//! block instead of taking new memory for all of itself. A reclaim
//! unmaps the whole chunks inside free blocks, leaving gaps that later
//! growth fills again.
//!
//! Beyond PyTorch: the whole chunks of the growing stream's free blocks
//! elsewhere in the segment whose work is finished are unmapped and
//! mapped where it grows, the same physical memory, before any new memory
//! is made ([`Segments::take_finished_chunks`]). The holes a workload of
//! growing requests leaves behind then feed its growth, and the peak
//! reserved stays. Which blocks' work is finished is known from a
//! [`Cache::mark`] made when the stream was found idle, or was waited for
//! (`GrowthWaits`: by default where the runtime's mapping waits for it
//! anyway), or when an event recorded after the mark is found done (the
//! growth before records one on a busy stream): unmapping under queued
//! work would be a use-after-free.

use super::cached::{Cache, Class, SMALL};
use hip_core::Stream;
use std::collections::{BTreeMap, HashMap};

/// Chunk size for small blocks: mapped 2 MiB at a time.
pub const SMALL_CHUNK: usize = 2 << 20;
/// Chunk size for large blocks: mapped 20 MiB at a time (PyTorch's
/// size). A chunk costs about the same to map and give back whatever its
/// size (on an H100, 51 µs for 2 MiB, 64 µs for 20: the `vmm` bench of
/// hip-core), so 2 MiB chunks would make a growth eight times as costly
/// per byte (10 times `hipMalloc` + `hipFree` instead of 1.3), and an IPC
/// share of a large buffer ten times the descriptors. What they would
/// save is the part of a chunk at a hole's edge, which weighs less the
/// larger the workload: on the fragmentation benchmark at its smallest
/// scale (a 331 MiB peak) 1.017 of the peak allocated against 1.092, while
/// 20 MiB chunks reserve 1.028 of it at a 664 MiB peak and 1.005 at 2.6
/// GiB; on the pinning workload of the tests, 34 MiB at the peak against
/// 40.
pub const LARGE_CHUNK: usize = 20 << 20;

/// The chunk size of `class`'s segments, whole granules of `granularity`.
pub fn chunk_size(class: Class, granularity: usize) -> usize {
    let chunk = if class == SMALL { SMALL_CHUNK } else { LARGE_CHUNK };
    chunk.next_multiple_of(granularity.max(1))
}

/// One stream's reserved range for one class.
pub struct Segment {
    pub base: usize,
    /// Bytes reserved (whole chunks).
    pub size: usize,
    pub chunk: usize,
    pub class: Class,
    /// The mapped chunks: offset from `base` to physical handle.
    mapped: BTreeMap<usize, usize>,
}

impl Segment {
    /// A segment with nothing mapped.
    pub fn new(base: usize, size: usize, chunk: usize, class: Class) -> Segment {
        Segment { base, size, chunk, class, mapped: BTreeMap::new() }
    }

    /// The unmapped gaps, as (offset, length), in address order.
    fn gaps(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let chunk = self.chunk;
        let ends = self.mapped.keys().map(move |&k| (k, k + chunk)).chain(std::iter::once((self.size, self.size)));
        let mut at = 0;
        ends.filter_map(move |(start, end)| {
            let gap = (start > at).then_some((at, start - at));
            at = end;
            gap
        })
    }

    /// The whole chunks inside the free block of `size` bytes at `ptr`,
    /// as the addresses from the first one's start to the last one's end
    /// (empty where none is whole).
    fn whole_chunks(&self, ptr: usize, size: usize) -> std::ops::Range<usize> {
        let (base, chunk) = (self.base, self.chunk);
        base + (ptr - base).next_multiple_of(chunk)..base + (ptr + size - base) / chunk * chunk
    }

    /// Take the chunks of `start..end`, inside the free block at `block`,
    /// out of `cache` (what is left of the block stays free) and out of
    /// the map: the run to unmap.
    fn take_run(&mut self, cache: &mut Cache, block: usize, (start, end): (usize, usize)) -> Unmapped {
        cache.carve(block, start, end);
        let (base, chunk) = (self.base, self.chunk);
        let handles = (start..end).step_by(chunk).filter_map(|at| self.mapped.remove(&(at - base))).collect();
        Unmapped { segment: base, at: start, chunk, handles }
    }
}

/// Where to map for a request: `bytes` (whole chunks) at address `at` of
/// the segment at `segment`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub segment: usize,
    pub at: usize,
    pub bytes: usize,
}

/// Chunks unmapped from a segment: `handles` of the chunks one after
/// another from address `at`.
pub struct Unmapped {
    pub segment: usize,
    pub at: usize,
    pub chunk: usize,
    pub handles: Vec<usize>,
}

/// The chunks under a range of a segment: `handles` of the chunks one
/// after another from address `at`, each `chunk` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunks {
    pub at: usize,
    pub chunk: usize,
    pub handles: Vec<usize>,
}

/// Every segment of one device.
#[derive(Default)]
pub struct Segments {
    by_stream: HashMap<(usize, Class), usize>,
    segments: BTreeMap<usize, Segment>,
}

fn stream_id(stream: &Stream) -> usize {
    stream.as_raw() as usize
}

impl Segments {
    /// The base of `stream`'s segment for `class`, if it has one.
    pub fn of(&self, stream: &Stream, class: Class) -> Option<usize> {
        self.by_stream.get(&(stream_id(stream), class)).copied()
    }

    /// Take in a fresh reservation as `stream`'s segment for its class.
    pub fn insert(&mut self, stream: &Stream, segment: Segment) {
        self.by_stream.insert((stream_id(stream), segment.class), segment.base);
        self.segments.insert(segment.base, segment);
    }

    /// Where to map for a block of `size` in the segment at `base`, used on
    /// `stream`: the first gap that, with the free block before it in
    /// `cache`, holds `size`. `None` if no gap does (the segment's
    /// addresses are spent).
    pub fn plan(&self, base: usize, size: usize, cache: &Cache, stream: &Stream) -> Option<Plan> {
        let segment = self.segments.get(&base)?;
        segment.gaps().find_map(|(offset, len)| {
            let at = base + offset;
            let before = cache.free_ending_at(at, base, stream);
            let bytes = size.saturating_sub(before).max(1).checked_next_multiple_of(segment.chunk)?;
            (bytes <= len).then_some(Plan { segment: base, at, bytes })
        })
    }

    /// Note chunks mapped at `at` in the segment at `base`, one per handle.
    pub fn mapped(&mut self, base: usize, at: usize, handles: &[usize]) {
        if let Some(segment) = self.segments.get_mut(&base) {
            for (i, &handle) in handles.iter().enumerate() {
                segment.mapped.insert(at - base + i * segment.chunk, handle);
            }
        }
    }

    /// The chunks under `ptr..ptr + len`: `None` unless the range lies in
    /// one segment and every chunk under it is mapped.
    pub fn chunks_under(&self, ptr: usize, len: usize) -> Option<Chunks> {
        let (&base, segment) = self.segments.range(..=ptr).next_back()?;
        let end = ptr.checked_add(len)?;
        if len == 0 || end > base + segment.size {
            return None;
        }
        let chunk = segment.chunk;
        let first = (ptr - base) / chunk * chunk;
        let last = (end - base).next_multiple_of(chunk);
        let handles: Option<Vec<usize>> =
            (first..last).step_by(chunk).map(|offset| segment.mapped.get(&offset).copied()).collect();
        Some(Chunks { at: base + first, chunk, handles: handles? })
    }

    /// Take the whole chunks inside every free block of every segment out
    /// of `cache` and of the segments' maps: what to unmap, one entry per
    /// run of chunks. Only after synchronizing the device: free blocks
    /// last used on different streams are merged first (tagged `stream`).
    pub fn take_free_chunks(&mut self, cache: &mut Cache, stream: &Stream) -> Vec<Unmapped> {
        let mut runs = Vec::new();
        for segment in self.segments.values_mut() {
            let base = segment.base;
            cache.merge_free_in(base, base + segment.size, stream);
            for (ptr, size) in cache.free_in(base, base + segment.size) {
                let whole = segment.whole_chunks(ptr, size);
                if !whole.is_empty() {
                    runs.push(segment.take_run(cache, ptr, (whole.start, whole.end)));
                }
            }
        }
        runs
    }

    /// Take up to `count` whole chunks freed before mark `finished` of
    /// `cache` ([`Cache::freed_before`]) out of the free blocks of the
    /// segment at `base` last used on `stream`, but not out of the one
    /// ending at `keep` (the block a growth there extends): what to unmap,
    /// one entry per run of chunks. For a growth that maps them again
    /// instead of new memory, once `stream` has finished the work it had
    /// queued at that mark (no device synchronize: blocks of other streams
    /// stay).
    pub fn take_finished_chunks(
        &mut self,
        (base, count, keep): (usize, usize, usize),
        cache: &mut Cache,
        stream: &Stream,
        finished: u64,
    ) -> Vec<Unmapped> {
        let Some(segment) = self.segments.get_mut(&base) else { return Vec::new() };
        let (chunk, mut left) = (segment.chunk, count);
        let mut runs = Vec::new();
        for (ptr, size) in cache.free_in_on(base, base + segment.size, stream) {
            if ptr + size == keep {
                continue;
            }
            let std::ops::Range { start: mut at, end: last } = segment.whole_chunks(ptr, size);
            // Runs of whole chunks freed before the mark; `block`: the free
            // block left holding the rest once a run is carved out.
            let mut block = ptr;
            while at < last && left > 0 {
                if !cache.freed_before(at, finished) {
                    at += chunk;
                    continue;
                }
                let start = at;
                while at < last && left > 0 && cache.freed_before(at, finished) {
                    at += chunk;
                    left -= 1;
                }
                runs.push(segment.take_run(cache, block, (start, at)));
                block = at;
            }
            if left == 0 {
                break;
            }
        }
        runs
    }

    /// Put back chunks of a run whose unmapping failed (`kept`: their
    /// indices in the run) as mapped, and as free blocks of `cache` on
    /// `stream` (the device was synchronized: any stream will do).
    pub fn restore(&mut self, run: &Unmapped, kept: &[usize], cache: &mut Cache, stream: &Stream) {
        let Some(segment) = self.segments.get_mut(&run.segment) else { return };
        for &i in kept {
            let at = run.at + i * run.chunk;
            segment.mapped.insert(at - run.segment, run.handles[i]);
            cache.add_free(at, run.chunk, run.segment, segment.class, stream.clone());
        }
    }

    /// Remove the segments with nothing mapped, whose reservations are to
    /// be freed.
    pub fn take_empty(&mut self) -> Vec<Segment> {
        let empty: Vec<usize> = self.segments.values().filter(|s| s.mapped.is_empty()).map(|s| s.base).collect();
        let taken = empty.iter().filter_map(|base| self.segments.remove(base)).collect();
        self.by_stream.retain(|_, base| self.segments.contains_key(base));
        taken
    }

    /// Keep an empty segment whose reservation the driver would not free,
    /// for the next reclaim to try again; no stream grows in it meanwhile.
    pub fn keep_empty(&mut self, segment: Segment) {
        self.segments.insert(segment.base, segment);
    }

    /// Bytes mapped over every segment.
    #[cfg(test)]
    pub fn mapped_bytes(&self) -> usize {
        self.segments.values().map(|s| s.mapped.len() * s.chunk).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::cached::Taken;
    use super::*;
    use hip_core::Device;

    const MIB: usize = 1 << 20;
    const BASE: usize = 1 << 40;
    const LARGE: Class = 1;

    fn segment_of(stream: &Stream) -> Segments {
        let mut segments = Segments::default();
        segments.insert(stream, Segment::new(BASE, 200 * MIB, LARGE_CHUNK, LARGE));
        segments
    }

    /// Map what `plan` says with made-up handles from `first`.
    fn grow(segments: &mut Segments, cache: &mut Cache, plan: Plan, stream: &Stream, first: usize) {
        let handles: Vec<usize> = (first..first + plan.bytes / LARGE_CHUNK).collect();
        segments.mapped(plan.segment, plan.at, &handles);
        cache.add_free(plan.at, plan.bytes, plan.segment, LARGE, stream.clone());
    }

    #[test]
    fn growth_extends_the_free_block_before_a_gap_and_a_reclaim_takes_whole_free_chunks() {
        let stream = Stream::null(Device::new(0).unwrap());
        let (mut segments, mut cache) = (segment_of(&stream), Cache::default());
        let plan = segments.plan(BASE, 30 * MIB, &cache, &stream).unwrap();
        assert_eq!(plan, Plan { segment: BASE, at: BASE, bytes: 40 * MIB }, "two whole chunks");
        grow(&mut segments, &mut cache, plan, &stream, 1);
        let first = cache.take(30 * MIB, &stream).unwrap();
        assert_eq!((first.ptr, first.size), (BASE, 30 * MIB));
        // 25 MiB: the 10 MiB left free at the end, and one chunk more.
        let plan = segments.plan(BASE, 25 * MIB, &cache, &stream).unwrap();
        assert_eq!(plan, Plan { segment: BASE, at: BASE + 40 * MIB, bytes: 20 * MIB });
        grow(&mut segments, &mut cache, plan, &stream, 3);
        let second = cache.take(25 * MIB, &stream).unwrap();
        assert_eq!(second.ptr, BASE + 30 * MIB, "one block across the seam of two mappings");
        assert_eq!(segments.mapped_bytes(), 60 * MIB);

        // The first freed: of its 0..30 MiB, chunk 0 is whole; 20..30 stays.
        cache.give_back(BASE, stream.clone());
        let runs = segments.take_free_chunks(&mut cache, &stream);
        assert_eq!(runs.len(), 1);
        assert_eq!((runs[0].at, runs[0].chunk, runs[0].handles.clone()), (BASE, LARGE_CHUNK, vec![1]));
        assert_eq!(segments.mapped_bytes(), 40 * MIB);
        let left = vec![(BASE + 20 * MIB, 10 * MIB), (BASE + 55 * MIB, 5 * MIB)];
        assert_eq!(cache.free_in(BASE, BASE + 200 * MIB), left, "the parts of chunks stay free");
        // The gap at the start is the first that growth fills again.
        let plan = segments.plan(BASE, 15 * MIB, &cache, &stream).unwrap();
        assert_eq!(plan, Plan { segment: BASE, at: BASE, bytes: 20 * MIB });
        // Everything freed: every chunk goes, and the segment is empty.
        cache.give_back(BASE + 30 * MIB, stream.clone());
        let runs = segments.take_free_chunks(&mut cache, &stream);
        assert_eq!(runs.iter().map(|r| r.handles.len()).sum::<usize>(), 2);
        let empty: Vec<(usize, usize)> = segments.take_empty().iter().map(|s| (s.base, s.size)).collect();
        assert_eq!(empty, [(BASE, 200 * MIB)]);
        assert_eq!(segments.of(&stream, LARGE), None);
    }

    #[test]
    fn blocks_last_used_on_two_streams_merge_before_a_reclaim() {
        let device = Device::new(0).unwrap();
        let (one, two) = (Stream::null(device), Stream::new_on(device).unwrap());
        let (mut segments, mut cache) = (segment_of(&one), Cache::default());
        let plan = segments.plan(BASE, 20 * MIB, &cache, &one).unwrap();
        grow(&mut segments, &mut cache, plan, &one, 1);
        let a = cache.take(10 * MIB, &one).unwrap();
        let b = cache.take(10 * MIB, &two).unwrap();
        cache.give_back(a.ptr, one.clone());
        cache.give_back(b.ptr, two.clone());
        assert_eq!(cache.free_in(BASE, BASE + 20 * MIB).len(), 2, "not merged: two streams");
        let runs = segments.take_free_chunks(&mut cache, &one);
        assert_eq!(runs.len(), 1, "merged after the synchronize, the chunk is whole and free");
        assert!(cache.free_in(BASE, BASE + 20 * MIB).is_empty());
    }

    /// A segment grown for blocks of `sizes` MiB, one after another, with
    /// stamps kept (handles from 1); the blocks, handed out.
    fn blocks_of(stream: &Stream, sizes: &[usize]) -> (Segments, Cache, Vec<Taken>) {
        let (mut segments, mut cache) = (segment_of(stream), Cache::default());
        cache.keep_stamps([SMALL_CHUNK, LARGE_CHUNK]);
        let plan = segments.plan(BASE, sizes.iter().sum::<usize>() * MIB, &cache, stream).unwrap();
        grow(&mut segments, &mut cache, plan, stream, 1);
        let blocks = sizes.iter().map(|m| cache.take(m * MIB, stream).unwrap()).collect();
        (segments, cache, blocks)
    }

    #[test]
    fn only_chunks_freed_before_the_mark_are_taken_for_a_growth() {
        let stream = Stream::null(Device::new(0).unwrap());
        let (mut segments, mut cache, blocks) = blocks_of(&stream, &[40, 20, 40, 20]);
        let end = BASE + 120 * MIB;
        cache.give_back(blocks[0].ptr, stream.clone());
        let mark = cache.mark();
        // Freed after the mark: its work may still be queued.
        cache.give_back(blocks[2].ptr, stream.clone());
        let runs = segments.take_finished_chunks((BASE, 6, 0), &mut cache, &stream, mark);
        let taken: Vec<(usize, Vec<usize>)> = runs.iter().map(|r| (r.at, r.handles.clone())).collect();
        assert_eq!(taken, [(BASE, vec![1, 2])], "the first block's chunks, not the third's");
        // The second and fourth freed after the mark too, merged with the
        // third: one free block, none of it freed before the mark.
        cache.give_back(blocks[1].ptr, stream.clone());
        cache.give_back(blocks[3].ptr, stream.clone());
        assert_eq!(cache.free_in(BASE, end), [(BASE + 40 * MIB, 80 * MIB)]);
        assert!(segments.take_finished_chunks((BASE, 6, 0), &mut cache, &stream, mark).is_empty());
        // A merge keeps each chunk's own free: the block's middle chunks,
        // freed before a new mark, are taken; the last, freed after, stays.
        let mark = cache.mark();
        let last = cache.take(80 * MIB, &stream).unwrap();
        assert_eq!(last.ptr, BASE + 40 * MIB);
        cache.give_back(last.ptr, stream.clone());
        let mark_after = cache.mark();
        let runs = segments.take_finished_chunks((BASE, 6, 0), &mut cache, &stream, mark);
        assert!(runs.is_empty(), "freed again after the first mark: {}", runs.len());
        let runs = segments.take_finished_chunks((BASE, 3, 0), &mut cache, &stream, mark_after);
        let taken: Vec<(usize, Vec<usize>)> = runs.iter().map(|r| (r.at, r.handles.clone())).collect();
        assert_eq!(taken, [(BASE + 40 * MIB, vec![3, 4, 5])], "up to the count asked");
        assert_eq!(cache.free_in(BASE, end), [(BASE + 100 * MIB, 20 * MIB)], "the rest stays free");
    }

    #[test]
    fn chunks_of_one_block_freed_apart_are_taken_by_their_own_frees() {
        let stream = Stream::null(Device::new(0).unwrap());
        let (mut segments, mut cache, blocks) = blocks_of(&stream, &[40, 20, 40]);
        cache.give_back(blocks[0].ptr, stream.clone());
        cache.give_back(blocks[2].ptr, stream.clone());
        let mark = cache.mark();
        // Freed after the mark, it joins the two into one free block.
        cache.give_back(blocks[1].ptr, stream.clone());
        assert_eq!(cache.free_in(BASE, BASE + 100 * MIB), [(BASE, 100 * MIB)]);
        let runs = segments.take_finished_chunks((BASE, 5, 0), &mut cache, &stream, mark);
        let taken: Vec<(usize, Vec<usize>)> = runs.iter().map(|r| (r.at, r.handles.clone())).collect();
        assert_eq!(taken, [(BASE, vec![1, 2]), (BASE + 60 * MIB, vec![4, 5])], "not the middle chunk");
        assert_eq!(cache.free_in(BASE, BASE + 100 * MIB), [(BASE + 40 * MIB, 20 * MIB)]);
    }

    #[test]
    fn the_chunks_under_a_range_are_those_it_touches_if_all_are_mapped() {
        let stream = Stream::null(Device::new(0).unwrap());
        let mut segments = segment_of(&stream);
        segments.mapped(BASE, BASE, &[11, 12, 13]);
        let chunk = 20 * MIB;
        let under = segments.chunks_under(BASE + chunk - 1, 2).unwrap();
        assert_eq!(under, Chunks { at: BASE, chunk, handles: vec![11, 12] });
        let whole = segments.chunks_under(BASE + chunk, chunk).unwrap();
        assert_eq!(whole.handles, [12]);
        assert_eq!(segments.chunks_under(BASE + 2 * chunk, chunk + 1), None, "a chunk past the mapped ones");
        assert_eq!(segments.chunks_under(BASE - 1, 2), None, "before the segment");
        assert_eq!(segments.chunks_under(BASE, 0), None);
    }

    #[test]
    fn a_segment_whose_gaps_are_too_small_plans_nothing() {
        let stream = Stream::null(Device::new(0).unwrap());
        let (segments, cache) = (segment_of(&stream), Cache::default());
        assert_eq!(segments.plan(BASE, 201 * MIB, &cache, &stream), None);
        assert_eq!(chunk_size(LARGE, 64 << 10), LARGE_CHUNK);
        assert_eq!(chunk_size(0, 3 << 20), 3 << 20, "whole granules");
    }
}
