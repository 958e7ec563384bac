//! Kernels with declared parameters (issue 20): launches check each
//! array's device and length before anything is enqueued, and declare
//! each array's use on the launch stream, so a launch on another stream is
//! ordered against the array's own.
//!
//! The test kernels are the simulator's built-in ones, and on nvidia the
//! same kernels' PTX (`common::test_module`).

use amdgpu::kernel::{In, Kernel, Len, Out, PerThread};
use amdgpu::prelude::*;
use amdgpu::{Error, LaunchConfig, Module};
use hip_core::HipError;
use hip_sys::{sim, Backend};
use std::time::Duration;

mod common;

type VectorAdd = (In<f32>, In<f32>, Out<f32>, Len);
type Axpy = (f32, In<f32>, Out<f32>, Len);
type Fill = (Out<f32>, f32, Len);

fn module(device: Device) -> Option<Module> {
    common::test_module(device)
}

fn vector_add(module: &Module) -> Kernel<VectorAdd> {
    // SAFETY: vector_add_f32(const float* a, const float* b, float* c,
    // uint32_t n) reads a[0..n), b[0..n) and writes c[0..n).
    unsafe { Kernel::from_module(module, "vector_add_f32") }.expect("vector_add_f32")
}

fn launches() -> u64 {
    sim::call_count("hipModuleLaunchKernel")
}

fn assert_no_violations() {
    if amdgpu::backend() == Backend::Sim {
        let v = sim::violations();
        assert!(v.is_empty(), "violations: {v:?}");
    }
}

#[test]
fn typed_launches_give_the_right_results() {
    let _x = sim::exclusive();
    let Some(module) = module(device()) else { return };
    sim::clear_violations();
    let n = 10_000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32).collect();
    let (da, db) = (DeviceArray::from_slice(&a).unwrap(), DeviceArray::from_slice(&b).unwrap());
    let mut dc = DeviceArray::<f32>::zeros(n).unwrap();
    let config = LaunchConfig::linear(device(), n).unwrap();
    vector_add(&module).launch(config, &stream(), (&da, &db, &mut dc, n as u32)).unwrap();
    assert_eq!(dc.to_vec().unwrap(), (0..n).map(|i| (3 * i) as f32).collect::<Vec<_>>());

    // SAFETY: axpy_f32(float a, const float* x, float* y, uint32_t n): y = a*x + y over [0, n).
    let axpy = unsafe { Kernel::<Axpy>::from_module(&module, "axpy_f32") }.unwrap();
    axpy.launch(config, &stream(), (2.0f32, &da, &mut dc, n as u32)).unwrap();
    assert_eq!(dc.to_vec().unwrap(), (0..n).map(|i| (5 * i) as f32).collect::<Vec<_>>());

    // Slices are read arguments: c[0..100) = a[100..200) + b[0..100).
    let m = 100usize;
    let mut head = DeviceArray::<f32>::zeros(m).unwrap();
    let tail = da.slice(100..200).unwrap();
    vector_add(&module)
        .launch(LaunchConfig::linear(device(), m).unwrap(), &stream(), (tail, &db, &mut head, m as u32))
        .unwrap();
    assert_eq!(head.to_vec().unwrap(), (0..m).map(|i| (100 + i + 2 * i) as f32).collect::<Vec<_>>());

    // SAFETY: fill_f32(float* p, float value, uint32_t n) writes p[0..n).
    let fill = unsafe { Kernel::<Fill>::from_module(&module, "fill_f32") }.unwrap();
    fill.launch(config, &stream(), (&mut dc, 0.5f32, n as u32)).unwrap();
    assert!(dc.to_vec().unwrap().iter().all(|v| *v == 0.5));
    assert_no_violations();
}

#[test]
fn arguments_on_another_device_are_refused_before_the_launch() {
    let _x = sim::exclusive();
    if Device::count().unwrap() < 2 {
        eprintln!("skipped: needs two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    let Some(module) = module(d0) else { return };
    let add = vector_add(&module);
    let s0 = Stream::new_on(d0).unwrap();
    let s1 = Stream::new_on(d1).unwrap();
    let a = DeviceArray::from_slice_on(&s0, &[1.0f32; 64]).unwrap();
    let b = DeviceArray::from_slice_on(&s1, &[1.0f32; 64]).unwrap();
    let mut c = DeviceArray::<f32>::zeros_on(&s0, 64).unwrap();
    let config = LaunchConfig::linear(d0, 64).unwrap();
    let before = launches();
    let error = add.launch(config, &s0, (&a, &b, &mut c, 64)).unwrap_err();
    assert!(matches!(error, Error::Hip(HipError::DeviceMismatch(_))), "{error}");
    assert_eq!(common::mismatch(error.device_mismatch()), Some(("argument 1", 0, 1)), "{error}");
    assert!(error.to_string().contains("argument 1 is on device 1, but device 0 is required"), "{error}");
    let error = add.launch(config, &s1, (&a, &a, &mut c, 64)).unwrap_err();
    assert_eq!(common::mismatch(error.device_mismatch()), Some(("the stream", 0, 1)), "{error}");
    if amdgpu::backend() == Backend::Sim {
        assert_eq!(launches(), before, "nothing was launched");
    }
    assert!(c.to_vec().unwrap().iter().all(|v| *v == 0.0));
}

#[test]
fn arguments_too_short_are_refused_before_the_launch() {
    let _x = sim::exclusive();
    let Some(module) = module(device()) else { return };
    let add = vector_add(&module);
    let a = DeviceArray::from_slice(&[1.0f32; 128]).unwrap();
    let short = DeviceArray::from_slice(&[1.0f32; 100]).unwrap();
    let mut c = DeviceArray::<f32>::zeros(128).unwrap();
    let config = LaunchConfig::linear(device(), 128).unwrap();
    let before = launches();
    let error = add.launch(config, &stream(), (&a, &short, &mut c, 128)).unwrap_err();
    assert!(matches!(error, Error::ArgumentTooShort { argument: 1, len: 100, needed: 128, .. }), "{error}");
    let text = error.to_string();
    assert!(text.contains("vector_add_f32") && text.contains("argument 1 has 100 elements"), "{text}");
    let mut short_out = DeviceArray::<f32>::zeros(127).unwrap();
    let error = add.launch(config, &stream(), (&a, &a, &mut short_out, 128)).unwrap_err();
    assert!(matches!(error, Error::ArgumentTooShort { argument: 2, len: 127, .. }), "{error}");

    // A per-thread rule counts the launch's threads: 2 blocks of 64.
    // SAFETY: fill_f32 writes p[0..min(n, threads)); with this rule the
    // declaration bounds it by the threads, which bound the writes.
    let fill = unsafe { Kernel::<(Out<f32, PerThread>, f32, u32)>::from_module(&module, "fill_f32") }.unwrap();
    let two_blocks = LaunchConfig { grid: [2, 1, 1], block: [64, 1, 1], shared_memory: 0 };
    let error = fill.launch(two_blocks, &stream(), (&mut short_out, 1.0f32, 1000)).unwrap_err();
    assert!(matches!(error, Error::ArgumentTooShort { argument: 0, len: 127, needed: 128, .. }), "{error}");

    // A configuration beyond the device is refused too.
    let huge = LaunchConfig { grid: [1, 1, 1], block: [1 << 16, 1, 1], shared_memory: 0 };
    let error = add.launch(huge, &stream(), (&a, &a, &mut c, 128)).unwrap_err();
    assert!(matches!(error, Error::Hip(HipError::InvalidLaunch(_))), "{error}");
    assert!(error.to_string().contains("block.x = 65536"), "{error}");
    if amdgpu::backend() == Backend::Sim {
        assert_eq!(launches(), before, "nothing was launched");
    }
    assert!(c.to_vec().unwrap().iter().all(|v| *v == 0.0));
}

#[test]
fn an_array_bounded_by_len_needs_a_len_parameter() {
    let _x = sim::exclusive();
    let Some(module) = module(device()) else { return };
    // SAFETY: the declaration is refused before any launch.
    let error = unsafe { Kernel::<(Out<f32>, f32, u32)>::from_module(&module, "fill_f32") }.unwrap_err();
    assert!(matches!(error, Error::KernelDeclaration { .. }), "{error}");
    assert!(error.to_string().contains("needs a Len parameter"), "{error}");
}

#[test]
fn linear_configurations_respect_the_device() {
    let _x = sim::exclusive();
    let d = device();
    let limits = amdgpu::LaunchLimits::of(d).unwrap();
    let c = LaunchConfig::linear(d, 1_000_000).unwrap();
    assert_eq!(c.block[0] % limits.warp_size, 0);
    assert!(c.threads() >= 1_000_000 && c.block[0] <= limits.max_threads_per_block);
    let c = LaunchConfig::linear_with_block(d, 10, 1 << 20).unwrap();
    assert_eq!(c.block[0], limits.max_threads_per_block.min(limits.max_block[0]));
    limits.check(&c, d).unwrap();
    let tiles = LaunchConfig::covering(d, [1000, 30, 0], [32, 8, 1]).unwrap();
    assert_eq!((tiles.grid, tiles.block), ([32, 4, 1], [32, 8, 1]));
    let error = LaunchConfig::covering(d, [10, 10, 1], [64, 64, 1]).unwrap_err();
    assert!(error.to_string().contains("threads is above the device's"), "{error}");
    let too_many = (limits.max_grid[0] as usize + 1) * 256;
    let error = LaunchConfig::linear(d, too_many).unwrap_err();
    assert!(error.to_string().contains("grid.x limit"), "{error}");
}

/// The array `x` belongs to stream A, whose fill of it is held; a typed
/// launch on stream B reads it. The launch must wait for A on the GPU
/// (`prepare`), and the result, written on B into an array of A, must be
/// waited for by A's later work (`record`). The unsafe launch without the
/// declarations reads the unfilled `x`, and the simulator sees the race.
#[test]
fn a_launch_on_another_stream_is_ordered_against_the_arrays_own_stream() {
    let _x = sim::exclusive();
    if amdgpu::backend() != Backend::Sim {
        eprintln!("skipped: the scenario holds streams, which only the simulator can do");
        return;
    }
    let Some(module) = module(device()) else { return };
    sim::clear_violations();
    let n = 4096usize;
    let add = vector_add(&module);
    // SAFETY: fill_f32(float* p, float value, uint32_t n) writes p[0..n).
    let fill = unsafe { Kernel::<Fill>::from_module(&module, "fill_f32") }.unwrap();
    let config = LaunchConfig::linear(device(), n).unwrap();
    let (a, b) = (Stream::new().unwrap(), Stream::new().unwrap());

    let run = |typed: bool| -> Vec<f32> {
        let mut x = DeviceArray::<f32>::zeros_on(&a, n).unwrap();
        let ones = DeviceArray::from_slice_on(&b, &vec![1.0f32; n]).unwrap();
        let mut y = DeviceArray::<f32>::zeros_on(&a, n).unwrap();
        let hold = sim::hold_stream(a.as_raw()).expect("hold A");
        fill.launch(config, &a, (&mut x, 2.0f32, n as u32)).unwrap();
        if typed {
            add.launch(config, &b, (&x, &ones, &mut y, n as u32)).unwrap();
            assert!(y.buffer().has_foreign_uses(), "the write on B was recorded");
        } else {
            let (px, po, py, len) = (x.as_ptr(), ones.as_ptr(), y.as_mut_ptr(), n as u32);
            // SAFETY: vector_add_f32 over n elements of live arrays; the
            // missing declarations are the point of this case.
            unsafe { add.function().launch(config, &b, &[&px, &po, &py, &len]) }.unwrap();
        }
        // Let B run what it may while A is held, then let A go.
        std::thread::sleep(Duration::from_millis(50));
        drop(hold);
        if !typed {
            b.synchronize().unwrap();
        }
        // On A: waits for the recorded write on B (typed), or does not.
        y.to_vec().unwrap()
    };

    let wrong = run(true).iter().filter(|v| **v != 3.0).count();
    assert_eq!(wrong, 0, "{wrong} of {n} results are wrong: the typed launch did not wait for the fill on A");
    let races = sim::violations();
    assert!(races.is_empty(), "no races with the declarations: {races:?}");

    let raced = {
        let _expected = sim::expect_races();
        run(false)
    };
    assert!(raced.iter().any(|v| *v != 3.0), "without the declarations B does not wait for A");
    if sim::race_check_enabled() {
        let races: Vec<_> =
            sim::violations().into_iter().filter(|v| v.kind == sim::ViolationKind::StreamRace).collect();
        assert!(!races.is_empty(), "the simulator sees the undeclared use race");
    }
    sim::clear_violations();
}
