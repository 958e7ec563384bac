//! `ManagedArray`: managed memory the host reads and writes in place,
//! under the use-list protocol of pinned memory. Host access waits for the
//! device work queued on the array (held back on the simulator, so a view
//! that did not wait would read the old values); a graph replay that would
//! write under a host view, or touch it under a host write, is refused,
//! also for a view forgotten with `std::mem::forget`; prefetch and advice
//! keep the values; the memory goes back when the array drops.
//!
//! ```compile_fail
//! // Device work that writes the array needs `&mut`: not while the host
//! // holds a view.
//! let mut values = amdgpu::ManagedArray::<f32>::zeroed(4).unwrap();
//! let host = values.as_slice().unwrap();
//! amdgpu::blas::scal(2.0, values.array_mut()).unwrap();
//! drop(host);
//! ```

use amdgpu::managed::{Advice, Location};
use amdgpu::prelude::*;
use amdgpu::{CaptureMode, ManagedArray};
use hip_core::HipError;
use hip_sys::sim;

mod common;

/// The simulator held, a stream, and whether the device has managed
/// memory (saying so when it has none).
fn setup() -> Option<(sim::Exclusive, Stream)> {
    let guard = sim::exclusive();
    if !hip_core::raw::managed::supported(amdgpu::device()).unwrap() {
        eprintln!("skipped: the device has no managed memory");
        return None;
    }
    Some((guard, Stream::new().unwrap()))
}

#[test]
fn the_host_reads_what_the_device_wrote_after_waiting_for_it() {
    let Some((_x, stream)) = setup() else { return };
    let mut values = ManagedArray::zeroed_on(&stream, 1024).unwrap();
    values.as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = i as f32);
    // Hold the stream, so the scaling stays queued until released.
    let hold = common::on_sim().then(|| sim::hold_stream(stream.as_raw()).unwrap());
    amdgpu::blas::scal(2.0f32, values.array_mut()).unwrap();
    let release = hold.map(common::release_later);
    let seen = values.to_vec().unwrap();
    assert!(seen.iter().enumerate().all(|(i, v)| *v == 2.0 * i as f32), "the view waited for the scaling");
    if let Some(release) = release {
        release.join().unwrap();
    }
    // And the device sees what the host writes.
    values.as_mut_slice().unwrap()[0] = 42.0;
    assert_eq!(values.array().to_vec().unwrap()[0], 42.0);
    if common::on_sim() {
        assert_eq!(common::stream_races(), []);
    }
}

#[test]
fn a_replay_never_writes_under_a_host_view_nor_touches_a_host_write() {
    let Some((_x, stream)) = setup() else { return };
    let mut values = ManagedArray::zeroed_on(&stream, 16).unwrap();
    values.as_mut_slice().unwrap().fill(1.0f32);
    // The library's handle exists before the capture (made outside it).
    amdgpu::blas::scal(1.0f32, values.array_mut()).unwrap();
    let (graph, ()) = stream.capture(CaptureMode::Global, |_| amdgpu::blas::scal(3.0f32, values.array_mut())).unwrap();
    let exec = graph.instantiate().unwrap();
    {
        let view = values.as_slice().unwrap();
        let refused = exec.launch(&stream).unwrap_err();
        assert!(matches!(refused, HipError::HostBorrowed { .. }), "{refused}");
        assert_eq!(*view, [1.0; 16], "unchanged under its borrow");
    }
    exec.launch(&stream).unwrap();
    assert_eq!(*values.as_slice().unwrap(), [3.0; 16], "the view waited for the replay");
    {
        let mut write = values.as_mut_slice().unwrap();
        write[0] = 5.0;
        assert!(matches!(exec.launch(&stream), Err(HipError::HostBorrowed { .. })));
    }
    exec.launch(&stream).unwrap();
    assert_eq!(values.to_vec().unwrap()[..2], [15.0, 9.0]);
    // A forgotten view refuses conflicting replays for good: never a race.
    std::mem::forget(values.as_slice().unwrap());
    assert!(matches!(exec.launch(&stream), Err(HipError::HostBorrowed { .. })));
}

#[test]
fn prefetch_and_advice_keep_the_values_and_the_memory_goes_back() {
    let Some((_x, stream)) = setup() else { return };
    let device = stream.device();
    let free_before = device.mem_info().unwrap().0;
    let values = ManagedArray::from_slice(&[1u32, 2, 3, 4]).unwrap();
    values.advise(Advice::PreferredLocation(Location::Device(device))).unwrap();
    values.advise(Advice::ReadMostly(true)).unwrap();
    values.prefetch(Location::Device(device), &stream).unwrap();
    assert_eq!(values.to_vec().unwrap(), [1, 2, 3, 4]);
    values.prefetch(Location::Host, &stream).unwrap();
    assert_eq!(values.array().to_vec().unwrap(), [1, 2, 3, 4]);
    drop(values);
    if common::on_sim() {
        assert_eq!(device.mem_info().unwrap().0, free_before, "the managed memory went back");
    }
    // A length whose bytes overflow is refused before any call.
    let huge = ManagedArray::<u64>::zeroed(usize::MAX / 4 + 1).err();
    assert!(matches!(huge, Some(amdgpu::Error::OutOfBounds { .. })), "{huge:?}");
    let empty = ManagedArray::<f64>::zeroed(0).unwrap();
    assert!(empty.is_empty() && empty.to_vec().unwrap().is_empty());
    empty.prefetch(Location::Host, &stream).unwrap();
}
