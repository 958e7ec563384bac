//! A file in the shared-memory folder mapped into this process as words
//! that every process mapping it reads and writes atomically: what the
//! ledgers of shares live in.

use std::io;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

use hip_sys::shared::ipc::shared_memory_folder;

/// A mapped shared-memory file of `words` 64-bit words.
#[derive(Debug)]
pub(crate) struct Mapping {
    name: String,
    words: NonNull<AtomicU64>,
    len: usize,
}

// SAFETY: the mapping is memory shared with other processes that every
// process (and thread) reaches only through atomics; it stays mapped
// until the value drops.
unsafe impl Send for Mapping {}
// SAFETY: as for `Send`.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// A new file `name` of `len` zeroed words, readable and writable by
    /// this user only.
    pub fn create(name: &str, len: usize) -> io::Result<Mapping> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(shared_memory_folder().join(name))?;
        file.set_len(bytes(len)? as u64)?;
        Self::map(name, &file, len)
    }

    /// The file `name` another process created, of at least `len` words.
    pub fn open(name: &str, len: usize) -> io::Result<Mapping> {
        let file = std::fs::OpenOptions::new().read(true).write(true).open(shared_memory_folder().join(name))?;
        if file.metadata()?.len() < bytes(len)? as u64 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "the file is shorter than a ledger"));
        }
        Self::map(name, &file, len)
    }

    #[cfg(target_os = "linux")]
    fn map(name: &str, file: &std::fs::File, len: usize) -> io::Result<Mapping> {
        use std::os::unix::io::AsRawFd;
        let size = bytes(len)?.max(1);
        // SAFETY: a fresh shared read-write mapping of `size` bytes of an
        // open file at least that long, at an address the kernel picks.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let words = NonNull::new(ptr.cast::<AtomicU64>()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Mapping { name: name.to_owned(), words, len })
    }

    #[cfg(not(target_os = "linux"))]
    fn map(_: &str, _: &std::fs::File, _: usize) -> io::Result<Mapping> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "sharing memory with other processes needs Linux"))
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Words `start..start + count`, or `None` past the end.
    pub fn words(&self, start: usize, count: usize) -> Option<&[AtomicU64]> {
        if start.checked_add(count)? > self.len {
            return None;
        }
        // SAFETY: inside the mapping (checked), which is page-aligned and
        // so aligned for `AtomicU64`, and lives as long as `self`; shared
        // memory every process reaches only through atomics.
        Some(unsafe { std::slice::from_raw_parts(self.words.as_ptr().add(start), count) })
    }
}

/// `len` words in bytes.
fn bytes(len: usize) -> io::Result<usize> {
    len.checked_mul(8).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "too many words"))
}

impl Drop for Mapping {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: the mapping `map` made, unmapped once, with no reference
        // into it left (they borrow `self`).
        unsafe {
            libc::munmap(self.words.as_ptr().cast(), self.len.saturating_mul(8).max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn two_mappings_of_one_file_share_its_words() {
        let name = format!("amdgpu-mapping-test-{}", std::process::id());
        let made = Mapping::create(&name, 16).unwrap();
        let opened = Mapping::open(&name, 16).unwrap();
        made.words(3, 1).unwrap()[0].store(42, Ordering::SeqCst);
        assert_eq!(opened.words(0, 16).unwrap()[3].load(Ordering::SeqCst), 42);
        assert!(opened.words(15, 2).is_none() && opened.words(usize::MAX, 2).is_none(), "past the end");
        assert!(Mapping::open(&name, 17).is_err(), "longer than the file");
        assert!(Mapping::create(&name, 16).is_err(), "it exists");
        std::fs::remove_file(shared_memory_folder().join(&name)).unwrap();
        assert_eq!(made.words(3, 1).unwrap()[0].load(Ordering::SeqCst), 42, "mapped past the unlink");
    }
}
