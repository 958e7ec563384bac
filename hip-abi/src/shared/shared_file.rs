//! [`SharedFile`]: a file in the shared-memory folder mapped into this
//! process, which other processes map too: what the simulator's exported
//! allocations and events live in, and the pool's ledgers of shares.
//!
//! The creator unlinks the file when what it holds goes; another process
//! opens it by name while it exists, and its mapping stays valid after the
//! unlink, as a real importer's does after the exporter frees.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

use super::ipc::shared_memory_folder;

/// A shared-memory file mapped into this process, unmapped when it drops.
#[derive(Debug)]
pub struct SharedFile {
    name: String,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain memory shared with other processes, valid
// until the value drops; its users reach it through raw pointers under
// their own locks, or through atomics, from any thread.
unsafe impl Send for SharedFile {}
// SAFETY: as for `Send`.
unsafe impl Sync for SharedFile {}

impl SharedFile {
    /// A new zeroed file `name` of `len` bytes, readable and writable by
    /// this user only; an error if it exists.
    pub fn create(name: &str, len: usize) -> io::Result<SharedFile> {
        let name = checked(name)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(shared_memory_folder().join(name))?;
        file.set_len(len.max(1) as u64)?;
        Self::map(name, &file, len)
    }

    /// The file `name` another process created, of at least `len` bytes.
    pub fn open(name: &str, len: usize) -> io::Result<SharedFile> {
        let name = checked(name)?;
        let file = OpenOptions::new().read(true).write(true).open(shared_memory_folder().join(name))?;
        if file.metadata()?.len() < len as u64 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "the file is shorter than its handle says"));
        }
        Self::map(name, &file, len)
    }

    fn map(name: &str, file: &File, len: usize) -> io::Result<SharedFile> {
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
        Ok(SharedFile { name: name.to_owned(), ptr, len })
    }

    /// The file's name, which handles carry.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The mapping's first byte (page-aligned).
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The 64-bit words `start..start + count` of the mapping, or `None`
    /// past its end: for state every process changes atomically.
    pub fn words(&self, start: usize, count: usize) -> Option<&[AtomicU64]> {
        let end = start.checked_add(count)?.checked_mul(8)?;
        if end > self.len {
            return None;
        }
        // SAFETY: inside the mapping (checked), which is page-aligned and
        // so aligned for `AtomicU64`, and lives as long as `self`; shared
        // memory that every process reaches only through atomics where
        // it reaches it through words.
        Some(unsafe { std::slice::from_raw_parts(self.ptr().cast::<AtomicU64>().add(start), count) })
    }

    /// Remove the name: no process can open the file any more; the
    /// mappings stay.
    pub fn unlink(&self) {
        let _ = std::fs::remove_file(shared_memory_folder().join(&self.name));
    }
}

/// `name` if it names a file of the shared-memory folder itself.
fn checked(name: &str) -> io::Result<&str> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a shared-memory file's name"));
    }
    Ok(name)
}

impl Drop for SharedFile {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once, with no
        // reference into it left (`words` borrows `self`).
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len.max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_file_is_shared_by_two_mappings_until_unlinked() {
        let name = format!("shared-file-test-{}", std::process::id());
        let made = SharedFile::create(&name, 4096).unwrap();
        let opened = SharedFile::open(made.name(), 4096).unwrap();
        // SAFETY: both map 4096 bytes of one file.
        unsafe {
            made.ptr().add(100).write(42);
            assert_eq!(opened.ptr().add(100).read(), 42);
        }
        made.words(3, 1).unwrap()[0].store(7, Ordering::SeqCst);
        assert_eq!(opened.words(0, 512).unwrap()[3].load(Ordering::SeqCst), 7);
        assert!(opened.words(511, 2).is_none() && opened.words(usize::MAX, 2).is_none(), "past the end");
        assert!(SharedFile::create(&name, 4096).is_err(), "it exists");
        assert!(SharedFile::open(made.name(), 8192).is_err(), "longer than the file");
        made.unlink();
        assert!(SharedFile::open(made.name(), 4096).is_err(), "gone once unlinked");
        // SAFETY: the mapping outlives the name.
        unsafe { assert_eq!(opened.ptr().add(100).read(), 42) };
        for bad in ["../etc/passwd", "", ".."] {
            assert!(SharedFile::open(bad, 1).is_err(), "{bad:?}");
        }
    }
}
