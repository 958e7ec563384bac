//! The ledger of a shared buffer: which processes have it open, so that
//! the exporter never gives the memory back under one of them, and never
//! waits forever for one that died.
//!
//! Ledgers are slots in files of the shared-memory folder, each file of
//! one exporting process (named after it) and mapped by it and by every
//! importer, which keeps the mapping for its next open: joining,
//! leaving and closing are a few atomic operations on shared words, with
//! no system call. A slot is a state word (its generation and phase:
//! free, open or closing) and one cell for each importing process (its
//! pid and how many opens it holds).
//!
//! - An importer *joins* before it opens the memory: it counts itself in
//!   its cell, then reads the state again, and leaves at once unless the
//!   slot is still open in the handle's generation.
//! - It *leaves* after it closed the memory: its count goes down, and the
//!   cell is freed at zero.
//! - The exporter *closes* the ledger atomically: it marks the slot
//!   closing, then reads the cells. An importer counted in a cell is either
//!   seen there, or sees the mark and leaves (both sides use sequentially
//!   consistent operations, so one of the two happens). A cell of a
//!   living process means the memory is still open there: the slot is
//!   marked open again and the memory kept. A cell of a process that is
//!   gone is cleared (an importer that died left it), so a crash never
//!   keeps memory forever. With no living importer the slot becomes free
//!   in the next generation, which handles of the old one no longer join,
//!   and the memory can go.
//!
//! An exporter that exits leaves its file; the next process's first share
//! removes the files of processes that are gone.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hip_sys::shared::ipc::{process_alive, sweep_orphans_once, this_process};
use hip_sys::sync::MutexExt;

use hip_sys::shared::shared_file::SharedFile;

/// The start of every ledger file's name.
pub(crate) const PREFIX: &str = "amdgpu-ipc-";
/// The importing processes one share can have at once.
pub(crate) const CELLS: usize = 63;
/// A slot's words: the state, then the cells.
const SLOT: usize = 1 + CELLS;
/// The slots of one file (512 KiB; a page of the file holds eight, and
/// only the pages of slots used take memory).
const SLOTS: usize = 1024;
/// A file's bytes.
const FILE: usize = SLOTS * SLOT * 8;

/// A slot's phases, in the state word's low two bits under its generation.
const FREE: u64 = 0;
const OPEN: u64 = 1;
const CLOSING: u64 = 2;

fn state(generation: u64, phase: u64) -> u64 {
    generation << 2 | phase
}

/// The low half of a cell: how many opens its process holds.
const COUNT: u64 = u32::MAX as u64;

/// How long a join waits for an exporter in the middle of closing (a read
/// of at most [`CELLS`] words) before it gives up.
const CLOSING_PATIENCE: Duration = Duration::from_secs(1);

/// Where a share's ledger lies, as its handle carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub file: String,
    pub slot: u32,
    pub generation: u64,
}

/// The slot `slot` of `file`'s mapping.
fn slot_of(file: &SharedFile, slot: u32) -> Option<&[AtomicU64]> {
    let slot = usize::try_from(slot).ok().filter(|s| *s < SLOTS)?;
    file.words(slot * SLOT, SLOT)
}

/// This process's ledger files and their free slots.
struct Files {
    files: Vec<Arc<SharedFile>>,
    /// (file, slot) pairs free to take, the latest freed last.
    free: Vec<(usize, u32)>,
}

static FILES: Mutex<Files> = Mutex::new(Files { files: Vec::new(), free: Vec::new() });

/// An exporter's ledger: one slot of one of its files.
#[derive(Debug)]
pub(crate) struct Ledger {
    file: Arc<SharedFile>,
    index: usize,
    slot: u32,
    generation: u64,
}

impl Ledger {
    /// A new, open ledger with no importer. The ledger files of exporters
    /// that have exited are removed at this process's first.
    pub fn create() -> io::Result<Ledger> {
        let mut files = FILES.lock_unpoisoned();
        let (index, slot) = match files.free.pop() {
            Some(free) => free,
            None => {
                sweep_orphans_once(PREFIX);
                let index = files.files.len();
                let file = SharedFile::create(&format!("{PREFIX}{}-{index}", this_process()), FILE)?;
                files.files.push(Arc::new(file));
                // Slot 0 is taken now; the others are free, lowest first.
                files.free.extend((1..SLOTS as u32).rev().map(|s| (index, s)));
                (index, 0)
            }
        };
        let file = Arc::clone(&files.files[index]);
        drop(files);
        let words = slot_of(&file, slot).ok_or_else(|| io::Error::other("a ledger slot past its file"))?;
        // Free slots are this process's alone: nobody joins them.
        let generation = words[0].load(SeqCst) >> 2;
        words[0].store(state(generation, OPEN), SeqCst);
        Ok(Ledger { file, index, slot, generation })
    }

    /// Where it lies, for the handle.
    pub fn place(&self) -> Place {
        Place { file: self.file.name().to_owned(), slot: self.slot, generation: self.generation }
    }

    fn words(&self) -> &[AtomicU64] {
        // `create` checked the slot against the file.
        slot_of(&self.file, self.slot).unwrap_or(&[])
    }

    /// The processes that have the memory open now (cells of processes
    /// that are gone are cleared).
    pub fn importers(&self) -> usize {
        live_cells(self.words())
    }

    /// Close the ledger if no living process has the memory open: `true`
    /// (the memory may go; no process can join any more), else `false`
    /// (it is kept, the ledger open).
    pub fn close(&self) -> bool {
        let Some((state_word, _)) = self.words().split_first() else { return true };
        let open = state(self.generation, OPEN);
        if state_word.compare_exchange(open, state(self.generation, CLOSING), SeqCst, SeqCst).is_err() {
            // Closed already.
            return true;
        }
        if live_cells(self.words()) > 0 {
            state_word.store(open, SeqCst);
            return false;
        }
        state_word.store(state(self.generation + 1, FREE), SeqCst);
        true
    }
}

impl Drop for Ledger {
    fn drop(&mut self) {
        // A ledger that drops open (a share that failed after making it:
        // no process has its handle) is closed first; one still joined
        // somewhere keeps its slot.
        if self.close() {
            FILES.lock_unpoisoned().free.push((self.index, self.slot));
        }
    }
}

/// The cells of living processes among `slot`'s, clearing the others.
fn live_cells(slot: &[AtomicU64]) -> usize {
    let mut live = 0;
    for cell in slot.iter().skip(1) {
        let value = cell.load(SeqCst);
        if value & COUNT == 0 {
            continue;
        }
        let pid = (value >> 32) as u32;
        if process_alive(pid) {
            live += 1;
        } else {
            // Only a process that is gone wrote it: nothing races this.
            let _ = cell.compare_exchange(value, 0, SeqCst, SeqCst);
        }
    }
    live
}

/// The ledger files of other processes this one has mapped, kept for the
/// next open of their shares.
static MAPPED: Mutex<Option<HashMap<String, Arc<SharedFile>>>> = Mutex::new(None);

/// `name`'s mapping, mapped at its first open. A new one forgets the
/// files of exporters that have exited and that no open uses.
fn mapped(name: &str) -> io::Result<Arc<SharedFile>> {
    let mut mapped = MAPPED.lock_unpoisoned();
    let mapped = mapped.get_or_insert_with(HashMap::new);
    if let Some(file) = mapped.get(name) {
        return Ok(Arc::clone(file));
    }
    mapped.retain(|name, file| Arc::strong_count(file) > 1 || exporter(name).is_some_and(process_alive));
    let file = Arc::new(SharedFile::open(name, FILE)?);
    mapped.insert(name.to_owned(), Arc::clone(&file));
    Ok(file)
}

/// The exporting process a ledger file's name names.
fn exporter(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()
}

/// An importer's count in a ledger, taken back when it drops.
#[derive(Debug)]
pub(crate) struct Entry {
    file: Arc<SharedFile>,
    slot: u32,
    cell: usize,
}

impl Entry {
    /// Join the ledger at `place`: `Err` (not found) once the exporter has
    /// closed it; for a place that is no ledger; or when [`CELLS`] other
    /// processes have it open.
    pub fn join(place: &Place) -> io::Result<Entry> {
        let Place { file, slot, generation } = place;
        let valid = exporter(file).is_some() && !file.contains('/') && !file.contains("..");
        if !valid {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a ledger's name"));
        }
        let file = mapped(file)?;
        let words = slot_of(&file, *slot).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no such slot"))?;
        let (open, closing) = (state(*generation, OPEN), state(*generation, CLOSING));
        let patience = Instant::now() + CLOSING_PATIENCE;
        let me = u64::from(this_process()) << 32;
        loop {
            let now = words[0].load(SeqCst);
            if now == open {
                let cell = take_cell(words, me)?;
                if words[0].load(SeqCst) == open {
                    return Ok(Entry { file: Arc::clone(&file), slot: *slot, cell });
                }
                // Closing meanwhile: out again, then as below.
                release_cell(&words[cell]);
            } else if now != closing {
                return Err(io::Error::new(io::ErrorKind::NotFound, "the ledger is closed"));
            } else if Instant::now() > patience {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "the exporter has been closing it for a second"));
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Count one open of the process `me` (its pid in the high half) in one of
/// `slot`'s cells: the process's own, else a free one. Which.
fn take_cell(slot: &[AtomicU64], me: u64) -> io::Result<usize> {
    for (index, cell) in slot.iter().enumerate().skip(1) {
        let mut value = cell.load(SeqCst);
        while value & !COUNT == me && value & COUNT != 0 && value & COUNT < COUNT {
            match cell.compare_exchange(value, value + 1, SeqCst, SeqCst) {
                Ok(_) => return Ok(index),
                Err(now) => value = now,
            }
        }
    }
    for (index, cell) in slot.iter().enumerate().skip(1) {
        if cell.compare_exchange(0, me | 1, SeqCst, SeqCst).is_ok() {
            return Ok(index);
        }
    }
    Err(io::Error::new(io::ErrorKind::QuotaExceeded, format!("{CELLS} processes have it open")))
}

/// Take one open back from `cell`, freeing it at zero.
fn release_cell(cell: &AtomicU64) {
    let _ = cell.fetch_update(SeqCst, SeqCst, |value| Some(if value & COUNT <= 1 { 0 } else { value - 1 }));
}

impl Drop for Entry {
    fn drop(&mut self) {
        if let Some(cell) = slot_of(&self.file, self.slot).and_then(|words| words.get(self.cell)) {
            release_cell(cell);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same slot as another process sees it, by another mapping.
    fn foreign(place: &Place) -> Arc<SharedFile> {
        Arc::new(SharedFile::open(&place.file, FILE).unwrap())
    }

    #[test]
    fn a_ledger_closes_only_without_living_importers_and_then_refuses_joins() {
        let ledger = Ledger::create().unwrap();
        let place = ledger.place();
        let entry = Entry::join(&place).unwrap();
        let again = Entry::join(&place).unwrap();
        assert_eq!(entry.cell, again.cell, "one process, one cell");
        assert_eq!(ledger.importers(), 1);
        assert!(!ledger.close(), "this process has it open");
        drop((entry, again));
        // An importer that died: its cell does not count, and is cleared.
        let file = foreign(&place);
        let words = slot_of(&file, place.slot).unwrap();
        words[5].store(4_294_967_294 << 32 | 3, SeqCst);
        assert_eq!(ledger.importers(), 0);
        assert_eq!(words[5].load(SeqCst), 0);
        assert!(ledger.close());
        assert_eq!(Entry::join(&place).unwrap_err().kind(), io::ErrorKind::NotFound, "closed: no one joins");
        let bad = |file: &str| Place { file: file.into(), ..place.clone() };
        for name in ["../etc", "amdgpu-ipc-x", "amdgpu-ipc-1/../y"] {
            assert!(Entry::join(&bad(name)).is_err(), "{name}");
        }
        assert!(Entry::join(&Place { slot: SLOTS as u32, ..place.clone() }).is_err(), "past the file");
    }

    #[test]
    fn a_freed_slot_is_reused_in_a_new_generation_that_old_handles_do_not_join() {
        let first = Ledger::create().unwrap();
        let old = first.place();
        drop(first);
        let second = Ledger::create().unwrap();
        let new = second.place();
        assert_eq!((new.file.as_str(), new.slot), (old.file.as_str(), old.slot), "the slot freed last");
        assert_eq!(new.generation, old.generation + 1);
        assert!(Entry::join(&old).is_err(), "the old generation's handle");
        assert!(Entry::join(&new).is_ok());
    }

    #[test]
    fn a_full_ledger_refuses_the_next_process_and_a_stuck_close_times_out() {
        let ledger = Ledger::create().unwrap();
        let place = ledger.place();
        let file = foreign(&place);
        let words = slot_of(&file, place.slot).unwrap();
        // Every cell taken by other (living) processes: pid 1 always runs.
        for cell in &words[1..] {
            cell.store(1 << 32 | 1, SeqCst);
        }
        assert_eq!(Entry::join(&place).unwrap_err().kind(), io::ErrorKind::QuotaExceeded);
        for cell in &words[1..] {
            cell.store(0, SeqCst);
        }
        // An exporter that died in the middle of a close.
        words[0].store(state(place.generation, CLOSING), SeqCst);
        assert_eq!(Entry::join(&place).unwrap_err().kind(), io::ErrorKind::TimedOut);
        words[0].store(state(place.generation, OPEN), SeqCst);
        drop(ledger);
    }

    #[test]
    fn joins_racing_a_close_are_either_counted_or_refused() {
        for _ in 0..200 {
            let ledger = Ledger::create().unwrap();
            let place = ledger.place();
            let joiner = std::thread::spawn(move || Entry::join(&place));
            let closed = ledger.close();
            let joined = joiner.join().unwrap();
            // Never both: closed with an importer inside.
            assert!(!(closed && joined.is_ok()), "closed under a join");
            if !closed {
                drop(joined);
                assert!(ledger.close(), "closes once the importer left");
            }
        }
    }
}
