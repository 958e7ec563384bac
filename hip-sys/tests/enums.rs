//! The generated C enums are newtypes: a value the headers do not know is
//! kept as it is, never undefined behaviour.

use hip_sys::bindings::hip::{hipDeviceAttribute_t, hipError_t};

#[test]
fn hip_error_keeps_an_unknown_value() {
    let unknown = hipError_t(12345);
    assert_eq!(unknown.0, 12345);
    let copied = unknown;
    assert_eq!(copied, hipError_t(12345));
    let known = [
        hipError_t::hipSuccess,
        hipError_t::hipErrorInvalidValue,
        hipError_t::hipErrorOutOfMemory,
        hipError_t::hipErrorNoDevice,
        hipError_t::hipErrorInvalidDevice,
        hipError_t::hipErrorInvalidHandle,
        hipError_t::hipErrorNotReady,
        hipError_t::hipErrorContextIsDestroyed,
        hipError_t::hipErrorNotSupported,
        hipError_t::hipErrorUnknown,
        hipError_t::hipErrorTbd,
    ];
    for k in known {
        assert_ne!(unknown, k, "{k:?}");
    }
    assert_eq!(format!("{unknown:?}"), "hipError_t(12345)");
    // Round trip through the C representation.
    let raw: std::ffi::c_uint = unknown.0;
    assert_eq!(hipError_t(raw), unknown);
}

#[test]
fn hip_error_values_match_the_headers() {
    assert_eq!(hipError_t::hipSuccess.0, 0);
    assert_eq!(hipError_t::hipErrorNoDevice.0, 100);
    assert_eq!(hipError_t::hipErrorInvalidDevice.0, 101);
    assert_eq!(hipError_t::hipErrorInvalidHandle.0, 400);
    assert_eq!(hipError_t::hipErrorContextIsDestroyed.0, 709);
}

#[test]
fn device_attribute_keeps_an_unknown_value() {
    let unknown = hipDeviceAttribute_t(12345);
    assert_eq!(unknown.0, 12345);
    for k in [
        hipDeviceAttribute_t::hipDeviceAttributeEccEnabled,
        hipDeviceAttribute_t::hipDeviceAttributeMaxThreadsPerBlock,
        hipDeviceAttribute_t::hipDeviceAttributeMultiprocessorCount,
        hipDeviceAttribute_t::hipDeviceAttributeWarpSize,
        hipDeviceAttribute_t::hipDeviceAttributeMemoryPoolsSupported,
    ] {
        assert_ne!(unknown, k, "{k:?}");
    }
    let raw: std::ffi::c_uint = unknown.0;
    assert_eq!(hipDeviceAttribute_t(raw), unknown);
    assert_eq!(hipDeviceAttribute_t::hipDeviceAttributeMultiprocessorCount.0, 63);
}
