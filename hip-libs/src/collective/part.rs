//! One operation of one rank, checked and ready to enqueue: its stream,
//! the buffers it uses and the NCCL call. A communicator enqueues it at
//! once, a [`Group`](super::Group) at the group's end.

use super::element::{CollectiveElement, Reduction};
use super::raw;
use super::Communicator;
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_core::Stream;
use hip_pool::{Access, Buffer};
use hip_sys::hipStream_t;
use hip_sys::rccl::{ncclComm_t, ncclResult_t, RcclApi};
use std::ffi::c_void;

/// The NCCL call of a part.
pub(crate) type Call<'a> = Box<dyn FnOnce(&RcclApi, ncclComm_t, hipStream_t) -> ncclResult_t + 'a>;

/// A checked operation.
pub(crate) struct Part<'a> {
    pub operation: &'static str,
    pub stream: Stream,
    pub operands: Vec<(&'a Buffer, Access)>,
    pub call: Call<'a>,
    /// No elements move: nothing is enqueued.
    pub empty: bool,
    /// Every rank makes it (not a send or a receive).
    pub collective: bool,
}

/// The lengths' rule of a part, checked before any call.
fn lengths(operation: &'static str, ok: bool, problem: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(LibError::invalid(operation, problem()))
    }
}

impl Communicator {
    fn on_my_device(&self, operation: &'static str, operands: &[(&'static str, hip_core::Device)]) -> Result<()> {
        same_device(operation, self.device(), operands)
    }

    /// `root` as NCCL's rank, if it is one of the communicator's.
    pub(super) fn checked_rank(&self, operation: &'static str, root: usize, what: &str) -> Result<i32> {
        if root >= self.size() {
            return Err(LibError::invalid(
                operation,
                format!("{what} {root} of a communicator of {} ranks (ranks are 0..{})", self.size(), self.size()),
            ));
        }
        Ok(root as i32)
    }

    /// The part of an operation that reads `send` and writes `recv`, on
    /// `recv`'s stream: both on this communicator's device, then `count`
    /// checks the lengths and gives the element count, and `call` makes
    /// the NCCL call of the two addresses and that count.
    fn out_of_place<'a, T>(
        &'a self,
        operation: &'static str,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
        count: impl FnOnce(usize, usize) -> Result<usize>,
        call: impl FnOnce(*const c_void, *mut c_void, usize) -> Call<'a>,
    ) -> Result<Part<'a>> {
        self.on_my_device(operation, &[("send", send.device()), ("recv", recv.device())])?;
        let n = count(send.len(), recv.len())?;
        let call = call(send.device_ptr(), recv.device_ptr_mut(), n);
        Ok(Part {
            operation,
            stream: recv.stream().clone(),
            operands: vec![(send.buffer(), Access::Read), (recv.buffer(), Access::Write)],
            call,
            empty: n == 0,
            collective: true,
        })
    }

    pub(crate) fn all_reduce_part<'a, T: CollectiveElement>(
        &'a self,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
        op: Reduction<T>,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::all_reduce";
        let count = |sent: usize, n: usize| {
            lengths(OP, sent == n, || format!("send holds {sent} elements, recv {n}: they must be equal"))?;
            Ok(n)
        };
        self.out_of_place(OP, send, recv, count, |s, r, n| {
            Box::new(move |api, comm, stream| {
                // SAFETY: both hold `n` elements on the communicator's
                // device (checked by `out_of_place`).
                op.with_raw(api, comm, |op| unsafe { raw::all_reduce(api, s, r, n, T::DATATYPE, op, comm, stream) })
            })
        })
    }

    pub(crate) fn all_reduce_in_place_part<'a, T: CollectiveElement>(
        &'a self,
        buf: &'a mut impl DeviceDataMut<T>,
        op: Reduction<T>,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::all_reduce_in_place";
        self.on_my_device(OP, &[("buf", buf.device())])?;
        let n = buf.len();
        let p = buf.device_ptr_mut();
        Ok(Part {
            operation: OP,
            stream: buf.stream().clone(),
            operands: vec![(buf.buffer(), Access::Write)],
            call: Box::new(move |api, comm, stream| {
                // SAFETY: `buf` holds `n` elements on the
                // communicator's device; in place is NCCL's same pointer.
                op.with_raw(api, comm, |op| unsafe {
                    raw::all_reduce(api, p.cast_const(), p, n, T::DATATYPE, op, comm, stream)
                })
            }),
            empty: n == 0,
            collective: true,
        })
    }

    pub(crate) fn broadcast_part<'a, T: CollectiveElement>(
        &'a self,
        send: Option<&'a dyn DeviceData<T>>,
        recv: &'a mut impl DeviceDataMut<T>,
        root: usize,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::broadcast";
        let root = self.checked_rank(OP, root, "root")?;
        let n = recv.len();
        let mut operands = Vec::with_capacity(2);
        let s: *const c_void = match send {
            Some(send) => {
                self.on_my_device(OP, &[("send", send.device())])?;
                lengths(OP, send.len() == n, || format!("send holds {} elements, recv {n}", send.len()))?;
                operands.push((send.buffer(), Access::Read));
                send.device_ptr()
            }
            None => std::ptr::null(),
        };
        self.on_my_device(OP, &[("recv", recv.device())])?;
        let r = recv.device_ptr_mut();
        let s = if send.is_none() { r.cast_const() } else { s };
        operands.push((recv.buffer(), Access::Write));
        Ok(Part {
            operation: OP,
            stream: recv.stream().clone(),
            operands,
            call: Box::new(move |api, comm, stream| {
                // SAFETY: `recv` (and `send`, read at the root)
                // hold `n` elements on the communicator's device.
                unsafe { raw::broadcast(api, s, r, n, T::DATATYPE, root, comm, stream) }
            }),
            empty: n == 0,
            collective: true,
        })
    }

    pub(crate) fn reduce_part<'a, T: CollectiveElement>(
        &'a self,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
        op: Reduction<T>,
        root: usize,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::reduce";
        let root = self.checked_rank(OP, root, "root")?;
        let count = |n: usize, got: usize| {
            lengths(OP, got == n, || format!("send holds {n} elements, recv {got}: they must be equal"))?;
            Ok(n)
        };
        self.out_of_place(OP, send, recv, count, |s, r, n| {
            Box::new(move |api, comm, stream| {
                // SAFETY: both hold `n` elements on the communicator's
                // device.
                op.with_raw(api, comm, |op| unsafe { raw::reduce(api, s, r, n, T::DATATYPE, op, root, comm, stream) })
            })
        })
    }

    pub(crate) fn all_gather_part<'a, T: CollectiveElement>(
        &'a self,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::all_gather";
        let size = self.size();
        let count = |n: usize, got: usize| {
            lengths(OP, n.checked_mul(size) == Some(got), || {
                format!(
                    "send holds {n} elements and there are {size} ranks, so recv must hold {}, not {got}",
                    n as u128 * size as u128
                )
            })?;
            Ok(n)
        };
        self.out_of_place(OP, send, recv, count, |s, r, n| {
            Box::new(move |api, comm, stream| {
                // SAFETY: `send` holds `n`, `recv` `n * size` elements on
                // the communicator's device.
                unsafe { raw::all_gather(api, s, r, n, T::DATATYPE, comm, stream) }
            })
        })
    }

    pub(crate) fn reduce_scatter_part<'a, T: CollectiveElement>(
        &'a self,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
        op: Reduction<T>,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::reduce_scatter";
        let size = self.size();
        let count = |sent: usize, n: usize| {
            lengths(OP, n.checked_mul(size) == Some(sent), || {
                format!(
                    "recv holds {n} elements and there are {size} ranks, so send must hold {}, not {sent}",
                    n as u128 * size as u128
                )
            })?;
            Ok(n)
        };
        self.out_of_place(OP, send, recv, count, |s, r, n| {
            Box::new(move |api, comm, stream| {
                // SAFETY: `send` holds `n * size`, `recv` `n` elements on
                // the communicator's device.
                op.with_raw(api, comm, |op| unsafe { raw::reduce_scatter(api, s, r, n, T::DATATYPE, op, comm, stream) })
            })
        })
    }

    pub(crate) fn send_part<'a, T: CollectiveElement>(
        &'a self,
        send: &'a impl DeviceData<T>,
        peer: usize,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::send";
        let peer = self.checked_rank(OP, peer, "peer")?;
        self.on_my_device(OP, &[("send", send.device())])?;
        let (s, n) = (send.device_ptr(), send.len());
        Ok(Part {
            operation: OP,
            stream: send.stream().clone(),
            operands: vec![(send.buffer(), Access::Read)],
            call: Box::new(move |api, comm, stream| {
                // SAFETY: `send` holds `n` elements on the
                // communicator's device.
                unsafe { raw::send(api, s, n, T::DATATYPE, peer, comm, stream) }
            }),
            empty: n == 0,
            collective: false,
        })
    }

    pub(crate) fn recv_part<'a, T: CollectiveElement>(
        &'a self,
        recv: &'a mut impl DeviceDataMut<T>,
        peer: usize,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::recv";
        let peer = self.checked_rank(OP, peer, "peer")?;
        self.on_my_device(OP, &[("recv", recv.device())])?;
        let n = recv.len();
        let r = recv.device_ptr_mut();
        Ok(Part {
            operation: OP,
            stream: recv.stream().clone(),
            operands: vec![(recv.buffer(), Access::Write)],
            call: Box::new(move |api, comm, stream| {
                // SAFETY: `recv` holds `n` elements on the
                // communicator's device.
                unsafe { raw::recv(api, r, n, T::DATATYPE, peer, comm, stream) }
            }),
            empty: n == 0,
            collective: false,
        })
    }
}
