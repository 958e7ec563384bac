//! Devices: how many there are, what one is, and device-wide calls.
//!
//! # References
//! HIP's [device management](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html) reference.

use hip_sys::{hipDeviceAttribute_t, hipError_t};
use std::ffi::{c_char, CStr};

use super::{api, on_device};
use crate::{check, Device, Result};

/// `hipGetDeviceCount`: how many devices the backend offers (0 where it
/// answers `hipErrorNoDevice`).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipGetDeviceCount")]
pub fn count() -> Result<usize> {
    let api = api()?;
    let mut n = 0;
    // SAFETY: a valid out-pointer.
    let status = unsafe { (api.hipGetDeviceCount)(&mut n) };
    if status == hipError_t::hipErrorNoDevice {
        return Ok(0);
    }
    check(status, "hipGetDeviceCount")?;
    Ok(n.max(0) as usize)
}

/// `hipDeviceGetName`: `device`'s name as the runtime reports it (by
/// ordinal).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceGetName")]
pub fn name(device: Device) -> Result<String> {
    let api = api()?;
    // SAFETY: `text` hands a buffer of the length it passes.
    text::<256>("hipDeviceGetName", |buffer, len| unsafe {
        (api.hipDeviceGetName)(buffer, len, device.ordinal() as i32)
    })
}

/// `hipDeviceGetPCIBusId`: `device`'s PCI address as the runtime writes
/// it (`0000:03:00.0`: domain, bus, device, function).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceGetPCIBusId")]
pub fn pci_bus_id(device: Device) -> Result<String> {
    let api = api()?;
    // SAFETY: `text` hands a buffer of the length it passes.
    text::<64>("hipDeviceGetPCIBusId", |buffer, len| unsafe {
        (api.hipDeviceGetPCIBusId)(buffer, len, device.ordinal() as i32)
    })
}

/// The string a HIP call (`call`, named `what` for its error) writes into
/// a buffer of `N` bytes it is given with that length; its last byte is
/// made NUL whatever the runtime wrote.
fn text<const N: usize>(what: &'static str, call: impl FnOnce(*mut c_char, i32) -> hipError_t) -> Result<String> {
    let mut buffer = [0 as c_char; N];
    check(call(buffer.as_mut_ptr(), N as i32), what)?;
    buffer[N - 1] = 0;
    // SAFETY: NUL-terminated: its last byte is NUL.
    Ok(unsafe { CStr::from_ptr(buffer.as_ptr()) }.to_string_lossy().into_owned())
}

/// `hipDeviceGetAttribute`: a raw attribute of `device` (by ordinal).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceGetAttribute")]
pub fn attribute(device: Device, attribute: hipDeviceAttribute_t) -> Result<i32> {
    let api = api()?;
    let mut value = 0;
    check(
        // SAFETY: a valid out-pointer; the attribute is any value (the runtime validates it).
        unsafe { (api.hipDeviceGetAttribute)(&mut value, attribute, device.ordinal() as i32) },
        "hipDeviceGetAttribute",
    )?;
    Ok(value)
}

/// `hipDeviceTotalMem`: `device`'s memory in bytes (by ordinal).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceTotalMem")]
pub fn total_memory(device: Device) -> Result<usize> {
    let api = api()?;
    let mut bytes = 0;
    check(
        // SAFETY: a valid out-pointer.
        unsafe { (api.hipDeviceTotalMem)(&mut bytes, device.ordinal() as i32) },
        "hipDeviceTotalMem",
    )?;
    Ok(bytes)
}

/// `hipDeviceSynchronize`: wait for all work on `device` (under `device`
/// through [`on_device`]).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipDeviceSynchronize")]
pub fn synchronize(device: Device) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        check(
            // SAFETY: no arguments.
            unsafe { (api.hipDeviceSynchronize)() },
            "hipDeviceSynchronize",
        )
    })?
}

/// `hipMemGetInfo`: (free, total) bytes of `device` (under `device`
/// through [`on_device`]).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipMemGetInfo")]
pub fn mem_info(device: Device) -> Result<(usize, usize)> {
    let api = api()?;
    let (mut free, mut total) = (0, 0);
    on_device(device, || {
        check(
            // SAFETY: valid out-pointers.
            unsafe { (api.hipMemGetInfo)(&mut free, &mut total) },
            "hipMemGetInfo",
        )
    })??;
    Ok((free, total))
}
