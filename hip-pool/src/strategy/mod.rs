//! The strategies: which one a pool uses, the cached strategy's
//! bookkeeping of segments and blocks, and the expandable strategy's of
//! its reserved ranges and mapped chunks (pure data, no HIP call: the
//! layer under everything that talks to the driver).

pub(crate) mod cached;
mod choice;
pub(crate) mod expandable;
mod growth_waits;

pub use choice::Strategy;
pub use growth_waits::GrowthWaits;
