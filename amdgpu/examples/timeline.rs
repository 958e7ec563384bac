//! Pictures of what ran where and of the memory it used: a small
//! two-stream workload, annotated with profiler ranges, traced by the
//! simulator and written as a Chrome trace (`timeline.json`, for
//! `chrome://tracing` or <https://ui.perfetto.dev>) and as a
//! self-contained HTML page (`timeline.html`, one SVG), with the pool's
//! memory history drawn as memory over time (`memory.html`) and written as
//! a PyTorch memory snapshot (`memory.pickle`, for
//! <https://pytorch.org/memory_viz>), in the directory given, `target`
//! unless named.
//!
//! ```text
//! cargo run --example timeline [directory]
//! ```
//!
//! The stream timeline is recorded by the simulator. On a GPU the example
//! runs the same workload and writes the memory pictures; its ranges go
//! to the profiler attached, ROCTx on AMD (`rocprofv3 --marker-trace`)
//! and NVTX on NVIDIA, where Nsight Compute profiles just the kernels of
//! one range:
//!
//! ```text
//! ncu --nvtx --nvtx-include "compute/" target/release/examples/timeline
//! ```

use amdgpu::blas::{self, Gemm};
use amdgpu::prelude::*;
use amdgpu::{profile, Backend};
use std::process::ExitCode;

const N: usize = 64;

/// c = a·b on the first stream, d = a·c on the second; (c[0], d[0]).
fn workload() -> amdgpu::Result<(f32, f32)> {
    let (first, second) = (Stream::new()?, Stream::new()?);
    let _all = profile::range("workload");
    let (a, b) = {
        let _upload = profile::range("upload");
        let a = DeviceArray::from_slice_on(&first, &vec![1.0f32; N * N])?;
        let b = DeviceArray::from_slice_on(&second, &vec![0.5f32; N * N])?;
        (a, b)
    };
    profile::mark("inputs queued");
    let mut c = DeviceArray::<f32>::zeros_on(&first, N * N)?;
    let mut d = DeviceArray::<f32>::zeros_on(&second, N * N)?;
    {
        let _compute = profile::range("compute");
        // Each on its output's stream; b and c were written on the other
        // one, and the operand protocol orders the reads after the writes.
        blas::gemm(&Gemm::new(N, N, N), 1.0, &a, &b, 0.0, &mut c)?;
        blas::gemm(&Gemm::new(N, N, N), 1.0, &a, &c, 0.0, &mut d)?;
    }
    let _download = profile::range("download");
    Ok((c.to_vec()?[0], d.to_vec()?[0]))
}

fn main() -> ExitCode {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "target".to_owned());
    let simulated = amdgpu::backend() == Backend::Sim;
    if simulated {
        amdgpu::sys::sim::start_trace();
    } else {
        println!(
            "the stream timeline is recorded by the simulator (AMDGPU_BACKEND=sim); here the ranges go to the \
             profiler attached (profiler ranges on: {})",
            profile::enabled()
        );
    }
    amdgpu::pool::history::record_history(true);
    let result = workload();
    amdgpu::pool::history::record_history(false);
    if simulated {
        amdgpu::sys::sim::stop_trace();
    }
    match result {
        Ok((c, d)) if c == N as f32 * 0.5 && d == (N * N) as f32 * 0.5 => {}
        Ok((c, d)) => {
            eprintln!("c[0] = {c} and d[0] = {d}, expected {} and {}", N as f32 * 0.5, (N * N) as f32 * 0.5);
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("the workload failed: {e}");
            return ExitCode::FAILURE;
        }
    }
    let mut files = vec![("memory.html", amdgpu::pool::history::history_html().into_bytes())];
    files.push(("memory.pickle", amdgpu::pool::history::memory_viz_snapshot()));
    if simulated {
        files.push(("timeline.json", amdgpu::sys::sim::chrome_trace().into_bytes()));
        files.push(("timeline.html", amdgpu::sys::sim::html_timeline().into_bytes()));
    }
    for (name, bytes) in files {
        let path = std::path::Path::new(&dir).join(name);
        if let Err(e) = std::fs::write(&path, bytes) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
