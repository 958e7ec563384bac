//! Pooled memory shared with other processes.
//!
//! - [`share`] gives a buffer's [`IpcHandle`], which another process
//!   opens with [`open`] as a buffer over the same memory. The handle
//!   carries HIP's memory handle of the pool's segment and the buffer's
//!   place in it (as PyTorch shares a block of its caching allocator; an
//!   expandable pool's chunks go by descriptor, see `chunks`), and HIP's
//!   handle of an event recorded after the buffer's queued work: the
//!   opener's stream waits for that event on the GPU (unless a query
//!   finds it done already), so the exporter's writes come before the
//!   opener's reads without a host synchronize. The exporter keeps its
//!   buffer and uses it as before.
//! - **Lifetime across processes.** Importers join the share's ledger (a
//!   slot of a file in shared memory, changed with atomic operations only)
//!   before they open the memory and leave after they close it. A shared
//!   buffer is *held* (as a graph holds a buffer it uses): when it drops,
//!   its block goes back to the pool only once the ledger closes with no
//!   living importer. Until then the block (and so its segment: the pool
//!   never reclaims a segment with a live block) is kept, and retried at
//!   [`collect`], `reclaim`, the idle cleanup, the out-of-memory ladder
//!   (before an allocation fails), and at every [`share`] a few shares at
//!   a time, in turn (a share costs no walk over every live one). An
//!   importer that dies leaves a count of a process that is gone, which
//!   does not count: its memory is not kept forever.
//! - **The opened buffer** ([`open`]) is foreign memory on the opener's
//!   stream: used like any buffer; dropped, it waits for its uses, closes
//!   HIP's handle and leaves the ledger.
//! - **What it costs.** The IPC events are made once and used again, on
//!   both sides; the ledger files stay mapped. A share and an open add a
//!   few atomic operations, a stream query and an event recording (none
//!   where the stream is idle), and an event query (a stream's wait where
//!   the exporter's work is still running) to the memory's own IPC calls;
//!   the close adds a stream query (a wait where the stream has work
//!   left).
//!
//! Uses from both processes after the hand-over are ordered by the
//! program (IPC events: `hip_core::Event::interprocess_on`,
//! `ipc_handle`, `open_ipc`), as on a GPU: the simulator's race detector
//! sees each process's accesses, not the other's.

mod chunks;
mod events;
mod handle;
mod ledger;

pub use handle::IpcHandle;
use handle::Memory;

use crate::error::{PoolError, Result};
use crate::pool::{Access, Buffer};
use crate::uses::UseList;
use hip_core::raw;
use hip_core::Stream;
use hip_sys::shared::ipc::this_process;
use hip_sys::sync::MutexExt;
use ledger::{Entry, Ledger};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A share of a buffer: its hold on the block, the ledger importers join,
/// and the event they wait for (kept until no process can open the share,
/// so that its handle opens and no other share records it).
struct Share {
    list: Arc<UseList>,
    holder: u64,
    ledger: Ledger,
    event: events::SharedEvent,
    /// For a buffer of the expandable strategy, its chunks' descriptors.
    _chunks: Option<chunks::Exported>,
}

impl Share {
    /// Whether the buffer has gone and the ledger closed with no living
    /// importer: the block may go back.
    fn finished(&self) -> bool {
        self.list.has_deferred() && self.ledger.close()
    }

    /// Give the block back to its pool, and the event to the shared ones.
    fn finish(self) {
        if let Some(release) = self.list.unhold(self.holder) {
            release();
        }
        self.event.give_back();
    }
}

/// Every share not finished yet, and where [`share`] looks next.
struct Shares {
    list: Vec<Share>,
    next: usize,
}

static SHARES: Mutex<Shares> = Mutex::new(Shares { list: Vec::new(), next: 0 });

/// Shares each [`share`] looks at, in turn, to finish those that are: a
/// share costs no walk over every live share, and where shares finish in
/// the order they were made (a buffer handed on, opened, closed and
/// dropped, again and again) the finished one is found at once.
const LOOKED_AT: usize = 4;

/// Finish the finished shares among the next `count` (every one, at
/// most), in turn from where the last call stopped; how many shares are
/// left. The blocks go back outside the lock: a release may take the
/// pool's.
fn finish_some(count: usize) -> usize {
    let (done, left) = {
        let mut shares = SHARES.lock_unpoisoned();
        let shares = &mut *shares;
        let mut done = Vec::new();
        // Each share is looked at once: one swapped into a finished one's
        // place is looked at next.
        for _ in 0..count.min(shares.list.len()) {
            if shares.next >= shares.list.len() {
                shares.next = 0;
            }
            if shares.list[shares.next].finished() {
                done.push(shares.list.swap_remove(shares.next));
            } else {
                shares.next += 1;
            }
        }
        (done, shares.list.len())
    };
    done.into_iter().for_each(Share::finish);
    left
}

/// Run [`collect`] on the out-of-memory ladder (a reclaim hook), once a
/// share was made: a dropped shared buffer no process has open goes back
/// before an allocation fails.
fn collect_on_out_of_memory() {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        crate::register_reclaim_hook(|_| {
            collect();
            0
        });
    });
}

/// The holder of a new share.
fn next_holder() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    crate::uses::SHARE_HOLDS | NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The handle another process opens `buffer` by, with [`open`].
///
/// The buffer's stream first waits for its uses on other streams; an IPC
/// event is recorded on it after them, which [`open`] waits for (where the
/// stream is idle already, the event is not recorded again: its last
/// recording, done, says the buffer's work is). The
/// buffer stays this process's to use; when it drops, its block is kept
/// until no living process has this share open.
///
/// # Errors
/// [`PoolError::Ipc`] for an empty buffer, memory another library owns
/// (imported memory cannot be shared again), or a buffer of the
/// [`Strategy::Expandable`](crate::Strategy::Expandable) strategy over
/// more than 64 chunks; HIP's status where the memory cannot be shared
/// (`hipErrorInvalidValue` for the `async` strategy's stream-ordered
/// memory); the ledger's creation failing.
///
/// # Examples
/// ```
/// let buffer = hip_pool::alloc(4096)?;
/// let handle = hip_pool::ipc::share(&buffer)?;
/// let bytes = handle.to_bytes(); // for the other process
/// assert_eq!(hip_pool::ipc::IpcHandle::from_bytes(&bytes)?.len(), 4096);
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
#[doc(alias = "hipIpcGetMemHandle")]
pub fn share(buffer: &Buffer) -> Result<IpcHandle> {
    finish_some(LOOKED_AT);
    if buffer.is_empty() || buffer.is_foreign() {
        return Err(PoolError::Ipc(
            "an empty buffer, or memory another library owns, cannot be shared: share a buffer of the pool".to_owned(),
        ));
    }
    let (device, stream) = (buffer.device(), buffer.stream().clone());
    let ptr = buffer.as_ptr();
    let (memory, offset, exported) = match buffer.mapped_chunks() {
        Some(chunks) => {
            let (exported, descriptors) = chunks::export(device, &chunks)?;
            let started = chunks::this_process_started();
            let memory = Memory::Chunks { chunk: chunks.chunk as u64, started, descriptors };
            (memory, ptr as usize - chunks.at, Some(exported))
        }
        None => {
            // The pool knows its segments; other memory asks the driver.
            let base = match buffer.segment_start() {
                Some(start) => start as *mut c_void,
                None => raw::mem::address_range(device, ptr)?.0,
            };
            // SAFETY: the buffer's device memory.
            let memory = unsafe { raw::ipc::memory_handle(device, ptr) }?;
            (Memory::Allocation(memory.reserved.map(|c| c as u8)), ptr as usize - base as usize, None)
        }
    };
    // Its uses on other streams first, then the event the opener waits for.
    buffer.prepare(&stream, Access::Write)?;
    let mut event = events::SharedEvent::take(device)?;
    // Where the stream is idle, the buffer's work is done: the event's last
    // recording, done too (it was on this idle stream, or a query says
    // so), tells the opener so without a new one (which costs an
    // interprocess event far more than the memory's handle). A query that
    // fails (a capture underway) records.
    let done = stream.query().unwrap_or(false)
        && (event.recorded_on == Some(stream.id()) || event.event.query().unwrap_or(false));
    if !done {
        event.event.record(&stream)?;
        event.recorded_on = Some(stream.id());
    }
    let ledger = Ledger::create().map_err(|e| PoolError::Ipc(format!("cannot make the share's ledger: {e}")))?;
    let handle = IpcHandle {
        memory,
        event: event.handle.0,
        offset: offset as u64,
        len: buffer.len() as u64,
        device: u32::try_from(device.ordinal()).unwrap_or(u32::MAX),
        pid: this_process(),
        ledger: ledger.place(),
    };
    let holder = next_holder();
    let list = buffer.hold_for(holder);
    SHARES.lock_unpoisoned().list.push(Share { list, holder, ledger, event, _chunks: exported });
    collect_on_out_of_memory();
    Ok(handle)
}

/// Let other processes of this user open this process's shares of
/// [`Strategy::Expandable`](crate::Strategy::Expandable) buffers where
/// Yama's `ptrace_scope` is 1 (Ubuntu's default). Those buffers go to the
/// opener by file descriptor, which it takes from this process
/// (`pidfd_getfd`), and under that setting only an ancestor may. This
/// calls `prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)`: any process of
/// this user may then trace this one, so it is never done unasked. Without
/// Yama it changes nothing; with `ptrace_scope` 2 or 3 no process may, and
/// expandable buffers cannot be shared (a cached pool's can).
///
/// # Errors
/// [`PoolError::Ipc`] with the system's error where `prctl` refuses.
///
/// # Examples
/// ```
/// hip_pool::ipc::allow_openers()?;
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
#[doc(alias = "PR_SET_PTRACER")]
pub fn allow_openers() -> Result<()> {
    chunks::allow_openers()
        .map_err(|e| PoolError::Ipc(format!("cannot let other processes open this one's shares: {e}")))
}

/// How many processes have the share of `handle` open now (0 for a share
/// of another process, or one finished).
pub fn importers(handle: &IpcHandle) -> usize {
    let shares = SHARES.lock_unpoisoned();
    shares.list.iter().find(|s| s.ledger.place() == handle.ledger).map_or(0, |s| s.ledger.importers())
}

/// Finish the shares whose buffer has gone and whose ledger closed with
/// no living importer: their blocks go back to the pool. How many shares
/// are left (buffers alive, or open in another process).
pub fn collect() -> usize {
    finish_some(usize::MAX)
}

/// Open another process's shared buffer on `stream` (of the exporter's
/// device, or one that can reach it): a buffer over the same memory.
/// `stream` waits on the GPU for the exporter's work queued before it
/// shared the buffer (no wait is queued where that work has finished).
///
/// # Errors
/// [`PoolError::Ipc`] when the exporter has already given the memory back
/// (its ledger closed), the handle's place does not fit the allocation
/// it names, or, for an expandable pool's buffer, its chunks' descriptors
/// cannot be taken from the exporting process (it exited, or this
/// process may not trace it); HIP's status of opening the memory or the
/// event (`hipErrorInvalidContext` for a handle of this process).
///
/// # Examples
/// A handle of this very process cannot be opened here:
/// ```
/// let buffer = hip_pool::alloc(4096)?;
/// let handle = hip_pool::ipc::share(&buffer)?;
/// let stream = hip_core::Stream::new_on(buffer.device())?;
/// assert!(hip_pool::ipc::open(&handle, &stream).is_err());
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
#[doc(alias = "hipIpcOpenMemHandle")]
pub fn open(handle: &IpcHandle, stream: &Stream) -> Result<Buffer> {
    if handle.pid == this_process() {
        return Err(PoolError::Ipc(
            "this handle was made by this process: use the shared buffer itself here".to_owned(),
        ));
    }
    let device = stream.device();
    // Joined before the open: the exporter cannot give the memory back
    // from now until the entry leaves.
    let entry = Entry::join(&handle.ledger).map_err(|e| match e.kind() {
        std::io::ErrorKind::QuotaExceeded => {
            PoolError::Ipc(format!("{e}, the most one share can have: close it in one of them first"))
        }
        _ => {
            PoolError::Ipc(format!("the exporting process no longer shares this buffer ({e}): ask it for a new handle"))
        }
    })?;
    let (Ok(offset), Ok(len)) = (usize::try_from(handle.offset), usize::try_from(handle.len)) else {
        return Err(PoolError::Ipc("the handle's place does not fit this machine's addresses".to_owned()));
    };
    let buffer = match &handle.memory {
        Memory::Allocation(memory) => open_allocation(memory, (offset, len), stream, entry)?,
        Memory::Chunks { chunk, started, descriptors } => {
            chunks::open(handle.pid, *started, *chunk, descriptors, (offset, len), stream, entry)?
        }
    };
    let event = events::open(handle.pid, device, &hip_core::IpcEventHandle(handle.event))?;
    // Work the event already saw finish needs no wait on the GPU; a wait
    // queued for nothing would make the buffer's release wait for the GPU
    // to reach it. A query that fails (a capture underway) waits instead.
    if !event.query().unwrap_or(false) {
        stream.wait(&event)?;
    }
    Ok(buffer)
}

/// Open the allocation of HIP's IPC handle `memory` on `stream`'s
/// device: the buffer of `len` bytes at `offset` of it, which closes it and
/// leaves `entry` when it drops.
fn open_allocation(memory: &[u8; 64], (offset, len): (usize, usize), stream: &Stream, entry: Entry) -> Result<Buffer> {
    let device = stream.device();
    let raw_memory = hip_sys::bindings::hip::hipIpcMemHandle_t { reserved: memory.map(|b| b as std::ffi::c_char) };
    let base = raw::ipc::open_memory(device, raw_memory)?;
    let opened = Opened { device, base: base as usize, _entry: entry };
    let (_, size) = raw::mem::address_range(device, base)?;
    check_place((offset, len), size, || format!("an allocation of {size}"))?;
    let ptr = base.cast::<u8>().wrapping_add(offset).cast::<c_void>();
    // SAFETY: `len` bytes at `offset` of the opened allocation (checked
    // against its size), device memory of `stream`'s device, open until
    // the release closes it, which runs after every use is waited for.
    Ok(unsafe { Buffer::foreign(ptr, len, stream, move || drop(opened)) })
}

/// Check that the handle's `len` bytes at `offset` lie in the `size`
/// bytes opened (`what`, for the error), and are some.
fn check_place((offset, len): (usize, usize), size: usize, what: impl FnOnce() -> String) -> Result<()> {
    if offset.checked_add(len).is_none_or(|end| end > size) || len == 0 {
        return Err(PoolError::Ipc(format!(
            "the handle names {len} bytes at offset {offset} of {}: it is corrupt",
            what()
        )));
    }
    Ok(())
}

/// An open of another process's memory: closed, then the ledger left,
/// when it drops.
struct Opened {
    device: hip_core::Device,
    base: usize,
    /// Left after the close (fields drop after `drop`).
    _entry: Entry,
}

impl Drop for Opened {
    fn drop(&mut self) {
        // SAFETY: the open this value made, closed once, after the
        // buffer's uses (the foreign buffer's release runs after them).
        if let Err(error) = unsafe { raw::ipc::close_memory(self.device, self.base as *mut c_void) } {
            log::error!("closing memory opened from another process: {error}");
        }
    }
}
