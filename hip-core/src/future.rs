//! Futures that keep their device (and stream) as they move between threads.
//!
//! An async task may be polled on a different thread each time. The
//! thread's device is per thread, so a task that set a device once would
//! lose it on the next poll. [`on_device_async`] and [`on_stream_async`]
//! wrap a future so that every poll runs inside [`with_device`] /
//! [`with_stream`]: the device is applied before the poll and the polling
//! thread's own state is restored after it.

use crate::{with_device, with_stream, Device, Stream};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// What a wrapped future applies on each poll.
#[derive(Debug, Clone)]
enum Scope {
    Device(Device),
    Stream(Stream),
}

/// A future polled with a device (or stream) applied; see the module docs.
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct OnDevice<F> {
    scope: Scope,
    inner: F,
}

/// Run `future` with `device` as the thread's device during every poll.
pub fn on_device_async<F: Future>(device: Device, future: F) -> OnDevice<F> {
    OnDevice { scope: Scope::Device(device), inner: future }
}

/// Run `future` with `stream` (and its device) installed during every poll.
pub fn on_stream_async<F: Future>(stream: Stream, future: F) -> OnDevice<F> {
    OnDevice { scope: Scope::Stream(stream), inner: future }
}

impl<F: Future> Future for OnDevice<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is structurally pinned: it is never moved out of
        // `self`, and `OnDevice` has no Drop impl or Unpin impl that would
        // move it.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: as above; `this` stays pinned for the whole call.
        let inner = unsafe { Pin::new_unchecked(&mut this.inner) };
        match &this.scope {
            Scope::Device(device) => with_device(*device, || inner.poll(cx)),
            Scope::Stream(stream) => with_stream(stream, || inner.poll(cx)),
        }
    }
}
