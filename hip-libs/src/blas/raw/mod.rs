//! The one place this crate calls rocBLAS: a function per rocBLAS call
//! for the handle (here) and, per element type, the typed calls of the
//! operations ([`scalar`], over the per-precision table `dispatch`
//! generated from the bindings by `cargo xtask dispatch`), with rocBLAS's
//! statuses turned into errors.
//!
//! Each function makes one call and names it first in its docs; where the
//! call is sound only if the caller upholds something it is an `unsafe
//! fn` whose `# Safety` says what. None binds a device: the handle cache
//! and the wrappers run them under the handle's device.
//!
//! # References
//! rocBLAS's [API reference](https://rocm.docs.amd.com/projects/rocBLAS/en/latest/reference/api.html)
//! and [helper functions](https://rocm.docs.amd.com/projects/rocBLAS/en/latest/reference/helpers.html).

// Generated (`cargo xtask dispatch`): formatted by its generator, which
// `--check` compares byte for byte.
#[rustfmt::skip]
mod dispatch;
pub(crate) mod scalar;

use hip_sys::hipStream_t;
use hip_sys::rocblas::{rocblas_handle, rocblas_math_mode, rocblas_pointer_mode, rocblas_status, RocblasApi};
use std::ffi::c_void;

use crate::{LibError, Result};

/// Status to result, naming the rocBLAS function.
pub(crate) fn check(status: rocblas_status, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    Err(LibError::Status { library: "rocBLAS", operation, status: status.0, name: status_name(status) })
}

/// rocBLAS's name for `status`: the packaged header's (generated with the
/// bindings), then the two values of newer versions
/// (`excluded_from_build`, 14, from 4.0; `arch_mismatch`, 15, from 4.2).
pub(crate) fn status_name(status: rocblas_status) -> &'static str {
    status.name().unwrap_or(match status.0 {
        14 => "rocblas_status_excluded_from_build",
        15 => "rocblas_status_arch_mismatch",
        _ => "an unknown rocblas_status",
    })
}

/// `rocblas_create_handle`: a new handle of HIP's current device.
pub(crate) fn create_handle(api: &RocblasApi) -> Result<rocblas_handle> {
    let mut handle: rocblas_handle = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.rocblas_create_handle)(&mut handle) }, "rocblas_create_handle")?;
    Ok(handle)
}

/// `rocblas_destroy_handle`.
///
/// # Safety
/// `handle` is live, destroyed once, under its device.
pub(crate) unsafe fn destroy_handle(api: &RocblasApi, handle: rocblas_handle) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocblas_destroy_handle)(handle) }, "rocblas_destroy_handle")
}

/// `rocblas_set_workspace`: `size` bytes at `memory` become the handle's
/// workspace.
///
/// # Safety
/// `handle` is live, and `memory` is device memory of its device, of
/// `size` bytes, that outlives the handle's use of it.
pub(crate) unsafe fn set_workspace(
    api: &RocblasApi,
    handle: rocblas_handle,
    memory: *mut c_void,
    size: usize,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocblas_set_workspace)(handle, memory, size) }, "rocblas_set_workspace")
}

/// `rocblas_start_device_memory_size_query`, then `calls`, then
/// `rocblas_stop_device_memory_size_query`: the device memory the calls
/// `calls` makes on `handle` need from its workspace, without running
/// them (each answers `rocblas_status_size_increased` or
/// `rocblas_status_size_unchanged` during the query; any other status is
/// an error of `operation`). The query is stopped whatever happens.
///
/// # Safety
/// `handle` is live; `calls` makes only calls on it that take their
/// workspace from it (rocBLAS's or rocSOLVER's).
pub(crate) unsafe fn device_memory_need(
    api: &RocblasApi,
    handle: rocblas_handle,
    operation: &'static str,
    calls: impl FnOnce() -> rocblas_status,
) -> Result<usize> {
    // SAFETY: a live handle (the caller's guarantee).
    check(unsafe { (api.rocblas_start_device_memory_size_query)(handle) }, "rocblas_start_device_memory_size_query")?;
    let status = calls();
    let mut need = 0usize;
    // SAFETY: a live handle with a query underway, and a valid out-pointer.
    let stopped = check(
        unsafe { (api.rocblas_stop_device_memory_size_query)(handle, &mut need) },
        "rocblas_stop_device_memory_size_query",
    );
    let sized = [rocblas_status::rocblas_status_size_increased, rocblas_status::rocblas_status_size_unchanged];
    if !sized.contains(&status) {
        // A bad argument: rocSOLVER checks sizes and enums during a query too.
        check(status, operation)?;
        return Err(LibError::Unsupported {
            library: "rocBLAS",
            operation,
            problem: "the call answered success during a device memory size query, so this library version \
                      does not size its workspace through the handle; report it with the library's version"
                .to_owned(),
        });
    }
    stopped.map(|()| need)
}

/// `rocblas_set_stream`: later calls on `handle` run on `stream`.
///
/// # Safety
/// `handle` is live and `stream` is a live stream of its device (or null).
pub(crate) unsafe fn set_stream(api: &RocblasApi, handle: rocblas_handle, stream: hipStream_t) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocblas_set_stream)(handle, stream) }, "rocblas_set_stream")
}

/// `rocblas_get_stream`: the stream `handle` runs on.
///
/// # Safety
/// `handle` is live.
pub(crate) unsafe fn stream(api: &RocblasApi, handle: rocblas_handle) -> Result<hipStream_t> {
    let mut stream: hipStream_t = std::ptr::null_mut();
    // SAFETY: as the caller guarantees; a valid out-pointer.
    check(unsafe { (api.rocblas_get_stream)(handle, &mut stream) }, "rocblas_get_stream")?;
    Ok(stream)
}

/// `rocblas_get_pointer_mode`: where `handle` reads scalars from.
///
/// # Safety
/// `handle` is live.
pub(crate) unsafe fn pointer_mode(api: &RocblasApi, handle: rocblas_handle) -> Result<rocblas_pointer_mode> {
    let mut mode = rocblas_pointer_mode::rocblas_pointer_mode_host;
    // SAFETY: as the caller guarantees; a valid out-pointer.
    check(unsafe { (api.rocblas_get_pointer_mode)(handle, &mut mode) }, "rocblas_get_pointer_mode")?;
    Ok(mode)
}

/// `rocblas_set_pointer_mode`.
///
/// # Safety
/// `handle` is live.
pub(crate) unsafe fn set_pointer_mode(
    api: &RocblasApi,
    handle: rocblas_handle,
    mode: rocblas_pointer_mode,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocblas_set_pointer_mode)(handle, mode) }, "rocblas_set_pointer_mode")
}

/// `rocblas_get_math_mode`.
///
/// # Safety
/// `handle` is live.
pub(crate) unsafe fn math_mode(api: &RocblasApi, handle: rocblas_handle) -> Result<rocblas_math_mode> {
    let mut mode = rocblas_math_mode::rocblas_default_math;
    // SAFETY: as the caller guarantees; a valid out-pointer.
    check(unsafe { (api.rocblas_get_math_mode)(handle, &mut mode) }, "rocblas_get_math_mode")?;
    Ok(mode)
}

/// `rocblas_set_math_mode` (XF32 on gfx94x, the default elsewhere).
///
/// # Safety
/// `handle` is live.
pub(crate) unsafe fn set_math_mode(api: &RocblasApi, handle: rocblas_handle, mode: rocblas_math_mode) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocblas_set_math_mode)(handle, mode) }, "rocblas_set_math_mode")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rocblas_status_has_its_name() {
        let names: Vec<&str> = (0..=15).map(|v| status_name(rocblas_status(v))).collect();
        assert_eq!(names[4], "rocblas_status_invalid_size");
        assert_eq!(names[14], "rocblas_status_excluded_from_build");
        for (value, name) in names.iter().enumerate() {
            assert!(name.starts_with("rocblas_status_"), "{value}: {name}");
        }
        assert_eq!(status_name(rocblas_status(99)), "an unknown rocblas_status");
        let error = check(rocblas_status(4), "rocblas_sgemm").unwrap_err().to_string();
        assert!(error.contains("rocblas_sgemm") && error.contains("rocblas_status_invalid_size"), "{error}");
    }
}
