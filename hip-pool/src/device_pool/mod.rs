//! The device pool core: one device's memory, from its backing, with the
//! blocks it keeps, its pending stream uses, limits and statistics under
//! one lock. No buffers and no thread caches here: the layers above hand
//! in what the thread caches must do (give their blocks back) when an
//! allocation or a reclaim needs it.

mod alloc;
mod backing;
mod expand;
mod fences;
mod pending;
mod release;
mod state;

pub(crate) use alloc::{Attempt, Returned};
pub(crate) use backing::Backing;
pub(crate) use state::DevicePool;
