//! The driver calls a pool makes, each under the pool's device and with no
//! pool state: `hipMalloc` / `hipFree` (the cached and `none` backings),
//! HIP's stream-ordered pool (the `async` backing), virtual memory (the
//! `expandable` backing's reserved ranges and mapped chunks), and the reused events
//! that order uses of memory across streams.

pub(crate) mod events;
mod pass_through;
mod stream_ordered;
pub(crate) mod virtual_memory;

pub(crate) use pass_through::{free, malloc, Driver};
pub(crate) use stream_ordered::AsyncPool;
