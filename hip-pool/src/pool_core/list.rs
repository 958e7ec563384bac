//! The parked blocks of one thread's cache for one pool: a last-in
//! first-out list of (size, stream id, item), where the item is the
//! block's record (its address with it). Pure data: no locks, no HIP, no
//! knowledge of what an item is.

/// Blocks one list keeps at most.
pub const MAX_BLOCKS: usize = 64;
/// Bytes one list keeps at most.
pub const MAX_BYTES: usize = 64 << 20;

/// The parked blocks, oldest first, as parallel arrays of words (a hit
/// reads and writes single words, never a struct copied through the
/// stack), with their count of bytes and the hits served.
#[repr(C)]
pub struct List<T> {
    pub len: usize,
    pub bytes: usize,
    size: [usize; MAX_BLOCKS],
    /// The block's stream's id, inline, so a search follows no pointer.
    stream_id: [u64; MAX_BLOCKS],
    /// `Some` below `len`, `None` above.
    item: [Option<T>; MAX_BLOCKS],
    /// Apart from `bytes`, so the two are not updated as one wide word.
    pub hits: u64,
}

impl<T> List<T> {
    pub fn new() -> List<T> {
        List {
            len: 0,
            bytes: 0,
            size: [0; MAX_BLOCKS],
            stream_id: [0; MAX_BLOCKS],
            item: [const { None }; MAX_BLOCKS],
            hits: 0,
        }
    }

    /// Take the newest block of `size` on stream `id`. A thread that frees
    /// and allocates one size in turn finds it on top: that check is
    /// inline, the search below it is not.
    #[inline(always)]
    pub fn take(&mut self, size: usize, id: u64) -> Option<T> {
        let top = self.len.checked_sub(1)?;
        if top < MAX_BLOCKS && self.size[top] == size && self.stream_id[top] == id {
            let item = self.item[top].take()?;
            self.len = top;
            self.bytes -= size;
            self.hits += 1;
            return Some(item);
        }
        self.take_below_top(size, id)
    }

    /// [`List::take`] for a block under the top one.
    #[inline(never)]
    fn take_below_top(&mut self, size: usize, id: u64) -> Option<T> {
        let len = self.len.min(MAX_BLOCKS);
        let index = (0..len).rev().find(|&i| self.size[i] == size && self.stream_id[i] == id)?;
        let item = self.item[index].take()?;
        if index + 1 < len {
            // Keep the order (last in, first out) of the blocks above.
            self.size.copy_within(index + 1..len, index);
            self.stream_id.copy_within(index + 1..len, index);
            self.item[index..len].rotate_left(1);
        }
        self.len = len - 1;
        self.bytes -= size;
        self.hits += 1;
        Some(item)
    }

    /// Park a block; the item back if the list is full.
    #[inline(always)]
    pub fn give(&mut self, size: usize, id: u64, item: T) -> Result<(), T> {
        let len = self.len;
        if len >= MAX_BLOCKS || self.bytes + size > MAX_BYTES {
            return Err(item);
        }
        self.size[len] = size;
        self.stream_id[len] = id;
        // The entry at `len` is `None`: nothing to drop there.
        std::mem::forget(self.item[len].replace(item));
        self.len = len + 1;
        self.bytes += size;
        Ok(())
    }

    /// Every block's item, emptying the list.
    pub fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        let len = std::mem::take(&mut self.len).min(MAX_BLOCKS);
        self.bytes = 0;
        (0..len).filter_map(move |i| self.item[i].take())
    }

    /// Every block's item, oldest first.
    pub fn items(&self) -> impl Iterator<Item = &T> + '_ {
        self.item[..self.len.min(MAX_BLOCKS)].iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_match_comes_first_and_the_order_above_it_is_kept() {
        let mut list = List::new();
        for (ptr, size, id) in [(0x1000, 512, 1), (0x2000, 512, 2), (0x3000, 512, 1), (0x4000, 1024, 1)] {
            list.give(size, id, ptr).unwrap();
        }
        assert_eq!(list.bytes, 2560);
        assert_eq!(list.items().copied().collect::<Vec<_>>(), [0x1000, 0x2000, 0x3000, 0x4000]);
        assert_eq!(list.take(512, 1), Some(0x3000), "the newest of size 512 on stream 1");
        assert_eq!(list.take(512, 1), Some(0x1000));
        assert_eq!(list.take(512, 1), None);
        assert_eq!(list.take(1024, 1), Some(0x4000), "on top after the removals");
        assert_eq!(list.take(512, 2), Some(0x2000));
        assert_eq!((list.len, list.bytes, list.hits), (0, 0, 4));
    }

    #[test]
    fn a_full_list_hands_the_item_back_and_drain_empties_it() {
        let mut list = List::new();
        for i in 0..MAX_BLOCKS {
            list.give(512, 7, i).unwrap();
        }
        assert_eq!(list.give(512, 7, 99), Err(99), "64 blocks at most");
        let mut big = List::new();
        assert_eq!(big.give(MAX_BYTES + 1, 7, 1), Err(1), "64 MiB at most");
        let drained: Vec<_> = list.drain().collect();
        assert_eq!(drained.len(), MAX_BLOCKS);
        assert_eq!(drained[5], 5);
        assert_eq!((list.len, list.bytes), (0, 0));
        assert_eq!(list.take(512, 7), None);
    }
}
