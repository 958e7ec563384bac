//! A future that moves between threads keeps its device.

use hip_core::{default_device, device, on_device_async, on_stream_async, stream, Device, Stream};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// Pending `left` times; records the device seen at each poll.
struct Probe {
    left: usize,
    seen: Arc<Mutex<Vec<(Device, std::thread::ThreadId)>>>,
}

impl Future for Probe {
    type Output = Device;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Device> {
        self.seen.lock().unwrap().push((device(), std::thread::current().id()));
        if self.left == 0 {
            return Poll::Ready(device());
        }
        self.left -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

struct NoopWaker;
impl Wake for NoopWaker {
    fn wake(self: Arc<Self>) {}
}

/// Poll `future` to completion, each poll on a new thread; every polling
/// thread must be back on its own default device afterwards.
fn run_across_threads<F: Future + Send + 'static>(future: F) -> F::Output
where
    F::Output: Send,
{
    let mut future = Box::pin(future);
    loop {
        let (returned, result) = std::thread::spawn(move || {
            let waker = Waker::from(Arc::new(NoopWaker));
            let mut cx = Context::from_waker(&waker);
            let result = future.as_mut().poll(&mut cx);
            assert_eq!(device(), default_device(), "the polling thread's device is restored");
            (future, result)
        })
        .join()
        .expect("poll thread");
        match result {
            Poll::Ready(value) => return value,
            Poll::Pending => future = returned,
        }
    }
}

#[test]
fn a_task_keeps_its_device_across_threads() {
    let _x = hip_sys::sim::exclusive();
    let devices = Device::all().unwrap();
    let target = *devices.last().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let result = run_across_threads(on_device_async(target, Probe { left: 4, seen: seen.clone() }));
    assert_eq!(result, target);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 5);
    assert!(seen.iter().all(|(d, _)| *d == target), "{seen:?}");
    let threads: std::collections::HashSet<_> = seen.iter().map(|(_, t)| *t).collect();
    assert_eq!(threads.len(), 5, "each poll ran on its own thread");
}

#[test]
fn a_task_keeps_its_stream_across_threads() {
    let _x = hip_sys::sim::exclusive();
    let target = *Device::all().unwrap().last().unwrap();
    let mine = Stream::new_on(target).unwrap();
    let expected = mine.clone();
    let probe = async move {
        for _ in 0..3 {
            assert_eq!(stream(), expected);
            Yield(false).await;
        }
        device()
    };
    assert_eq!(run_across_threads(on_stream_async(mine, probe)), target);
}

/// Yields once.
struct Yield(bool);
impl Future for Yield {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}
