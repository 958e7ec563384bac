//! hip-core streams against the device's stream priorities: HIP's High -1,
//! Normal 0 and Low 1 on AMD and the simulator, CUDA's range on NVIDIA
//! (0 down to -5 on an H200), with requests outside the range clamped.

use hip_core::{Device, Stream};
use hip_sys::sim;

/// (least, greatest) priority of the current device, as HIP reports it.
fn priority_range() -> (i32, i32) {
    let api = hip_sys::hip().unwrap();
    let (mut least, mut greatest) = (0, 0);
    // SAFETY: two valid out-pointers.
    let status = unsafe { (api.hipDeviceGetStreamPriorityRange)(&mut least, &mut greatest) };
    assert_eq!(status, hip_sys::hipError_t::hipSuccess);
    (least, greatest)
}

#[test]
fn stream_priorities_are_clamped_to_the_devices_range() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    let (least, greatest) = priority_range();
    if hip_sys::backend() == hip_sys::Backend::Sim {
        assert_eq!((least, greatest), (1, -1), "HIP's Low and High");
    }
    for asked in [-8, -1, 0, 1, 9] {
        let stream = Stream::with_priority_on(device, asked).unwrap();
        assert_eq!(stream.priority(), asked.clamp(greatest, least), "asked for {asked}");
    }
    // The thread's stream under a priority carries it.
    let low = hip_core::with_priority(1, hip_core::stream);
    assert_eq!(low.priority(), 1.clamp(greatest, least));
    let normal = hip_core::stream();
    assert_eq!(normal.priority(), 0);
    assert!(sim::violations().iter().all(|v| !v.function.starts_with("hipStream")), "{:?}", sim::violations());
}
