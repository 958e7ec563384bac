//! Pinned host buffers and asynchronous copies: round trips in every
//! direction and size, host access and drops while a copy is pending,
//! overlap with kernels on other streams, and bad input.
//!
//! Written for every backend; what needs the simulator (holding a stream
//! still, its race detector) says so and skips elsewhere.

use amdgpu::prelude::*;
use amdgpu::{Error, HostBuffer};
use hip_core::{LaunchConfig, Module};
use hip_sys::sim;

mod common;
use common::{on_sim, pattern, release_later, stream_races};

#[test]
fn round_trips_in_every_direction_and_size() {
    let _x = sim::exclusive();
    sim::clear_violations();
    let d0 = Device::new(0).unwrap();
    let stream = Stream::new_on(d0).unwrap();
    for n in [0usize, 1, 1023] {
        let data = pattern(n, 7);
        let input = HostBuffer::from_slice_on(d0, &data).unwrap();
        let mut a = with_device(d0, || DeviceArray::<u32>::zeros(n)).unwrap();
        let mut b = with_device(d0, || DeviceArray::<u32>::zeros(n)).unwrap();
        let mut output = HostBuffer::<u32>::zeroed_on(d0, n).unwrap();
        a.copy_from_host_async(&input, &stream).unwrap();
        b.copy_from_async(&a, &stream).unwrap();
        b.copy_to_host_async(&mut output, &stream).unwrap();
        assert_eq!(output.as_slice().unwrap(), &data[..], "{n} elements");
        // Slices of both sides: the tail of the host data into the head
        // of the array, and back into the middle of the output.
        if n > 1 {
            let mut output = HostBuffer::<u32>::zeroed_on(d0, n).unwrap();
            a.slice_mut(..n - 1).unwrap().copy_from_host_async(input.slice(1..).unwrap(), &stream).unwrap();
            a.slice(..n - 1).unwrap().copy_to_host_async(output.slice_mut(1..).unwrap(), &stream).unwrap();
            let out = output.as_slice().unwrap();
            assert_eq!(out[0], 0);
            assert_eq!(&out[1..], &data[1..], "{n} elements, sliced");
        }
    }
    assert_eq!(stream_races(), []);
}

#[test]
fn a_256_mib_round_trip() {
    let _x = sim::exclusive();
    let n = (256 << 20) / 4;
    let stream = Stream::new().unwrap();
    let mut host = HostBuffer::<u32>::zeroed(n).unwrap();
    for (i, v) in host.as_mut_slice().unwrap().iter_mut().enumerate() {
        *v = (i as u32) ^ 0x5a5a_5a5a;
    }
    let mut array = DeviceArray::<u32>::zeros(n).unwrap();
    array.copy_from_host_async(&host, &stream).unwrap();
    // Writing the host memory waits for the copy that reads it.
    host.as_mut_slice().unwrap().fill(0);
    array.copy_to_host_async(&mut host, &stream).unwrap();
    let back = host.as_slice().unwrap();
    let wrong = back.iter().enumerate().position(|(i, v)| *v != (i as u32) ^ 0x5a5a_5a5a);
    assert_eq!(wrong, None, "the first wrong element");
}

#[test]
fn host_reads_wait_for_a_pending_copy_into_the_buffer() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream still");
        return;
    }
    let data = pattern(4096, 1);
    let array = DeviceArray::from_slice(&data).unwrap();
    let stream = Stream::new().unwrap();
    let mut host = HostBuffer::<u32>::zeroed(data.len()).unwrap();
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    array.copy_to_host_async(&mut host, &stream).unwrap();
    assert!(host.has_pending_copies());
    let releaser = release_later(hold);
    assert_eq!(host.as_slice().unwrap(), &data[..], "as_slice returned before the copy ran");
    releaser.join().unwrap();
}

#[test]
fn host_writes_wait_for_a_pending_copy_from_the_buffer() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream still");
        return;
    }
    let data = pattern(4096, 2);
    let mut host = HostBuffer::from_slice(&data).unwrap();
    let mut array = DeviceArray::<u32>::zeros(data.len()).unwrap();
    let stream = Stream::new().unwrap();
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    array.copy_from_host_async(&host, &stream).unwrap();
    let releaser = release_later(hold);
    // If this did not wait, the held copy would read the zeros.
    host.as_mut_slice().unwrap().fill(0);
    releaser.join().unwrap();
    stream.synchronize().unwrap();
    assert_eq!(array.to_vec().unwrap(), data);
}

/// The host buffer is made under device 0, the copy runs on device 1:
/// `hipHostFree` synchronizes only device 0, so only the buffer's own
/// wait keeps the copy from touching freed memory (the race detector
/// reports a use after free otherwise).
#[test]
fn dropping_a_host_buffer_waits_for_its_pending_copies() {
    let _x = sim::exclusive();
    if !on_sim() || Device::count().unwrap() < 2 {
        eprintln!("skipped: holds a simulator stream still on a second device");
        return;
    }
    sim::clear_violations();
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    let data = pattern(1 << 16, 3);
    let source = with_device(d1, || DeviceArray::from_slice(&data)).unwrap();
    let mut target = with_device(d1, || DeviceArray::<u32>::zeros(data.len())).unwrap();
    let stream = Stream::new_on(d1).unwrap();

    let mut into = HostBuffer::<u32>::zeroed_on(d0, data.len()).unwrap();
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    source.copy_to_host_async(&mut into, &stream).unwrap();
    let releaser = release_later(hold);
    drop(into);
    releaser.join().unwrap();

    let from = HostBuffer::from_slice_on(d0, &data).unwrap();
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    target.copy_from_host_async(&from, &stream).unwrap();
    let releaser = release_later(hold);
    drop(from);
    releaser.join().unwrap();
    assert_eq!(target.to_vec().unwrap(), data);
    assert_eq!(stream_races(), []);
}

#[test]
fn dropping_an_array_while_a_copy_into_it_is_pending_keeps_its_block() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream still");
        return;
    }
    sim::clear_violations();
    let data = pattern(1 << 14, 4);
    let host = HostBuffer::from_slice(&data).unwrap();
    let mut array = DeviceArray::<u32>::zeros(data.len()).unwrap();
    let own = array.stream().clone();
    let other = Stream::new().unwrap();
    let hold = sim::hold_stream(other.as_raw()).unwrap();
    array.copy_from_host_async(&host, &other).unwrap();
    drop(array);
    // The next owner of the block (same size, same stream) fills it; it
    // must wait for the held copy on the GPU, not overlap it (and the
    // fill waits for itself, so the stream is released meanwhile).
    let releaser = release_later(hold);
    let next = DeviceArray::<u32>::zeros_on(&own, data.len()).unwrap();
    releaser.join().unwrap();
    assert_eq!(next.to_vec().unwrap(), vec![0; data.len()]);
    drop(host);
    assert_eq!(stream_races(), []);
}

fn kernels() -> Option<Module> {
    common::test_module(Device::new(0).unwrap())
}

#[test]
fn a_copy_overlaps_a_kernel_on_another_stream() {
    let _x = sim::exclusive();
    sim::clear_violations();
    let Some(module) = kernels() else { return };
    let fill = module.function("fill_f32").unwrap();
    let add = module.function("vector_add_f32").unwrap();
    let n = 1 << 16;
    let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let copies = Stream::new().unwrap();
    let compute = Stream::new().unwrap();
    let host = HostBuffer::from_slice(&data).unwrap();
    let mut x = DeviceArray::<f32>::zeros_on(&copies, n).unwrap();
    let mut y = DeviceArray::<f32>::zeros_on(&compute, n).unwrap();
    let mut sum = DeviceArray::<f32>::zeros_on(&compute, n).unwrap();
    // The copy on one stream, a kernel on the other at the same time.
    x.copy_from_host_async(&host, &copies).unwrap();
    let config = LaunchConfig::for_elements(n, 256);
    let (py, n32) = (y.as_mut_ptr(), n as u32);
    // SAFETY: fill_f32(float*, float, uint32_t) over y's n elements, on y's own stream.
    unsafe { fill.launch(config, &compute, &[&py, &1.5f32, &n32]) }.unwrap();
    // The add reads x on the compute stream: declare it, as the launch API asks.
    x.buffer().prepare(&compute, amdgpu::pool::Access::Read).unwrap();
    let (px, ps) = (x.as_ptr(), sum.as_mut_ptr());
    // SAFETY: vector_add_f32(const float*, const float*, float*, uint32_t) over n elements.
    unsafe { add.launch(config, &compute, &[&px, &py, &ps, &n32]) }.unwrap();
    x.buffer().record(&compute, amdgpu::pool::Access::Read).unwrap();
    let mut out = HostBuffer::<f32>::zeroed(n).unwrap();
    sum.copy_to_host_async(&mut out, &compute).unwrap();
    let expected: Vec<f32> = data.iter().map(|v| v + 1.5).collect();
    assert_eq!(out.as_slice().unwrap(), &expected[..]);
    assert_eq!(stream_races(), []);
}

#[test]
fn bad_input_is_a_clear_error() {
    let _x = sim::exclusive();
    let d0 = Device::new(0).unwrap();
    let stream = Stream::new_on(d0).unwrap();
    let host = HostBuffer::<u32>::zeroed_on(d0, 10).unwrap();
    let mut array = with_device(d0, || DeviceArray::<u32>::zeros(12)).unwrap();

    let error = array.copy_from_host_async(&host, &stream).unwrap_err();
    assert!(matches!(error, Error::SizeMismatch { source_len: 10, destination_len: 12, .. }), "{error}");
    assert!(
        error.to_string().contains("copy_from_host_async") && error.to_string().contains("equal length"),
        "{error}"
    );

    let error = host.slice(5..11).unwrap_err();
    assert!(matches!(error, Error::HostRangeOutOfBounds { start: 5, end: 11, len: 10 }), "{error}");
    assert!(error.to_string().contains("5..11") && error.to_string().contains("10 elements"), "{error}");
    let error = array.slice_mut(3..13).unwrap_err();
    assert!(matches!(error, Error::OutOfBounds { start: 3, end: 13, len: 12 }), "{error}");

    if Device::count().unwrap() >= 2 {
        let d1 = Device::new(1).unwrap();
        let elsewhere = Stream::new_on(d1).unwrap();
        let error = array.slice_mut(..10).unwrap().copy_from_host_async(&host, &elsewhere).unwrap_err();
        assert_eq!(common::mismatch(error.device_mismatch()), Some(("the stream", 0, 1)), "{error}");
        assert!(error.to_string().contains("the stream is on device 1"), "{error}");
        let other = with_device(d0, || DeviceArray::<u32>::zeros(12)).unwrap();
        let error = array.copy_from_async(&other, &elsewhere).unwrap_err();
        assert_eq!(common::mismatch(error.device_mismatch()), Some(("the stream", 0, 1)), "{error}");
    }
}

#[test]
fn registered_vectors_round_trip_and_come_back() {
    let _x = sim::exclusive();
    let data = pattern(3001, 5);
    let stream = Stream::new().unwrap();
    let source = HostBuffer::register(data.clone()).unwrap();
    assert!(source.is_registered());
    let mut target = HostBuffer::register(vec![0u32; data.len()]).unwrap();
    let mut array = DeviceArray::<u32>::zeros(data.len()).unwrap();
    array.copy_from_host_async(&source, &stream).unwrap();
    array.copy_to_host_async(&mut target, &stream).unwrap();
    assert_eq!(target.into_vec().unwrap(), data);
    let back = source.into_vec().unwrap();
    assert_eq!(back, data);
    // Given back unregistered: it can be registered again (a second
    // registration of pinned bytes is an error).
    let again = HostBuffer::register(back).unwrap();
    assert_eq!(again.as_slice().unwrap(), &data[..]);
    // An empty vector registers nothing and comes back.
    assert_eq!(HostBuffer::<u32>::register(Vec::new()).unwrap().into_vec().unwrap(), Vec::<u32>::new());
}
