//! What needs two devices: peer copies through `DeviceArray`, and the main
//! example's workers on every device. Skips with a reason on one device.

use amdgpu::prelude::*;
use std::time::Instant;

#[test]
fn peer_copies_between_devices() {
    let _x = hip_sys::sim::exclusive();
    if Device::count().unwrap() < 2 {
        eprintln!("skipped: needs two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    let n = 1 << 22; // 16 MiB of u32
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let source = with_device(d0, || DeviceArray::from_slice(&data)).unwrap();
    let mut target = with_device(d1, || DeviceArray::<u32>::zeros(n)).unwrap();
    assert_eq!((source.device(), target.device()), (d0, d1));
    let start = Instant::now();
    target.copy_from(&source).unwrap();
    let elapsed = start.elapsed();
    eprintln!(
        "peer copy {} -> {}: 16 MiB in {:.3} ms ({:.1} GB/s, including the wait)",
        d0,
        d1,
        elapsed.as_secs_f64() * 1e3,
        (n * 4) as f64 / elapsed.as_secs_f64() / 1e9
    );
    assert_eq!(target.to_vec().unwrap(), data);
    // And back, into a slice of another array.
    let mut back = with_device(d0, || DeviceArray::<u32>::zeros(n)).unwrap();
    back.copy_from(&target).unwrap();
    assert_eq!(back.slice(n - 3..).unwrap().to_vec().unwrap(), &data[n - 3..]);
    assert_eq!(device(), default_device(), "copies leave the thread's device alone");
    assert_eq!(hip_core::raw::hip_current_device().unwrap(), default_device());
}
