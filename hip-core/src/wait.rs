//! Awaitable GPU work: [`Event::wait_async`] and
//! [`Stream::synchronize_async`] complete when the GPU is done, without
//! blocking the executor's thread and without spinning.
//!
//! - A stream's wait records an event on the stream and enqueues a host
//!   function after it (`hipLaunchHostFunc`), which wakes the task when
//!   the stream reaches it. Where the backend refuses host functions, it
//!   falls back to the event wait below.
//! - An event's wait cannot know which stream the event was recorded on,
//!   so it queries the event and, while it is not done, sleeps on a timer
//!   thread with a backoff (20 µs doubling to 2 ms) between queries.
//!
//! Every HIP call of these futures runs under the event's or stream's own
//! device through [`on_device`](crate::raw::on_device): they read and
//! change no thread state, so they may be polled on any thread, inside
//! [`on_device_async`](crate::on_device_async) or not. Each completes by
//! a successful query, so the runtime (and the simulator's race detector)
//! sees the host synchronized with the work, as after a blocking wait.

use crate::{backoff, raw, Event, Result, Stream};
use hip_sys::sync::MutexExt;
use std::ffi::c_void;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// Polls `event` with a backoff between polls.
#[derive(Debug)]
struct Backoff {
    delay: Duration,
}

impl Backoff {
    fn new() -> Backoff {
        Backoff { delay: backoff::FIRST }
    }

    fn poll(&mut self, event: &Event, cx: &mut Context<'_>) -> Poll<Result<()>> {
        match event.query() {
            Ok(true) => Poll::Ready(Ok(())),
            Ok(false) => {
                backoff::wake_after(self.delay, cx.waker());
                self.delay = backoff::next(self.delay);
                Poll::Pending
            }
            Err(error) => Poll::Ready(Err(error)),
        }
    }
}

/// The future of [`Event::wait_async`]: done when the event's last
/// recording (at the time of the call) has completed.
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct EventWait<'a> {
    event: &'a Event,
    backoff: Backoff,
}

impl Future for EventWait<'_> {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let this = self.get_mut();
        this.backoff.poll(this.event, cx)
    }
}

/// Set by the host function when the stream reaches it.
#[derive(Default)]
struct Signal {
    done: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

/// The host function: `user_data` is an `Arc<Signal>` given up by
/// [`StreamSync::new`], taken back here, once.
unsafe extern "C" fn signal_done(user_data: *mut c_void) {
    // SAFETY: made by `Arc::into_raw` for this one call (see `arm`).
    let signal = unsafe { Arc::from_raw(user_data.cast_const().cast::<Signal>()) };
    signal.done.store(true, Ordering::Release);
    let waker = signal.waker.lock_unpoisoned().take();
    if let Some(waker) = waker {
        // A panic must not unwind into the runtime's thread.
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| waker.wake())).is_err() {
            log::error!("a waker panicked in a stream's host function");
        }
    }
}

/// How a [`StreamSync`] learns that the stream is done.
enum Mode {
    /// The host function signals.
    Signal(Arc<Signal>),
    /// Queries with a backoff.
    Poll(Backoff),
}

/// The future of [`Stream::synchronize_async`]: done when the work queued
/// on the stream before the call has finished.
#[must_use = "futures do nothing unless polled"]
pub struct StreamSync {
    state: std::result::Result<(Event, Mode), Option<crate::HipError>>,
}

impl std::fmt::Debug for StreamSync {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.state {
            Ok((event, Mode::Signal(_))) => write!(f, "StreamSync({event:?}, host function)"),
            Ok((event, Mode::Poll(_))) => write!(f, "StreamSync({event:?}, polling)"),
            Err(_) => write!(f, "StreamSync(failed)"),
        }
    }
}

impl StreamSync {
    pub(crate) fn new(stream: &Stream) -> StreamSync {
        let made = Event::untimed_on(stream.device()).and_then(|event| {
            event.record(stream)?;
            Ok(event)
        });
        let event = match made {
            Ok(event) => event,
            Err(error) => return StreamSync { state: Err(Some(error)) },
        };
        let mode = match arm(stream) {
            Ok(signal) => Mode::Signal(signal),
            Err(error) => {
                log::debug!("no host function on {stream:?} ({error}): polling its event instead");
                Mode::Poll(Backoff::new())
            }
        };
        StreamSync { state: Ok((event, mode)) }
    }
}

/// Enqueue the host function on `stream`.
fn arm(stream: &Stream) -> Result<Arc<Signal>> {
    let signal = Arc::new(Signal::default());
    let given = Arc::into_raw(signal.clone());
    // SAFETY: a live stream of its device; `signal_done` takes `given` back
    // exactly once when the runtime calls it, which it does once a launch
    // succeeds.
    let launched = unsafe {
        raw::stream::launch_host_func(stream.device(), stream.as_raw(), signal_done, given.cast_mut().cast())
    };
    if launched.is_err() {
        // SAFETY: the runtime did not take the reference: give it back.
        drop(unsafe { Arc::from_raw(given) });
    }
    launched.map(|()| signal)
}

impl Future for StreamSync {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let this = self.get_mut();
        let (event, mode) = match &mut this.state {
            Ok(state) => state,
            Err(error) => return Poll::Ready(error.take().map_or(Ok(()), Err)),
        };
        match mode {
            Mode::Poll(backoff) => backoff.poll(event, cx),
            Mode::Signal(signal) => {
                if !signal.done.load(Ordering::Acquire) {
                    *signal.waker.lock_unpoisoned() = Some(cx.waker().clone());
                    // The host function may have run between the load and the store.
                    if !signal.done.load(Ordering::Acquire) {
                        return Poll::Pending;
                    }
                }
                // The event was recorded before the host function: it is done.
                match event.query() {
                    Ok(true) => Poll::Ready(Ok(())),
                    Ok(false) => {
                        // Cannot happen in stream order; poll rather than hang.
                        *mode = Mode::Poll(Backoff::new());
                        cx.waker().wake_by_ref();
                        Poll::Pending
                    }
                    Err(error) => Poll::Ready(Err(error)),
                }
            }
        }
    }
}

impl Event {
    /// Wait for the event's last recording without blocking: a future
    /// that queries the event, sleeping on a timer with a backoff between
    /// queries (see the module docs of `wait`); it may be polled on any
    /// thread.
    pub fn wait_async(&self) -> EventWait<'_> {
        EventWait { event: self, backoff: Backoff::new() }
    }
}

impl Stream {
    /// Wait without blocking for the work queued on the stream so far (at
    /// this call, not at the first poll): an event is recorded now and a
    /// host function enqueued after it wakes the task. An error recording
    /// the event is the future's output.
    pub fn synchronize_async(&self) -> StreamSync {
        StreamSync::new(self)
    }
}
