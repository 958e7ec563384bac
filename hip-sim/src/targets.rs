//! Which queue a stream handle names: the null stream, `hipStreamPerThread`,
//! `hipStreamLegacy`, or a stream made by `hipStreamCreate*`.

use super::machine::sim;
use crate::bindings::hip::{hipError_t, hipStream_t};
use crate::machine::lock::lock;
use crate::machine::queue::{StreamQueue, Target, NORMAL_PRIORITY};
use crate::machine::thread::current_device;
use crate::machine::violations;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

static STREAMS: Mutex<Option<HashMap<usize, Arc<StreamQueue>>>> = Mutex::new(None);

/// `hipStreamPerThread`: the calling thread's own stream on the current device.
pub(crate) const PER_THREAD: usize = 2;
/// `hipStreamLegacy`: the current device's null stream, from HIP 6.3.
pub(crate) const LEGACY: usize = 1;

/// Whether the simulated HIP knows `hipStreamLegacy`: clr handles it from
/// 6.3. HIP 6 is modelled by its strictest minor where minors differ, so
/// only 7 does.
pub(crate) fn legacy_known() -> bool {
    sim().config.hip_major >= 7
}

thread_local! {
    /// The thread's `hipStreamPerThread` stream of each device, made on
    /// first use.
    static PER_THREAD_STREAMS: RefCell<Vec<Option<Arc<StreamQueue>>>> = const { RefCell::new(Vec::new()) };
}

/// The calling thread's per-thread stream on `device`: a blocking stream
/// with default flags and normal priority, as clr's
/// `tls.stream_per_thread_obj_`. While the thread is exiting (its
/// thread-locals gone), the device's null stream stands in: it orders
/// work at least as strictly.
fn per_thread(device: usize) -> Result<Target, hipError_t> {
    let d = sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?;
    let made = PER_THREAD_STREAMS.try_with(|streams| {
        let mut streams = streams.borrow_mut();
        if streams.len() <= device {
            streams.resize(device + 1, None);
        }
        streams[device]
            .get_or_insert_with(|| {
                let name = format!("the per-thread stream of thread {} on device {device}", violations::thread_name());
                let queue = StreamQueue::new(
                    device,
                    false,
                    crate::bindings::hip::hipStreamDefault,
                    NORMAL_PRIORITY,
                    name,
                    d.retired.clone(),
                );
                lock(&d.streams).push(Arc::downgrade(&queue));
                queue
            })
            .clone()
    });
    Ok(made.unwrap_or_else(|_| d.null_stream.clone()))
}

/// Name the stream `queue` by `handle` (`hipStreamCreate*`).
pub(crate) fn insert(handle: usize, queue: Arc<StreamQueue>) {
    lock(&STREAMS).get_or_insert_with(HashMap::new).insert(handle, queue);
}

/// Forget the stream named `handle` (`hipStreamDestroy`); its queue, if it
/// was one.
pub(crate) fn remove(handle: usize) -> Option<Arc<StreamQueue>> {
    lock(&STREAMS).as_mut().and_then(|m| m.remove(&handle))
}

/// The queue for a non-null handle, if it is a live stream.
fn lookup(stream: hipStream_t) -> Option<Arc<StreamQueue>> {
    lock(&STREAMS).as_ref()?.get(&(stream as usize)).cloned()
}

/// The queue a stream handle names: null is the current device's null
/// stream, `hipStreamPerThread` the thread's own stream on it, and
/// `hipStreamLegacy` the null stream where the simulated HIP knows it; an
/// unknown handle is `hipErrorContextIsDestroyed`, as HIP answers for
/// destroyed streams.
pub(crate) fn target(stream: hipStream_t) -> Result<Target, hipError_t> {
    target_or(stream, hipError_t::hipErrorContextIsDestroyed)
}

/// As [`target`], with the error this call gives for an unknown handle.
pub(crate) fn target_or(stream: hipStream_t, unknown: hipError_t) -> Result<Target, hipError_t> {
    match stream as usize {
        0 => null_target(current_device()),
        LEGACY if legacy_known() => null_target(current_device()),
        PER_THREAD => per_thread(current_device()),
        _ => lookup(stream).ok_or(unknown),
    }
}

pub(crate) fn null_target(device: usize) -> Result<Target, hipError_t> {
    Ok(sim().device(device).ok_or(hipError_t::hipErrorInvalidDevice)?.null_stream.clone())
}

/// [`target`], recording a violation if the stream is not on the current device.
pub(crate) fn checked_target(function: &'static str, stream: hipStream_t) -> Result<Target, hipError_t> {
    let queue = target(stream)?;
    violations::check(function, queue.device);
    Ok(queue)
}
