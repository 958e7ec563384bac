//! What users hold: [`Pool`] handles and the [`Buffer`]s they hand out,
//! the operand protocol by which operations declare their uses of them,
//! the out-of-memory ladder that an allocation climbs before it fails,
//! and the private pools that captures share.

mod buffer;
mod graph_pool;
mod handle;
mod oom;
mod operand;

pub use crate::uses::Access;
pub use buffer::Buffer;
pub use graph_pool::{capture_into, GraphPool};
pub use handle::Pool;
pub use oom::register_reclaim_hook;
pub use operand::{enqueue, Operand};
