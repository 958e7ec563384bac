//! One device-mismatch error for every layer: a stream, an event, a pool
//! allocation, a library operand, an array, a copy or a kernel argument on
//! the wrong device is a `DeviceMismatch`, found by `device_mismatch()` on
//! the layer's own error and on `amdgpu::Error` after `?`, naming the
//! operand that is actually on the wrong device and both devices.

use amdgpu::blas::{self, Gemm};
use amdgpu::libs::{dnn, fft, sparse, LibError, Library};
use amdgpu::prelude::*;
use amdgpu::DeviceMismatch;
use hip_core::{HipError, LaunchConfig};
use hip_pool::PoolError;
use hip_sys::sim;

mod common;
use common::{have, test_module, RawBuffer};

/// The two devices (with the simulator held), or `None` with a note.
fn two_devices() -> Option<(Device, Device, sim::Exclusive)> {
    let guard = sim::exclusive();
    if Device::count().unwrap() < 2 {
        eprintln!("skipped: needs two devices");
        return None;
    }
    Some((Device::new(0).unwrap(), Device::new(1).unwrap(), guard))
}

/// `error` reports exactly `want`, through its own `device_mismatch`
/// (`own`) and as an `amdgpu::Error` (the conversion `?` makes), and its
/// message names the operation, the operand and both devices.
fn assert_reports<E>(error: E, own: for<'e> fn(&'e E) -> Option<&'e DeviceMismatch>, want: DeviceMismatch)
where
    E: Into<amdgpu::Error> + std::fmt::Display,
{
    assert_eq!(own(&error), Some(&want), "{error}");
    let facade: amdgpu::Error = error.into();
    assert_eq!(facade.device_mismatch(), Some(&want), "{facade}");
    let says = format!("{}: {} is on {}, but {} is required", want.operation, want.what, want.found, want.expected);
    assert!(facade.to_string().starts_with(&says), "{facade:?} does not say {says:?}");
}

#[test]
fn hip_core_streams_events_and_launches() {
    let Some((d0, d1, _x)) = two_devices() else { return };
    let (s0, s1) = (Stream::new_on(d0).unwrap(), Stream::new_on(d1).unwrap());

    let event = Event::new_on(d1).unwrap();
    let error = event.record(&s0).unwrap_err();
    assert!(matches!(error, HipError::DeviceMismatch(_)), "{error}");
    assert_reports(error, HipError::device_mismatch, DeviceMismatch::new("Event::record", "the stream", d1, d0));

    let start = Event::new_on(d0).unwrap();
    start.record(&s0).unwrap();
    event.record(&s1).unwrap();
    event.synchronize().unwrap();
    let error = event.elapsed_since(&start).unwrap_err();
    assert_reports(
        error,
        HipError::device_mismatch,
        DeviceMismatch::new("Event::elapsed_since", "the start event", d1, d0),
    );

    let error = s1.expect_device(d0, "my_operation").unwrap_err();
    assert_reports(error, HipError::device_mismatch, DeviceMismatch::new("my_operation", "the stream", d0, d1));

    if let Some(module) = test_module(d0) {
        let fill = module.function("fill_f32").unwrap();
        let buffer = RawBuffer::new(d0, 1024);
        let args: [&dyn hip_core::KernelArg; 3] = [&buffer.ptr, &1.0f32, &256u32];
        // SAFETY: the arguments match fill_f32; the launch is refused anyway.
        let error = unsafe { fill.launch(LaunchConfig::for_elements(256, 64), &s1, &args) }.unwrap_err();
        assert_reports(error, HipError::device_mismatch, DeviceMismatch::new("Function::launch", "the stream", d0, d1));
    }
}

#[test]
fn hip_pool_allocations_and_buffers() {
    let Some((d0, d1, _x)) = two_devices() else { return };
    let (s0, s1) = (Stream::new_on(d0).unwrap(), Stream::new_on(d1).unwrap());

    let error = hip_pool::alloc_on(d0, 256, &s1).unwrap_err();
    assert!(matches!(error, PoolError::Hip(HipError::DeviceMismatch(_))), "{error}");
    assert_reports(error, PoolError::device_mismatch, DeviceMismatch::new("Pool::alloc", "the stream", d0, d1));

    let mut buffer = hip_pool::alloc_on(d0, 256, &s0).unwrap();
    let error = buffer.set_stream(&s1).unwrap_err();
    assert_reports(error, PoolError::device_mismatch, DeviceMismatch::new("Buffer::set_stream", "the stream", d0, d1));
}

#[test]
fn hip_libs_operands_name_the_one_on_the_wrong_device() {
    let Some((d0, d1, _x)) = two_devices() else { return };
    let on = |device: Device, len: usize| with_device(device, || DeviceArray::<f32>::zeros(len)).unwrap();
    let want = |operation, what| DeviceMismatch::new(operation, what, d0, d1);

    if have(Library::Rocblas) {
        let (a, b, mut c) = (on(d0, 4), on(d1, 4), on(d0, 4));
        let error = blas::gemm(&Gemm::new(2, 2, 2), 1.0, &a, &b, 0.0, &mut c).unwrap_err();
        assert!(matches!(error, LibError::Hip(HipError::DeviceMismatch(_))), "{error}");
        assert_reports(error, LibError::device_mismatch, want("gemm", "B"));
        let (x, mut y) = (on(d1, 4), on(d0, 4));
        assert_reports(blas::axpy(2.0, &x, &mut y).unwrap_err(), LibError::device_mismatch, want("axpy", "x"));
        let s1 = Stream::new_on(d1).unwrap();
        let error = blas::with_raw_handle(d0, &s1, |_| ()).unwrap_err();
        assert_reports(error, LibError::device_mismatch, want("blas::with_raw_handle", "the stream"));
    }
    if have(Library::Rocsparse) {
        let s1 = Stream::new_on(d1).unwrap();
        let a = sparse::CsrMatrix::from_host(&s1, 2, 2, &[0, 1, 2], &[0, 1], &[1.0f32, 1.0]).unwrap();
        let (x, mut y) = (on(d0, 2), on(d0, 2));
        let error = sparse::spmv(1.0, &a, &x, 0.0, &mut y).unwrap_err();
        assert_reports(error, LibError::device_mismatch, want("spmv", "the matrix"));
    }
    if have(Library::Rocfft) {
        let input = with_device(d1, || DeviceArray::<[f32; 2]>::zeros(8)).unwrap();
        let mut output = with_device(d0, || DeviceArray::<[f32; 2]>::zeros(8)).unwrap();
        let error = fft::c2c(&input, &mut output, &[8], 1, fft::Direction::Forward).unwrap_err();
        assert_reports(error, LibError::device_mismatch, want("fft::c2c", "the input"));
        let real = on(d1, 8);
        let mut spectrum = with_device(d0, || DeviceArray::<[f32; 2]>::zeros(5)).unwrap();
        let error = fft::r2c(&real, &mut spectrum, &[8], 1).unwrap_err();
        assert_reports(error, LibError::device_mismatch, want("fft::r2c", "the real input"));
    }
    if have(Library::Miopen) {
        let shape = dnn::Shape4::new(1, 1, 2, 2);
        let (x, mut y) = (on(d0, 4), on(d0, 4));
        let w = on(d1, 1);
        let filter = dnn::Shape4::new(1, 1, 1, 1);
        let error = dnn::conv2d_forward(&x, shape, &w, filter, &mut y, dnn::Conv2d::default()).unwrap_err();
        assert_reports(error, LibError::device_mismatch, want("conv2d", "w"));
        let x = on(d1, 4);
        let error = dnn::softmax(&x, &mut y, shape, dnn::SoftmaxAlgorithm::Accurate, dnn::SoftmaxMode::Channel);
        assert_reports(error.unwrap_err(), LibError::device_mismatch, want("softmax", "x"));
    }
}

#[test]
fn amdgpu_arrays_and_copies() {
    let Some((d0, d1, _x)) = two_devices() else { return };
    let (s0, s1) = (Stream::new_on(d0).unwrap(), Stream::new_on(d1).unwrap());
    let want = |operation, what| DeviceMismatch::new(operation, what, d0, d1);

    // SAFETY: the array is never made, let alone read.
    let error = unsafe { DeviceArray::<f32>::uninit_on(d1, 4, &s0) }.unwrap_err();
    assert!(matches!(error, amdgpu::Error::Hip(HipError::DeviceMismatch(_))), "{error}");
    assert_reports(
        error,
        amdgpu::Error::device_mismatch,
        DeviceMismatch::new("DeviceArray::uninit_on", "the stream", d1, d0),
    );

    let mut array = DeviceArray::<f32>::zeros_on(&s0, 4).unwrap();
    let error = array.set_stream(&s1).unwrap_err();
    assert!(matches!(error, amdgpu::Error::Pool(_)), "{error}");
    assert_reports(error, amdgpu::Error::device_mismatch, want("Buffer::set_stream", "the stream"));

    let mut host = HostBuffer::<f32>::zeroed_on(d0, 4).unwrap();
    let error = array.copy_from_host_async(&host, &s1).unwrap_err();
    assert_reports(error, amdgpu::Error::device_mismatch, want("copy_from_host_async", "the stream"));
    let error = array.copy_to_host_async(&mut host, &s1).unwrap_err();
    assert_reports(error, amdgpu::Error::device_mismatch, want("copy_to_host_async", "the stream"));
    let other = DeviceArray::<f32>::zeros_on(&s0, 4).unwrap();
    let error = array.copy_from_async(&other, &s1).unwrap_err();
    assert_reports(error, amdgpu::Error::device_mismatch, want("copy_from_async", "the stream"));
}

#[test]
fn errors_that_are_not_mismatches_have_none() {
    let _x = sim::exclusive();
    let count = Device::count().unwrap();
    let error = Device::new(count + 1).unwrap_err();
    assert_eq!(error.device_mismatch(), None);
    assert_eq!(amdgpu::Error::from(error).device_mismatch(), None);
    let invalid = LibError::InvalidInput { operation: "gemm", problem: "m = 0".into() };
    assert_eq!(invalid.device_mismatch(), None);
    assert_eq!(amdgpu::Error::from(invalid).device_mismatch(), None);
}
