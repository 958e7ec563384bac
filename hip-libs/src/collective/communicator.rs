//! [`Communicator`]: one rank on one device, made for every device of
//! this process at once or joined by id; its operations; its errors; and
//! its release.

use super::book::{self, Book};
use super::element::{CollectiveElement, Reduction};
use super::group::in_group;
use super::id::UniqueId;
use super::part::Part;
use super::raw;
use crate::data::{DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_core::{Device, Stream};
use hip_pool::enqueue;
use hip_sys::rccl::{ncclComm_t, ncclResult_t, RcclApi};
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One rank of a communicator (`ncclComm_t`), on one device.
///
/// Made for every device of this process by [`init_all`](Self::init_all),
/// or one rank at a time by [`init_rank`](Self::init_rank) (one rank per
/// process or thread, joined by a [`UniqueId`]).
///
/// # Operations
/// Each runs on its output's stream (for [`send`](Self::send), the
/// input's), after the work queued on its operands' own streams, and
/// declares its uses of their buffers: memory is never reused while the
/// collective may still read or write it, even if the array is dropped
/// at once. Operands must be on the communicator's device; lengths are
/// checked before any call. A collective completes only when every rank
/// has made the same call: one thread driving several ranks must make
/// their calls inside one [`group`](super::group).
///
/// # Errors on the device
/// A rank that never joins, a mismatched call or a peer that failed shows
/// as the communicator's asynchronous error: [`check`](Self::check) polls
/// it, [`synchronize`](Self::synchronize) waits for a stream with a
/// timeout and aborts the communicator instead of hanging.
///
/// # Release
/// Dropping it on any thread releases it under its device (the
/// project's first rule): `ncclCommDestroy` if its streams are idle, and
/// `ncclCommAbort` if work is still queued there, which would otherwise
/// wait for peers that may never come.
///
/// `Send` but not `Sync`: NCCL's communicators take one call at a time.
pub struct Communicator {
    raw: ncclComm_t,
    api: &'static RcclApi,
    device: Device,
    rank: usize,
    size: usize,
    /// The streams its operations ran on, for the release.
    streams: RefCell<Vec<Stream>>,
    /// Aborted: no call may use `raw` again.
    aborted: Cell<bool>,
    /// This process's ranks of the communicator, and this one's index.
    book: Arc<Book>,
    local: usize,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a
// time (it is not `Sync`: `Cell` and `RefCell` keep it so).
unsafe impl Send for Communicator {}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Communicator")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("device", &self.device)
            .field("aborted", &self.aborted.get())
            .finish()
    }
}

impl Communicator {
    /// One communicator over `devices`, a rank for each in order, all in
    /// this process (`ncclCommInitAll`).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] for no devices or a device listed twice
    /// (NCCL allows one rank per GPU); [`LibError::Unavailable`] without
    /// RCCL; [`LibError::Collective`] if the library refuses.
    ///
    /// # Examples
    /// ```
    /// use hip_libs::collective::Communicator;
    /// # if !hip_libs::available(hip_libs::Library::Rccl) { return Ok(()); }
    /// let devices = hip_core::Device::all()?;
    /// let comms = Communicator::init_all(&devices)?;
    /// assert_eq!(comms.len(), devices.len());
    /// assert_eq!(comms[0].size(), devices.len());
    /// # Ok::<(), hip_libs::LibError>(())
    /// ```
    #[doc(alias = "ncclCommInitAll")]
    pub fn init_all(devices: &[Device]) -> Result<Vec<Communicator>> {
        const OP: &str = "Communicator::init_all";
        let api = raw::api()?;
        let Some(&first) = devices.first() else {
            return Err(LibError::invalid(OP, "no devices: a communicator needs at least one"));
        };
        for (i, d) in devices.iter().enumerate() {
            if devices[..i].contains(d) {
                return Err(LibError::invalid(
                    OP,
                    format!(
                        "{d} is listed twice: NCCL allows one rank per GPU (RCCL's several ranks on one GPU need \
                             init_rank with one process or thread a rank)"
                    ),
                ));
            }
        }
        let ordinals: Vec<i32> = devices.iter().map(|d| d.ordinal() as i32).collect();
        let n = ordinals.len() as i32;
        let mut raws = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: room for `n` communicators and `n` device ordinals. NCCL
        // sets each device itself and restores the caller's.
        let result = hip_core::raw::on_device(first, || unsafe {
            raw::comm_init_all(api, raws.as_mut_ptr(), n, ordinals.as_ptr())
        })?;
        raw::check(api, result, "ncclCommInitAll", std::ptr::null_mut())?;
        let book = Book::of(devices);
        Ok(raws
            .into_iter()
            .zip(devices)
            .enumerate()
            .map(|(rank, (raw, &device))| Communicator::wrap(api, raw, device, rank, devices.len(), &book, rank))
            .collect())
    }

    /// Rank `rank` of a communicator of `world_size` ranks, on `device`,
    /// joined by `id` (`ncclCommInitRank`). Returns once every rank has
    /// joined, so each rank calls it from its own process or thread.
    ///
    /// NCCL allows one rank per GPU (two ranks on one device are an error
    /// since NCCL 2.5); RCCL allows several through
    /// `ncclCommInitRankMulti`, in the raw table.
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] for a rank not below `world_size`;
    /// [`LibError::Collective`] if the library refuses (another rank said
    /// another size, a device used twice, peers that never join).
    ///
    /// # Examples
    /// The pattern of `torchrun`: rank 0 makes the id and hands it over,
    /// every rank joins.
    /// ```no_run
    /// use hip_libs::collective::{Communicator, UniqueId};
    /// use std::time::Duration;
    /// let rank: usize = std::env::var("RANK").unwrap().parse().unwrap();
    /// let world: usize = std::env::var("WORLD_SIZE").unwrap().parse().unwrap();
    /// let path = std::env::var("NCCL_ID_FILE").unwrap();
    /// let id = if rank == 0 {
    ///     let id = UniqueId::new()?;
    ///     id.write_file(&path)?;
    ///     id
    /// } else {
    ///     UniqueId::read_file(&path, Duration::from_secs(60))?
    /// };
    /// let comm = Communicator::init_rank(&id, world, rank, hip_core::Device::new(0)?)?;
    /// # Ok::<(), hip_libs::LibError>(())
    /// ```
    #[doc(alias = "ncclCommInitRank")]
    pub fn init_rank(id: &UniqueId, world_size: usize, rank: usize, device: Device) -> Result<Communicator> {
        const OP: &str = "Communicator::init_rank";
        let api = raw::api()?;
        if rank >= world_size {
            return Err(LibError::invalid(OP, format!("rank {rank} of {world_size}: ranks are 0..world_size")));
        }
        let size = i32::try_from(world_size)
            .map_err(|_| LibError::invalid(OP, format!("{world_size} ranks: at most {}", i32::MAX)))?;
        let mut made = std::ptr::null_mut();
        // Joined before the call, which returns once every rank has: the
        // others of this process are in the book before anyone posts.
        let book = book::by_id(&id.0);
        let local = book.join(device);
        // SAFETY: a valid out-pointer; NCCL takes the current device,
        // which `on_device` sets.
        let result = hip_core::raw::on_device(device, || unsafe {
            raw::comm_init_rank(api, &mut made, size, id.raw(), rank as i32)
        })
        .map_err(LibError::from)
        .and_then(|r| raw::check(api, r, "ncclCommInitRank", std::ptr::null_mut()));
        if let Err(e) = result {
            book.leave(local);
            return Err(e);
        }
        Ok(Communicator::wrap(api, made, device, rank, world_size, &book, local))
    }

    fn wrap(
        api: &'static RcclApi,
        raw: ncclComm_t,
        device: Device,
        rank: usize,
        size: usize,
        book: &Arc<Book>,
        local: usize,
    ) -> Communicator {
        let (streams, aborted, book) = (RefCell::new(Vec::new()), Cell::new(false), book.clone());
        Communicator { raw, api, device, rank, size, streams, aborted, book, local }
    }

    /// Note that this rank posted a collective (for the pool's gate).
    pub(crate) fn posted_collective(&self) {
        self.book.posted(self.local);
    }

    /// This rank, 0-based.
    #[doc(alias = "ncclCommUserRank")]
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    #[doc(alias = "ncclCommCount")]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The device of this rank.
    #[doc(alias = "ncclCommCuDevice")]
    pub fn device(&self) -> Device {
        self.device
    }

    /// The raw communicator, for calls of the raw table. It stays owned
    /// by `self`.
    pub fn as_raw(&self) -> ncclComm_t {
        self.raw
    }

    /// The communicator's asynchronous error, if it has one
    /// (`ncclCommGetAsyncError`): a peer that failed or never came, a
    /// mismatched call. A communicator with an error is of no further
    /// use: drop it (which aborts it) and make a new one.
    ///
    /// # Errors
    /// [`LibError::Collective`] with the error and the library's message;
    /// [`LibError::InvalidInput`] once the communicator was aborted.
    #[doc(alias = "ncclCommGetAsyncError")]
    pub fn check(&self) -> Result<()> {
        self.usable("Communicator::check")?;
        let mut error = ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator and a valid out-pointer.
        let result = unsafe { raw::comm_get_async_error(self.api, self.raw, &mut error) };
        raw::check(self.api, result, "ncclCommGetAsyncError", self.raw)?;
        raw::check(self.api, error, "a collective (asynchronous error)", self.raw)
    }

    /// Wait for the work queued on `stream` so far, polling the
    /// communicator's asynchronous error, for at most `timeout`.
    ///
    /// This is how to wait for a collective without risking a hang: if
    /// the stream has not finished after `timeout`, or the communicator
    /// reports an error, it is aborted (`ncclCommAbort`), which ends its
    /// queued work, and the error is returned. PyTorch's
    /// `NCCL_ASYNC_ERROR_HANDLING` watchdog does the same.
    ///
    /// # Errors
    /// [`LibError::CollectiveTimeout`] after `timeout`;
    /// [`LibError::Collective`] for the asynchronous error; both abort the
    /// communicator. [`LibError::Hip`] if `stream` reports a device error.
    pub fn synchronize(&self, stream: &Stream, timeout: Duration) -> Result<()> {
        self.usable("Communicator::synchronize")?;
        let started = Instant::now();
        let mut pause = Duration::from_micros(20);
        loop {
            if let Err(error) = self.check() {
                self.abort_now();
                return Err(error);
            }
            if stream.query()? {
                return self.check();
            }
            let waited = started.elapsed();
            if waited >= timeout {
                let message = raw::last_error(self.api, self.raw);
                self.abort_now();
                return Err(LibError::CollectiveTimeout { rank: self.rank, waited, message });
            }
            std::thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(Duration::from_millis(5));
        }
    }

    /// Abort the communicator now (`ncclCommAbort`): its queued work ends
    /// without waiting for peers, and it is released.
    #[doc(alias = "ncclCommAbort")]
    pub fn abort(self) {
        self.abort_now();
    }

    fn abort_now(&self) {
        if self.aborted.replace(true) {
            return;
        }
        self.book.leave(self.local);
        let (api, raw) = (self.api, self.raw);
        // SAFETY: a live communicator, released once (`aborted` is now
        // set, so no other call uses it).
        let released = hip_core::raw::on_device(self.device, || unsafe { raw::comm_abort(api, raw) });
        match released {
            Ok(r) if r == ncclResult_t::ncclSuccess => {}
            Ok(r) => log::error!("ncclCommAbort of rank {}: {}", self.rank, raw::name(r)),
            Err(e) => log::error!("ncclCommAbort of rank {}: could not switch to {}: {e}", self.rank, self.device),
        }
    }

    /// `Ok` unless the communicator was aborted.
    pub(crate) fn usable(&self, operation: &'static str) -> Result<()> {
        if self.aborted.get() {
            return Err(LibError::invalid(
                operation,
                format!("rank {}'s communicator was aborted: make a new one", self.rank),
            ));
        }
        Ok(())
    }

    /// Enqueue `part` now (outside a group).
    fn run(&self, part: Part<'_>) -> Result<()> {
        self.usable(part.operation)?;
        if in_group() {
            return Err(LibError::invalid(
                part.operation,
                "inside collective::group, call the operation on the group (g.all_reduce(&comm, ..)), so that its \
                 buffers' uses are recorded after the group's launch",
            ));
        }
        if part.empty {
            // Counted all the same: an exchange's parts differ in size
            // between ranks, and the book counts every rank's calls.
            if part.collective {
                self.posted_collective();
            }
            return Ok(());
        }
        self.remember(&part.stream);
        let Part { operation, stream, operands, call, collective, .. } = part;
        let (api, raw) = (self.api, self.raw);
        enqueue(&stream, operands.iter().copied(), || {
            let result = call(api, raw, stream.as_raw());
            if collective && result == ncclResult_t::ncclSuccess {
                self.posted_collective();
            }
            raw::check(api, result, operation, raw)
        })
    }

    /// Note that work of this communicator was queued on `stream`.
    pub(crate) fn remember(&self, stream: &Stream) {
        let mut streams = self.streams.borrow_mut();
        if !streams.iter().any(|s| s.id() == stream.id()) {
            streams.push(stream.clone());
        }
    }

    pub(crate) fn api(&self) -> &'static RcclApi {
        self.api
    }

    /// Sum (or another [`ReduceOp`](super::ReduceOp), or a
    /// [`Reduction::PreMulSum`]) `send` over the ranks into every rank's
    /// `recv` (`ncclAllReduce`), on `recv`'s stream.
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] if the lengths differ, or inside a
    /// [`group`](super::group) (call it on the group there);
    /// [`LibError::Hip`] with a device mismatch for an operand on another
    /// device; [`LibError::Collective`] if the library refuses.
    ///
    /// # Examples
    /// ```
    /// use hip_libs::collective::{Communicator, ReduceOp};
    /// # fn sum(comm: &Communicator, grads: &impl hip_libs::DeviceData<f32>,
    /// #        out: &mut impl hip_libs::DeviceDataMut<f32>) -> hip_libs::Result<()> {
    /// comm.all_reduce(grads, out, ReduceOp::Sum)?;
    /// # Ok(()) }
    /// ```
    #[doc(alias = "ncclAllReduce")]
    pub fn all_reduce<T: CollectiveElement>(
        &self,
        send: &impl DeviceData<T>,
        recv: &mut impl DeviceDataMut<T>,
        op: impl Into<Reduction<T>>,
    ) -> Result<()> {
        self.run(self.all_reduce_part(send, recv, op.into())?)
    }

    /// [`all_reduce`](Self::all_reduce) with `buf` as input and output.
    ///
    /// # Errors
    /// As [`all_reduce`](Self::all_reduce).
    #[doc(alias = "ncclAllReduce")]
    pub fn all_reduce_in_place<T: CollectiveElement>(
        &self,
        buf: &mut impl DeviceDataMut<T>,
        op: impl Into<Reduction<T>>,
    ) -> Result<()> {
        self.run(self.all_reduce_in_place_part(buf, op.into())?)
    }

    /// Copy rank `root`'s `send` into every rank's `recv`
    /// (`ncclBroadcast`); `send` is read on the root only, and may be
    /// `None` elsewhere (at the root, `None` broadcasts `recv` itself).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] for a root not below [`size`](Self::size)
    /// or lengths that differ; otherwise as [`all_reduce`](Self::all_reduce).
    #[doc(alias = "ncclBroadcast")]
    #[doc(alias = "ncclBcast")]
    pub fn broadcast<T: CollectiveElement>(
        &self,
        send: Option<&dyn DeviceData<T>>,
        recv: &mut impl DeviceDataMut<T>,
        root: usize,
    ) -> Result<()> {
        self.run(self.broadcast_part(send, recv, root)?)
    }

    /// Reduce `send` over the ranks into rank `root`'s `recv`
    /// (`ncclReduce`); the other ranks' `recv` is left as it was.
    ///
    /// # Errors
    /// As [`broadcast`](Self::broadcast).
    #[doc(alias = "ncclReduce")]
    pub fn reduce<T: CollectiveElement>(
        &self,
        send: &impl DeviceData<T>,
        recv: &mut impl DeviceDataMut<T>,
        op: impl Into<Reduction<T>>,
        root: usize,
    ) -> Result<()> {
        self.run(self.reduce_part(send, recv, op.into(), root)?)
    }

    /// Gather every rank's `send` into every rank's `recv`, rank `r`'s at
    /// `r * send.len()` (`ncclAllGather`).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] unless `recv` holds `size()` times
    /// `send`; otherwise as [`all_reduce`](Self::all_reduce).
    #[doc(alias = "ncclAllGather")]
    pub fn all_gather<T: CollectiveElement>(
        &self,
        send: &impl DeviceData<T>,
        recv: &mut impl DeviceDataMut<T>,
    ) -> Result<()> {
        self.run(self.all_gather_part(send, recv)?)
    }

    /// Reduce `send` over the ranks and give rank `r` the `r`-th of its
    /// `size()` equal parts, in `recv` (`ncclReduceScatter`).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] unless `send` holds `size()` times
    /// `recv`; otherwise as [`all_reduce`](Self::all_reduce).
    #[doc(alias = "ncclReduceScatter")]
    pub fn reduce_scatter<T: CollectiveElement>(
        &self,
        send: &impl DeviceData<T>,
        recv: &mut impl DeviceDataMut<T>,
        op: impl Into<Reduction<T>>,
    ) -> Result<()> {
        self.run(self.reduce_scatter_part(send, recv, op.into())?)
    }

    /// Send part `p` of `send` to rank `p`, and receive rank `p`'s part
    /// for this rank into part `p` of `recv`, for every rank `p`: the
    /// buffers are equal and cut into [`size`](Self::size) equal parts.
    ///
    /// Made of NCCL sends and receives in one group on `recv`'s stream,
    /// as NCCL's guide composes it (NCCL has no all-to-all call).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] unless both hold the same multiple of
    /// `size()` elements; otherwise as [`all_reduce`](Self::all_reduce).
    ///
    /// # Examples
    /// ```
    /// # fn route(comm: &hip_libs::collective::Communicator, tokens: &impl hip_libs::DeviceData<f32>,
    /// #          routed: &mut impl hip_libs::DeviceDataMut<f32>) -> hip_libs::Result<()> {
    /// // Rank r's part p of `tokens` ends in part r of rank p's `routed`.
    /// comm.all_to_all(tokens, routed)?;
    /// # Ok(()) }
    /// ```
    #[doc(alias = "ncclAllToAll")]
    #[doc(alias = "alltoall")]
    pub fn all_to_all<T: CollectiveElement>(
        &self,
        send: &impl DeviceData<T>,
        recv: &mut impl DeviceDataMut<T>,
    ) -> Result<()> {
        self.run(self.all_to_all_part(send, recv)?)
    }

    /// [`all_to_all`](Self::all_to_all) with parts of any size:
    /// `send_counts[p]` elements go to rank `p`, and `recv_counts[p]`
    /// come from it, each buffer's parts laid end to end from its start
    /// (the rest of a buffer is left as it is). A rank's `send_counts[p]`
    /// must equal rank `p`'s `recv_counts` for it; a send no receive
    /// matches never completes (the simulator reports it after its
    /// collective timeout), so bound the wait with
    /// [`synchronize`](Self::synchronize).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] unless each count slice holds `size()`
    /// counts that fit in its buffer; otherwise as
    /// [`all_reduce`](Self::all_reduce).
    #[doc(alias = "ncclAllToAllv")]
    #[doc(alias = "alltoallv")]
    pub fn all_to_all_v<T: CollectiveElement>(
        &self,
        send: &impl DeviceData<T>,
        send_counts: &[usize],
        recv: &mut impl DeviceDataMut<T>,
        recv_counts: &[usize],
    ) -> Result<()> {
        self.run(self.all_to_all_v_part("collective::all_to_all_v", send, send_counts, recv, recv_counts)?)
    }

    /// Gather every rank's `send` into rank `root`'s `recv`, rank `r`'s at
    /// `r * send.len()`. `recv` is needed at the root only; elsewhere it
    /// may be `None`, and a buffer given there is left as it is.
    ///
    /// Made of NCCL sends and receives in one group, on the root's
    /// `recv`'s stream and the others' `send`'s.
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] for a root not below [`size`](Self::size),
    /// no `recv` at the root, or a root's `recv` not `size()` times
    /// `send`; otherwise as [`all_reduce`](Self::all_reduce).
    #[doc(alias = "ncclGather")]
    pub fn gather<T: CollectiveElement>(
        &self,
        send: &impl DeviceData<T>,
        recv: Option<&mut dyn DeviceDataMut<T>>,
        root: usize,
    ) -> Result<()> {
        self.run(self.gather_part(send, recv, root)?)
    }

    /// Give each rank `r` part `r` of rank `root`'s `send` (`size()`
    /// parts of `recv.len()`), in its `recv`. `send` is read at the root
    /// only, and may be `None` elsewhere.
    ///
    /// Made of NCCL sends and receives in one group, on `recv`'s stream.
    ///
    /// # Errors
    /// As [`gather`](Self::gather), for `send` at the root.
    #[doc(alias = "ncclScatter")]
    pub fn scatter<T: CollectiveElement>(
        &self,
        send: Option<&dyn DeviceData<T>>,
        recv: &mut impl DeviceDataMut<T>,
        root: usize,
    ) -> Result<()> {
        self.run(self.scatter_part(send, recv, root)?)
    }

    /// Send `send` to rank `peer` (`ncclSend`), on `send`'s stream; `peer`
    /// receives it with [`recv`](Self::recv). A send and a receive between
    /// two ranks that each do both must be in one [`group`](super::group).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] for a peer not below
    /// [`size`](Self::size); otherwise as [`all_reduce`](Self::all_reduce).
    #[doc(alias = "ncclSend")]
    pub fn send<T: CollectiveElement>(&self, send: &impl DeviceData<T>, peer: usize) -> Result<()> {
        self.run(self.send_part(send, peer)?)
    }

    /// Receive into `recv` what rank `peer` sends (`ncclRecv`), on
    /// `recv`'s stream.
    ///
    /// # Errors
    /// As [`send`](Self::send).
    #[doc(alias = "ncclRecv")]
    pub fn recv<T: CollectiveElement>(&self, recv: &mut impl DeviceDataMut<T>, peer: usize) -> Result<()> {
        self.run(self.recv_part(recv, peer)?)
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        if self.aborted.get() {
            return;
        }
        // Work still queued may wait for peers that never come (they may
        // be gone): abort it rather than block the dropping thread.
        let busy = self.streams.borrow().iter().any(|s| !matches!(s.query(), Ok(true)));
        if busy {
            log::warn!("rank {}'s communicator dropped with work queued: aborting it", self.rank);
            self.abort_now();
            return;
        }
        self.book.leave(self.local);
        let (api, raw) = (self.api, self.raw);
        // SAFETY: a live communicator, released once, under its device.
        match hip_core::raw::on_device(self.device, || unsafe { raw::comm_destroy(api, raw) }) {
            Ok(r) if r == ncclResult_t::ncclSuccess => {}
            Ok(r) => log::error!("ncclCommDestroy of rank {}: {}", self.rank, raw::name(r)),
            Err(e) => log::error!("ncclCommDestroy of rank {}: could not switch to {}: {e}", self.rank, self.device),
        }
    }
}
