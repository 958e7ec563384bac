//! Buffers of the expandable strategy shared with other processes: its
//! memory is chunks mapped into a reserved range, which
//! `hipIpcGetMemHandle` cannot share. Instead, as PyTorch shares its
//! expandable segments:
//!
//! - the exporter gives each chunk under the buffer a file descriptor
//!   (`hipMemExportToShareableHandle`), kept open until the share
//!   finishes, and the handle carries their numbers, the chunk size and
//!   when the exporting process started;
//! - the opener takes the descriptors out of the exporting process
//!   (`pidfd_getfd`, Linux 5.6: the opener needs the right to trace the
//!   exporter, which a process of the same user has without Yama, and
//!   under its `ptrace_scope` 1 once the exporter called
//!   [`allow_openers`]), imports each
//!   (`hipMemImportFromShareableHandle`), reserves a range of its own and
//!   maps them there in order.
//!
//! The start time guards against a recycled process id: the descriptors
//! are taken only from the process that made the handle.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::ledger::Entry;
use crate::driver::{virtual_memory, Driver};
use crate::error::{PoolError, Result};
use crate::pool::Buffer;
use crate::strategy::expandable::Chunks;
use hip_core::raw::vmm;
use hip_core::{Device, Stream};

use super::handle::MAX_CHUNKS;

/// What an exporter keeps of a share of chunks: their descriptors, open
/// until no process can open the share any more.
pub(crate) struct Exported {
    _descriptors: Vec<OwnedFd>,
}

/// Export `chunks` of `device`: the descriptors, to keep, and their numbers
/// for the handle.
pub(crate) fn export(device: Device, chunks: &Chunks) -> Result<(Exported, Vec<i32>)> {
    if chunks.handles.len() > MAX_CHUNKS {
        return Err(PoolError::Ipc(format!(
            "the buffer spans {} chunks of {} bytes, more than the {MAX_CHUNKS} one share can carry: share a \
             smaller buffer, or allocate it from a cached pool",
            chunks.handles.len(),
            chunks.chunk
        )));
    }
    let descriptors = chunks
        .handles
        .iter()
        // SAFETY: chunks of the pool's segment under a live buffer, which
        // keeps them mapped (and so their handles live) for the call.
        .map(|&handle| unsafe {
            vmm::export_fd(device, handle as hip_sys::bindings::hip::hipMemGenericAllocationHandle_t)
        })
        .collect::<std::result::Result<Vec<OwnedFd>, _>>()?;
    let numbers = descriptors.iter().map(AsRawFd::as_raw_fd).collect();
    Ok((Exported { _descriptors: descriptors }, numbers))
}

/// When this process started, in clock ticks since boot (`/proc`'s
/// `starttime`), which the handle carries: read once.
pub(crate) fn this_process_started() -> u64 {
    static STARTED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *STARTED.get_or_init(|| started(std::process::id()).unwrap_or(0))
}

/// When process `pid` started, or `None` where `/proc` does not say.
fn started(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name, in parentheses, may hold anything: the fields follow its
    // last one. `starttime` is the 22nd field, the 20th after the name.
    stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok()
}

/// Let other processes of this user open this process's shares of
/// expandable-pool buffers where Yama's `ptrace_scope` is 1 (Ubuntu's
/// default), under which only an ancestor may take a process's
/// descriptors: `prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)`. It lets any
/// process of this user trace this one; without Yama it changes nothing.
#[cfg(target_os = "linux")]
pub(crate) fn allow_openers() -> io::Result<()> {
    // SAFETY: prctl with plain integers; it changes only who may trace
    // this process.
    let set = unsafe { libc::prctl(libc::PR_SET_PTRACER, libc::PR_SET_PTRACER_ANY, 0, 0, 0) };
    let error = io::Error::last_os_error();
    match set {
        0 => Ok(()),
        // No Yama: nothing to allow.
        _ if error.raw_os_error() == Some(libc::EINVAL) => Ok(()),
        _ => Err(error),
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn allow_openers() -> io::Result<()> {
    Ok(())
}

/// The descriptors `numbers` of process `pid`, which started at
/// `started_at`, duplicated into this process.
#[cfg(target_os = "linux")]
fn take_descriptors(pid: u32, started_at: u64, numbers: &[i32]) -> io::Result<Vec<OwnedFd>> {
    let pid = libc::pid_t::try_from(pid).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "no process id"))?;
    // SAFETY: `pidfd_open(pid, 0)` takes plain integers and gives a new
    // descriptor or -1.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if pidfd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor just opened, owned here alone.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as i32) };
    // Opened before this check: a process found started at `started_at`
    // now is the one the descriptor names.
    if started(pid as u32) != Some(started_at) {
        return Err(io::Error::new(io::ErrorKind::NotFound, "the exporting process has exited"));
    }
    numbers
        .iter()
        .map(|&number| {
            // SAFETY: `pidfd_getfd(pidfd, fd, 0)` takes a live pidfd and
            // plain integers and gives a new descriptor or -1.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), number, 0) };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: the descriptor just duplicated here, owned alone.
            Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
        })
        .collect()
}

#[cfg(not(target_os = "linux"))]
fn take_descriptors(_: u32, _: u64, _: &[i32]) -> io::Result<Vec<OwnedFd>> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "taking another process's descriptors needs Linux"))
}

/// Open the chunks another process shared (`numbers`, of `chunk` bytes
/// each, of process `pid` started at `started_at`) on `stream`'s device,
/// mapped one after another: the buffer of `len` bytes at `offset` of
/// them, which closes them and leaves `entry` when it drops.
pub(crate) fn open(
    pid: u32,
    started_at: u64,
    chunk: u64,
    numbers: &[i32],
    (offset, len): (usize, usize),
    stream: &Stream,
    entry: Entry,
) -> Result<Buffer> {
    let device = stream.device();
    let chunks = || format!("{} chunks of {chunk} bytes", numbers.len());
    let chunk_size = usize::try_from(chunk).ok();
    let Some((chunk, size)) = chunk_size.and_then(|c| Some((c, c.checked_mul(numbers.len())?))) else {
        return Err(PoolError::Ipc(format!("the handle names {}, more than this machine addresses", chunks())));
    };
    super::check_place((offset, len), size, chunks)?;
    let descriptors = take_descriptors(pid, started_at, numbers).map_err(|e| {
        PoolError::Ipc(format!(
            "cannot take the exporting process's descriptors of its memory ({e}): it must still run, and this \
             process needs the right to trace it: under Yama's ptrace_scope 1 the exporter calls \
             hip_pool::ipc::allow_openers() first"
        ))
    })?;
    let mut opened = OpenedChunks { device, chunk, handles: Vec::new(), range: None, mapped: false, _entry: entry };
    for descriptor in &descriptors {
        opened.handles.push(vmm::import_fd(device, descriptor)? as usize);
    }
    drop(descriptors);
    let base = match virtual_memory::reserve(device, size) {
        Driver::Ok(base) => base,
        Driver::OutOfMemory => {
            return Err(PoolError::Ipc(format!("no {size} bytes of addresses left on {device} to map the chunks")))
        }
        Driver::Failed(error) => return Err(error.into()),
    };
    opened.range = Some((base, size));
    // SAFETY: a fresh reservation of the chunks' size with nothing mapped;
    // live handles of whole chunks (their exporter made them so).
    unsafe { virtual_memory::map_handles(device, base, chunk, &opened.handles, &[device]) }?;
    opened.mapped = true;
    let ptr = (base + offset) as *mut std::ffi::c_void;
    // SAFETY: `len` bytes at `offset` of the chunks just mapped (checked
    // against their size), device memory of `stream`'s device, mapped
    // until the release unmaps them, which runs after every use is waited
    // for.
    Ok(unsafe { Buffer::foreign(ptr, len, stream, move || drop(opened)) })
}

/// Chunks of another process opened here: unmapped, released and their
/// range freed, then the ledger left, when it drops.
struct OpenedChunks {
    device: Device,
    chunk: usize,
    handles: Vec<usize>,
    /// The reservation, once made.
    range: Option<(usize, usize)>,
    /// Whether every handle is mapped there.
    mapped: bool,
    /// Left after the rest (fields drop after `drop`).
    _entry: Entry,
}

impl Drop for OpenedChunks {
    fn drop(&mut self) {
        let device = self.device;
        match (self.range, self.mapped) {
            (Some((base, _)), true) => {
                // SAFETY: the chunks this value mapped at `base`, unmapped
                // and released once, after the buffer's uses (the foreign
                // buffer's release runs after them).
                if let Err((error, _)) = unsafe { virtual_memory::unmap(device, base, self.chunk, &self.handles) } {
                    log::error!("closing memory opened from another process: {error}");
                }
            }
            // SAFETY: imported handles mapped nowhere, released once.
            _ => unsafe { virtual_memory::release(device, &self.handles) },
        }
        if let Some((base, size)) = self.range {
            // SAFETY: this value's reservation, with nothing mapped any
            // more, freed once.
            if let Err(error) = unsafe { virtual_memory::free_reservation(device, base, size) } {
                log::error!("freeing the addresses of memory opened from another process: {error}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_over_too_many_chunks_is_refused_before_any_call() {
        let chunks = Chunks { at: 0, chunk: 20 << 20, handles: vec![0; MAX_CHUNKS + 1] };
        let refused = export(Device::new(0).unwrap(), &chunks).err().unwrap().to_string();
        assert!(refused.contains("65 chunks"), "{refused}");
    }

    #[test]
    fn a_place_past_the_chunks_is_refused_before_any_descriptor_is_taken() {
        let ledger = super::super::ledger::Ledger::create().unwrap();
        let stream = Stream::new_on(Device::new(0).unwrap()).unwrap();
        let join = || Entry::join(&ledger.place()).unwrap();
        // 4 KiB past two chunks of 2 MiB; descriptors that name nothing.
        let past = open(1, 0, 2 << 20, &[-1, -1], (4 << 20, 4096), &stream, join()).err().unwrap().to_string();
        assert!(past.contains("of 2 chunks of 2097152 bytes: it is corrupt"), "{past}");
        let empty = open(1, 0, 2 << 20, &[-1], (0, 0), &stream, join()).err().unwrap().to_string();
        assert!(empty.contains("it is corrupt"), "{empty}");
        let huge = open(1, 0, u64::MAX, &[-1, -1], (0, 1), &stream, join()).err().unwrap().to_string();
        assert!(huge.contains("more than this machine addresses"), "{huge}");
        assert_eq!(ledger.importers(), 0, "every refused open left the ledger");
    }

    #[test]
    fn a_process_start_time_is_read_and_a_recycled_id_is_told_apart() {
        let now = this_process_started();
        assert!(now > 0);
        assert_eq!(started(std::process::id()), Some(now));
        assert_eq!(started(4_294_967_294), None);
        let refused = take_descriptors(std::process::id(), now + 1, &[0]).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::NotFound, "another process under the same id");
        let own = take_descriptors(std::process::id(), now, &[0]).unwrap();
        assert_eq!(own.len(), 1, "this process's own standard input, duplicated");
    }
}
