//! Devices: ordinals, attributes, and device-wide operations that take
//! their device explicitly.

use crate::raw::{api, on_device};
use crate::{check, HipError, Result};
use hip_sys::hipDeviceAttribute_t;
use std::ffi::c_char;
use std::sync::OnceLock;

/// A GPU, by its 0-based ordinal. Cheap to copy; valid for the process.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Device(usize);

static COUNT: OnceLock<Result<usize>> = OnceLock::new();

impl Device {
    /// How many devices the backend offers (0 when it has none).
    pub fn count() -> Result<usize> {
        COUNT
            .get_or_init(|| {
                let api = api()?;
                let mut n = 0;
                // SAFETY: a valid out-pointer.
                let status = unsafe { (api.hipGetDeviceCount)(&mut n) };
                if status == hip_sys::hipError_t::hipErrorNoDevice {
                    return Ok(0);
                }
                check(status, "hipGetDeviceCount")?;
                Ok(n.max(0) as usize)
            })
            .clone()
    }

    /// The device with this ordinal; `InvalidDevice` (naming the ordinal
    /// and the count) if there is none.
    pub fn new(ordinal: usize) -> Result<Device> {
        let count = Device::count()?;
        if ordinal < count {
            Ok(Device(ordinal))
        } else {
            Err(HipError::InvalidDevice { ordinal, count })
        }
    }

    /// Every device, in ordinal order.
    pub fn all() -> Result<Vec<Device>> {
        Ok((0..Device::count()?).map(Device).collect())
    }

    pub(crate) fn from_ordinal_unchecked(ordinal: usize) -> Device {
        Device(ordinal)
    }

    /// The 0-based ordinal.
    pub fn ordinal(self) -> usize {
        self.0
    }

    /// The device's name as the runtime reports it.
    pub fn name(self) -> Result<String> {
        let api = api()?;
        let mut buffer = [0 as c_char; 256];
        check(
            // SAFETY: the buffer holds 256 bytes, as we say.
            unsafe { (api.hipDeviceGetName)(buffer.as_mut_ptr(), 256, self.0 as i32) },
            "hipDeviceGetName",
        )?;
        // SAFETY: HIP wrote a NUL-terminated string into the buffer.
        Ok(unsafe { std::ffi::CStr::from_ptr(buffer.as_ptr()) }.to_string_lossy().into_owned())
    }

    /// A raw attribute through `hipDeviceGetAttribute`.
    pub fn attribute(self, attribute: hipDeviceAttribute_t) -> Result<i32> {
        let api = api()?;
        let mut value = 0;
        check(
            // SAFETY: a valid out-pointer; the attribute is any value (the runtime validates it).
            unsafe { (api.hipDeviceGetAttribute)(&mut value, attribute, self.0 as i32) },
            "hipDeviceGetAttribute",
        )?;
        Ok(value)
    }

    /// Compute units (multiprocessors).
    pub fn compute_units(self) -> Result<u32> {
        Ok(self.attribute(hipDeviceAttribute_t::hipDeviceAttributeMultiprocessorCount)? as u32)
    }

    /// Threads per wavefront (64 on CDNA, 32 on RDNA and NVIDIA).
    pub fn wavefront_size(self) -> Result<u32> {
        Ok(self.attribute(hipDeviceAttribute_t::hipDeviceAttributeWarpSize)? as u32)
    }

    /// Peak clock in kHz.
    pub fn clock_khz(self) -> Result<u32> {
        Ok(self.attribute(hipDeviceAttribute_t::hipDeviceAttributeClockRate)? as u32)
    }

    /// The architecture's (major, minor) version.
    pub fn architecture(self) -> Result<(u32, u32)> {
        Ok((
            self.attribute(hipDeviceAttribute_t::hipDeviceAttributeComputeCapabilityMajor)? as u32,
            self.attribute(hipDeviceAttribute_t::hipDeviceAttributeComputeCapabilityMinor)? as u32,
        ))
    }

    /// Total device memory in bytes.
    pub fn total_memory(self) -> Result<usize> {
        let api = api()?;
        let mut bytes = 0;
        check(
            // SAFETY: a valid out-pointer.
            unsafe { (api.hipDeviceTotalMem)(&mut bytes, self.0 as i32) },
            "hipDeviceTotalMem",
        )?;
        Ok(bytes)
    }

    /// Wait for all work on this device (whatever the thread's device is).
    pub fn synchronize(self) -> Result<()> {
        let api = api()?;
        on_device(self, || {
            check(
                // SAFETY: no arguments.
                unsafe { (api.hipDeviceSynchronize)() },
                "hipDeviceSynchronize",
            )
        })?
    }

    /// (free, total) bytes of this device (whatever the thread's device is).
    pub fn mem_info(self) -> Result<(usize, usize)> {
        let api = api()?;
        let (mut free, mut total) = (0, 0);
        on_device(self, || {
            check(
                // SAFETY: valid out-pointers.
                unsafe { (api.hipMemGetInfo)(&mut free, &mut total) },
                "hipMemGetInfo",
            )
        })??;
        Ok((free, total))
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Ok(name) => write!(f, "Device({}, {name:?})", self.0),
            Err(_) => write!(f, "Device({})", self.0),
        }
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "device {}", self.0)
    }
}
