//! IPC between real processes: device memory and events one process
//! exports (`hipIpcGetMemHandle`, `hipIpcGetEventHandle`) and another
//! opens from the handle's 64 bytes.
//!
//! - **Memory.** Exporting an allocation moves its bytes into a
//!   shared-memory file ([`SharedFile`]) that the allocation keeps using;
//!   the handle names the file, the exporter's process, device and the
//!   allocation's size, and the exported pointer's offset in it (clr's
//!   `ihipIpcMemHandle_t` keeps the same: `psize`, `poffset`,
//!   `owners_process_id`). Opening maps the file as an allocation of the
//!   opener's current device (charged nothing) and returns its base, as
//!   clr's `IpcAttach` and CUDA do (the opener adds the offset); opening the same handle again returns the same pointer
//!   and counts (clr's `IpcAttach` retains); each close counts down, the
//!   last unmaps. The exporter's `hipFree` unlinks the file: a handle of
//!   freed memory no longer opens, while an opener's mapping stays valid.
//! - **Events.** An exported event keeps its recordings in a small shared
//!   file ([`EventPage`]): how many were made and through which one all
//!   have completed. Both processes record into it and wait on it (a
//!   wait polls, as clr's `IPCEvent` does), so work in one process is
//!   ordered after a recording in the other without a host synchronize.
//!
//! The race detector sees each process's own accesses only.

use super::lock::lock;
use super::shared::{self, SharedFile};
use crate::bindings::hip::hipError_t;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The first bytes of every handle this simulator makes.
const MAGIC: [u8; 8] = *b"HIPSIMIP";
/// Where the name starts in a handle, and how long it may be.
const NAME_AT: usize = 32;
const NAME_LEN: usize = 64 - NAME_AT;

/// What a 64-byte IPC handle carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Handle {
    /// The exporting process.
    pub pid: u32,
    /// The exporter's device.
    pub device: u32,
    /// The allocation's size (clr's `psize`; 0 for an event).
    pub size: u64,
    /// The exported pointer's offset in the allocation (`poffset`).
    pub offset: u64,
    /// The shared-memory file.
    pub name: String,
}

impl Handle {
    /// The handle's bytes.
    pub fn encode(&self) -> Result<[u8; 64], hipError_t> {
        if self.name.len() > NAME_LEN {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        let mut out = [0u8; 64];
        out[..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&self.pid.to_le_bytes());
        out[12..16].copy_from_slice(&self.device.to_le_bytes());
        out[16..24].copy_from_slice(&self.size.to_le_bytes());
        out[24..32].copy_from_slice(&self.offset.to_le_bytes());
        out[NAME_AT..NAME_AT + self.name.len()].copy_from_slice(self.name.as_bytes());
        Ok(out)
    }

    /// Read a handle; `None` for bytes this simulator did not make (a
    /// zeroed handle among them).
    pub fn decode(bytes: &[u8; 64]) -> Option<Handle> {
        if bytes[..8] != MAGIC {
            return None;
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
        let name = &bytes[NAME_AT..];
        let name = &name[..name.iter().position(|b| *b == 0).unwrap_or(NAME_LEN)];
        Some(Handle {
            pid: half(8),
            device: half(12),
            size: word(16),
            offset: word(24),
            name: String::from_utf8(name.to_vec()).ok()?,
        })
    }
}

/// This process's id, as handles carry it.
pub(crate) fn this_process() -> u32 {
    hip_abi::shared::ipc::this_process()
}

/// The files of the allocations this process exported, by base address.
static EXPORTED: Mutex<Option<HashMap<usize, Arc<SharedFile>>>> = Mutex::new(None);

/// The file of the allocation at `base` if it was exported already.
pub(crate) fn exported(base: usize) -> Option<Arc<SharedFile>> {
    lock(&EXPORTED).as_ref()?.get(&base).cloned()
}

/// Note the file of the allocation at `base`, exported now.
pub(crate) fn note_export(base: usize, file: Arc<SharedFile>) {
    lock(&EXPORTED).get_or_insert_with(HashMap::new).insert(base, file);
}

/// The allocation at `base` was freed: its handles stop opening.
pub(crate) fn freed(base: usize) {
    if let Some(file) = lock(&EXPORTED).as_mut().and_then(|m| m.remove(&base)) {
        file.unlink();
    }
}

/// An allocation this process opened from a handle.
struct Opened {
    /// Its base in this process, on `device`.
    base: usize,
    device: usize,
    /// Opens not yet closed.
    count: usize,
}

/// What this process opened, by file name.
static OPENED: Mutex<Option<HashMap<String, Opened>>> = Mutex::new(None);

/// The base of the allocation already opened from `name` (counting this
/// open), if any.
pub(crate) fn reopen(name: &str) -> Option<usize> {
    let mut opened = lock(&OPENED);
    let entry = opened.as_mut()?.get_mut(name)?;
    entry.count += 1;
    Some(entry.base)
}

/// Note an allocation opened from `name` at `base` of `device`.
pub(crate) fn note_open(name: &str, base: usize, device: usize) {
    lock(&OPENED).get_or_insert_with(HashMap::new).insert(name.to_owned(), Opened { base, device, count: 1 });
}

/// Count down the opens of the allocation at `base`; its device when the
/// last one closed (to unmap it), `Err` if nothing is open there.
pub(crate) fn close(base: usize) -> Result<Option<usize>, hipError_t> {
    let mut opened = lock(&OPENED);
    let map = opened.as_mut().ok_or(hipError_t::hipErrorInvalidValue)?;
    let name =
        map.iter().find(|(_, o)| o.base == base).map(|(n, _)| n.clone()).ok_or(hipError_t::hipErrorInvalidValue)?;
    let entry = map.get_mut(&name).ok_or(hipError_t::hipErrorInvalidValue)?;
    entry.count -= 1;
    if entry.count > 0 {
        return Ok(None);
    }
    let device = entry.device;
    map.remove(&name);
    Ok(Some(device))
}

/// The recordings of an exported event, in a file both processes map:
/// the exporter's process id, then how many recordings were made, then
/// through which one every recording has completed.
pub(crate) struct EventPage {
    file: SharedFile,
}

/// The page's length: a process id and two counters.
const PAGE: usize = 24;

impl EventPage {
    /// A new page, its counters at `recorded` and `completed`.
    pub fn create(recorded: u64, completed: u64) -> std::io::Result<EventPage> {
        let page = EventPage { file: shared::create("event", PAGE)? };
        page.word(0).store(u64::from(this_process()), Ordering::SeqCst);
        page.word(1).store(recorded, Ordering::SeqCst);
        page.word(2).store(completed, Ordering::SeqCst);
        Ok(page)
    }

    /// Open another process's page.
    pub fn open(name: &str) -> std::io::Result<EventPage> {
        Ok(EventPage { file: SharedFile::open(name, PAGE)? })
    }

    fn word(&self, index: usize) -> &AtomicU64 {
        // SAFETY: the file maps at least three aligned u64s (`PAGE`, from
        // a page-aligned mapping) for as long as `self` lives; every
        // process reaches them only through atomics.
        unsafe { &*self.file.ptr().cast::<AtomicU64>().add(index) }
    }

    /// The file's name, for a handle.
    pub fn name(&self) -> &str {
        self.file.name()
    }

    /// The process that exported the event.
    pub fn owner(&self) -> u32 {
        u32::try_from(self.word(0).load(Ordering::SeqCst)).unwrap_or(u32::MAX)
    }

    /// Start a recording; its number.
    pub fn record(&self) -> u64 {
        self.word(1).fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The latest recording.
    pub fn recorded(&self) -> u64 {
        self.word(1).load(Ordering::SeqCst)
    }

    /// Recording `generation` (and every one before it) has completed.
    pub fn complete(&self, generation: u64) {
        self.word(2).fetch_max(generation, Ordering::SeqCst);
    }

    /// Whether recording `generation` has completed.
    pub fn done(&self, generation: u64) -> bool {
        self.word(2).load(Ordering::SeqCst) >= generation
    }

    /// Wait until recording `generation` has completed, polling (the
    /// other process completes it), as clr's `IPCEvent::synchronize` does.
    pub fn wait(&self, generation: u64) {
        while !self.done(generation) {
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// The exporter's event went: the page's name is removed.
    pub fn unlink(&self) {
        self.file.unlink();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_reads_back_and_foreign_bytes_do_not() {
        let handle = Handle { pid: 7, device: 1, size: 4096, offset: 256, name: "hip-sim-mem-7-0".into() };
        assert_eq!(Handle::decode(&handle.encode().unwrap()), Some(handle));
        assert_eq!(Handle::decode(&[0; 64]), None, "a zeroed handle");
        let long = Handle { pid: 1, device: 0, size: 1, offset: 0, name: "x".repeat(40) };
        assert_eq!(long.encode(), Err(hipError_t::hipErrorInvalidValue));
    }

    #[test]
    fn an_event_page_counts_recordings_for_both_sides() {
        let page = EventPage::create(2, 2).unwrap();
        let other = EventPage::open(page.name()).unwrap();
        assert_eq!((other.owner(), other.recorded()), (this_process(), 2));
        let third = other.record();
        assert_eq!(third, 3);
        assert!(!page.done(third));
        page.complete(third);
        other.wait(third);
        page.unlink();
        assert!(EventPage::open(page.name()).is_err());
    }
}
