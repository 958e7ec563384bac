//! rocSPARSE, rocFFT and MIOpen together through hip-libs: the multi-GPU
//! example runs on every device and passes its own checks, with no
//! context violation. Each library alone is tested in `sparse.rs`,
//! `fft.rs` and `dnn.rs`. Where the backend lacks a library the test says
//! so and passes.

use amdgpu::libs::Library;
use amdgpu::prelude::*;
use hip_sys::{sim, Backend};

mod common;
use common::have;

#[test]
fn the_main_example_runs_on_every_device() {
    let _x = sim::exclusive();
    if !have(Library::Rocfft) || !have(Library::Rocsparse) || !have(Library::Miopen) {
        return;
    }
    let reports = example::run().expect("the example runs");
    assert_eq!(reports.len(), Device::count().unwrap());
    for report in &reports {
        for (name, outcome) in &report.checks {
            assert!(matches!(outcome, example::Outcome::Passed), "{}: {name}: {outcome:?}", report.device);
        }
    }
    if amdgpu::backend() == Backend::Sim {
        let bad: Vec<_> = sim::violations()
            .into_iter()
            .filter(|v| v.thread.starts_with("worker-") || v.thread == "dropper")
            .collect();
        assert_eq!(bad, []);
    }
}

#[allow(dead_code)]
#[path = "../../amdgpu/examples/multi_gpu.rs"]
mod example;
