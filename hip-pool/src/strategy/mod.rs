//! The strategies: which one a pool uses, and the cached strategy's
//! bookkeeping of segments and blocks (pure data, no HIP call: the layer
//! under everything that talks to the driver).

pub(crate) mod cached;
mod choice;

pub use choice::Strategy;
