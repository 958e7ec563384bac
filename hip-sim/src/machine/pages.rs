//! Host memory the simulator maps itself for virtual memory: the pages of
//! a physical allocation (an anonymous file, which a file descriptor can
//! share as a real one's dma-buf does) and the mirror of a reserved
//! address range, where mapping physical pages puts that file's pages.
//!
//! So the bytes at a mapping are the physical allocation's own: two
//! mappings of one allocation show the same bytes, and a range across two
//! adjacent mappings is one contiguous slice, as on a GPU. Where nothing is
//! mapped the mirror holds private zero pages that no access may reach
//! (the virtual-memory model checks every access first), so a slice over
//! the whole mirror is always readable memory.

use std::fs::File;
use std::io;
use std::os::unix::io::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::ptr::NonNull;

/// The host page, the unit of every mapping here (a reservation's,
/// mapping's and physical allocation's size are multiples of it).
pub(crate) const HOST_PAGE: usize = 4096;

/// The pages of one physical allocation: an anonymous file of `len` bytes.
pub(crate) struct Pages {
    file: File,
    len: usize,
}

impl Pages {
    /// `len` zeroed bytes (a multiple of [`HOST_PAGE`]).
    pub fn new(len: usize) -> io::Result<Pages> {
        // SAFETY: a NUL-terminated name and no flags; the result is checked.
        let fd = unsafe { libc::memfd_create(c"hip-sim-physical".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a descriptor just opened, owned by nothing else.
        let file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        file.set_len(len as u64)?;
        Ok(Pages { file, len })
    }

    /// The pages behind `fd`, a descriptor another allocation's
    /// [`share`](Self::share) gave (here or in another process); `None`
    /// for a descriptor that is no such file.
    pub fn adopt(fd: i32) -> Option<Pages> {
        let file = File::from(duplicate(fd).ok()?);
        let meta = file.metadata().ok()?;
        let len = usize::try_from(meta.len()).ok()?;
        (meta.is_file() && len != 0 && len % HOST_PAGE == 0).then_some(Pages { file, len })
    }

    /// A new descriptor of these pages for another process (the caller
    /// owns it).
    pub fn share(&self) -> io::Result<i32> {
        duplicate(self.file.as_raw_fd()).map(IntoRawFd::into_raw_fd)
    }

    /// Their size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
}

/// A new descriptor of what `fd` is, closed on exec; an error for a
/// number that is no open descriptor.
fn duplicate(fd: i32) -> io::Result<OwnedFd> {
    if fd < 0 {
        return Err(io::Error::from_raw_os_error(libc::EBADF));
    }
    // SAFETY: duplicating a descriptor number touches nothing; an invalid
    // one fails and is checked.
    let own = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if own < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just made, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(own) })
}

/// The host mirror of a reserved address range of `len` bytes.
pub(crate) struct Mirror {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mirror is plain memory; every access to its bytes goes
// through the lock of the allocation that holds it (`memory::Bytes`), and
// so does every change of what is mapped there.
unsafe impl Send for Mirror {}
// SAFETY: as for `Send`.
unsafe impl Sync for Mirror {}

impl Mirror {
    /// A range of `len` bytes (a multiple of [`HOST_PAGE`]) of zero pages
    /// that take no memory until touched.
    pub fn new(len: usize) -> io::Result<Mirror> {
        // SAFETY: a fresh private anonymous mapping at the kernel's choice
        // of address; checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(ptr.cast::<u8>()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Mirror { ptr, len })
    }

    /// Put the first `len` bytes of `pages` at `offset`.
    ///
    /// # Safety
    /// No reference to the mirror's bytes may be live: the caller holds the
    /// lock that every access takes. `offset` and `len` are multiples of
    /// [`HOST_PAGE`] with `offset + len <= self.len` and `len <= pages.len()`.
    pub unsafe fn map(&self, offset: usize, len: usize, pages: &Pages) -> io::Result<()> {
        // SAFETY: the caller's promise; the file's pages, shared.
        unsafe { self.replace(offset, len, libc::MAP_SHARED, pages.file.as_raw_fd()) }
    }

    /// Put zero pages back at `offset..offset + len`.
    ///
    /// # Safety
    /// As for [`map`](Self::map).
    pub unsafe fn unmap(&self, offset: usize, len: usize) -> io::Result<()> {
        // SAFETY: the caller's promise; private zero pages.
        unsafe { self.replace(offset, len, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1) }
    }

    /// Replace the pages at `offset..offset + len` with a mapping of
    /// `flags` over `fd` (-1 for anonymous memory).
    ///
    /// # Safety
    /// As for [`map`](Self::map).
    unsafe fn replace(&self, offset: usize, len: usize, flags: i32, fd: i32) -> io::Result<()> {
        // SAFETY: pages inside this mirror's own mapping (the caller's
        // bounds), replaced in place (`MAP_FIXED`); no borrow of them is
        // live (the caller's lock).
        let at = unsafe {
            libc::mmap(
                self.ptr.as_ptr().add(offset).cast(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags | libc::MAP_FIXED,
                fd,
                0,
            )
        };
        if at == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The first byte.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new` (pages mapped over it since are
        // part of it), unmapped once.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_pages_are_shared_and_unmapped_pages_are_zero_again() {
        let pages = Pages::new(2 * HOST_PAGE).unwrap();
        let mirror = Mirror::new(8 * HOST_PAGE).unwrap();
        let other = Mirror::new(2 * HOST_PAGE).unwrap();
        // SAFETY: page-multiple bounds inside both mirrors; no borrows.
        unsafe {
            mirror.map(3 * HOST_PAGE, 2 * HOST_PAGE, &pages).unwrap();
            other.map(0, 2 * HOST_PAGE, &pages).unwrap();
            mirror.ptr().add(3 * HOST_PAGE + 5).write(7);
            assert_eq!(other.ptr().add(5).read(), 7, "one allocation, two views");
            mirror.unmap(3 * HOST_PAGE, 2 * HOST_PAGE).unwrap();
            assert_eq!(mirror.ptr().add(3 * HOST_PAGE + 5).read(), 0);
            assert_eq!(other.ptr().add(5).read(), 7, "the pages live on");
        }
        let fd = pages.share().unwrap();
        let adopted = Pages::adopt(fd).unwrap();
        assert_eq!(adopted.len(), 2 * HOST_PAGE);
        // SAFETY: closing the descriptor `share` handed out.
        unsafe { libc::close(fd) };
        assert!(Pages::adopt(-1).is_none() && Pages::adopt(1 << 20).is_none());
    }
}
