//! The exchanges NCCL composes of sends and receives in one group:
//! all-to-all (equal or uneven parts), gather and scatter, on every
//! backend.
//!
//! NCCL has no calls of their own for these (RCCL has some); its guide
//! builds them of `ncclSend`/`ncclRecv` between `ncclGroupStart` and
//! `ncclGroupEnd`, as PyTorch does. One exchange is one [`Part`] whose
//! call makes that whole group, so it runs alone or inside a
//! [`group`](super::group) (NCCL's groups nest: the inner end only counts
//! down) with its uses declared once, like any other operation. A part
//! of no elements is left out on both sides, and a rank's part to itself
//! is a send and a receive of its own, which NCCL pairs inside the group.

use super::element::CollectiveElement;
use super::part::{Call, Part};
use super::raw;
use super::Communicator;
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_pool::Access;
use hip_sys::rccl::ncclResult_t;
use std::ffi::{c_int, c_void};

/// One rank's side of an exchange with one peer: what it sends there and
/// where it receives from there (element offsets and counts).
#[derive(Debug, Clone, Copy, Default)]
struct Leg {
    peer: c_int,
    send: Option<(usize, usize)>,
    recv: Option<(usize, usize)>,
}

/// The call of an exchange: every leg's send and receive in one group.
/// The first failure is the result (the group's end then fails too, and
/// NCCL launches none of it); the end is always called.
fn exchange<'a, T: CollectiveElement>(send: *const c_void, recv: *mut c_void, legs: Vec<Leg>) -> Call<'a> {
    let size = std::mem::size_of::<T>();
    Box::new(move |api, comm, stream| {
        let started = raw::group_start(api);
        if started != ncclResult_t::ncclSuccess {
            return started;
        }
        let mut first = ncclResult_t::ncclSuccess;
        let mut keep = |r: ncclResult_t| {
            if first == ncclResult_t::ncclSuccess {
                first = r;
            }
        };
        for leg in &legs {
            if let Some((at, n)) = leg.send {
                // SAFETY: elements `at..at + n` lie inside the send
                // operand, on the communicator's device (checked by the
                // part's builder).
                keep(unsafe {
                    let p = send.byte_add(at * size);
                    raw::send(api, p, n, T::DATATYPE, leg.peer, comm, stream)
                });
            }
            if let Some((at, n)) = leg.recv {
                // SAFETY: as above, inside the receive operand.
                keep(unsafe {
                    let p = recv.byte_add(at * size);
                    raw::recv(api, p, n, T::DATATYPE, leg.peer, comm, stream)
                });
            }
        }
        let ended = raw::group_end(api);
        if first == ncclResult_t::ncclSuccess {
            ended
        } else {
            first
        }
    })
}

/// Consecutive parts of `counts` elements from offset 0: each part's
/// offset and count, or `None` where it is empty, after checking that
/// they fit in `len`.
fn parts_of(
    operation: &'static str,
    what: &str,
    counts: &[usize],
    size: usize,
    len: usize,
) -> Result<Vec<Option<(usize, usize)>>> {
    if counts.len() != size {
        return Err(LibError::invalid(
            operation,
            format!("{what} has {} counts for a communicator of {size} ranks: give one a rank", counts.len()),
        ));
    }
    let mut at = 0usize;
    let mut parts = Vec::with_capacity(size);
    for &n in counts {
        parts.push((n > 0).then_some((at, n)));
        at = at.checked_add(n).filter(|&end| end <= len).ok_or_else(|| {
            let total: u128 = counts.iter().map(|&c| c as u128).sum();
            LibError::invalid(operation, format!("{what} add up to {total} elements, more than the buffer's {len}"))
        })?;
    }
    Ok(parts)
}

impl Communicator {
    pub(crate) fn all_to_all_part<'a, T: CollectiveElement>(
        &'a self,
        send: &'a impl DeviceData<T>,
        recv: &'a mut impl DeviceDataMut<T>,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::all_to_all";
        let size = self.size();
        let (s, r) = (send.len(), recv.len());
        if s != r || s % size != 0 {
            return Err(LibError::invalid(
                OP,
                format!(
                    "send holds {s} elements, recv {r}: they must be equal and a multiple of the {size} ranks \
                     (use all_to_all_v for uneven parts)"
                ),
            ));
        }
        let counts = vec![s / size; size];
        self.all_to_all_v_part(OP, send, &counts, recv, &counts)
    }

    pub(crate) fn all_to_all_v_part<'a, T: CollectiveElement>(
        &'a self,
        operation: &'static str,
        send: &'a impl DeviceData<T>,
        send_counts: &[usize],
        recv: &'a mut impl DeviceDataMut<T>,
        recv_counts: &[usize],
    ) -> Result<Part<'a>> {
        same_device(operation, self.device(), &[("send", send.device()), ("recv", recv.device())])?;
        let size = self.size();
        let sends = parts_of(operation, "send_counts", send_counts, size, send.len())?;
        let recvs = parts_of(operation, "recv_counts", recv_counts, size, recv.len())?;
        let legs: Vec<Leg> = (0..size)
            .map(|peer| Leg { peer: peer as c_int, send: sends[peer], recv: recvs[peer] })
            .filter(|leg| leg.send.is_some() || leg.recv.is_some())
            .collect();
        let empty = legs.is_empty();
        let call = exchange::<T>(send.device_ptr(), recv.device_ptr_mut(), legs);
        Ok(Part {
            operation,
            stream: recv.stream().clone(),
            operands: vec![(send.buffer(), Access::Read), (recv.buffer(), Access::Write)],
            call,
            empty,
            collective: true,
        })
    }

    pub(crate) fn gather_part<'a, 'b: 'a, T: CollectiveElement>(
        &'a self,
        send: &'a impl DeviceData<T>,
        recv: Option<&'a mut (dyn DeviceDataMut<T> + 'b)>,
        root: usize,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::gather";
        let peer = self.checked_rank(OP, root, "root")?;
        same_device(OP, self.device(), &[("send", send.device())])?;
        let (size, n) = (self.size(), send.len());
        let mut legs = vec![Leg { peer, send: (n > 0).then_some((0, n)), recv: None }];
        let mut operands = vec![(send.buffer(), Access::Read)];
        let (mut stream, mut recv_ptr) = (send.stream().clone(), std::ptr::null_mut());
        if root == self.rank() {
            let Some(recv) = recv else {
                return Err(LibError::invalid(OP, format!("rank {root} is the root: give it the recv buffer")));
            };
            same_device(OP, self.device(), &[("recv", recv.device())])?;
            check_whole(OP, "recv", recv.len(), n, size, "send")?;
            if n > 0 {
                legs.extend((0..size).map(|peer| Leg { peer: peer as c_int, send: None, recv: Some((peer * n, n)) }));
            }
            stream = recv.stream().clone();
            recv_ptr = recv.device_ptr_mut();
            operands.push((recv.buffer(), Access::Write));
        }
        legs.retain(|leg| leg.send.is_some() || leg.recv.is_some());
        let empty = legs.is_empty();
        Ok(Part {
            operation: OP,
            stream,
            operands,
            call: exchange::<T>(send.device_ptr(), recv_ptr, legs),
            empty,
            collective: true,
        })
    }

    pub(crate) fn scatter_part<'a, T: CollectiveElement>(
        &'a self,
        send: Option<&'a dyn DeviceData<T>>,
        recv: &'a mut impl DeviceDataMut<T>,
        root: usize,
    ) -> Result<Part<'a>> {
        const OP: &str = "collective::scatter";
        let peer = self.checked_rank(OP, root, "root")?;
        same_device(OP, self.device(), &[("recv", recv.device())])?;
        let (size, n) = (self.size(), recv.len());
        let mut legs = vec![Leg { peer, send: None, recv: (n > 0).then_some((0, n)) }];
        let mut operands = Vec::with_capacity(2);
        let mut send_ptr = std::ptr::null();
        if root == self.rank() {
            let Some(send) = send else {
                return Err(LibError::invalid(OP, format!("rank {root} is the root: give it the send buffer")));
            };
            same_device(OP, self.device(), &[("send", send.device())])?;
            check_whole(OP, "send", send.len(), n, size, "recv")?;
            if n > 0 {
                legs.extend((0..size).map(|peer| Leg { peer: peer as c_int, send: Some((peer * n, n)), recv: None }));
            }
            send_ptr = send.device_ptr();
            operands.push((send.buffer(), Access::Read));
        }
        legs.retain(|leg| leg.send.is_some() || leg.recv.is_some());
        let empty = legs.is_empty();
        let call = exchange::<T>(send_ptr, recv.device_ptr_mut(), legs);
        operands.push((recv.buffer(), Access::Write));
        let stream = recv.stream().clone();
        Ok(Part { operation: OP, stream, operands, call, empty, collective: true })
    }
}

/// The root's whole buffer holds a part of `n` for each of `size` ranks.
fn check_whole(operation: &'static str, what: &str, len: usize, n: usize, size: usize, part: &str) -> Result<()> {
    if n.checked_mul(size) == Some(len) {
        return Ok(());
    }
    Err(LibError::invalid(
        operation,
        format!(
            "{part} holds {n} elements and there are {size} ranks, so the root's {what} must hold {}, not {len}",
            n as u128 * size as u128
        ),
    ))
}
