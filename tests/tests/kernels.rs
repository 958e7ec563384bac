//! Modules and launches through hip-core.

use hip_core::{Device, LaunchConfig, Stream};
use hip_sys::sim;

mod common;
use common::{test_module, RawBuffer};

#[test]
fn vector_add_gives_the_right_result() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let Some(module) = test_module(device) else {
        return;
    };
    let add = module.function("vector_add_f32").unwrap();
    let n = 10_000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32).collect();
    let (da, db, dc) =
        (RawBuffer::from_slice(device, &a), RawBuffer::from_slice(device, &b), RawBuffer::new(device, n * 4));
    let stream = Stream::new_on(device).unwrap();
    // SAFETY: vector_add_f32(const float*, const float*, float*, unsigned) over n elements.
    unsafe { add.launch(LaunchConfig::for_elements(n, 256), &stream, &[&da.ptr, &db.ptr, &dc.ptr, &(n as u32)]) }
        .unwrap();
    stream.synchronize().unwrap();
    let c: Vec<f32> = dc.to_vec();
    assert!(c.iter().enumerate().all(|(i, v)| *v == (3 * i) as f32));
}

#[test]
fn bad_launches_are_typed_errors() {
    let _x = sim::exclusive();
    if Device::count().unwrap() < 2 {
        eprintln!("skipped: needs two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    let Some(module) = test_module(d0) else {
        return;
    };
    let fill = module.function("fill_f32").unwrap();
    let buffer = RawBuffer::new(d0, 1024);
    let args: [&dyn hip_core::KernelArg; 3] = [&buffer.ptr, &1.0f32, &256u32];

    let other = Stream::new_on(d1).unwrap();
    // SAFETY: the arguments match fill_f32; the launch is refused anyway.
    let error = unsafe { fill.launch(LaunchConfig::for_elements(256, 64), &other, &args) }.unwrap_err();
    assert_eq!(common::mismatch(error.device_mismatch()), Some(("the stream", 0, 1)), "{error}");

    let stream = Stream::new_on(d0).unwrap();
    // HIP 6.x calls a zero dimension an invalid configuration; 5.7, 7.x
    // and CUDA an invalid value.
    let zero_code = match hip_sys::backend() {
        hip_sys::Backend::Nvidia => hip_sys::hipError_t::hipErrorInvalidValue,
        _ if hip_major() == 6 => hip_sys::hipError_t::hipErrorInvalidConfiguration,
        _ => hip_sys::hipError_t::hipErrorInvalidValue,
    };
    let zero_grid = LaunchConfig { grid: [0, 1, 1], block: [64, 1, 1], shared_memory: 0 };
    // SAFETY: as above.
    let error = unsafe { fill.launch(zero_grid, &stream, &args) }.unwrap_err();
    assert_eq!(error.code(), Some(zero_code), "{error}");
    assert!(error.to_string().contains("hipModuleLaunchKernel"), "{error}");

    let huge_block = LaunchConfig { grid: [1, 1, 1], block: [4096, 1, 1], shared_memory: 0 };
    // SAFETY: as above.
    let error = unsafe { fill.launch(huge_block, &stream, &args) }.unwrap_err();
    // A block above the device's limit is an invalid value in every HIP
    // version (clr checks the product before the configuration), as CUDA's
    // cuLaunchKernel answers.
    assert_eq!(error.code(), Some(hip_sys::hipError_t::hipErrorInvalidValue), "{error}");
    assert!(error.to_string().contains("hipModuleLaunchKernel"), "{error}");

    let tall_grid = LaunchConfig { grid: [1, 65_537, 1], block: [1, 1, 1], shared_memory: 0 };
    if hip_sys::backend() == hip_sys::Backend::Sim && hip_major() >= 7 {
        // SAFETY: as above.
        let error = unsafe { fill.launch(tall_grid, &stream, &args) }.unwrap_err();
        assert_eq!(error.code(), Some(hip_sys::hipError_t::hipErrorInvalidValue), "{error}");
    }

    let missing = module.function("no_such_kernel").unwrap_err();
    assert_eq!(missing.code(), Some(hip_sys::hipError_t::hipErrorNotFound), "{missing}");
    let bad_image = hip_core::Module::load(d0, b"garbage").unwrap_err();
    assert!(bad_image.to_string().contains("hipModuleLoadData"), "{bad_image}");
}

/// The HIP major version of the backend (the simulated one on sim); 0 if
/// it cannot be read.
fn hip_major() -> i32 {
    let Ok(api) = hip_sys::hip() else {
        return 0;
    };
    let mut version = 0;
    // SAFETY: a valid out-pointer.
    let status = unsafe { (api.hipRuntimeGetVersion)(&mut version) };
    if status == hip_sys::hipError_t::hipSuccess {
        version / 10_000_000
    } else {
        0
    }
}
