//! HIP kernels compiled for the CPU and run by the simulator (issue 49),
//! against the same arithmetic as a plain C++ loop built by the same
//! compiler at the same optimisation (`-O2`), in one run:
//!
//! - `elementwise`: `c[i] = a[i] + b[i]` over 2^24 floats, one thread per
//!   element in blocks of 256 (`Kernel::launch` and a synchronize, the
//!   simulator staging the three arrays), against the loop over host
//!   memory;
//! - `reduction`: each 256-thread block sums its elements through shared
//!   memory with a `__syncthreads` per halving, over 2^20 floats, against
//!   the same tree of additions as loops;
//! - `compile`: a small kernel compiled cold (a source no earlier
//!   iteration compiled) and found in the process's kernel cache.
//!
//! The simulator only, with a C++ compiler: `cargo bench -p amdgpu --bench
//! sim_kernels`. Elsewhere it says why it skips.

use amdgpu::kernel::{In, Kernel, Len, Out, PerBlock};
use amdgpu::prelude::*;
use amdgpu::{KernelCache, LaunchConfig, Program};
use criterion::Criterion;
use std::time::Duration;

mod common;
use common::mean_ns;

const GROUP: &str = "sim_kernels";
const ELEMENTWISE: usize = 1 << 24;
const REDUCED: usize = 1 << 20;

const SOURCE: &str = r#"
#include <hip/hip_runtime.h>
extern "C" __global__ void add(const float* a, const float* b, float* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void block_sum(const float* in, float* sums, unsigned n) {
    __shared__ float part[256];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    part[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) part[t] += part[t + half];
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] = part[0];
}
"#;

/// The same arithmetic as plain loops.
const PLAIN: &str = r#"
extern "C" void add(const float* a, const float* b, float* c, unsigned n) {
    for (unsigned i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
extern "C" void block_sum(const float* in, float* sums, unsigned n) {
    float part[256];
    for (unsigned block = 0; block * 256 < n; ++block) {
        for (unsigned t = 0; t < 256; ++t) part[t] = block * 256 + t < n ? in[block * 256 + t] : 0.0f;
        for (unsigned half = 128; half > 0; half /= 2)
            for (unsigned t = 0; t < half; ++t) part[t] += part[t + half];
        sums[block] = part[0];
    }
}
"#;

type Add = unsafe extern "C" fn(*const f32, *const f32, *mut f32, u32);
type BlockSum = unsafe extern "C" fn(*const f32, *mut f32, u32);

/// The plain loops, built by `cxx` at -O2 into a library in `dir`.
fn plain(cxx: &std::path::Path, dir: &std::path::Path) -> libloading::Library {
    let source = dir.join("plain.cpp");
    let library = dir.join("libplain.so");
    std::fs::write(&source, PLAIN).expect("the plain loops' source");
    let status = std::process::Command::new(cxx)
        .args(["-O2", "-fPIC", "-shared", "-o"])
        .arg(&library)
        .arg(&source)
        .status()
        .expect("the compiler runs");
    assert!(status.success(), "the plain loops compile");
    // SAFETY: a library just built from the source above, with no
    // initializers of its own.
    unsafe { libloading::Library::new(&library) }.expect("the plain loops load")
}

fn main() {
    if amdgpu::backend() != amdgpu::Backend::Sim {
        eprintln!("sim_kernels: skipped, this measures the simulator's compiled kernels");
        return;
    }
    let (cxx, version) = match amdgpu::sys::sim::cxx_compiler() {
        Ok(found) => found,
        Err(why) => {
            eprintln!("sim_kernels: skipped, {why}");
            return;
        }
    };
    println!("compiler: {version}");
    let dir = std::env::temp_dir().join(format!("amdgpu-bench-sim-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let loops = plain(&cxx, &dir);
    // SAFETY: the symbols of the source above, with these signatures.
    let (plain_add, plain_sum) =
        unsafe { (*loops.get::<Add>(b"add").expect("add"), *loops.get::<BlockSum>(b"block_sum").expect("block_sum")) };
    let device = device();
    let stream = Stream::new().expect("a stream");
    let module = Program::new(SOURCE).build(device).expect("the kernels compile").load(device).expect("load");
    // SAFETY: add reads a[0, n) and b[0, n) and writes c[0, n).
    let add = unsafe { Kernel::<(In<f32>, In<f32>, Out<f32>, Len)>::from_module(&module, "add") }.expect("add");
    // SAFETY: block_sum reads in[0, n) and writes sums[blockIdx.x].
    let sum = unsafe { Kernel::<(In<f32>, Out<f32, PerBlock>, Len)>::from_module(&module, "block_sum") }.expect("sum");

    let mut c = Criterion::default().configure_from_args().sample_size(10).measurement_time(Duration::from_secs(4));
    let mut group = c.benchmark_group(GROUP);

    let a: Vec<f32> = (0..ELEMENTWISE).map(|i| (i % 97) as f32).collect();
    let b: Vec<f32> = (0..ELEMENTWISE).map(|i| (i % 89) as f32).collect();
    let mut host_c = vec![0f32; ELEMENTWISE];
    let (da, db) = (DeviceArray::from_slice(&a).expect("a"), DeviceArray::from_slice(&b).expect("b"));
    let mut dc = DeviceArray::<f32>::zeros(ELEMENTWISE).expect("c");
    let linear = LaunchConfig::linear(device, ELEMENTWISE).expect("a launch");
    group.bench_function("elementwise-ours", |bench| {
        bench.iter(|| {
            add.launch(linear, &stream, (&da, &db, &mut dc, ELEMENTWISE as u32)).expect("launch");
            stream.synchronize().expect("synchronize");
        })
    });
    group.bench_function("elementwise-plain", |bench| {
        // SAFETY: three host arrays of ELEMENTWISE floats.
        bench.iter(|| unsafe { plain_add(a.as_ptr(), b.as_ptr(), host_c.as_mut_ptr(), ELEMENTWISE as u32) })
    });
    // Once more outside the timings, so that a filter that leaves out
    // either half still compares the two.
    add.launch(linear, &stream, (&da, &db, &mut dc, ELEMENTWISE as u32)).expect("launch");
    stream.synchronize().expect("synchronize");
    // SAFETY: as above.
    unsafe { plain_add(a.as_ptr(), b.as_ptr(), host_c.as_mut_ptr(), ELEMENTWISE as u32) };
    assert_eq!(dc.to_vec().expect("c"), host_c, "the kernel computes what the loop does");

    let x: Vec<f32> = (0..REDUCED).map(|i| (i % 7) as f32).collect();
    let blocks = REDUCED / 256;
    let dx = DeviceArray::from_slice(&x).expect("x");
    let mut sums = DeviceArray::<f32>::zeros(blocks).expect("sums");
    let mut host_sums = vec![0f32; blocks];
    let config = LaunchConfig { grid: [blocks as u32, 1, 1], block: [256, 1, 1], shared_memory: 0 };
    group.bench_function("reduction-ours", |bench| {
        bench.iter(|| {
            sum.launch(config, &stream, (&dx, &mut sums, REDUCED as u32)).expect("launch");
            stream.synchronize().expect("synchronize");
        })
    });
    group.bench_function("reduction-plain", |bench| {
        // SAFETY: REDUCED floats in, one sum per 256 out.
        bench.iter(|| unsafe { plain_sum(x.as_ptr(), host_sums.as_mut_ptr(), REDUCED as u32) })
    });
    sum.launch(config, &stream, (&dx, &mut sums, REDUCED as u32)).expect("launch");
    stream.synchronize().expect("synchronize");
    // SAFETY: as above.
    unsafe { plain_sum(x.as_ptr(), host_sums.as_mut_ptr(), REDUCED as u32) };
    assert_eq!(sums.to_vec().expect("sums"), host_sums, "the kernel sums what the loop does");

    let mut fresh = 0u64;
    group.bench_function("compile-cold", |bench| {
        bench.iter(|| {
            fresh += 1;
            let source = format!("// {} {fresh}\n{SOURCE}", std::process::id());
            KernelCache::global().get_or_compile(&Program::new(source), device).expect("compile")
        })
    });
    let cached = Program::new(SOURCE);
    group.bench_function("compile-cached", |bench| {
        bench.iter(|| KernelCache::global().get_or_compile(&cached, device).expect("cached"))
    });
    group.finish();
    drop(c);

    let ratio = |name: &str| {
        let ours = mean_ns(GROUP, &format!("{name}-ours"));
        let plain = mean_ns(GROUP, &format!("{name}-plain"));
        if let (Some(o), Some(p)) = (ours, plain) {
            println!("{name}: ours {:.2} ms, plain loop {:.2} ms, ratio {:.2}", o / 1e6, p / 1e6, o / p);
        }
    };
    ratio("elementwise");
    ratio("reduction");
    if let (Some(cold), Some(hit)) = (mean_ns(GROUP, "compile-cold"), mean_ns(GROUP, "compile-cached")) {
        println!("compile: cold {:.1} ms, cached {:.2} µs", cold / 1e6, hit / 1e3);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
