//! Streams made by other code (a framework's) through `Stream::from_raw`:
//! this crate's work queues on them, dropping every clone leaves the
//! stream to its maker (no `hipStreamDestroy`), and arrays made on one
//! order their work there.

use amdgpu::prelude::*;
use hip_core::raw;
use hip_sys::sim;

mod common;

use common::on_sim;

#[test]
fn work_queues_on_a_foreign_stream_and_dropping_ours_leaves_it_alive() {
    let device = Device::new(0).unwrap();
    // Stands for a framework's stream: made outside this crate's types,
    // and handed over as the runtime's own (a `cudaStream_t` on NVIDIA).
    let theirs = raw::stream::create(device, 0).unwrap();
    let native = raw::stream::native(theirs).unwrap();
    let destroys = sim::thread_call_count("hipStreamDestroy");
    {
        // SAFETY: `theirs` is destroyed below, after every clone and use.
        let ours = unsafe { Stream::from_raw(device, native) }.unwrap();
        assert!(!ours.is_null());
        assert_eq!(ours.device(), device);
        let again = ours.clone();
        let mut array = DeviceArray::<u32>::zeros_on(&ours, 1024).unwrap();
        array.copy_from_slice(&[7; 1024]).unwrap();
        assert_eq!(array.to_vec().unwrap(), [7; 1024]);
        again.synchronize().unwrap();
        drop(array);
        drop(again);
    }
    if on_sim() {
        assert_eq!(sim::thread_call_count("hipStreamDestroy"), destroys, "ours never destroys theirs");
    }
    // Theirs still works, and is theirs to destroy.
    // SAFETY: made above; nothing of ours uses it any more.
    unsafe {
        raw::stream::synchronize(device, theirs).unwrap();
        raw::stream::destroy(device, theirs).unwrap();
    }
    // A null raw stream is the device's null stream.
    // SAFETY: null is always a valid stream.
    let null = unsafe { Stream::from_raw(device, std::ptr::null_mut()) }.unwrap();
    assert!(null.is_null());
    // And ours, handed over the same way, is the same stream.
    let mine = Stream::new_on(device).unwrap();
    // SAFETY: `mine` outlives the copy, dropped first.
    let copy = unsafe { Stream::from_raw(device, mine.as_native().unwrap()) }.unwrap();
    assert_eq!(copy.as_native().unwrap(), mine.as_native().unwrap());
    drop(copy);
    mine.synchronize().unwrap();
}

#[test]
fn work_on_a_foreign_stream_waits_for_what_its_maker_queued() {
    if !on_sim() {
        eprintln!("skipped: holding a stream still needs the simulator");
        return;
    }
    let device = Device::new(0).unwrap();
    let theirs = raw::stream::create(device, 0).unwrap();
    let native = raw::stream::native(theirs).unwrap();
    // SAFETY: as above.
    let ours = unsafe { Stream::from_raw(device, native) }.unwrap();
    // The maker's queued work: held still until released.
    let hold = sim::hold_stream(theirs).unwrap();
    let marker = ours.record_event().unwrap();
    assert!(!marker.query().unwrap(), "queued behind the maker's work");
    drop(hold);
    ours.synchronize().unwrap();
    assert!(marker.query().unwrap());
    drop(marker);
    drop(ours);
    // SAFETY: made above; nothing uses it any more.
    unsafe { raw::stream::destroy(device, theirs).unwrap() };
}
