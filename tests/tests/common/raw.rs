//! Helpers for the tests that drive HIP through the raw table (the
//! capture rules, graph memory): the table, an asserting call, and what
//! they all set up.

#![allow(unused_imports, unused_macros, reason = "each test binary uses some of the helpers")]

use hip_sys::{hipError_t, hipStream_t, HipApi};

/// The process's HIP table.
pub fn api() -> &'static HipApi {
    hip_sys::hip().expect("a backend")
}

/// Assert that a HIP call returned `expected` (`hipSuccess` when left out).
macro_rules! hip {
    ($expected:expr, $call:expr) => {{
        // SAFETY: every call in the tests gets valid or deliberately
        // invalid arguments that HIP checks (see each test).
        let status = unsafe { $call };
        assert_eq!(status, $expected, "{}", stringify!($call));
    }};
    ($call:expr) => {
        hip!(hip_sys::hipError_t::hipSuccess, $call)
    };
}
pub(crate) use hip;

/// Whether the backend is the simulator.
pub fn is_sim() -> bool {
    hip_sys::backend() == hip_sys::Backend::Sim
}

/// Skip a simulator-only test elsewhere, saying what it models.
macro_rules! sim_only {
    ($what:literal) => {
        if !$crate::common::raw::is_sim() {
            eprintln!(concat!("skipped: ", $what));
            return;
        }
    };
}
pub(crate) use sim_only;

/// The simulator alone (capture state is process-wide), on device 0.
pub fn on_device_0() -> hip_sys::sim::Exclusive {
    let guard = hip_sys::sim::exclusive();
    hip!((api().hipSetDevice)(0));
    guard
}

/// A new stream of the current device.
pub fn stream() -> hipStream_t {
    let mut s = std::ptr::null_mut();
    hip!((api().hipStreamCreate)(&mut s));
    s
}

/// `hipStreamEndCapture`'s status and graph.
pub fn end(s: hipStream_t) -> (hipError_t, hip_sys::hipGraph_t) {
    let mut graph: hip_sys::hipGraph_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let status = unsafe { (api().hipStreamEndCapture)(s, &mut graph) };
    (status, graph)
}
