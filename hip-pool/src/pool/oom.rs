//! The out-of-memory ladder and the reclaim hooks.
//!
//! When HIP (or the hard limit) says no, the pool escalates, retrying after
//! each step: synchronize the stream, synchronize the device, `reclaim`
//! the device's cache, run the registered hooks. Then it reports
//! [`PoolError::OutOfMemory`](crate::PoolError::OutOfMemory). Any other
//! error is returned at once. While a stream capture is underway the
//! ladder is not climbed (each rung would break the capture):
//! [`PoolError::OutOfMemoryInCapture`](crate::PoolError::OutOfMemoryInCapture)
//! comes at once. Before asking the driver for more than the
//! soft limit allows, it reclaims first.

use super::buffer::Buffer;
use crate::device_pool::Attempt;
use crate::error::Result;
use crate::history::{self, MemoryEventKind};
use crate::pool_core::PoolInner;
use hip_core::{Device, Stream};
use hip_sys::sync::MutexExt;
use std::sync::{Arc, Mutex};

type Hook = Arc<dyn Fn(Device) -> usize + Send + Sync>;

static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());

/// Register a hook the ladder runs, with the device, when an allocation
/// does not fit even after the cache was released: free what you can
/// (drop caches of your own) and return the bytes freed.
pub fn register_reclaim_hook(hook: impl Fn(Device) -> usize + Send + Sync + 'static) {
    HOOKS.lock_unpoisoned().push(Arc::new(hook));
}

fn run_hooks(device: Device) -> usize {
    let hooks: Vec<Hook> = HOOKS.lock_unpoisoned().clone();
    hooks.iter().map(|hook| hook(device)).sum()
}

/// Allocate `bytes` (whose block size is `size`) from `pool` on `stream`,
/// climbing the ladder.
pub(crate) fn allocate(pool: &'static PoolInner, bytes: usize, size: Option<usize>, stream: &Stream) -> Result<Buffer> {
    if bytes == 0 {
        return Ok(Buffer::empty(stream));
    }
    for step in 0..=STEPS {
        if step > 0 {
            if hip_core::capture::underway() {
                // Every rung synchronizes or frees: any of them would
                // break the capture.
                return Err(pool.core.out_of_memory_in_capture(bytes));
            }
            escalate(step, pool, stream)?;
            pool.core.count_oom_retry();
        }
        match pool.attempt(size, stream) {
            Attempt::Done(block) => return Ok(Buffer::new(pool, block.ptr, bytes, block.size, block.stream)),
            Attempt::Failed(error) => return Err(error),
            Attempt::OutOfMemory => {}
        }
    }
    history::record(pool.core.device, Some(stream.id()), 0, bytes, MemoryEventKind::OutOfMemory(0));
    Err(pool.core.out_of_memory(bytes))
}

/// The rungs of the ladder.
const STEPS: usize = 4;

#[cold]
fn escalate(step: usize, pool: &'static PoolInner, stream: &Stream) -> Result<()> {
    let device = pool.core.device;
    history::record(device, Some(stream.id()), 0, 0, MemoryEventKind::OutOfMemory(step));
    #[cfg(feature = "tracing")]
    tracing::debug!(step, device = ?device, stream = ?stream.id(), "pool out of memory: climbing the ladder");
    match step {
        1 => stream.synchronize()?,
        2 => {
            crate::collective_gate::before_driver_sync(device);
            device.synchronize()?
        }
        3 => {
            pool.reclaim()?;
        }
        _ => {
            run_hooks(device);
        }
    }
    Ok(())
}
