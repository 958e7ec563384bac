//! Where a pool's memory comes from: its strategy as one value that holds
//! what the strategy needs. The `async` backing owns its stream-ordered
//! pool, so a pool of that strategy without one cannot exist.

use crate::driver::{self, AsyncPool, Driver};
use crate::strategy::{cached, Strategy};
use hip_core::{Device, HipError, Stream};

/// A pool's backing.
pub(crate) enum Backing {
    /// Segments from `hipMalloc`, split into blocks and kept by the pool
    /// (`strategy::cached`): a free makes no HIP call.
    Cached,
    /// HIP's stream-ordered pool, made for this pool.
    Async(AsyncPool),
    /// `hipMalloc` and `hipFree` for every block.
    None,
}

impl Backing {
    /// The backing of `strategy` on `device` (the `async` one makes its
    /// stream-ordered pool).
    pub fn new(device: Device, strategy: Strategy) -> Result<Backing, HipError> {
        Ok(match strategy {
            Strategy::Cached => Backing::Cached,
            Strategy::Async => Backing::Async(AsyncPool::create(device)?),
            Strategy::None => Backing::None,
        })
    }

    /// The strategy this backing serves.
    pub fn strategy(&self) -> Strategy {
        match self {
            Backing::Cached => Strategy::Cached,
            Backing::Async(_) => Strategy::Async,
            Backing::None => Strategy::None,
        }
    }

    /// The bytes to ask the driver for to hand out a block of `size`: a
    /// whole segment for the cached backing, the block itself otherwise;
    /// `None` if that does not fit in an address.
    pub fn driver_size(&self, size: usize) -> Option<usize> {
        match self {
            Backing::Cached => cached::segment_size(size),
            Backing::Async(_) | Backing::None => Some(size),
        }
    }

    /// Ask the driver for `bytes` on `device`, for use on `stream`.
    pub fn malloc(&self, device: Device, bytes: usize, stream: &Stream) -> Driver {
        match self {
            Backing::Async(pool) => pool.malloc(device, bytes, stream),
            Backing::Cached | Backing::None => driver::malloc(device, bytes),
        }
    }

    /// Give `ptr` back to the driver (in `stream`'s order for the `async`
    /// backing).
    pub fn free(&self, device: Device, ptr: usize, stream: &Stream) -> Result<(), HipError> {
        match self {
            Backing::Async(pool) => pool.free(device, ptr, stream),
            Backing::Cached | Backing::None => driver::free(device, ptr),
        }
    }
}
