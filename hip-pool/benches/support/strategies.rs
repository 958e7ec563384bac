//! The pool strategies the benches compare, and a pool of each where the
//! runtime has it. Included by path from each bench that compares them.

use hip_core::Device;
use hip_pool::{Pool, Strategy};

/// Every strategy, with the name its figures go by.
pub const STRATEGIES: [(Strategy, &str); 4] = [
    (Strategy::Cached, "cached"),
    (Strategy::Expandable, "expandable"),
    (Strategy::Async, "async"),
    (Strategy::None, "none"),
];

/// A new pool of each strategy on `device`, with its name; a strategy the
/// runtime lacks (`expandable` without virtual memory) is left out, saying
/// why.
pub fn pools(device: Device) -> impl Iterator<Item = (Pool, &'static str)> {
    STRATEGIES.into_iter().filter_map(move |(strategy, name)| match Pool::new(device, strategy) {
        Ok(pool) => Some((pool, name)),
        Err(e) => {
            eprintln!("{name}: unavailable ({e})");
            None
        }
    })
}
