//! What the kernel and graph benchmarks share: the test kernels for the
//! backend, batched timing, and the printed ratios. Each benchmark uses
//! some of them.

#![allow(dead_code)]

use amdgpu::{Backend, Stream};
use std::time::{Duration, Instant};

#[path = "../../../hip-core/benches/support/mod.rs"]
mod support;
pub use support::mean_ns;

/// The test kernels as a code object for this backend: the simulator's
/// built-ins named `sim`, or the PTX of all of them on nvidia; `None`
/// where the repository has none.
pub fn test_kernels(sim: &[&str]) -> Option<Vec<u8>> {
    match amdgpu::backend() {
        Backend::Sim => Some(amdgpu::sys::sim::code_object(sim)),
        Backend::Nvidia => {
            let mut ptx = include_bytes!("../../../hip-sys/kernels/test_kernels.ptx").to_vec();
            ptx.push(0);
            Some(ptx)
        }
        _ => None,
    }
}

/// Time `iters` runs of `run`, in batches of `batch`, draining `stream`
/// between batches outside the timing: the host's cost of enqueuing.
pub fn batched(stream: &Stream, iters: u64, batch: u64, mut run: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let now = left.min(batch);
        let start = Instant::now();
        for _ in 0..now {
            run();
        }
        total += start.elapsed();
        stream.synchronize().expect("sync");
        left -= now;
    }
    total
}

/// Print `first / second` for each (what, first, second) of `group` that
/// criterion measured.
pub fn print_ratios(group: &str, pairs: &[(&str, &str, &str)]) {
    println!("\nbackend {:?}: ratio = first / second (1.00 = the same time)", amdgpu::backend());
    for (what, first, second) in pairs {
        if let (Some(a), Some(b)) = (mean_ns(group, first), mean_ns(group, second)) {
            println!("  {what:<50} {a:>12.1} ns {b:>12.1} ns   ratio {:.3}", a / b);
        }
    }
}
