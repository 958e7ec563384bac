//! The simulator's kernel launch limits, call by call, against what real
//! HIP (ROCm clr) answers in the HIP major version simulated
//! (`AMDGPU_SIM_HIP_VERSION`, default 7): grid and block dimensions, and
//! launches on streams that are gone or of another device. Every test
//! holds `sim::exclusive()` and runs on a fresh thread.

mod common;
use common::*;
use hip_sys::bindings::hip::{hipDeviceAttribute_t as Attr, hipError_t as E};
use hip_sys::sim;
use std::ptr::null_mut;

// ---- 1. kernel launch limits ----------------------------------------------

#[test]
fn grid_limits_are_reported_and_enforced_per_version() {
    isolated(|| {
        assert_eq!(attribute(Attr::hipDeviceAttributeMaxGridDimX, 0), Ok(2_147_483_647));
        assert_eq!(attribute(Attr::hipDeviceAttributeMaxGridDimY, 0), Ok(65_536));
        assert_eq!(attribute(Attr::hipDeviceAttributeMaxGridDimZ, 0), Ok(65_536));
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        let major = hip_major();
        assert_eq!(launch([1, 65_536, 1], [1, 1, 1], null_mut()), E::hipSuccess);
        assert_eq!(launch([1, 1, 65_536], [1, 1, 1], null_mut()), E::hipSuccess);
        // 7.x: Y and Z above 65536; 6.x: above INT32_MAX / 1024; 5.7: above INT32_MAX.
        let over_y = if major >= 7 { E::hipErrorInvalidValue } else { E::hipSuccess };
        assert_eq!(launch([1, 65_537, 1], [1, 1, 1], null_mut()), over_y);
        assert_eq!(launch([1, 1, 65_537], [1, 1, 1], null_mut()), over_y);
        if major == 6 {
            assert_eq!(launch([1, 2_097_152, 1], [1, 1, 1], null_mut()), E::hipErrorInvalidValue);
        }
        // X above INT32_MAX: every version.
        assert_eq!(launch([1 << 31, 1, 1], [1, 1, 1], null_mut()), E::hipErrorInvalidValue);
        assert_eq!(launch([u32::MAX, 1, 1], [1, 1, 1], null_mut()), E::hipErrorInvalidValue);
        ok!((api().hipDeviceSynchronize)());
        assert_eq!(download(p, 16), vec![2.5; 16]);
        ok!((api().hipFree)(p));
    });
}

#[test]
fn zero_dimensions_and_large_blocks_give_the_versions_codes() {
    isolated(|| {
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        let major = hip_major();
        // 5.7 and 7.x: InvalidValue; 6.0-6.3: InvalidConfiguration.
        let zero = if major == 6 { E::hipErrorInvalidConfiguration } else { E::hipErrorInvalidValue };
        for (grid, block) in [([0, 1, 1], [16, 1, 1]), ([1, 0, 1], [16, 1, 1]), ([1, 1, 0], [16, 1, 1])] {
            assert_eq!(launch(grid, block, null_mut()), zero, "grid {grid:?}");
        }
        for block in [[0, 1, 1], [16, 0, 1], [16, 1, 0]] {
            assert_eq!(launch([1, 1, 1], block, null_mut()), zero, "block {block:?}");
        }
        // A block product above 1024 is InvalidValue in every version, also
        // when each dimension is within its own limit.
        assert_eq!(launch([1, 1, 1], [2048, 1, 1], null_mut()), E::hipErrorInvalidValue);
        assert_eq!(launch([1, 1, 1], [32, 32, 2], null_mut()), E::hipErrorInvalidValue);
        assert_eq!(launch([1, 1, 1], [1, 1, 1024], null_mut()), E::hipSuccess);
        ok!((api().hipDeviceSynchronize)());
        ok!((api().hipFree)(p));
    });
}

#[test]
fn a_launch_on_an_unknown_stream_gives_the_versions_code() {
    isolated(|| {
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        let mut s = null_mut();
        ok!((api().hipStreamCreate)(&mut s));
        ok!((api().hipStreamDestroy)(s));
        let expected = if hip_major() >= 7 { E::hipErrorContextIsDestroyed } else { E::hipErrorInvalidValue };
        assert_eq!(launch([1, 1, 1], [16, 1, 1], s), expected);
        ok!((api().hipFree)(p));
    });
}

#[test]
fn hip_7_refuses_a_launch_on_a_stream_of_another_device() {
    if !common::devices_at_least(2) {
        return;
    }
    isolated(|| {
        let p = malloc(64);
        let launch = fill_launcher(p, 16);
        set_device(1);
        let mut s1 = null_mut();
        ok!((api().hipStreamCreate)(&mut s1));
        set_device(0);
        // Current device 0, stream on device 1, function on device 0.
        let expected = if hip_major() >= 7 { E::hipErrorInvalidHandle } else { E::hipErrorInvalidDevice };
        assert_eq!(launch([1, 1, 1], [16, 1, 1], s1), expected);
        ok!((api().hipStreamDestroy)(s1));
        ok!((api().hipFree)(p));
        sim::clear_violations();
    });
}
