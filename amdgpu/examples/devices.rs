//! Lists the GPUs that the process's backend sees: ordinal, name, memory
//! and compute units.
//!
//! ```text
//! cargo run -p amdgpu --example devices
//! AMDGPU_BACKEND=sim AMDGPU_SIM_DEVICES=4 cargo run -p amdgpu --example devices
//! ```
//!
//! It calls the raw HIP table of `hip-sys` directly; the safe API of
//! `amdgpu` will replace this.

use std::ffi::{c_char, c_int, CStr};
use std::process::ExitCode;

use hip_sys::{hipDeviceAttribute_t, hipError_t, HipApi};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("devices: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let api = hip_sys::hip().map_err(|e| e.to_string())?;
    println!("backend: {}", hip_sys::backend());

    let mut count: c_int = 0;
    // SAFETY: `count` is a valid, writable `int`.
    let status = unsafe { (api.hipGetDeviceCount)(&mut count) };
    // HIP reports "no devices" as an error with a count of 0.
    if status == hipError_t::hipErrorNoDevice {
        count = 0;
    } else {
        check(api, status, "hipGetDeviceCount")?;
    }
    println!("devices: {count}");

    for ordinal in 0..count {
        let mut device = 0;
        // SAFETY: `device` is a valid, writable `hipDevice_t`.
        let status = unsafe { (api.hipDeviceGet)(&mut device, ordinal) };
        check(api, status, "hipDeviceGet")?;

        let mut name: [c_char; 256] = [0; 256];
        // SAFETY: `name` is writable for the length passed (minus one, so
        // the last byte stays 0 and the string is always terminated).
        let status = unsafe { (api.hipDeviceGetName)(name.as_mut_ptr(), name.len() as c_int - 1, device) };
        check(api, status, "hipDeviceGetName")?;
        // SAFETY: `name` is zero-terminated within the array (see above)
        // and outlives the borrow.
        let name = unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy();

        let mut bytes: usize = 0;
        // SAFETY: `bytes` is a valid, writable `size_t`.
        let status = unsafe { (api.hipDeviceTotalMem)(&mut bytes, device) };
        check(api, status, "hipDeviceTotalMem")?;

        let mut compute_units: c_int = 0;
        // SAFETY: `compute_units` is a valid, writable `int`.
        let status = unsafe {
            (api.hipDeviceGetAttribute)(
                &mut compute_units,
                hipDeviceAttribute_t::hipDeviceAttributeMultiprocessorCount,
                ordinal,
            )
        };
        check(api, status, "hipDeviceGetAttribute(MultiprocessorCount)")?;

        println!("  {ordinal}: {name}, {:.1} GiB, {compute_units} compute units", bytes as f64 / (1u64 << 30) as f64);
    }
    Ok(())
}

/// `Ok` for `hipSuccess`, else a one-line cause naming the call.
fn check(api: &HipApi, status: hipError_t, call: &str) -> Result<(), String> {
    if status == hipError_t::hipSuccess {
        return Ok(());
    }
    // SAFETY: `hipGetErrorName` accepts any value and returns null or a
    // pointer to a static, zero-terminated string.
    let name = unsafe { (api.hipGetErrorName)(status) };
    let name = if name.is_null() {
        format!("hipError_t({})", status.0)
    } else {
        // SAFETY: non-null, static and zero-terminated (see above).
        unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
    };
    Err(format!("{call} failed: {name} ({})", status.0))
}
