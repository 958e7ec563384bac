//! Events: markers in a stream, for ordering across streams and timing,
//! and the [`Stream`] methods that order by them.

use crate::{audit, raw, Device, DeviceMismatch, Result, Stream};
use hip_sys::hipEvent_t;
use std::time::Duration;

/// A HIP event, bound to the device it was made on. Destroyed on drop,
/// under that device, from any thread.
pub struct Event {
    handle: hipEvent_t,
    device: Device,
}

// SAFETY: HIP event handles may be used from any thread.
unsafe impl Send for Event {}
// SAFETY: as above.
unsafe impl Sync for Event {}

impl Event {
    /// A new event on `device`, with timing (`hipEventCreate`).
    ///
    /// # Errors
    /// HIP's status of `hipEventCreate`, or of binding `device`, as
    /// [`HipError::Call`](crate::HipError::Call);
    /// [`HipError::Backend`](crate::HipError::Backend) when no backend loads.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Event, Stream};
    ///
    /// let device = Device::new(0)?;
    /// let event = Event::new_on(device)?;
    /// assert_eq!(event.device(), device);
    /// event.record(&Stream::new_on(device)?)?;
    /// event.synchronize()?;
    /// assert!(event.query()?);
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipEventCreate")]
    pub fn new_on(device: Device) -> Result<Event> {
        let handle = raw::event::create(device)?;
        Ok(Event { handle, device })
    }

    /// A new event on `device` without timing (`hipEventCreateWithFlags`
    /// with `hipEventDisableTiming`): cheaper to record, for ordering
    /// streams only ([`Event::elapsed_since`] refuses it).
    ///
    /// # Errors
    /// HIP's status of `hipEventCreateWithFlags`, or of binding `device`, as
    /// [`HipError::Call`](crate::HipError::Call);
    /// [`HipError::Backend`](crate::HipError::Backend) when no backend loads.
    #[doc(alias = "hipEventCreateWithFlags")]
    pub fn untimed_on(device: Device) -> Result<Event> {
        let handle = raw::event::create_untimed(device)?;
        Ok(Event { handle, device })
    }

    /// The device the event belongs to.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The raw handle.
    pub fn as_raw(&self) -> hipEvent_t {
        self.handle
    }

    /// Record the event on `stream` (`hipEventRecord`), which must be on the
    /// event's device (a typed error naming both devices otherwise).
    ///
    /// # Errors
    /// [`HipError::DeviceMismatch`](crate::HipError::DeviceMismatch) when
    /// the stream is on another device (before any HIP call); else HIP's
    /// status of `hipEventRecord`, or of binding the device.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Event, HipError, Stream};
    ///
    /// let stream = Stream::new_on(Device::new(0)?)?;
    /// let (start, end) = (Event::new_on(stream.device())?, Event::new_on(stream.device())?);
    /// start.record(&stream)?;
    /// end.record(&stream)?; // after the work queued between the two
    /// end.synchronize()?;
    /// println!("took {:?}", start.elapsed(&end)?);
    /// if Device::count()? >= 2 {
    ///     let elsewhere = Stream::new_on(Device::new(1)?)?;
    ///     assert!(matches!(end.record(&elsewhere), Err(HipError::DeviceMismatch(_))));
    /// }
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipEventRecord")]
    pub fn record(&self, stream: &Stream) -> Result<()> {
        DeviceMismatch::check("Event::record", "the stream", self.device, stream.device())?;
        // SAFETY: both handles are live (borrowed) and on one device (checked above).
        unsafe { raw::event::record(self.device, self.handle, stream.as_raw()) }
    }

    /// Wait for the last recording to complete (`hipEventSynchronize`).
    ///
    /// # Errors
    /// [`HipError::CaptureUnderway`](crate::HipError::CaptureUnderway) while
    /// a Global capture (or one of this thread's) is underway, which the
    /// wait would break; else HIP's status of `hipEventSynchronize`, or of
    /// binding the event's device, as [`HipError::Call`](crate::HipError::Call).
    #[doc(alias = "hipEventSynchronize")]
    pub fn synchronize(&self) -> Result<()> {
        crate::underway::check_event_wait("Event::synchronize")?;
        // SAFETY: a live event of its device.
        unsafe { raw::event::synchronize(self.device, self.handle) }
    }

    /// Whether the last recording has completed (`hipEventQuery`).
    ///
    /// # Errors
    /// [`HipError::CaptureUnderway`](crate::HipError::CaptureUnderway) as
    /// for [`Event::synchronize`] (CUDA refuses the query then); else HIP's
    /// status of `hipEventQuery` other than `hipErrorNotReady` (which is
    /// `Ok(false)`), or of binding the event's device, as
    /// [`HipError::Call`](crate::HipError::Call).
    #[doc(alias = "hipEventQuery")]
    pub fn query(&self) -> Result<bool> {
        crate::underway::check_event_wait("Event::query")?;
        // SAFETY: a live event of its device.
        unsafe { raw::event::query(self.device, self.handle) }
    }

    /// Time from this event to `end` (both recorded and completed, on one
    /// device): `end.elapsed_since(self)`, through `hipEventElapsedTime`.
    ///
    /// # Errors
    /// As [`Event::elapsed_since`].
    #[doc(alias = "hipEventElapsedTime")]
    pub fn elapsed(&self, end: &Event) -> Result<Duration> {
        end.elapsed_since(self)
    }

    /// Time from `start` to this event (both recorded and completed, on one
    /// device), through `hipEventElapsedTime`.
    ///
    /// # Errors
    /// [`HipError::DeviceMismatch`](crate::HipError::DeviceMismatch) when
    /// `start` is on another device; else HIP's status of
    /// `hipEventElapsedTime`, e.g. for an untimed event or one not yet
    /// completed.
    #[doc(alias = "hipEventElapsedTime")]
    pub fn elapsed_since(&self, start: &Event) -> Result<Duration> {
        DeviceMismatch::check("Event::elapsed_since", "the start event", self.device, start.device)?;
        // SAFETY: live events (borrowed), both of this device (checked above).
        let ms = unsafe { raw::event::elapsed(self.device, start.handle, self.handle) }?;
        Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
    }
}

impl Stream {
    /// A new event (with timing, on the stream's device) recorded on this
    /// stream now: it completes when the work queued so far has.
    ///
    /// # Errors
    /// As [`Event::new_on`], then as [`Event::record`].
    pub fn record_event(&self) -> Result<Event> {
        let event = Event::new_on(self.device())?;
        event.record(self)?;
        Ok(event)
    }

    /// Make later work on this stream wait for `event`, of any device
    /// (`hipStreamWaitEvent`).
    ///
    /// # Errors
    /// HIP's status of `hipStreamWaitEvent`, or of binding the stream's
    /// device, as [`HipError::Call`](crate::HipError::Call).
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Stream};
    ///
    /// let device = Device::new(0)?;
    /// let (producer, consumer) = (Stream::new_on(device)?, Stream::new_on(device)?);
    /// let ready = producer.record_event()?;
    /// consumer.wait(&ready)?; // later work on `consumer` runs after `producer`'s work so far
    /// consumer.synchronize()?;
    /// assert!(consumer.query()?);
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipStreamWaitEvent")]
    pub fn wait(&self, event: &Event) -> Result<()> {
        // SAFETY: both handles are live (borrowed), the stream of its device.
        unsafe { raw::stream::wait_event(self.device(), self.as_raw(), event.handle) }
    }
}

/// The 64 bytes another process opens an event by
/// ([`Event::ipc_handle`], [`Event::open_ipc`]): plain bytes, to send
/// through a file, a pipe or a socket.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpcEventHandle(pub [u8; 64]);

impl std::fmt::Debug for IpcEventHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IpcEventHandle(..)")
    }
}

impl Event {
    /// A new event on `device` that other processes can open
    /// (`hipEventInterprocess`, which takes `hipEventDisableTiming`: it
    /// has no timing).
    ///
    /// # Errors
    /// As [`Event::new_on`].
    #[doc(alias = "hipEventInterprocess")]
    pub fn interprocess_on(device: Device) -> Result<Event> {
        let handle = raw::event::create_interprocess(device)?;
        Ok(Event { handle, device })
    }

    /// The handle another process opens this event by
    /// ([`Event::open_ipc`]); recordings made in either process are
    /// waited for in both.
    ///
    /// # Errors
    /// HIP's status (`hipErrorInvalidConfiguration` for an event not made
    /// by [`Event::interprocess_on`]).
    #[doc(alias = "hipIpcGetEventHandle")]
    pub fn ipc_handle(&self) -> Result<IpcEventHandle> {
        // SAFETY: a live event of this value.
        let raw = unsafe { raw::ipc::event_handle(self.handle) }?;
        Ok(IpcEventHandle(raw.reserved.map(|c| c as u8)))
    }

    /// Another process's event, opened on `device` from its handle: record
    /// it and wait for it as any event (it has no timing).
    ///
    /// # Errors
    /// HIP's status: `hipErrorInvalidContext` for a handle of this
    /// process, `hipErrorInvalidValue` for one whose event is gone.
    #[doc(alias = "hipIpcOpenEventHandle")]
    pub fn open_ipc(device: Device, handle: &IpcEventHandle) -> Result<Event> {
        let raw = hip_sys::bindings::hip::hipIpcEventHandle_t { reserved: handle.0.map(|b| b as std::ffi::c_char) };
        let handle = raw::ipc::open_event(device, raw)?;
        Ok(Event { handle, device })
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        // SAFETY: the event is live and dropped once.
        if let Err(error) = unsafe { raw::event::destroy(self.device, self.handle) } {
            log::error!("dropping an event of {}: {error}", self.device);
        }
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event({:p} on device {})", self.handle, self.device.ordinal())
    }
}
