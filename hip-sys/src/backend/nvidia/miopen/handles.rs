//! Handles: the version, creation and streams.

use super::library::fns;
use super::status::{entry, ok};
use crate::miopen::{miopenHandle_t, miopenStatus_t};

pub(super) unsafe extern "C" fn miopenGetVersion(
    major: *mut usize,
    minor: *mut usize,
    patch: *mut usize,
) -> miopenStatus_t {
    entry(|| {
        for (out, value) in [(major, 3), (minor, 1), (patch, 0)] {
            if !out.is_null() {
                // SAFETY: non-null out-pointers are valid (C contract).
                unsafe { out.write(value) };
            }
        }
        Ok(())
    })
}

pub(super) unsafe extern "C" fn miopenCreate(handle: *mut miopenHandle_t) -> miopenStatus_t {
    entry(|| {
        if handle.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: non-null and valid for a write of a handle.
        ok("cudnnCreate", unsafe { (fns()?.cudnnCreate)(handle.cast()) })
    })
}

pub(super) unsafe extern "C" fn miopenDestroy(handle: miopenHandle_t) -> miopenStatus_t {
    entry(|| {
        if handle.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: a handle made by cudnnCreate, destroyed once.
        ok("cudnnDestroy", unsafe { (fns()?.cudnnDestroy)(handle.cast()) })
    })
}

pub(super) unsafe extern "C" fn miopenSetStream(
    handle: miopenHandle_t,
    stream: crate::bindings::hip::hipStream_t,
) -> miopenStatus_t {
    entry(|| {
        if handle.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let stream =
            crate::backend::nvidia::objects::stream_of(stream).map_err(|_| miopenStatus_t::miopenStatusBadParm)?;
        // SAFETY: a live handle and the HIP stream's CUDA stream.
        ok("cudnnSetStream", unsafe { (fns()?.cudnnSetStream)(handle.cast(), stream.cast()) })
    })
}

pub(super) unsafe extern "C" fn miopenGetStream(
    handle: miopenHandle_t,
    stream: *mut crate::bindings::hip::hipStream_t,
) -> miopenStatus_t {
    entry(|| {
        if handle.is_null() || stream.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let mut raw: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: a live handle and a valid out-pointer.
        ok("cudnnGetStream", unsafe {
            (fns()?.cudnnGetStream)(handle.cast(), (&mut raw as *mut *mut std::ffi::c_void).cast())
        })?;
        // SAFETY: checked non-null; the caller's out-pointer.
        unsafe { stream.write(crate::backend::nvidia::objects::hip_stream_of(raw)) };
        Ok(())
    })
}
