//! Private pools shared between captures: [`GraphPool`] and
//! [`capture_into`] (the pool itself is `private_pool`).

use super::handle::Pool;
use crate::private_pool::{PrivateHold, PrivatePool};
use hip_core::capture::ReplayOrder;
use std::sync::Arc;

/// A private pool that several captures share, as PyTorch's
/// `graph_pool_handle`: [`capture_into`] captures with it. Blocks a capture
/// frees are reused by later captures into the same pool (on the same
/// stream), so two of its graphs must never run at once: each may
/// overwrite what another left in a block they share. So the executable
/// graphs of every capture into one `GraphPool` launch in one order
/// ([`hip_core::capture::ReplayOrder`]): launches on one stream cost one
/// comparison; a launch on another stream first waits, on the GPU, for the
/// latest launch of any of them (one event). Replay them in the order they
/// were captured when a later graph reads what an earlier one wrote.
/// Cheap to clone; the memory goes back to the device's pool when the
/// handles and every graph captured into it are gone.
#[derive(Clone)]
pub struct GraphPool {
    inner: Arc<PrivatePool>,
    order: Arc<ReplayOrder>,
}

impl std::fmt::Debug for GraphPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GraphPool(on {})", self.inner.device())
    }
}

impl GraphPool {
    /// A new shared private pool of `pool`'s device.
    pub fn new(pool: Pool) -> GraphPool {
        GraphPool { inner: Arc::new(PrivatePool::new(&pool.0.core)), order: Arc::default() }
    }

    /// Its device.
    pub fn device(&self) -> hip_core::Device {
        self.inner.device()
    }
}

/// [`Stream::capture`](hip_core::Stream::capture) with the allocations of
/// the capture taken from `graph_pool`, shared with the other captures
/// into it (see [`GraphPool`]).
///
/// # Errors
/// [`HipError::DeviceMismatch`](hip_core::HipError::DeviceMismatch) when
/// `stream` is not on the pool's device; else as `Stream::capture`.
///
/// # Examples
/// ```
/// use hip_core::{CaptureMode, Stream};
/// use hip_pool::{capture_into, Access, GraphPool, PoolError};
///
/// let stream = Stream::new()?;
/// let pool = hip_pool::pool(stream.device())?;
/// let shared = GraphPool::new(pool);
/// let (first, a) = capture_into(&shared, &stream, CaptureMode::Global, |s| {
///     let scratch = pool.alloc(4096, s)?;
///     Ok::<_, PoolError>(scratch.as_ptr())
/// })?;
/// let (second, b) = capture_into(&shared, &stream, CaptureMode::Global, |s| {
///     Ok::<_, PoolError>(pool.alloc(4096, s)?.as_ptr())
/// })?;
/// assert_eq!(a, b, "the second capture reuses what the first freed");
/// # drop((first, second));
/// # Ok::<(), PoolError>(())
/// ```
pub fn capture_into<R, E: From<hip_core::HipError>>(
    graph_pool: &GraphPool,
    stream: &hip_core::Stream,
    mode: hip_core::CaptureMode,
    body: impl FnOnce(&hip_core::Stream) -> Result<R, E>,
) -> Result<(hip_core::Graph, R), E> {
    stream.expect_device(graph_pool.device(), "capture_into").map_err(E::from)?;
    stream.capture(mode, |s| {
        if let Some(scope) = hip_core::capture::of(s).map_err(E::from)? {
            graph_pool.inner.serve(scope.id());
            let key = graph_pool.inner.key();
            scope.keep(key, || PrivateHold(graph_pool.inner.clone()));
            scope.replay_in(&graph_pool.order);
        }
        body(s)
    })
}
