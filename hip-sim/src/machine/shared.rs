//! Named shared memory: what the simulator puts between processes for
//! IPC (an exported allocation's bytes, an exported event's state), as
//! clr puts an IPC event in a named file mapped by both processes.
//!
//! A file is created under `/dev/shm` (the temporary folder where there is
//! none) by the exporter, which unlinks it when the memory or event goes;
//! an importer opens it by name while it exists, and its mapping stays
//! valid after the unlink, as a real importer's does after the exporter
//! frees. A process that exits with exports unlinks nothing; the next
//! process to create one removes the files of processes that are gone.

use crate::shared::ipc::{shared_memory_folder, sweep_orphans_once};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

/// A shared-memory file mapped into this process.
pub(crate) struct SharedFile {
    name: String,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain memory shared with other processes; every
// access goes through raw pointers under the simulator's own locks (an
// allocation's bytes) or through atomics (an event's state), from any
// thread.
unsafe impl Send for SharedFile {}
// SAFETY: as for `Send`.
unsafe impl Sync for SharedFile {}

impl SharedFile {
    /// A new zeroed file of `len` bytes named after `kind`, this process
    /// and a counter. What processes that have exited left (they never
    /// unlink what they still exported at exit) is removed at the first.
    pub fn create(kind: &str, len: usize) -> io::Result<SharedFile> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        sweep_orphans_once(&format!("hip-sim-{kind}-"));
        let name = format!("hip-sim-{kind}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(shared_memory_folder().join(&name))?;
        file.set_len(len.max(1) as u64)?;
        Self::map(name, &file, len)
    }

    /// Open the file `name` another process created, of at least `len`
    /// bytes.
    pub fn open(name: &str, len: usize) -> io::Result<SharedFile> {
        if name.is_empty() || name.contains('/') {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a shared-memory name"));
        }
        let file = OpenOptions::new().read(true).write(true).open(shared_memory_folder().join(name))?;
        if (file.metadata()?.len() as usize) < len {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "shorter than the handle says"));
        }
        Self::map(name.to_owned(), &file, len)
    }

    fn map(name: String, file: &File, len: usize) -> io::Result<SharedFile> {
        // SAFETY: a fresh shared read-write mapping of `len` bytes (at least
        // one) of an open file at least that long; the address is the
        // kernel's choice.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len.max(1),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(ptr.cast::<u8>()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(SharedFile { name, ptr, len })
    }

    /// The file's name, which a handle carries.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The mapping's first byte.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Remove the name: no process can open the file any more; the
    /// mappings stay.
    pub fn unlink(&self) {
        let _ = std::fs::remove_file(shared_memory_folder().join(&self.name));
    }
}

impl Drop for SharedFile {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len.max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_shared_by_two_mappings_until_unlinked() {
        let made = SharedFile::create("test", 4096).unwrap();
        let opened = SharedFile::open(made.name(), 4096).unwrap();
        // SAFETY: both map 4096 bytes of one file.
        unsafe {
            made.ptr().add(100).write(42);
            assert_eq!(opened.ptr().add(100).read(), 42);
        }
        assert!(SharedFile::open(made.name(), 8192).is_err(), "longer than the file");
        made.unlink();
        assert!(SharedFile::open(made.name(), 4096).is_err(), "gone once unlinked");
        // SAFETY: the mapping outlives the name.
        unsafe { assert_eq!(opened.ptr().add(100).read(), 42) };
        assert!(SharedFile::open("../etc/passwd", 1).is_err());
    }
}
