//! Managed memory through hip-core's wrappers, on every backend: the host
//! writes it directly, a fill on a stream changes it, the host reads the
//! result after the stream; prefetches and advice are remembered as the
//! range's attributes; a range past the allocation's end and an empty
//! allocation are refused.

use hip_core::raw::managed::{Advice, Location};
use hip_core::raw::{self, managed};
use hip_core::{Device, Stream};

mod common;

#[test]
fn the_host_and_a_stream_share_managed_memory() {
    let device = Device::new(0).unwrap();
    if !managed::supported(device).unwrap() {
        eprintln!("skipped: the device does not page managed memory");
        return;
    }
    let bytes = 1 << 16;
    let ptr = managed::malloc(device, bytes).unwrap();
    // SAFETY: `bytes` of managed memory, no work queued on it yet.
    let host = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u8>(), bytes) };
    host.fill(1);
    let stream = Stream::new_on(device).unwrap();
    // SAFETY: the range is managed memory of `bytes`, live until freed
    // below, after the stream; the stream is live.
    unsafe {
        managed::prefetch_async(device, ptr, bytes, Location::Device(device), stream.as_raw()).unwrap();
        raw::mem::fill_async(device, ptr, 7, bytes / 2, stream.as_raw()).unwrap();
    }
    stream.synchronize().unwrap();
    assert_eq!(managed::last_prefetch_location(device, ptr, bytes).unwrap(), Some(Location::Device(device)));
    assert!(host[..bytes / 2].iter().all(|&b| b == 7), "the stream's fill, read by the host");
    assert!(host[bytes / 2..].iter().all(|&b| b == 1), "the host's own bytes");

    // SAFETY: as above.
    unsafe { managed::prefetch_async(device, ptr, bytes, Location::Host, stream.as_raw()).unwrap() };
    stream.synchronize().unwrap();
    assert_eq!(managed::last_prefetch_location(device, ptr, bytes).unwrap(), Some(Location::Host));

    managed::advise(device, ptr, bytes, Advice::PreferredLocation(Location::Device(device))).unwrap();
    assert_eq!(managed::preferred_location(device, ptr, bytes).unwrap(), Some(Location::Device(device)));
    managed::advise(device, ptr, bytes, Advice::NoPreferredLocation).unwrap();
    assert_eq!(managed::preferred_location(device, ptr, bytes).unwrap(), None);
    managed::advise(device, ptr, bytes, Advice::ReadMostly(true)).unwrap();
    assert!(managed::read_mostly(device, ptr, bytes).unwrap());

    managed::advise(device, ptr, bytes, Advice::AccessedBy(Location::Device(device), true)).unwrap();
    // Past the allocation's end, and no bytes at all.
    assert!(managed::advise(device, ptr, bytes + 1, Advice::ReadMostly(false)).is_err());
    assert!(managed::malloc(device, 0).is_err(), "no managed memory of 0 bytes");
    // SAFETY: the stream is done with it; freed once.
    unsafe { raw::mem::free(device, ptr).unwrap() };
}
