//! Awaiting GPU work: `Stream::synchronize_async` and `Event::wait_async`
//! complete only when the work is done, never block their executor's
//! thread, and can be polled on any thread of a multi-threaded executor.

use amdgpu::prelude::*;
use amdgpu::HostBuffer;
use hip_sys::sim;
use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A task of the tiny executor below: woken, it queues itself again.
struct Task {
    future: Mutex<Option<BoxFuture>>,
    queue: mpsc::Sender<Arc<Task>>,
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        let queue = self.queue.clone();
        let _ = queue.send(self);
    }
}

/// A multi-threaded executor: `threads` workers polling woken tasks.
struct Executor {
    queue: Option<mpsc::Sender<Arc<Task>>>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl Executor {
    fn new(threads: usize) -> Executor {
        let (queue, tasks) = mpsc::channel::<Arc<Task>>();
        let tasks = Arc::new(Mutex::new(tasks));
        let workers = (0..threads)
            .map(|_| {
                let tasks = tasks.clone();
                std::thread::spawn(move || loop {
                    let next = tasks.lock().unwrap().recv();
                    let Ok(task) = next else { return };
                    let mut slot = task.future.lock().unwrap();
                    if let Some(mut future) = slot.take() {
                        let waker = Waker::from(task.clone());
                        if future.as_mut().poll(&mut Context::from_waker(&waker)).is_pending() {
                            *slot = Some(future);
                        }
                        assert_eq!(device(), default_device(), "a poll left its thread's device changed");
                    }
                })
            })
            .collect();
        Executor { queue: Some(queue), workers }
    }

    fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) {
        let queue = self.queue.clone().unwrap();
        let task = Arc::new(Task { future: Mutex::new(Some(Box::pin(future))), queue: queue.clone() });
        queue.send(task).unwrap();
    }

    /// Stop the workers once every queue handle is gone (tasks done).
    fn finish(mut self) {
        self.queue = None;
        // Workers exit when the channel closes: when no task (which
        // holds a sender) is left either.
        for worker in self.workers.drain(..) {
            worker.join().unwrap();
        }
    }
}

struct Flag(Mutex<bool>);
impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        *self.0.lock().unwrap() = true;
    }
}

#[test]
fn a_stream_wait_is_pending_while_the_stream_is_held() {
    let _x = sim::exclusive();
    if amdgpu::backend() != amdgpu::Backend::Sim {
        eprintln!("skipped: holds a simulator stream still");
        return;
    }
    let stream = Stream::new().unwrap();
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    let mut wait = Box::pin(stream.synchronize_async());
    let woken = Arc::new(Flag(Mutex::new(false)));
    let waker = Waker::from(woken.clone());
    let mut cx = Context::from_waker(&waker);
    assert!(wait.as_mut().poll(&mut cx).is_pending());
    assert!(!*woken.0.lock().unwrap(), "woken while the stream is still held");
    hold.release();
    // The host function wakes it; then it is ready.
    while !*woken.0.lock().unwrap() {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(matches!(wait.as_mut().poll(&mut cx), Poll::Ready(Ok(()))));
}

#[test]
fn an_event_wait_is_pending_until_its_recording_is_done() {
    let _x = sim::exclusive();
    if amdgpu::backend() != amdgpu::Backend::Sim {
        eprintln!("skipped: holds a simulator stream still");
        return;
    }
    let stream = Stream::new().unwrap();
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    let event = stream.record_event().unwrap();
    let mut wait = Box::pin(event.wait_async());
    let waker = Waker::from(Arc::new(Flag(Mutex::new(false))));
    let mut cx = Context::from_waker(&waker);
    for _ in 0..5 {
        assert!(wait.as_mut().poll(&mut cx).is_pending(), "ready while the stream is held");
    }
    hold.release();
    stream.synchronize().unwrap();
    assert!(matches!(wait.as_mut().poll(&mut cx), Poll::Ready(Ok(()))));
}

/// One executor thread: a task waiting for a held stream must not keep
/// another task from running.
#[test]
fn a_pending_wait_does_not_block_its_executor_thread() {
    let _x = sim::exclusive();
    if amdgpu::backend() != amdgpu::Backend::Sim {
        eprintln!("skipped: holds a simulator stream still");
        return;
    }
    let executor = Executor::new(1);
    let stream = Stream::new().unwrap();
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    let (done, finished) = mpsc::channel();
    let (waiting, waited) = (stream.clone(), done.clone());
    executor.spawn(async move {
        waiting.synchronize_async().await.unwrap();
        waited.send("held").unwrap();
    });
    let other = done.clone();
    executor.spawn(async move {
        let free = Stream::new().unwrap();
        free.synchronize_async().await.unwrap();
        other.send("free").unwrap();
    });
    assert_eq!(finished.recv().unwrap(), "free", "the other task ran while the first waited");
    hold.release();
    assert_eq!(finished.recv().unwrap(), "held");
    drop(done);
    executor.finish();
}

#[test]
fn copies_awaited_on_a_multi_threaded_executor() {
    let _x = sim::exclusive();
    let devices = Device::all().unwrap();
    let executor = Executor::new(4);
    let (done, finished) = mpsc::channel();
    let tasks = 16;
    for t in 0..tasks {
        let device = devices[t % devices.len()];
        let done = done.clone();
        executor.spawn(async move {
            let data: Vec<u32> = (0..10_000).map(|i| i * 3 + t as u32).collect();
            let stream = Stream::new_on(device).unwrap();
            let host = HostBuffer::from_slice_on(device, &data).unwrap();
            let mut array = DeviceArray::<u32>::zeros_on(&stream, data.len()).unwrap();
            array.copy_from_host_async(&host, &stream).unwrap();
            let mut out = HostBuffer::<u32>::zeroed_on(device, data.len()).unwrap();
            array.copy_to_host_async(&mut out, &stream).unwrap();
            if t % 2 == 0 {
                stream.synchronize_async().await.unwrap();
            } else {
                let event = stream.record_event().unwrap();
                event.wait_async().await.unwrap();
            }
            // Done on the GPU: the data is there (and reading it waits for nothing).
            let ok = out.as_slice().unwrap() == data[..];
            done.send((t, ok)).unwrap();
        });
    }
    drop(done);
    let mut results: Vec<_> = finished.iter().collect();
    results.sort();
    assert_eq!(results, (0..tasks).map(|t| (t, true)).collect::<Vec<_>>());
    executor.finish();
    let races: Vec<_> = sim::violations().into_iter().filter(|v| v.kind == sim::ViolationKind::StreamRace).collect();
    assert_eq!(races, []);
}
