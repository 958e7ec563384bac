//! Asynchronous copies: between pinned host memory and device arrays,
//! within a device, and between devices, on a stream the caller chooses.
//!
//! Each copy checks its operands (equal lengths, the stream's device),
//! orders itself after the earlier uses it conflicts with, enqueues one
//! `hipMemcpyAsync` (or `hipMemcpyPeerAsync`) and returns. It then records
//! its use of each side: device arrays through their pool buffer
//! ([`hip_pool::Buffer::prepare`] / `record`), host buffers through the
//! events that their host access and their drop wait for (see
//! [`HostBuffer`]).

use crate::host::HostUses;
use crate::{
    Device, DeviceArray, DeviceCopy, DeviceMismatch, DeviceSlice, DeviceSliceMut, Error, HostSlice, HostSliceMut,
    Result, Stream,
};
use hip_core::raw;
use hip_pool::{Access, Buffer};
use hip_sys::{hipError_t, hipMemcpyKind};
use std::ffi::c_void;
use std::ops::Range;

/// One side of a copy.
pub(crate) enum Side<'a> {
    /// A host buffer whose copies record events.
    Host(&'a HostUses, Range<usize>),
    /// A host buffer borrowed by a [`crate::CopyScope`], which waits for
    /// its stream before the borrow ends: ordered like `Host`, no event.
    Scoped(&'a HostUses, Range<usize>),
    Device(&'a Buffer),
}

impl hip_pool::Operand for Side<'_> {
    type Error = Error;

    fn prepare(&self, stream: &Stream, access: Access) -> Result<()> {
        match self {
            Side::Host(uses, bytes) | Side::Scoped(uses, bytes) => uses.prepare(stream, bytes, access),
            Side::Device(buffer) => Ok(buffer.prepare(stream, access)?),
        }
    }

    fn record(&self, stream: &Stream, access: Access) -> Result<()> {
        match self {
            Side::Host(uses, bytes) => uses.record(stream, bytes.clone(), access),
            Side::Scoped(..) => Ok(()),
            Side::Device(buffer) => Ok(buffer.record(stream, access)?),
        }
    }
}

/// What to enqueue.
pub(crate) enum Call {
    /// `hipMemcpyAsync` (the direction taken from the pointers).
    Copy,
    /// `hipMemcpyPeerAsync` from the source device to the destination's.
    Peer { source: Device, destination: Device },
}

pub(crate) fn check_lengths(operation: &'static str, source: usize, destination: usize) -> Result<()> {
    if source == destination {
        Ok(())
    } else {
        Err(Error::SizeMismatch { operation, source_len: source, destination_len: destination })
    }
}

pub(crate) fn check_stream(operation: &'static str, stream: &Stream, device: Device) -> Result<()> {
    Ok(DeviceMismatch::check(operation, "the stream", device, stream.device())?)
}

/// Enqueue `call` copying `bytes` from `src` to `dst` on `stream`, under
/// the operand protocol ([`hip_pool::enqueue`]): both sides prepared,
/// then recorded also when the copy failed.
pub(crate) fn enqueue(
    stream: &Stream,
    (dst, dst_side): (*mut c_void, Side<'_>),
    (src, src_side): (*const c_void, Side<'_>),
    bytes: usize,
    call: Call,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    let device = stream.device();
    hip_pool::enqueue(stream, [(&dst_side, Access::Write), (&src_side, Access::Read)], || match call {
        Call::Copy => {
            let kind = hipMemcpyKind::hipMemcpyDefault;
            // SAFETY: both ranges hold `bytes` bytes (checked by the
            // callers' views) and stay alive until the copy is over: the
            // recorded uses keep host memory and device blocks from being
            // freed or reused before then. The stream is live (borrowed)
            // and of its own device.
            unsafe { raw::mem::copy_async(device, dst, src, bytes, kind, stream.as_raw()) }.map_err(Error::from)
        }
        Call::Peer { source, destination } => {
            // SAFETY: as above, for device memory of two devices.
            unsafe { raw::mem::copy_peer_async(device, (dst, destination), (src, source), bytes, stream.as_raw()) }
                .map_err(|cause| match cause.code() {
                    Some(
                        hipError_t::hipErrorPeerAccessUnsupported
                        | hipError_t::hipErrorNotSupported
                        | hipError_t::hipErrorPeerAccessNotEnabled
                        | hipError_t::hipErrorInvalidDevice,
                    ) => Error::NoPeerPath { from: source, to: destination, cause },
                    _ => Error::from(cause),
                })
        }
    })
}

impl<T: DeviceCopy> DeviceSliceMut<'_, T> {
    /// Copy `src` (pinned host memory) into this view on `stream`
    /// (`hipMemcpyAsync`), which must be on the array's device; returns once
    /// the copy is enqueued. Lengths must be equal.
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when the lengths differ, [`Error::Hip`] with a
    /// device mismatch when `stream` is on another device (nothing enqueued);
    /// [`Error::HostBufferLost`] for a lost buffer; else HIP's status of
    /// `hipMemcpyAsync` or of an ordering call, or [`Error::Pool`].
    #[doc(alias = "hipMemcpyAsync")]
    pub fn copy_from_host_async<'h>(&mut self, src: impl Into<HostSlice<'h, T>>, stream: &Stream) -> Result<()>
    where
        T: 'h,
    {
        let src = src.into();
        check_lengths("copy_from_host_async", src.len(), self.len)?;
        check_stream("copy_from_host_async", stream, self.device())?;
        let bytes = self.len * std::mem::size_of::<T>();
        let dst_ptr = self.as_mut_ptr().cast::<c_void>();
        let dst = (dst_ptr, Side::Device(self.array.buffer()));
        let src_side = (src.ptr().cast::<c_void>(), Side::Host(&src.buffer.uses, src.bytes()));
        enqueue(stream, dst, src_side, bytes, Call::Copy)
    }

    /// Copy `src` (device memory of this device or another) into this view
    /// on `stream` (`hipMemcpyAsync`), which must be on either device;
    /// returns once the copy is enqueued. Between devices the copy is
    /// `hipMemcpyPeerAsync`, with peer access enabled first where the
    /// hardware has it (else the runtime stages it); a runtime with no path
    /// at all is [`Error::NoPeerPath`]. Lengths must be equal.
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when the lengths differ, [`Error::Hip`] with a
    /// device mismatch when `stream` is on neither device; between devices as
    /// [`Device::enable_peer_access`](hip_core::Device::enable_peer_access)
    /// and [`Error::NoPeerPath`]; else HIP's status of the copy or of an
    /// ordering call, or [`Error::Pool`].
    #[doc(alias = "hipMemcpyAsync")]
    #[doc(alias = "hipMemcpyPeerAsync")]
    pub fn copy_from_async<'s>(&mut self, src: impl Into<DeviceSlice<'s, T>>, stream: &Stream) -> Result<()>
    where
        T: 's,
    {
        let src = src.into();
        let operation = "copy_from_async";
        check_lengths(operation, src.len(), self.len)?;
        let (source, destination) = (src.device(), self.device());
        if stream.device() != source && stream.device() != destination {
            return Err(DeviceMismatch::new(operation, "the stream", destination, stream.device()).into());
        }
        let call = if source == destination {
            Call::Copy
        } else {
            let here = stream.device();
            let other = if here == source { destination } else { source };
            if here.can_access_peer(other)? {
                here.enable_peer_access(other)?;
            }
            Call::Peer { source, destination }
        };
        let bytes = self.len * std::mem::size_of::<T>();
        let dst_ptr = self.as_mut_ptr().cast::<c_void>();
        let dst = (dst_ptr, Side::Device(self.array.buffer()));
        let src_side = (src.as_ptr().cast::<c_void>(), Side::Device(src.array().buffer()));
        enqueue(stream, dst, src_side, bytes, call)
    }
}

impl<T: DeviceCopy> DeviceSlice<'_, T> {
    /// Copy this view into `dst` (pinned host memory) on `stream`
    /// (`hipMemcpyAsync`), which must be on the array's device; returns once
    /// the copy is enqueued. `dst`'s host access waits for it. Lengths must
    /// be equal.
    ///
    /// # Errors
    /// As [`DeviceSliceMut::copy_from_host_async`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let stream = Stream::new()?;
    /// let array = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0, 4.0])?;
    /// let mut out = HostBuffer::<f32>::zeroed(2)?;
    /// array.slice(2..)?.copy_to_host_async(&mut out, &stream)?; // returns at once
    /// assert_eq!(out.as_slice()?, [3.0, 4.0]); // waits for the copy
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    #[doc(alias = "hipMemcpyAsync")]
    pub fn copy_to_host_async<'h>(&self, dst: impl Into<HostSliceMut<'h, T>>, stream: &Stream) -> Result<()>
    where
        T: 'h,
    {
        let dst = dst.into();
        check_lengths("copy_to_host_async", self.len(), dst.len())?;
        check_stream("copy_to_host_async", stream, self.device())?;
        let bytes = self.len() * std::mem::size_of::<T>();
        let dst_side = (dst.ptr().cast::<c_void>(), Side::Host(&dst.buffer.uses, dst.bytes()));
        let src = (self.as_ptr().cast::<c_void>(), Side::Device(self.array().buffer()));
        enqueue(stream, dst_side, src, bytes, Call::Copy)
    }
}

impl<T: DeviceCopy> DeviceArray<T> {
    /// Copy `src` (all of a [`crate::HostBuffer`], or a [`HostSlice`] of
    /// one) into the whole array on `stream`, asynchronously: see
    /// [`DeviceSliceMut::copy_from_host_async`].
    ///
    /// # Errors
    /// As [`DeviceSliceMut::copy_from_host_async`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let stream = Stream::new()?;
    /// let input = HostBuffer::from_slice(&[1u32, 2, 3])?;
    /// let mut array = DeviceArray::<u32>::zeros(3)?;
    /// array.copy_from_host_async(&input, &stream)?; // returns at once
    /// stream.synchronize()?;
    /// assert_eq!(array.to_vec()?, [1, 2, 3]);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn copy_from_host_async<'h>(&mut self, src: impl Into<HostSlice<'h, T>>, stream: &Stream) -> Result<()>
    where
        T: 'h,
    {
        DeviceSliceMut::from(self).copy_from_host_async(src, stream)
    }

    /// Copy the whole array into `dst` on `stream`, asynchronously: see
    /// [`DeviceSlice::copy_to_host_async`].
    ///
    /// # Errors
    /// As [`DeviceSlice::copy_to_host_async`].
    pub fn copy_to_host_async<'h>(&self, dst: impl Into<HostSliceMut<'h, T>>, stream: &Stream) -> Result<()>
    where
        T: 'h,
    {
        self.as_slice().copy_to_host_async(dst, stream)
    }

    /// Copy `src` (of this device or another) into the whole array on
    /// `stream`, asynchronously: see [`DeviceSliceMut::copy_from_async`].
    ///
    /// # Errors
    /// As [`DeviceSliceMut::copy_from_async`].
    pub fn copy_from_async<'s>(&mut self, src: impl Into<DeviceSlice<'s, T>>, stream: &Stream) -> Result<()>
    where
        T: 's,
    {
        DeviceSliceMut::from(self).copy_from_async(src, stream)
    }
}
