//! HIP constants that the generated bindings (HIP 5.7 headers) lack: the
//! values later HIP headers define, written by hand with the version that
//! added each. None changes the value of a generated constant.

#![allow(non_upper_case_globals)]

use crate::bindings::hip::{hipDeviceAttribute_t, hipError_t, hipStream_t};

/// `hipStreamPerThread` (`(hipStream_t)2`, every version): the calling
/// thread's own blocking stream on the current device.
pub const hipStreamPerThread: hipStream_t = 2usize as hipStream_t;

/// `hipStreamLegacy` (`(hipStream_t)1`, headers from HIP 6.2, runtime
/// support from 6.3): the current device's legacy null stream.
pub const hipStreamLegacy: hipStream_t = 1usize as hipStream_t;

/// `hipEventDisableSystemFence` (event creation flag).
pub const hipEventDisableSystemFence: u32 = 0x2000_0000;
/// `hipEventReleaseToDevice` (event creation flag).
pub const hipEventReleaseToDevice: u32 = 0x4000_0000;
/// `hipEventReleaseToSystem` (event creation flag).
pub const hipEventReleaseToSystem: u32 = 0x8000_0000;

/// Error codes of HIP 6.3 and 7.x headers.
impl hipError_t {
    /// `hipErrorInvalidChannelDescriptor` (911, HIP 6.3).
    pub const hipErrorInvalidChannelDescriptor: hipError_t = hipError_t(911);
    /// `hipErrorInvalidTexture` (912, HIP 6.3).
    pub const hipErrorInvalidTexture: hipError_t = hipError_t(912);
    /// `hipErrorInvalidResourceType` (914, HIP 7.x).
    pub const hipErrorInvalidResourceType: hipError_t = hipError_t(914);
    /// `hipErrorInvalidResourceConfiguration` (915, HIP 7.x).
    pub const hipErrorInvalidResourceConfiguration: hipError_t = hipError_t(915);
    /// `hipErrorStreamDetached` (916, HIP 7.x).
    pub const hipErrorStreamDetached: hipError_t = hipError_t(916);
}

/// Device attributes renamed or added by HIP 6.
impl hipDeviceAttribute_t {
    /// HIP 6's name for 64 (`hipDeviceAttributeName` in 5.x); unsupported.
    pub const hipDeviceAttributeUnused1: hipDeviceAttribute_t = hipDeviceAttribute_t(64);
    /// HIP 6's name for 86 (`hipDeviceAttributeUuid` in 5.x); unsupported.
    pub const hipDeviceAttributeUnused2: hipDeviceAttribute_t = hipDeviceAttribute_t(86);
    /// HIP 6's name for 10001 (`hipDeviceAttributeArch` in 5.x); unsupported.
    pub const hipDeviceAttributeUnused3: hipDeviceAttribute_t = hipDeviceAttribute_t(10001);
    /// HIP 6's name for 10003 (`hipDeviceAttributeGcnArch` in 5.x); unsupported.
    pub const hipDeviceAttributeUnused4: hipDeviceAttribute_t = hipDeviceAttribute_t(10003);
    /// HIP 6's name for 10004 (`hipDeviceAttributeGcnArchName` in 5.x); unsupported.
    pub const hipDeviceAttributeUnused5: hipDeviceAttribute_t = hipDeviceAttribute_t(10004);
    /// `hipDeviceAttributeHostRegisterSupported` (90, HIP 6.0).
    pub const hipDeviceAttributeHostRegisterSupported: hipDeviceAttribute_t = hipDeviceAttribute_t(90);
    /// `hipDeviceAttributeMemoryPoolSupportedHandleTypes` (91, HIP 6.3).
    pub const hipDeviceAttributeMemoryPoolSupportedHandleTypes: hipDeviceAttribute_t = hipDeviceAttribute_t(91);
}
