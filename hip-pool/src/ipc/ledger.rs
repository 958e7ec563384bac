//! The ledger of an exported buffer: which processes have it open, so
//! that the exporter never gives the memory back under one of them, and
//! never waits forever for one that died.
//!
//! A ledger is a folder under `/dev/shm` (the temporary folder where
//! there is none). An importer *joins* by creating a file named after its
//! process in it before it opens the memory, and leaves by removing it
//! after it closed it. The exporter *closes* the ledger atomically: it
//! renames the folder (after which no importer can join: the path is
//! gone), then looks inside. An entry of a living process means the
//! memory is still open there: the folder gets its name back and the
//! memory is kept. An entry of a process that is gone is removed (an
//! importer that died left it), so a crash never keeps memory forever.
//! With no living entry the folder is removed and the memory can go.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hip_sys::shared::ipc::{process_alive, shared_memory_folder, sweep_orphans_once};

/// The start of every ledger's name.
const PREFIX: &str = "amdgpu-ipc-";

/// The name a closing ledger has while the exporter looks inside.
fn closing(path: &Path) -> PathBuf {
    path.with_extension("closing")
}

/// An exporter's ledger.
#[derive(Debug)]
pub(crate) struct Ledger {
    path: PathBuf,
}

impl Ledger {
    /// A new, empty ledger. The ledgers of exporters that have exited (a
    /// process keeps its shares to the end) are removed at this process's
    /// first share.
    pub fn create() -> io::Result<Ledger> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        sweep_orphans_once(PREFIX);
        let name = format!("{PREFIX}{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let path = shared_memory_folder().join(name);
        fs::create_dir(&path)?;
        Ok(Ledger { path })
    }

    /// Its name, which handles carry.
    pub fn name(&self) -> String {
        self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// The processes that have the memory open now (entries of processes
    /// that are gone are removed).
    pub fn importers(&self) -> usize {
        live_entries(&self.path)
    }

    /// Close the ledger if no living process has the memory open: `true`
    /// (the memory may go; no process can join any more), else `false`
    /// (it is kept, the ledger open).
    pub fn close(&self) -> bool {
        let tombstone = closing(&self.path);
        if fs::rename(&self.path, &tombstone).is_err() {
            // Gone already (removed by hand): nobody can join.
            return !self.path.exists();
        }
        if live_entries(&tombstone) == 0 {
            let _ = fs::remove_dir_all(&tombstone);
            return true;
        }
        // Still open somewhere: the name back, for it to leave by. If
        // that fails, importers leave by the closing name (`Entry`'s
        // drop), and the memory is kept either way.
        if let Err(e) = fs::rename(&tombstone, &self.path) {
            log::warn!("an IPC ledger could not be reopened ({}: {e}): its memory stays kept", self.path.display());
        }
        false
    }
}

/// The entries of living processes in `dir`, removing the others.
fn live_entries(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    let mut live = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name.split('-').next().and_then(|p| p.parse::<u32>().ok());
        match pid {
            Some(pid) if process_alive(pid) => live += 1,
            _ => {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    live
}

/// An importer's entry in a ledger, removed when it drops.
#[derive(Debug)]
pub(crate) struct Entry {
    ledger: PathBuf,
    file: String,
}

impl Entry {
    /// Join the ledger `name`: `Err` (not found) once the exporter has
    /// closed it, or for a name that is no ledger.
    pub fn join(name: &str) -> io::Result<Entry> {
        if !name.starts_with(PREFIX) || name.contains('/') || name.contains("..") {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a ledger's name"));
        }
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let ledger = shared_memory_folder().join(name);
        let file = format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        fs::OpenOptions::new().write(true).create_new(true).open(ledger.join(&file))?;
        Ok(Entry { ledger, file })
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        // The exporter may be looking inside right now, under the
        // closing name: leave from there too.
        if fs::remove_file(self.ledger.join(&self.file)).is_err() {
            let _ = fs::remove_file(closing(&self.ledger).join(&self.file));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_closes_only_without_living_importers_and_then_refuses_joins() {
        let ledger = Ledger::create().unwrap();
        let entry = Entry::join(&ledger.name()).unwrap();
        assert_eq!(ledger.importers(), 1);
        assert!(!ledger.close(), "this process has it open");
        drop(entry);
        // An importer that died: its entry does not count.
        fs::write(ledger.path.join("4294967294-0"), b"").unwrap();
        assert_eq!(ledger.importers(), 0);
        assert!(ledger.close());
        assert!(Entry::join(&ledger.name()).is_err(), "closed: no one joins");
        assert!(Entry::join("../etc").is_err() && Entry::join("amdgpu-ipc-x/../y").is_err());
    }
}
