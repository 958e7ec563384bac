//! A capture's private pool: where the buffers allocated inside a stream
//! capture come from (PyTorch's design for CUDA graphs).
//!
//! A graph bakes the addresses its work uses, so memory allocated while
//! capturing must stay out of the general pool while any graph or
//! executable graph that may run it lives. Each capture therefore takes
//! its memory from a pool of its own:
//!
//! - new memory comes from the driver, one block at a time, in the Relaxed
//!   capture mode (a Global-mode allocation breaks every capture); nothing
//!   is queried, synchronized or freed;
//! - a buffer dropped, used by its captures only on its own stream, gives
//!   its block back here at once (its graphs keep the pool, not the
//!   block): a later allocation of the same size on that stream, in the
//!   same capture or a later one into this pool, reuses it (in capture
//!   order, which is replay order); blocks are never handed to work
//!   outside the captures into the pool;
//! - captures may share one pool (`GraphPool`, PyTorch's
//!   `graph_pool_handle`): a block freed in one capture then serves the
//!   next capture on the same stream, so that graphs replayed one after
//!   another, in capture order and never at once, need the memory of one;
//! - the pool lives while its graphs, their executable graphs, its buffers
//!   and its `GraphPool` handles do (each holds it); then its blocks go
//!   to the general pool
//!   (cached strategy: as free segments, with no HIP call) or back to the
//!   driver (the other strategies; while a capture is underway, at the
//!   next reclaim).

use crate::device_pool::DevicePool;
use crate::error::Result as PoolResult;
use hip_core::capture::GraphResource;
use hip_core::{Event, Stream};
use hip_sys::sync::MutexExt;
use std::sync::{Arc, Mutex};

/// One block of a private pool.
struct Block {
    ptr: usize,
    size: usize,
    /// `None` while a buffer has it; when free, the stream it was last
    /// used on and the events of its uses that may still run.
    free: Option<(Stream, Vec<Event>)>,
}

/// The memory of one capture (see the module docs).
pub(crate) struct PrivatePool {
    core: &'static DevicePool,
    /// The captures it served (more than one when shared).
    captures: Mutex<Vec<u64>>,
    blocks: Mutex<Vec<Block>>,
}

impl PrivatePool {
    /// A private pool drawing on `core`, serving no capture yet.
    pub fn new(core: &'static DevicePool) -> PrivatePool {
        PrivatePool { core, captures: Mutex::new(Vec::new()), blocks: Mutex::new(Vec::new()) }
    }

    /// Whether the capture `id` took memory from it (its blocks may serve
    /// that capture's later allocations, and the later captures'.)
    pub fn served(&self, id: u64) -> bool {
        self.captures.lock_unpoisoned().contains(&id)
    }

    /// Its device.
    pub fn device(&self) -> hip_core::Device {
        self.core.device
    }

    /// The key a capture keeps it under (its device pool's address).
    pub fn key(&self) -> usize {
        self.core as *const DevicePool as usize
    }

    /// Note that the capture `id` takes memory from it.
    pub fn serve(&self, id: u64) {
        let mut captures = self.captures.lock_unpoisoned();
        if !captures.contains(&id) {
            captures.push(id);
        }
    }

    /// A block of `size` (a block size) for `stream`: a free one last used
    /// on `stream` with no pending uses, else new memory.
    ///
    /// # Errors
    /// [`PoolError::OutOfMemoryInCapture`](crate::PoolError::OutOfMemoryInCapture)
    /// when the hard limit or the driver refuses; HIP's status otherwise.
    pub fn take(&self, size: usize, stream: &Stream) -> PoolResult<usize> {
        {
            let mut blocks = self.blocks.lock_unpoisoned();
            let reusable = blocks.iter_mut().find(|b| {
                b.size == size && b.free.as_ref().is_some_and(|(s, events)| s.id() == stream.id() && events.is_empty())
            });
            if let Some(block) = reusable {
                block.free = None;
                return Ok(block.ptr);
            }
        }
        let ptr = self.core.grow_private(size)?;
        self.blocks.lock_unpoisoned().push(Block { ptr, size, free: None });
        Ok(ptr)
    }

    /// Take back the block at `ptr`, last used on `stream`, with the
    /// events of its uses that may still run. No HIP call.
    pub fn give_back(&self, ptr: usize, stream: Stream, events: Vec<Event>) {
        let mut blocks = self.blocks.lock_unpoisoned();
        match blocks.iter_mut().find(|b| b.ptr == ptr && b.free.is_none()) {
            Some(block) => block.free = Some((stream, events)),
            None => log::error!(
                "private pool of {}: a block at {ptr:#x} was returned twice or is unknown",
                self.core.device
            ),
        }
    }
}

impl Drop for PrivatePool {
    fn drop(&mut self) {
        // Every buffer holds the pool, so every block is free by now.
        let blocks = std::mem::take(self.blocks.get_mut_unpoisoned());
        let free = blocks.into_iter().filter_map(|b| b.free.map(|(stream, events)| (b.ptr, b.size, stream, events)));
        self.core.adopt(free.collect());
    }
}

/// What a capture (and its graphs) keep of its private pool.
pub(crate) struct PrivateHold(pub Arc<PrivatePool>);

impl GraphResource for PrivateHold {
    fn observes_replays(&self) -> bool {
        false
    }
}
