//! Copies in a scope (`amdgpu::copy_scope`): the scope returns with its
//! copies done, a panic in it still waits, a scope that cannot wait loses
//! its host buffers instead of freeing them under a copy, scoped copies
//! are ordered after event-tracked ones on other streams, and bad input.
//! (That host code cannot touch the borrowed memory is the compile-fail
//! examples of `copy_scope`'s documentation.)
//!
//! Written for every backend; what needs the simulator (holding a stream
//! still, injecting a failure) says so and skips elsewhere.

use amdgpu::prelude::*;
use amdgpu::{copy_scope, Error, HostBuffer};
use hip_sys::sim;

mod common;
use common::{on_sim, pattern, release_later, stream_races};

#[test]
fn a_scope_returns_with_its_copies_done() {
    let _x = sim::exclusive();
    sim::clear_violations();
    let stream = Stream::new().unwrap();
    for n in [0usize, 1, 4097] {
        let data = pattern(n, 3);
        let input = HostBuffer::from_slice(&data).unwrap();
        let mut output = HostBuffer::<u32>::zeroed(n).unwrap();
        let mut array = DeviceArray::<u32>::zeros(n).unwrap();
        // On the simulator the stream is held until after the closure
        // returns: only the scope's own wait lets the copies run.
        let hold = on_sim().then(|| sim::hold_stream(stream.as_raw()).unwrap());
        let releaser = hold.map(release_later);
        copy_scope(&stream, |scope| {
            let half = n / 2;
            scope.to_device(array.slice_mut(..half)?, input.slice(..half)?)?;
            scope.to_device(array.slice_mut(half..)?, input.slice(half..)?)?;
            scope.to_host(&mut output, &array)
        })
        .unwrap();
        // Scoped copies leave nothing for host access to wait for.
        assert!(!output.has_pending_copies() && !input.has_pending_copies());
        assert_eq!(output.as_slice().unwrap(), &data[..], "{n} elements");
        if let Some(releaser) = releaser {
            releaser.join().unwrap();
        }
    }
    assert_eq!(stream_races(), []);
}

#[test]
fn a_panicking_scope_still_waits_for_its_copies() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: holds a simulator stream still");
        return;
    }
    let data = pattern(4096, 4);
    let array = DeviceArray::from_slice(&data).unwrap();
    let stream = Stream::new().unwrap();
    let mut output = HostBuffer::<u32>::zeroed(data.len()).unwrap();
    let releaser = release_later(sim::hold_stream(stream.as_raw()).unwrap());
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        copy_scope(&stream, |scope| -> amdgpu::Result<()> {
            scope.to_host(&mut output, &array)?;
            // Unwinds without the panic hook, whose backtrace could take
            // longer than the hold.
            std::panic::resume_unwind(Box::new("a panic with a copy pending"));
        })
    }));
    assert!(unwound.is_err());
    assert_eq!(output.as_slice().unwrap(), &data[..], "the panic went on before the copy ran");
    releaser.join().unwrap();
}

#[test]
fn a_scope_that_cannot_wait_loses_its_buffers() {
    let _x = sim::exclusive();
    if !on_sim() {
        eprintln!("skipped: injects a failure");
        return;
    }
    let data = pattern(1024, 5);
    let array = DeviceArray::from_slice(&data).unwrap();
    let stream = Stream::new().unwrap();
    let mut output = HostBuffer::<u32>::zeroed(data.len()).unwrap();
    let hold = sim::hold_stream(stream.as_raw()).unwrap();
    let fault = sim::Fault {
        function: "hipStreamSynchronize".into(),
        nth: 1,
        error: hip_sys::hipError_t::hipErrorLaunchFailure,
    };
    assert!(sim::inject_fault(fault));
    let error = copy_scope(&stream, |scope| scope.to_host(&mut output, &array)).unwrap_err();
    sim::reset_faults();
    assert!(error.to_string().contains("hipStreamSynchronize"), "{error}");
    // The copy may still write the buffer: host access is refused and the
    // memory is never freed.
    assert!(matches!(output.as_slice(), Err(Error::HostBufferLost)));
    hold.release();
    stream.synchronize().unwrap();
    drop(output);
}

#[test]
fn scoped_copies_wait_for_event_tracked_copies_on_other_streams() {
    let _x = sim::exclusive();
    sim::clear_violations();
    let data = pattern(4096, 6);
    let source = DeviceArray::from_slice(&data).unwrap();
    let (first, second) = (Stream::new().unwrap(), Stream::new().unwrap());
    let mut host = HostBuffer::<u32>::zeroed(data.len()).unwrap();
    let mut array = DeviceArray::<u32>::zeros(data.len()).unwrap();
    // An event-tracked copy writes the host buffer on `first`, held; the
    // scope on `second` reads it and must be ordered after that write.
    let hold = on_sim().then(|| sim::hold_stream(first.as_raw()).unwrap());
    source.copy_to_host_async(&mut host, &first).unwrap();
    let releaser = hold.map(release_later);
    copy_scope(&second, |scope| scope.to_device(&mut array, &host)).unwrap();
    if let Some(releaser) = releaser {
        releaser.join().unwrap();
    }
    assert_eq!(array.to_vec().unwrap(), data, "the scoped copy read the host buffer before it was written");
    assert_eq!(stream_races(), []);
}

#[test]
fn bad_input_in_a_scope_is_a_clear_error() {
    let _x = sim::exclusive();
    let d0 = Device::new(0).unwrap();
    let stream = Stream::new_on(d0).unwrap();
    let host = HostBuffer::<u32>::zeroed_on(d0, 10).unwrap();
    let mut output = HostBuffer::<u32>::zeroed_on(d0, 10).unwrap();
    let mut array = with_device(d0, || DeviceArray::<u32>::zeros(12)).unwrap();
    let error = copy_scope(&stream, |scope| scope.to_device(&mut array, &host)).unwrap_err();
    assert!(matches!(error, Error::SizeMismatch { source_len: 10, destination_len: 12, .. }), "{error}");
    assert!(error.to_string().contains("CopyScope::to_device"), "{error}");
    let error = copy_scope(&stream, |scope| scope.to_host(&mut output, &array)).unwrap_err();
    assert!(matches!(error, Error::SizeMismatch { source_len: 12, destination_len: 10, .. }), "{error}");
    // The scope ended after its failed copy: the buffers are usable.
    assert_eq!(output.as_slice().unwrap(), [0; 10]);
    if Device::count().unwrap() >= 2 {
        let elsewhere = Stream::new_on(Device::new(1).unwrap()).unwrap();
        let error = copy_scope(&elsewhere, |scope| scope.to_device(array.slice_mut(..10).unwrap(), &host)).unwrap_err();
        assert_eq!(common::mismatch(error.device_mismatch()), Some(("the stream", 0, 1)), "{error}");
        assert!(error.to_string().contains("the stream is on device 1"), "{error}");
    }
}
