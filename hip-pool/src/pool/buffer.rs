//! `Buffer`: device memory from a pool, returned to it on drop.

use crate::device_pool::Backing;
use crate::error::Result;
use crate::history::{
    self,
    MemoryEventKind::{Alloc, Free},
    Waits,
};
use crate::pool_core::{Foreign, PoolInner, Record};
use crate::sim_blocks;
use crate::uses::{use_in_capture, Access, WHOLE};
use hip_core::{audit, Device, Stream};
use std::ffi::c_void;
use std::mem::ManuallyDrop;

/// Device memory owned by a pool's block.
///
/// It knows its device, its size and its own stream. It is `Send + Sync`:
/// it can be dropped on any thread. With the cached strategy, dropping it
/// gives the block back to its device's pool with **no HIP call and no
/// access to any thread's GPU state**; the block is reusable at once on
/// the same stream, and on another stream after an event orders the new
/// use after the old one. With the `none` and `async` strategies the drop
/// frees through HIP, under the buffer's device. Errors in a drop are
/// logged; [`Buffer::free`] returns them.
///
/// # Uses on other streams
///
/// Work on the buffer's own stream is ordered by that stream. An operation
/// that uses the buffer on another stream declares it, around enqueuing
/// its work: [`Buffer::prepare`] before (the stream waits, on the GPU, for
/// the own stream's queued work and for conflicting earlier uses), and
/// [`Buffer::record`] after (an event on that stream, kept by the buffer).
/// [`crate::enqueue`] does both for every operand of an operation. A
/// dropped buffer hands those events to the pool with its block, and the
/// block's next owner waits for them on the GPU before using it. The safe operations
/// of `hip-libs` and `amdgpu` declare their operands themselves; code that
/// launches kernels through the unsafe launch API declares its own:
///
/// ```
/// use hip_core::Stream;
/// use hip_pool::Access;
///
/// let buffer = hip_pool::alloc(4096)?; // on this thread's stream
/// let other = Stream::new()?;
/// buffer.prepare(&other, Access::Read)?;
/// // ... enqueue a kernel on `other` that reads `buffer` ...
/// buffer.record(&other, Access::Read)?;
/// drop(buffer); // the block is not reused before that kernel is done
/// # Ok::<(), hip_pool::PoolError>(())
/// ```
pub struct Buffer {
    /// Its address, length, block, pool, stream and uses, boxed with the
    /// block (see `pool_core::Record`), so a buffer is one word. Moved
    /// out by `release`, which runs exactly once.
    record: ManuallyDrop<Box<Record>>,
}

impl Buffer {
    pub(crate) fn new(pool: &'static PoolInner, ptr: usize, len: usize, block: usize, stream: Stream) -> Buffer {
        Buffer::from_record(Record::new(ptr, Some(pool), len, block, stream))
    }

    /// A buffer of a block's record (a parked block, or one just out of
    /// the pool).
    #[inline(always)]
    pub(crate) fn from_record(record: Box<Record>) -> Buffer {
        if history::on() && record.ptr != 0 {
            history::record(record.stream.device(), Some(record.stream.id()), record.ptr, record.len, Alloc);
        }
        if sim_blocks::on() {
            sim_blocks::handed_out(record.ptr, record.len);
        }
        Buffer { record: ManuallyDrop::new(record) }
    }

    /// A buffer over `len` bytes at `ptr` that another library owns (a
    /// tensor imported through DLPack, memory another process shared):
    /// used as any buffer, with `stream` its own stream; when it drops,
    /// every use of it is waited for on the host (its own stream and the
    /// events of its uses on others) and then `release` runs, on the
    /// dropping thread, to give the memory back. If a wait fails, the
    /// memory may still be in use: `release` never runs and the memory is
    /// leaked, never handed back under a use. The memory history does not
    /// count it (it is not the pool's).
    ///
    /// # Safety
    ///
    /// `ptr` must be device memory of `stream`'s device, valid for reads
    /// and writes of `len` bytes until `release` runs.
    pub unsafe fn foreign(
        ptr: *mut c_void,
        len: usize,
        stream: &Stream,
        release: impl FnOnce() + Send + 'static,
    ) -> Buffer {
        let mut record = Record::new(ptr as usize, None, len, len, stream.clone());
        record.foreign = Some(Box::new(Foreign { release: std::sync::Mutex::new(Box::new(release)) }));
        Buffer { record: ManuallyDrop::new(record) }
    }

    /// Hold the buffer's block for `holder` (an export to other
    /// processes): its release, when the buffer drops, waits for
    /// [`UseList::unhold`] of `holder`; the list.
    pub(crate) fn hold_for(&self, holder: u64) -> std::sync::Arc<crate::uses::UseList> {
        let list = self.record.uses.shared();
        list.hold(holder, true);
        list
    }

    /// Whether another library owns the memory ([`Buffer::foreign`]).
    pub fn is_foreign(&self) -> bool {
        self.record.foreign.is_some()
    }

    /// Whether the memory is mapped virtual memory of an expandable pool
    /// (not a capture's private pool, whose memory is `hipMalloc`'s).
    pub(crate) fn is_mapped(&self) -> bool {
        self.record.private.is_none()
            && self.record.pool.is_some_and(|pool| matches!(pool.core.backing, Backing::Expandable(_)))
    }

    /// The chunks of an expandable pool's segment under this buffer, or
    /// `None` for memory of any other kind.
    pub(crate) fn mapped_chunks(&self) -> Option<crate::strategy::expandable::Chunks> {
        let pool = self.record.pool.filter(|_| self.is_mapped())?;
        pool.core.chunks_under(self.record.ptr, self.record.len)
    }

    /// The start of the driver allocation holding this buffer, where its
    /// pool's cached backing knows it (not a capture's private pool).
    pub(crate) fn segment_start(&self) -> Option<usize> {
        let pool = self.record.pool.filter(|_| self.record.private.is_none())?;
        pool.core.segment_of(self.record.ptr)
    }

    /// A zero-length buffer on `stream`'s device: no memory, null pointer.
    pub fn empty(stream: &Stream) -> Buffer {
        Buffer::from_record(Record::new(0, None, 0, 0, stream.clone()))
    }

    /// The device address (null for an empty buffer).
    pub fn as_ptr(&self) -> *mut c_void {
        self.record.ptr as *mut c_void
    }

    /// The bytes asked for.
    pub fn len(&self) -> usize {
        self.record.len
    }

    /// Whether the buffer has no bytes.
    pub fn is_empty(&self) -> bool {
        self.record.len == 0
    }

    /// The size of the block behind the buffer (the request, rounded).
    pub fn block_size(&self) -> usize {
        self.record.block
    }

    /// The buffer's device.
    pub fn device(&self) -> Device {
        self.record.stream.device()
    }

    /// The buffer's own stream: work on it needs no declaration.
    pub fn stream(&self) -> &Stream {
        &self.record.stream
    }

    /// Make `stream` (of the same device) the buffer's own stream. Work
    /// queued so far on the old one is ordered before the new one's later
    /// work (a GPU wait, no host synchronization), and the block will be
    /// freed in the new stream's order.
    ///
    /// # Errors
    /// [`PoolError::Hip`](crate::PoolError::Hip) with a
    /// [`HipError::DeviceMismatch`](hip_core::HipError::DeviceMismatch) when
    /// `stream` is on another device; [`PoolError::Ipc`](crate::PoolError::Ipc)
    /// for a buffer shared with other processes; else with HIP's status of
    /// the ordering (`hipEventRecord`, `hipStreamWaitEvent`). The own stream
    /// is then unchanged.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        stream.expect_device(self.device(), "Buffer::set_stream")?;
        let record = &mut **self.record;
        if record.uses.held().is_some_and(|list| list.shared_with_processes()) {
            return Err(crate::PoolError::Ipc(
                "a buffer shared with other processes keeps its stream: the handle's event was recorded on it"
                    .to_owned(),
            ));
        }
        if record.uses.held().is_some()
            || hip_core::capture::of(&record.stream)?.is_some()
            || hip_core::capture::of(stream)?.is_some()
        {
            return Err(hip_core::HipError::CaptureUnderway {
                operation: "Buffer::set_stream",
                why: "a graph uses the buffer with its own stream, or one of the streams captures",
            }
            .into());
        }
        if record.len != 0 {
            record.uses.move_to(&record.stream, stream)?;
        }
        record.stream = stream.clone();
        Ok(())
    }

    /// Order a use of the buffer with `access` on `stream` after its
    /// earlier conflicting uses: a read after writes, a write after every
    /// use. Call it before enqueuing the use. When `stream` is not the
    /// buffer's own, `stream` also waits for the work queued so far on the
    /// own stream. Only GPU waits (`hipStreamWaitEvent`); on the own
    /// stream with no recorded use it is one comparison and one atomic
    /// load.
    ///
    /// # Errors
    /// [`PoolError::Hip`](crate::PoolError::Hip) with HIP's status of an
    /// ordering call (`hipEventCreateWithFlags`, `hipEventRecord`,
    /// `hipStreamWaitEvent`, `hipEventQuery`); the use must then not be enqueued.
    #[inline]
    pub fn prepare(&self, stream: &Stream, access: Access) -> Result<()> {
        let record = &**self.record;
        if record.len == 0 {
            return Ok(());
        }
        if hip_core::capture::underway() {
            return self.prepare_while_capturing(stream, access);
        }
        if record.stream.id() == stream.id() && record.uses.is_empty() {
            return Ok(());
        }
        Ok(record.uses.prepare(&record.stream, stream, access)?)
    }

    /// Allow host views of the buffer ([`Buffer::begin_host_view`]): its
    /// memory is one the host reaches in place (managed memory). Call it
    /// before the buffer's first use: from then on every graph replay of
    /// it is counted against the views.
    pub fn allow_host_views(&self) {
        self.record.uses.shared().allow_host_views();
    }

    /// Begin host access with `access` to memory the host reaches in
    /// place (managed memory), allowed by [`Buffer::allow_host_views`]:
    /// wait for the uses it conflicts with on other streams and for
    /// everything queued on the buffer's own stream (host waits), and from
    /// then on refuse the replays of graphs holding the buffer that
    /// conflict with the view, until
    /// [`UseList::end_host_view`](crate::UseList::end_host_view) on the
    /// list returned. A view never ended keeps those replays refused:
    /// never a race. Work the caller enqueues on the buffer meanwhile is
    /// the caller's to exclude (a write view is for `&mut` holders).
    ///
    /// # Errors
    /// [`PoolError::Config`](crate::PoolError::Config) when views were not
    /// allowed; as
    /// [`UseList::begin_host_view`](crate::UseList::begin_host_view), and
    /// HIP's status of `hipStreamSynchronize` on the own stream
    /// ([`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
    /// while it captures); nothing is begun then.
    pub fn begin_host_view(&self, access: Access) -> Result<std::sync::Arc<crate::uses::UseList>> {
        let record = &**self.record;
        let list = record.uses.shared();
        if !list.host_viewable() {
            return Err(crate::PoolError::Config(
                "host views of a buffer must be allowed before its first use (Buffer::allow_host_views), so that \
                 every graph replay of it is counted against them"
                    .to_owned(),
            ));
        }
        list.begin_host_view(access)?;
        if let Err(error) = record.stream.synchronize() {
            list.end_host_view(access);
            return Err(error.into());
        }
        Ok(list)
    }

    /// [`Buffer::prepare`] while a capture is underway: a use on a stream
    /// that captures is a hold of the graph (see `captured`), the others
    /// as always.
    #[cold]
    fn prepare_while_capturing(&self, stream: &Stream, access: Access) -> Result<()> {
        let record = &**self.record;
        match hip_core::capture::of(stream)? {
            Some(scope) => {
                let list = record.uses.shared();
                use_in_capture(&list, Some(&record.stream), stream, WHOLE, access, &scope);
                Ok(())
            }
            None => Ok(record.uses.prepare(&record.stream, stream, access)?),
        }
    }

    /// Note that a use with `access` was just enqueued on `stream`: on a
    /// stream other than the buffer's own, an event recorded there after
    /// it, which later conflicting uses, and the block's next owner, wait
    /// for. Nothing to do on the own stream.
    ///
    /// # Errors
    /// [`PoolError::Hip`](crate::PoolError::Hip) with HIP's status of
    /// `hipEventCreateWithFlags` or `hipEventRecord`: the use is then not
    /// recorded, so the caller must synchronize `stream` before the buffer
    /// can be reused safely.
    #[inline]
    pub fn record(&self, stream: &Stream, access: Access) -> Result<()> {
        let record = &**self.record;
        if record.len == 0 || record.stream.id() == stream.id() {
            return Ok(());
        }
        if hip_core::capture::underway() && hip_core::capture::of(stream)?.is_some() {
            // Its hold was noted by `prepare`; replays record on their own.
            return Ok(());
        }
        Ok(record.uses.record(&record.stream, stream, access)?)
    }

    /// [`Buffer::prepare`] for a read.
    ///
    /// # Errors
    /// As [`Buffer::prepare`].
    pub fn prepare_read(&self, stream: &Stream) -> Result<()> {
        self.prepare(stream, Access::Read)
    }

    /// [`Buffer::prepare`] for a write.
    ///
    /// # Errors
    /// As [`Buffer::prepare`].
    pub fn prepare_write(&self, stream: &Stream) -> Result<()> {
        self.prepare(stream, Access::Write)
    }

    /// [`Buffer::record`] for a read.
    ///
    /// # Errors
    /// As [`Buffer::record`].
    pub fn record_read(&self, stream: &Stream) -> Result<()> {
        self.record(stream, Access::Read)
    }

    /// [`Buffer::record`] for a write.
    ///
    /// # Errors
    /// As [`Buffer::record`].
    pub fn record_write(&self, stream: &Stream) -> Result<()> {
        self.record(stream, Access::Write)
    }

    /// Whether uses on other streams are recorded (and not yet known to
    /// be over), for tests and diagnostics.
    pub fn has_foreign_uses(&self) -> bool {
        !self.record.uses.is_empty()
    }

    /// Give the memory back now, reporting any error.
    ///
    /// # Errors
    /// None with the cached strategy (no HIP call). With `none` and `async`,
    /// [`PoolError::Hip`](crate::PoolError::Hip) with HIP's status of
    /// `hipEventSynchronize` (pending uses), `hipFree` or `hipFreeAsync`;
    /// the block is then kept and retried by the next reclaim.
    pub fn free(self) -> Result<()> {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this`'s Drop never runs, so this is the one release
        // (and the record, moved out by it, is the only field with a
        // destructor).
        unsafe { this.release() }
    }

    /// The fast path of a release: a block of the cached strategy with no
    /// recorded uses goes into this thread's cache with its record, with
    /// no HIP call. Whether it did (if not, nothing was done).
    ///
    /// # Safety
    ///
    /// As [`Buffer::release`]: when it returns `true`, the record has
    /// moved out.
    #[inline(always)]
    unsafe fn park_if_plain(&mut self) -> bool {
        let record = &mut **self.record;
        let Some(pool) = record.pool else {
            return false;
        };
        if !pool.core.keeps_blocks() || !record.uses.is_empty_mut() {
            return false;
        }
        if history::on() {
            history::record(
                record.stream.device(),
                Some(record.stream.id()),
                record.ptr,
                record.len,
                Free(Waits::Nothing),
            );
        }
        if sim_blocks::on() {
            sim_blocks::given_back(record.ptr);
        }
        // SAFETY: the caller's contract: once, and nothing reads the
        // record afterwards.
        let record = unsafe { ManuallyDrop::take(&mut self.record) };
        pool.park(record);
        true
    }

    /// Give the block back (and free its record).
    ///
    /// # Safety
    ///
    /// Called once for a buffer (by `free` or by `Drop`): it moves the
    /// record out.
    #[inline(always)]
    unsafe fn release(&mut self) -> Result<()> {
        // SAFETY: the caller's contract, handed on.
        if unsafe { self.park_if_plain() } {
            return Ok(());
        }
        // SAFETY: as above; the fast path did nothing.
        unsafe { self.release_slow() }
    }

    /// Every release but the fast path's: an empty buffer, recorded uses,
    /// the `none` and `async` strategies.
    ///
    /// # Safety
    ///
    /// As [`Buffer::release`].
    #[cold]
    #[inline(never)]
    unsafe fn release_slow(&mut self) -> Result<()> {
        // SAFETY: the caller's contract: once, and nothing reads the
        // record afterwards.
        let mut record = unsafe { ManuallyDrop::take(&mut self.record) };
        if history::on() && record.ptr != 0 && record.foreign.is_none() {
            let waits = record.uses.waiting();
            history::record(record.stream.device(), Some(record.stream.id()), record.ptr, record.len, Free(waits));
        }
        if sim_blocks::on() && record.foreign.is_none() {
            sim_blocks::given_back(record.ptr);
        }
        if record.uses.held().is_some() {
            // A graph may still run on the block: its last hold releases it.
            let list = record.uses.shared();
            let private = record.private.clone();
            let reusable = move |capture: u64| private.as_ref().is_some_and(|p| p.served(capture));
            list.release_or_defer(reusable, move || {
                let device = record.stream.device();
                if let Err(error) = release_record(record) {
                    log::error!("releasing a buffer of {device} after the graphs that used it: {error}");
                }
            });
            return Ok(());
        }
        release_record(record)
    }
}

/// Give a block back to where it came from, with the events of its uses.
fn release_record(mut record: Box<Record>) -> Result<()> {
    if let Some(foreign) = record.foreign.take() {
        return release_foreign(&mut record, *foreign);
    }
    if let Some(private) = record.private.take() {
        let events = record.uses.take_events();
        let Record { ptr, stream, .. } = *record;
        private.give_back(ptr, stream, events);
        return Ok(());
    }
    {
        let Some(pool) = record.pool else {
            return Ok(());
        };
        match pool.core.backing {
            Backing::Cached | Backing::Expandable(_) => {
                pool.give_back(record);
                Ok(())
            }
            Backing::None | Backing::Async(_) => {
                let pending = record.uses.take_events();
                let Record { ptr, block, stream, .. } = *record;
                Ok(pool.core.driver_free(ptr, block, stream, pending)?)
            }
        }
    }
}

/// Wait for every use of foreign memory, then give it back; on a failed
/// wait, keep it (leaked) and say so.
fn release_foreign(record: &mut Record, foreign: Foreign) -> Result<()> {
    let events = record.uses.take_events();
    // An idle stream (queried, without the driver's wait) has nothing of
    // the buffer's left to finish.
    let waited = events.iter().try_for_each(hip_core::Event::synchronize).and_then(|()| {
        if record.stream.query().unwrap_or(false) {
            Ok(())
        } else {
            record.stream.synchronize()
        }
    });
    let release = foreign.release.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    match waited {
        Ok(()) => {
            release();
            Ok(())
        }
        Err(error) => {
            // The owner would free memory the GPU may still use.
            std::mem::forget(release);
            Err(error.into())
        }
    }
}

impl Buffer {
    /// The slow path of a drop: release, and log what failed.
    ///
    /// # Safety
    ///
    /// As [`Buffer::release`].
    #[cold]
    #[inline(never)]
    unsafe fn drop_slow(&mut self) {
        // Named before the release moves the record out.
        let device = self.device();
        // SAFETY: the caller's contract, handed on.
        if let Err(error) = unsafe { self.release_slow() } {
            log::error!("dropping a buffer of {device}: {error}");
        }
    }
}

impl Drop for Buffer {
    #[inline]
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        // SAFETY: a drop runs once, and `free` keeps it from running after
        // its own release; the slow path runs only if the fast one did
        // nothing.
        unsafe {
            if !self.park_if_plain() {
                self.drop_slow();
            }
        }
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buffer({:#x}, {} bytes on device {})", self.record.ptr, self.len(), self.device().ordinal())
    }
}

#[cfg(test)]
mod tests {
    use super::Buffer;
    use std::mem::size_of;

    /// A buffer moves as one word: a copy of a wider value, written field
    /// by field and read back with wider loads, stalls store-to-load
    /// forwarding (the cost that a 48-byte buffer paid on every move).
    #[test]
    fn a_buffer_is_one_word() {
        assert_eq!(size_of::<Buffer>(), size_of::<usize>());
        assert_eq!(size_of::<Option<Buffer>>(), size_of::<usize>());
    }
}
