//! Events: markers in a stream, for ordering across streams and timing.

use crate::raw::{api, on_device, run_on};
use crate::{audit, check, Device, DeviceMismatch, Result, Stream};
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
    /// A new event on the calling thread's device.
    #[track_caller]
    pub fn new() -> Result<Event> {
        Event::new_on(crate::device())
    }

    /// A new event on `device`, with timing.
    pub fn new_on(device: Device) -> Result<Event> {
        let api = api()?;
        let mut handle: hipEvent_t = std::ptr::null_mut();
        on_device(device, || {
            check(
                // SAFETY: a valid out-pointer.
                unsafe { (api.hipEventCreate)(&mut handle) },
                "hipEventCreate",
            )
        })??;
        Ok(Event { handle, device })
    }

    /// A new event on `device` without timing (`hipEventDisableTiming`):
    /// cheaper to record, for ordering streams only
    /// ([`Event::elapsed_since`] refuses it).
    pub fn untimed_on(device: Device) -> Result<Event> {
        let api = api()?;
        let mut handle: hipEvent_t = std::ptr::null_mut();
        on_device(device, || {
            check(
                // SAFETY: a valid out-pointer and a flag HIP knows.
                unsafe { (api.hipEventCreateWithFlags)(&mut handle, hip_sys::hipEventDisableTiming) },
                "hipEventCreateWithFlags",
            )
        })??;
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

    /// Record the event on `stream`, which must be on the event's device
    /// (a typed error naming both devices otherwise).
    pub fn record(&self, stream: &Stream) -> Result<()> {
        DeviceMismatch::check("Event::record", "the stream", self.device, stream.device())?;
        let api = api()?;
        run_on(self.device, || {
            check(
                // SAFETY: both handles are live and on one device.
                unsafe { (api.hipEventRecord)(self.handle, stream.as_raw()) },
                "hipEventRecord",
            )
        })?
    }

    /// Wait for the last recording to complete.
    pub fn synchronize(&self) -> Result<()> {
        let api = api()?;
        on_device(self.device, || {
            check(
                // SAFETY: a live event.
                unsafe { (api.hipEventSynchronize)(self.handle) },
                "hipEventSynchronize",
            )
        })?
    }

    /// Whether the last recording has completed.
    pub fn query(&self) -> Result<bool> {
        let api = api()?;
        // SAFETY: a live event.
        let status = on_device(self.device, || unsafe { (api.hipEventQuery)(self.handle) })?;
        if status == hip_sys::hipError_t::hipErrorNotReady {
            return Ok(false);
        }
        check(status, "hipEventQuery").map(|()| true)
    }

    /// Time from this event to `end` (both recorded and completed, on one
    /// device): `end.elapsed_since(self)`.
    pub fn elapsed(&self, end: &Event) -> Result<Duration> {
        end.elapsed_since(self)
    }

    /// Time from `start` to this event (both recorded and completed, on one device).
    pub fn elapsed_since(&self, start: &Event) -> Result<Duration> {
        DeviceMismatch::check("Event::elapsed_since", "the start event", self.device, start.device)?;
        let api = api()?;
        let mut ms = 0f32;
        on_device(self.device, || {
            // SAFETY: live events and a valid out-pointer.
            check(unsafe { (api.hipEventElapsedTime)(&mut ms, start.handle, self.handle) }, "hipEventElapsedTime")
        })??;
        Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        let result = api().and_then(|api| {
            on_device(self.device, || {
                check(
                    // SAFETY: the event is live and dropped once.
                    unsafe { (api.hipEventDestroy)(self.handle) },
                    "hipEventDestroy",
                )
            })?
        });
        if let Err(error) = result {
            log::error!("dropping an event of {}: {error}", self.device);
        }
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event({:p} on device {})", self.handle, self.device.ordinal())
    }
}
