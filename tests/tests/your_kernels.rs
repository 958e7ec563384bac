//! Your own HIP kernels on the simulator, through the everyday API: a
//! `Program` compiled for the CPU (by the machine's C++ compiler) and
//! launched on pooled `DeviceArray`s, with the simulator's checks at the
//! granularity of the pool's buffers: a write one element past an array
//! faults, naming the kernel, the block, the thread and the address, as
//! does a read of an array already freed back to the pool; the process
//! lives on, and the stream's error says what happened.
//!
//! Simulator only (a GPU faults only outside its pages). With no C++
//! compiler the tests skip saying so, unless `AMDGPU_SIM_REQUIRE_CXX=1`.

use amdgpu::kernel::{In, Kernel, Len, Out};
use amdgpu::prelude::*;
use amdgpu::{LaunchConfig, Program};
use hip_sys::sim::{self, ViolationKind};

mod common;

const SOURCE: &str = r#"
#include <hip/hip_runtime.h>

// out[i] = 1 for i <= n: one element past an n-element array.
extern "C" __global__ void write_one_past(float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        out[i] = 1.0f;
    }
}

// out[i] = in[i] + 1.
extern "C" __global__ void add_one(const float* in, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] + 1.0f;
    }
}
"#;

/// Whether kernels compile here and are checked at a buffer's bytes (else
/// the test skips, saying why).
fn compiles() -> bool {
    if amdgpu::backend() != hip_sys::Backend::Sim {
        eprintln!("skipped: the checks at a buffer's bytes are the simulator's");
        return false;
    }
    common::compiles()
}

/// The kernel faults recorded for this thread's launches.
fn kernel_faults() -> Vec<sim::KernelFault> {
    let me = std::thread::current().name().unwrap_or_default().to_owned();
    sim::violations()
        .into_iter()
        .filter(|v| v.kind == ViolationKind::KernelFault && v.thread == me)
        .filter_map(|v| v.kernel)
        .collect()
}

#[test]
fn a_kernel_writing_one_past_a_pooled_array_faults_at_the_arrays_end() {
    let _x = sim::exclusive();
    if !compiles() {
        return;
    }
    std::thread::Builder::new()
        .name("your-kernels-past".into())
        .spawn(|| {
            let module = Program::new(SOURCE).build(device()).unwrap().load(device()).unwrap();
            // SAFETY: write_one_past(float* out, unsigned n): declared as
            // writing n elements, which is exactly its bug: it writes n + 1.
            let kernel = unsafe { Kernel::<(Out<f32>, Len)>::from_module(&module, "write_one_past") }.unwrap();
            // Inside a larger pool segment: the byte past the array is
            // memory of the segment, which a GPU would not fault on.
            let n = 1000;
            let mut out = DeviceArray::<f32>::zeros(n).unwrap();
            let s = stream();
            kernel.launch(LaunchConfig::linear(device(), n + 1).unwrap(), &s, (&mut out, n as u32)).unwrap();
            let error = s.synchronize().unwrap_err();
            assert!(error.to_string().contains("hipErrorIllegalAddress"), "{error}");
            let faults = kernel_faults();
            assert_eq!(faults.len(), 1, "{faults:?}");
            assert_eq!(faults[0].kernel, "write_one_past");
            assert_eq!(faults[0].address, out.as_ptr() as usize + 4 * n, "the first byte past the array");
            assert!(faults[0].what.contains("past the end of the 4000-byte buffer"), "{}", faults[0].what);
            sim::reset_faults();
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_kernel_reading_an_array_freed_back_to_the_pool_faults() {
    let _x = sim::exclusive();
    if !compiles() {
        return;
    }
    std::thread::Builder::new()
        .name("your-kernels-freed".into())
        .spawn(|| {
            let module = Program::new(SOURCE).build(device()).unwrap().load(device()).unwrap();
            // SAFETY: add_one(const float* in, float* out, unsigned n); `in`
            // is declared as a bare address, so that a freed array's can be
            // passed: the attack the typed operands otherwise prevent.
            let kernel = unsafe { Kernel::<(u64, Out<f32>, Len)>::from_module(&module, "add_one") }.unwrap();
            let n = 256;
            let freed = DeviceArray::from_slice(&vec![1.0f32; n]).unwrap();
            let stale = freed.as_ptr() as u64;
            drop(freed);
            // Of another size, so that the freed block stays free.
            let mut out = DeviceArray::<f32>::zeros(3 * n).unwrap();
            let s = stream();
            kernel.launch(LaunchConfig::linear(device(), n).unwrap(), &s, (stale, &mut out, n as u32)).unwrap();
            assert!(s.synchronize().is_err(), "the read of a freed block faults");
            let faults = kernel_faults();
            assert_eq!(faults.len(), 1, "{faults:?}");
            assert_eq!(faults[0].address, stale as usize, "the freed array's first element");
            assert!(faults[0].what.contains("holds free"), "{}", faults[0].what);
            sim::reset_faults();
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_kernel_on_pooled_arrays_computes_what_the_cpu_does() {
    let _x = sim::exclusive();
    if !compiles() {
        return;
    }
    let module = Program::new(SOURCE).build(device()).unwrap().load(device()).unwrap();
    // SAFETY: add_one(const float* in, float* out, unsigned n) reads in[0, n)
    // and writes out[0, n).
    let kernel = unsafe { Kernel::<(In<f32>, Out<f32>, Len)>::from_module(&module, "add_one") }.unwrap();
    let input: Vec<f32> = (0..10_000).map(|i| i as f32 * 0.5).collect();
    let a = DeviceArray::from_slice(&input).unwrap();
    let mut b = DeviceArray::<f32>::zeros(input.len()).unwrap();
    kernel
        .launch(LaunchConfig::linear(device(), input.len()).unwrap(), &stream(), (&a, &mut b, input.len() as u32))
        .unwrap();
    let want: Vec<f32> = input.iter().map(|v| v + 1.0).collect();
    assert_eq!(b.to_vec().unwrap(), want);
}

#[test]
fn an_array_dropped_right_after_its_launch_is_the_kernels_until_it_has_run() {
    let _x = sim::exclusive();
    if !compiles() {
        return;
    }
    let module = Program::new(SOURCE).build(device()).unwrap().load(device()).unwrap();
    // SAFETY: add_one(const float* in, float* out, unsigned n) reads in[0, n)
    // and writes out[0, n).
    let kernel = unsafe { Kernel::<(In<f32>, Out<f32>, Len)>::from_module(&module, "add_one") }.unwrap();
    let s = Stream::new().unwrap();
    let mut out = DeviceArray::<f32>::zeros(512).unwrap();
    {
        // The launch waits behind a held stream while its input goes back
        // to the pool: the pool keeps the block for it, and so does the
        // simulator's view of what the kernel may reach. (The input is
        // written first: its copy would wait for the held stream.)
        let input = DeviceArray::from_slice(&[2.0f32; 512]).unwrap();
        let hold = sim::hold_stream(s.as_raw()).unwrap();
        kernel.launch(LaunchConfig::linear(device(), 512).unwrap(), &s, (&input, &mut out, 512)).unwrap();
        drop(input);
        drop(hold);
    }
    s.synchronize().unwrap_or_else(|e| panic!("{e}: {:?}", sim::violations()));
    assert_eq!(out.to_vec().unwrap(), vec![3.0; 512]);
}
