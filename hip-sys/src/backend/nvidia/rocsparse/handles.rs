//! Handles: the version, creation, streams and pointer modes.

use std::ffi::c_int;

use super::library::fns;
use super::status::{entry, ok};
use crate::bindings::hip::hipStream_t;
use crate::rocsparse::{rocsparse_handle, rocsparse_pointer_mode, rocsparse_status};

/// What `rocsparse_get_version` reports: 3.0.0, whose stages this mapping
/// follows.
const VERSION: c_int = 300_000;

pub(super) unsafe extern "C" fn rocsparse_get_version(
    handle: rocsparse_handle,
    version: *mut c_int,
) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        if version.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { version.write(VERSION) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn rocsparse_create_handle(handle: *mut rocsparse_handle) -> rocsparse_status {
    entry(|| {
        let f = &fns()?.fns;
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        // SAFETY: non-null and valid for a write of a handle (C contract).
        ok("cusparseCreate", unsafe { (f.cusparseCreate)(handle.cast()) })
    })
}

pub(super) unsafe extern "C" fn rocsparse_destroy_handle(handle: rocsparse_handle) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        // SAFETY: a handle made by cusparseCreate, destroyed once (C contract).
        ok("cusparseDestroy", unsafe { (fns()?.fns.cusparseDestroy)(handle.cast()) })
    })
}

pub(super) unsafe extern "C" fn rocsparse_set_stream(
    handle: rocsparse_handle,
    stream: hipStream_t,
) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        let stream = crate::backend::nvidia::objects::stream_of(stream)
            .map_err(|_| rocsparse_status::rocsparse_status_invalid_value)?;
        // SAFETY: a live handle and the HIP stream's CUDA stream.
        ok("cusparseSetStream", unsafe { (fns()?.fns.cusparseSetStream)(handle.cast(), stream.cast()) })
    })
}

pub(super) unsafe extern "C" fn rocsparse_get_stream(
    handle: rocsparse_handle,
    stream: *mut hipStream_t,
) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        if stream.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_pointer);
        }
        let mut raw: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: a live handle and a valid out-pointer.
        ok("cusparseGetStream", unsafe {
            (fns()?.fns.cusparseGetStream)(handle.cast(), (&mut raw as *mut *mut std::ffi::c_void).cast())
        })?;
        // SAFETY: checked non-null; the caller's out-pointer.
        unsafe { stream.write(crate::backend::nvidia::objects::hip_stream_of(raw)) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn rocsparse_set_pointer_mode(
    handle: rocsparse_handle,
    mode: rocsparse_pointer_mode,
) -> rocsparse_status {
    entry(|| {
        if handle.is_null() {
            return Err(rocsparse_status::rocsparse_status_invalid_handle);
        }
        let mode = match mode {
            rocsparse_pointer_mode::rocsparse_pointer_mode_host => 0,
            rocsparse_pointer_mode::rocsparse_pointer_mode_device => 1,
            _ => return Err(rocsparse_status::rocsparse_status_invalid_value),
        };
        // SAFETY: a live handle.
        ok("cusparseSetPointerMode", unsafe { (fns()?.fns.cusparseSetPointerMode)(handle.cast(), mode) })
    })
}
