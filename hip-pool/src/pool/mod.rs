//! What users hold: [`Pool`] handles, the [`Buffer`]s they hand out with
//! the uses those record on other streams, and the out-of-memory ladder
//! that an allocation climbs before it fails.

mod buffer;
mod handle;
mod oom;
mod uses;

pub use buffer::{with_uses, Buffer};
pub use handle::Pool;
pub use oom::register_reclaim_hook;
pub use uses::Access;
