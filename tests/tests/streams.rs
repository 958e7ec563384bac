//! hip-core streams against HIP's stream priorities: High -1, Normal 0,
//! Low 1, with requests outside the range clamped.

use hip_core::{Device, Stream};
use hip_sys::sim;

#[test]
fn stream_priorities_are_hips_three() {
    let _x = sim::exclusive();
    let device = Device::new(0).unwrap();
    for (asked, got) in [(-8, -1), (-1, -1), (0, 0), (1, 1), (9, 1)] {
        let stream = Stream::with_priority_on(device, asked).unwrap();
        assert_eq!(stream.priority(), got, "asked for {asked}");
    }
    // The thread's stream under a priority carries it.
    let low = hip_core::with_priority(1, hip_core::stream);
    assert_eq!(low.priority(), 1);
    let normal = hip_core::stream();
    assert_eq!(normal.priority(), 0);
    assert!(sim::violations().iter().all(|v| !v.function.starts_with("hipStream")), "{:?}", sim::violations());
}
