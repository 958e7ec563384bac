//! The out-of-memory ladder and the reclaim hooks.
//!
//! When HIP (or the hard limit) says no, the pool escalates, retrying after
//! each step: synchronize the stream, synchronize the device, `reclaim`
//! the device's cache, run the registered hooks. Then it reports
//! [`PoolError::OutOfMemory`]. Any other error is returned at once.
//! Before asking the driver for more than the soft limit allows, it
//! reclaims first.

use crate::device_pool::{Attempt, Pool};
use crate::strategy::cached;
use crate::{Buffer, Result};
use hip_core::{Device, Stream};
use std::sync::{Arc, Mutex};

type Hook = Arc<dyn Fn(Device) -> usize + Send + Sync>;

static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());

/// Register a hook the ladder runs, with the device, when an allocation
/// does not fit even after the cache was released: free what you can
/// (drop caches of your own) and return the bytes freed.
pub fn register_reclaim_hook(hook: impl Fn(Device) -> usize + Send + Sync + 'static) {
    HOOKS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Arc::new(hook));
}

fn run_hooks(device: Device) -> usize {
    let hooks: Vec<Hook> = HOOKS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    hooks.iter().map(|hook| hook(device)).sum()
}

/// Allocate `bytes` from `pool` on `stream`, climbing the ladder.
pub(crate) fn allocate(pool: &Pool, bytes: usize, stream: &Stream) -> Result<Buffer> {
    if bytes == 0 {
        return Ok(Buffer::empty(stream));
    }
    let inner = &pool.0;
    if let Some(size) = cached::block_size(bytes) {
        let more = match inner.strategy {
            crate::Strategy::Cached => cached::segment_size(size).unwrap_or(size),
            _ => size,
        };
        if inner.limit_check(more).1 {
            inner.reclaim()?;
        }
    }
    type Step<'a> = Box<dyn Fn() -> Result<()> + 'a>;
    let steps: [Step<'_>; 4] = [
        Box::new(|| Ok(stream.synchronize()?)),
        Box::new(|| Ok(inner.device.synchronize()?)),
        Box::new(|| inner.reclaim().map(drop)),
        Box::new(|| {
            run_hooks(inner.device);
            Ok(())
        }),
    ];
    match inner.attempt(bytes, stream) {
        Attempt::Done(buffer) => return Ok(buffer),
        Attempt::Failed(error) => return Err(error),
        Attempt::OutOfMemory => {}
    }
    for step in &steps {
        step()?;
        inner.count_oom_retry();
        match inner.attempt(bytes, stream) {
            Attempt::Done(buffer) => return Ok(buffer),
            Attempt::Failed(error) => return Err(error),
            Attempt::OutOfMemory => {}
        }
    }
    Err(inner.out_of_memory(bytes))
}
