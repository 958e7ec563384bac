//! What users hold: [`Pool`] handles and the [`Buffer`]s they hand out,
//! and the out-of-memory ladder that an allocation climbs before it
//! fails.

mod buffer;
mod handle;
mod oom;

pub use crate::uses::Access;
pub use buffer::{with_uses, Buffer};
pub use handle::Pool;
pub use oom::register_reclaim_hook;
