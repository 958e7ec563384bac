//! The ambient constructors: what makes a resource on the calling thread's
//! device, read from the thread state ([`crate::ThreadState`]).
//!
//! They live here, beside the state, so that the resource modules
//! (streams, events, modules, devices, contexts) never read thread state:
//! each of those takes its device as an argument, and rule 1 (a drop never
//! touches thread state) holds by their structure, not by care. Each
//! function here reads the thread's device once and calls the resource's
//! explicit constructor with it.

use crate::state::device;
use crate::{Context, Event, Result, Stream};

impl Stream {
    /// A new stream on the calling thread's device.
    ///
    /// # Errors
    /// As [`Stream::new_on`].
    ///
    /// # Examples
    /// ```
    /// use hip_core::{device, Stream};
    ///
    /// let stream = Stream::new()?;
    /// assert_eq!(stream.device(), device());
    /// assert!(!stream.is_null());
    /// stream.synchronize()?;
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[track_caller]
    pub fn new() -> Result<Stream> {
        Stream::new_on(device())
    }
}

impl Event {
    /// A new event on the calling thread's device.
    ///
    /// # Errors
    /// As [`Event::new_on`].
    #[track_caller]
    pub fn new() -> Result<Event> {
        Event::new_on(device())
    }
}

/// The primary context of this thread's device.
///
/// # Errors
/// As [`Context::primary`].
#[track_caller]
pub fn context() -> Result<Context> {
    Context::primary(device())
}
