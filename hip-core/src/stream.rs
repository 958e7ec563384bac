//! Streams: in-order queues of work on one device. What orders one
//! stream after another (events recorded on it, waits for them) is in
//! `event`, which builds on this module.

use crate::shared::{Kept, Shared};
use crate::{audit, raw, Device, DeviceMismatch, Result};
use hip_sys::hipStream_t;
use std::sync::atomic::{AtomicU64, Ordering};

struct Inner {
    handle: hipStream_t,
    device: Device,
    priority: i32,
    id: u64,
    /// Whether the handle's stream is this crate's to destroy.
    owner: Owner,
}

/// Who a stream belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// Made here: destroyed with the last clone.
    Us,
    /// Made by other code (a framework's): the table's handle is given back
    /// with the last clone, the stream is left to its maker.
    Foreign,
}

/// Ids of created streams; null streams take their device's ordinal, below.
static NEXT_ID: AtomicU64 = AtomicU64::new(1 << 32);

// SAFETY: a HIP stream handle may be used from any thread; HIP
// synchronizes internally.
unsafe impl Send for Inner {}
// SAFETY: as above.
unsafe impl Sync for Inner {}

impl Drop for Inner {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        if self.handle.is_null() {
            return; // a device's null stream is never destroyed
        }
        if self.owner == Owner::Foreign {
            // The stream is its maker's: only the table's name for it goes.
            if let Err(error) = hip_sys::backend::forget_stream(self.handle) {
                log::error!("dropping a foreign stream of {}: {error:?}", self.device);
            }
            return;
        }
        // SAFETY: the handle is a live stream owned by the dropped Inner.
        if let Err(error) = unsafe { raw::stream::destroy(self.device, self.handle) } {
            log::error!("dropping a stream of {}: {error}", self.device);
        }
    }
}

/// A HIP stream. Clones share one HIP stream, destroyed when the last
/// clone drops, under the stream's own device, from any thread.
///
/// The streams [`stream()`](fn@crate::stream) gives each thread are kept
/// for the process instead (an exiting thread hands its streams to the
/// next thread that needs one), so their clones and drops change no count.
#[derive(Clone)]
pub struct Stream(Shared<Inner>);

/// A `Copy` reference to a kept stream: what the thread's fast state
/// holds, turned into a [`Stream`] without touching a count.
#[derive(Clone, Copy)]
pub(crate) struct KeptStream(Kept<Inner>);

impl KeptStream {
    /// The stream.
    #[inline]
    pub(crate) fn stream(self) -> Stream {
        Stream(self.0.share())
    }
}

impl Stream {
    /// A new stream on `device`, whatever the thread's device is (HIP's
    /// `hipStreamCreate`: `hipStreamCreateWithPriority` at priority 0).
    ///
    /// # Errors
    /// As [`Stream::with_priority_on`].
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Stream};
    ///
    /// for device in Device::all()? {
    ///     let stream = Stream::new_on(device)?;
    ///     assert_eq!(stream.device(), device);
    /// }
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipStreamCreate")]
    pub fn new_on(device: Device) -> Result<Stream> {
        Stream::with_priority_on(device, 0)
    }

    /// A new stream on `device` with `priority` (`hipStreamCreateWithPriority`;
    /// lower is more urgent; clamped by HIP to the device's range).
    ///
    /// # Errors
    /// HIP's status of `hipStreamCreateWithPriority`, or of binding
    /// `device`, as [`HipError::Call`](crate::HipError::Call);
    /// [`HipError::Backend`](crate::HipError::Backend) when no backend loads.
    #[doc(alias = "hipStreamCreateWithPriority")]
    pub fn with_priority_on(device: Device, priority: i32) -> Result<Stream> {
        Stream::create(device, priority, Shared::new)
    }

    /// A stream like [`Stream::with_priority_on`]'s that is never
    /// destroyed: one of a thread's own streams.
    pub(crate) fn kept_with_priority_on(device: Device, priority: i32) -> Result<Stream> {
        Stream::create(device, priority, Shared::kept)
    }

    /// The kept stream behind this one, if it is kept.
    #[inline]
    pub(crate) fn as_kept(&self) -> Option<KeptStream> {
        self.0.as_kept().map(KeptStream)
    }

    fn create(device: Device, priority: i32, share: fn(Inner) -> Shared<Inner>) -> Result<Stream> {
        let handle = raw::stream::create(device, priority)?;
        // SAFETY: the stream just created.
        let actual = unsafe { raw::stream::priority(handle) }.unwrap_or(priority);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Stream(share(Inner { handle, device, priority: actual, id, owner: Owner::Us })))
    }

    /// A stream made by other code in this process (a framework's current
    /// stream: `torch.cuda.current_stream().cuda_stream`, CuPy's
    /// `Stream.ptr`, a DLPack consumer's), for this crate's work to be
    /// ordered on it. `raw` is the loaded runtime's own stream: a
    /// `hipStream_t` on AMD and in the simulator, a `cudaStream_t` on
    /// NVIDIA; null is `device`'s null stream. Dropping the last clone
    /// leaves the stream to its maker (never `hipStreamDestroy`).
    ///
    /// # Errors
    /// [`HipError::Backend`](crate::HipError::Backend) when no backend
    /// loads; [`HipError::Call`](crate::HipError::Call) for a stream the
    /// runtime does not know (`hipStreamGetPriority`'s status), or when
    /// NVIDIA's table of streams is full.
    ///
    /// # Safety
    /// `raw` is a live stream of `device` that outlives every clone of the
    /// returned stream, and every use of it this crate keeps: work queued
    /// on it, the pool blocks and arrays whose own stream it is (until they
    /// are dropped), events recorded on it.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Stream};
    ///
    /// let device = Device::new(0)?;
    /// // Stands for a framework's stream: made outside hip-core's types,
    /// // handed over as the runtime's own (a `cudaStream_t` on NVIDIA).
    /// let theirs = hip_core::raw::stream::create(device, 0)?;
    /// let native = hip_core::raw::stream::native(theirs)?;
    /// // SAFETY: `theirs` lives until it is destroyed below, after `ours`
    /// // and every use of it is gone.
    /// let ours = unsafe { Stream::from_raw(device, native) }?;
    /// ours.synchronize()?;
    /// drop(ours); // leaves `theirs` alone
    /// // SAFETY: made above, destroyed once, nothing uses it any more.
    /// unsafe { hip_core::raw::stream::destroy(device, theirs) }?;
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    pub unsafe fn from_raw(device: Device, raw: *mut std::ffi::c_void) -> Result<Stream> {
        if raw.is_null() {
            return Ok(Stream::null(device));
        }
        let handle = hip_sys::backend::adopt_stream(raw)
            .map_err(|code| crate::HipError::Call { code, operation: "adopting a foreign stream" })?;
        // SAFETY: a live stream, as the caller guarantees (adopted above).
        let priority = match unsafe { raw::stream::priority(handle) } {
            Ok(priority) => priority,
            Err(error) => {
                let _ = hip_sys::backend::forget_stream(handle);
                return Err(error);
            }
        };
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Stream(Shared::new(Inner { handle, device, priority, id, owner: Owner::Foreign })))
    }

    /// The loaded runtime's own stream behind this one, to hand to a
    /// framework (`torch.cuda.ExternalStream(ptr)`,
    /// `cupy.cuda.ExternalStream(ptr)`): a `hipStream_t` on AMD and in the
    /// simulator, a `cudaStream_t` on NVIDIA; null for a null stream. It
    /// stays this stream: the framework must not destroy it, nor use it
    /// after the last clone drops.
    ///
    /// # Errors
    /// As [`raw::stream::native`].
    ///
    /// # Examples
    /// ```
    /// let stream = hip_core::Stream::new()?;
    /// let ptr = stream.as_native()?; // for torch.cuda.ExternalStream(ptr)
    /// assert!(!ptr.is_null());
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    pub fn as_native(&self) -> Result<*mut std::ffi::c_void> {
        raw::stream::native(self.as_raw())
    }

    /// The null (default) stream of `device`.
    pub fn null(device: Device) -> Stream {
        Stream(Shared::new(Inner {
            handle: std::ptr::null_mut(),
            device,
            priority: 0,
            id: device.ordinal() as u64,
            owner: Owner::Us,
        }))
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// The stream's priority.
    pub fn priority(&self) -> i32 {
        self.0.priority
    }

    /// A number naming this stream for the life of the process: equal for
    /// clones and for two values of one device's null stream, never given
    /// to another stream (unlike a raw handle, which HIP may reuse once
    /// the stream is destroyed).
    #[inline]
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The raw handle (null for a null stream).
    pub fn as_raw(&self) -> hipStream_t {
        self.0.handle
    }

    /// Whether this is a device's null stream.
    pub fn is_null(&self) -> bool {
        self.0.handle.is_null()
    }

    /// Whether other code made this stream ([`Stream::from_raw`]): its
    /// flags are that code's, and it may be non-blocking. The streams
    /// hip-core makes, and the null stream, are blocking.
    pub fn is_foreign(&self) -> bool {
        self.0.owner == Owner::Foreign
    }

    /// Wait until all work queued so far has finished (`hipStreamSynchronize`).
    ///
    /// # Errors
    /// HIP's status of `hipStreamSynchronize`, or of binding the stream's
    /// device, as [`HipError::Call`](crate::HipError::Call): a fault of
    /// work queued earlier is reported here.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Stream};
    ///
    /// let stream = Stream::new_on(Device::new(0)?)?;
    /// let _marker = stream.record_event()?;
    /// stream.synchronize()?;
    /// assert!(stream.query()?);
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipStreamSynchronize")]
    pub fn synchronize(&self) -> Result<()> {
        crate::underway::check_wait_raw("Stream::synchronize", self.device(), self.as_raw())?;
        // SAFETY: a live stream of its device (or null: that device's null stream).
        unsafe { raw::stream::synchronize(self.device(), self.0.handle) }
    }

    /// Whether all queued work has finished (`hipStreamQuery`).
    ///
    /// # Errors
    /// HIP's status of `hipStreamQuery` other than `hipErrorNotReady` (which
    /// is `Ok(false)`), or of binding the stream's device, as
    /// [`HipError::Call`](crate::HipError::Call).
    #[doc(alias = "hipStreamQuery")]
    pub fn query(&self) -> Result<bool> {
        crate::underway::check_wait_raw("Stream::query", self.device(), self.as_raw())?;
        // SAFETY: as in synchronize.
        unsafe { raw::stream::query(self.device(), self.0.handle) }
    }

    /// `Ok` if the stream is on `device`, else a [`HipError::DeviceMismatch`](crate::HipError::DeviceMismatch)
    /// naming the stream as the operand of `operation`.
    ///
    /// # Errors
    /// [`HipError::DeviceMismatch`](crate::HipError::DeviceMismatch) when the
    /// stream is on another device than `device`; no HIP call is made.
    pub fn expect_device(&self, device: Device, operation: &'static str) -> Result<()> {
        Ok(DeviceMismatch::check(operation, "the stream", device, self.device())?)
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for Stream {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream({:p} on device {})", self.0.handle, self.0.device.ordinal())
    }
}
