//! [`group`]: NCCL's group calls as a closure scope, so that one thread
//! can drive every rank, and the buffers' uses are recorded after the
//! group's launch, not before.

use super::element::{CollectiveElement, Reduction};
use super::part::Part;
use super::raw;
use super::Communicator;
use crate::data::{DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_core::Stream;
use hip_pool::{Access, Buffer};
use std::cell::Cell;

thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Whether the thread is inside [`group`].
pub(crate) fn in_group() -> bool {
    DEPTH.with(Cell::get) > 0
}

/// The operations of one [`group`]: the same calls as [`Communicator`]'s,
/// each with the communicator it is for.
pub struct Group<'a> {
    /// Uses to record once the group has launched.
    uses: Vec<(&'a Buffer, Stream, Access)>,
    /// The ranks that posted a collective, to note once it has launched.
    posted: Vec<&'a Communicator>,
}

impl std::fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group").field("operations", &self.uses.len()).finish()
    }
}

/// Run `body` inside one NCCL group (`ncclGroupStart` … `ncclGroupEnd`):
/// the operations it makes on `g` are launched together when it returns.
///
/// One thread driving several ranks must put their calls in one group,
/// or the first call waits for peers the thread never reaches. Sends and
/// receives that pair up between two ranks belong in one group too.
///
/// The group's end is always called, also when `body` fails or panics
/// (then the panic goes on after it). Each operation's buffer uses are
/// recorded after the group's launch, where the work really is on the
/// streams. Groups do not nest here.
///
/// # Errors
/// `body`'s error first; then [`LibError::Collective`] if the group's end
/// fails (a call inside it failed, so NCCL launched none of them); then
/// an error recording a use.
///
/// # Examples
/// ```
/// use hip_libs::collective::{group, Communicator, ReduceOp};
/// # fn step(comms: &[Communicator], grads: &mut [impl hip_libs::DeviceDataMut<f32>]) -> hip_libs::Result<()> {
/// group(|g| {
///     for (comm, grad) in comms.iter().zip(grads.iter_mut()) {
///         g.all_reduce_in_place(comm, grad, ReduceOp::Avg)?;
///     }
///     Ok(())
/// })?;
/// # Ok(()) }
/// ```
#[doc(alias = "ncclGroupStart")]
#[doc(alias = "ncclGroupEnd")]
pub fn group<'a, R>(body: impl FnOnce(&mut Group<'a>) -> Result<R>) -> Result<R> {
    const OP: &str = "collective::group";
    if in_group() {
        return Err(LibError::invalid(OP, "groups do not nest: make the calls in the outer group"));
    }
    let api = raw::api()?;
    raw::check(api, raw::group_start(api), "ncclGroupStart", std::ptr::null_mut())?;
    DEPTH.with(|d| d.set(1));
    let mut g = Group { uses: Vec::new(), posted: Vec::new() };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut g)));
    DEPTH.with(|d| d.set(0));
    // The end launches every rank's work: no driver free of the pool may
    // come between those launches.
    let launch = hip_pool::collective_gate::launching();
    // Ends the group started above.
    let ended = raw::check(api, raw::group_end(api), "ncclGroupEnd", std::ptr::null_mut());
    drop(launch);
    if ended.is_ok() {
        for comm in &g.posted {
            comm.posted_collective();
        }
    }
    let recorded = g.record_all();
    match outcome {
        Err(panic) => std::panic::resume_unwind(panic),
        Ok(value) => {
            let value = value?;
            ended?;
            recorded?;
            Ok(value)
        }
    }
}

impl<'a> Group<'a> {
    /// Prepare `part`'s operands and make its call (NCCL keeps it for the
    /// group's end); its uses are recorded after the end.
    fn post(&mut self, comm: &'a Communicator, part: Part<'a>) -> Result<()> {
        comm.usable(part.operation)?;
        if part.empty {
            // Counted all the same, as `Communicator::run` does.
            if part.collective {
                self.posted.push(comm);
            }
            return Ok(());
        }
        for (buffer, access) in &part.operands {
            buffer.prepare(&part.stream, *access)?;
        }
        comm.remember(&part.stream);
        let Part { operation, stream, operands, call, collective, .. } = part;
        let result = call(comm.api(), comm.as_raw(), stream.as_raw());
        if collective && result == hip_sys::rccl::ncclResult_t::ncclSuccess {
            self.posted.push(comm);
        }
        // Recorded even if the call failed: the group's end may still
        // launch what was posted, and a use recorded too late is only
        // conservative.
        for (buffer, access) in operands {
            self.uses.push((buffer, stream.clone(), access));
        }
        raw::check(comm.api(), result, operation, comm.as_raw())
    }

    fn record_all(&mut self) -> Result<()> {
        let mut recorded = Ok(());
        let mut failed: Vec<&Stream> = Vec::new();
        for (buffer, stream, access) in &self.uses {
            if let Err(e) = buffer.record(stream, *access) {
                recorded = recorded.and(Err(LibError::from(e)));
                failed.push(stream);
            }
        }
        // The failure rule: nothing whose use was not recorded may still
        // run once this returns.
        for stream in failed {
            if let Err(e) = stream.synchronize() {
                log::error!("synchronizing a stream after a use could not be recorded: {e}");
            }
        }
        recorded
    }

    /// [`Communicator::all_reduce`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::all_reduce`].
    pub fn all_reduce<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
        op: impl Into<Reduction<T>>,
    ) -> Result<()> {
        self.post(comm, comm.all_reduce_part(send, recv, op.into())?)
    }

    /// [`Communicator::all_reduce_in_place`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::all_reduce`].
    pub fn all_reduce_in_place<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        buf: &'a mut impl DeviceDataMut<T>,
        op: impl Into<Reduction<T>>,
    ) -> Result<()> {
        self.post(comm, comm.all_reduce_in_place_part(buf, op.into())?)
    }

    /// [`Communicator::broadcast`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::broadcast`].
    pub fn broadcast<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: Option<&'a dyn DeviceData<T>>,
        recv: &'a mut impl DeviceDataMut<T>,
        root: usize,
    ) -> Result<()> {
        self.post(comm, comm.broadcast_part(send, recv, root)?)
    }

    /// [`Communicator::reduce`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::reduce`].
    pub fn reduce<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
        op: impl Into<Reduction<T>>,
        root: usize,
    ) -> Result<()> {
        self.post(comm, comm.reduce_part(send, recv, op.into(), root)?)
    }

    /// [`Communicator::all_gather`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::all_gather`].
    pub fn all_gather<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
    ) -> Result<()> {
        self.post(comm, comm.all_gather_part(send, recv)?)
    }

    /// [`Communicator::reduce_scatter`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::reduce_scatter`].
    pub fn reduce_scatter<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
        op: impl Into<Reduction<T>>,
    ) -> Result<()> {
        self.post(comm, comm.reduce_scatter_part(send, recv, op.into())?)
    }

    /// [`Communicator::all_to_all`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::all_to_all`].
    pub fn all_to_all<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
    ) -> Result<()> {
        self.post(comm, comm.all_to_all_part(send, recv)?)
    }

    /// [`Communicator::all_to_all_v`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::all_to_all_v`].
    pub fn all_to_all_v<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: &'a impl DeviceData<T>,
        send_counts: &[usize],
        recv: &'a mut impl DeviceDataMut<T>,
        recv_counts: &[usize],
    ) -> Result<()> {
        self.post(comm, comm.all_to_all_v_part("collective::all_to_all_v", send, send_counts, recv, recv_counts)?)
    }

    /// [`Communicator::gather`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::gather`].
    pub fn gather<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: &'a impl DeviceData<T>,
        recv: Option<&'a mut dyn DeviceDataMut<T>>,
        root: usize,
    ) -> Result<()> {
        self.post(comm, comm.gather_part(send, recv, root)?)
    }

    /// [`Communicator::scatter`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::scatter`].
    pub fn scatter<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: Option<&'a dyn DeviceData<T>>,
        recv: &'a mut impl DeviceDataMut<T>,
        root: usize,
    ) -> Result<()> {
        self.post(comm, comm.scatter_part(send, recv, root)?)
    }

    /// [`Communicator::send`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::send`].
    pub fn send<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        send: &'a impl DeviceData<T>,
        peer: usize,
    ) -> Result<()> {
        self.post(comm, comm.send_part(send, peer)?)
    }

    /// [`Communicator::recv`] in the group.
    ///
    /// # Errors
    /// As [`Communicator::recv`].
    pub fn recv<T: CollectiveElement>(
        &mut self,
        comm: &'a Communicator,
        recv: &'a mut impl DeviceDataMut<T>,
        peer: usize,
    ) -> Result<()> {
        self.post(comm, comm.recv_part(recv, peer)?)
    }
}
