//! The simulator's C entry points, the functions of its [`HipApi`] table
//! ([`SIM_API`]), by subject. Each runs its work through `entry.rs`
//! (counting, faults, the last error) on the state below it: the machine,
//! its streams and memory; none of that state calls back up here.
//!
//! [`HipApi`]: crate::bindings::hip::HipApi

mod copies;
mod device;
mod errors;
mod events;
mod graphs;
mod host_funcs;
mod ipc;
mod managed;
mod memory;
mod modules;
mod pools;
mod registered;
mod streams;
mod table;
mod vmm;

pub(crate) use table::SIM_API;
