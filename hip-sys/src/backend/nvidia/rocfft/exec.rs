//! Execution infos (stream and work buffer) and the execution of a plan.

use std::ffi::c_void;

use super::layout::Kind;
use super::library::fns;
use super::objects::{is_live, register, unregister, ExecutionInfo, Plan};
use super::status::{entry, ok};
use crate::rocfft::{rocfft_execution_info, rocfft_plan, rocfft_status};
use crate::sync::MutexExt;

pub(super) unsafe extern "C" fn rocfft_execution_info_create(info: *mut rocfft_execution_info) -> rocfft_status {
    entry(|| {
        if info.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        let made = register(ExecutionInfo { stream: std::ptr::null_mut(), work: std::ptr::null_mut(), work_size: 0 });
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { info.write(made.cast()) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn rocfft_execution_info_destroy(info: rocfft_execution_info) -> rocfft_status {
    entry(|| unregister(info.cast::<ExecutionInfo>()).map(drop).ok_or(rocfft_status::rocfft_status_invalid_arg_value))
}

/// Change a live execution info of this backend.
fn with_info(info: rocfft_execution_info, change: impl FnOnce(&mut ExecutionInfo)) -> Result<(), rocfft_status> {
    if !is_live(info as usize) {
        return Err(rocfft_status::rocfft_status_invalid_arg_value);
    }
    // SAFETY: a live execution info of this backend, used by one caller at
    // a time (rocFFT's rule for execution infos).
    change(unsafe { &mut *info.cast::<ExecutionInfo>() });
    Ok(())
}

pub(super) unsafe extern "C" fn rocfft_execution_info_set_stream(
    info: rocfft_execution_info,
    stream: *mut c_void,
) -> rocfft_status {
    entry(|| with_info(info, |i| i.stream = stream))
}

pub(super) unsafe extern "C" fn rocfft_execution_info_set_work_buffer(
    info: rocfft_execution_info,
    work_buffer: *mut c_void,
    size_in_bytes: usize,
) -> rocfft_status {
    entry(|| {
        if work_buffer.is_null() && size_in_bytes > 0 {
            return Err(rocfft_status::rocfft_status_invalid_work_buffer);
        }
        with_info(info, |i| {
            i.work = work_buffer;
            i.work_size = size_in_bytes;
        })
    })
}

pub(super) unsafe extern "C" fn rocfft_execute(
    plan: rocfft_plan,
    in_buffer: *mut *mut c_void,
    out_buffer: *mut *mut c_void,
    info: rocfft_execution_info,
) -> rocfft_status {
    entry(|| {
        let f = fns()?;
        if !is_live(plan as usize) || in_buffer.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        // SAFETY: a live plan of this backend, only read here.
        let plan = unsafe { &*plan.cast::<Plan>() };
        let (stream, work, work_size) = if info.is_null() {
            (std::ptr::null_mut(), std::ptr::null_mut(), 0)
        } else if is_live(info as usize) {
            // SAFETY: a live execution info of this backend, only read here.
            let i = unsafe { &*info.cast::<ExecutionInfo>() };
            (i.stream, i.work, i.work_size)
        } else {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        };
        if plan.work_size > 0 && (work.is_null() || work_size < plan.work_size) {
            log::error!(
                "rocFFT over cuFFT: the plan needs a work buffer of {} bytes; the execution info has {work_size}",
                plan.work_size
            );
            return Err(rocfft_status::rocfft_status_invalid_work_buffer);
        }
        // SAFETY: `in_buffer` holds at least one pointer (C contract).
        let input = unsafe { in_buffer.read() };
        let output = if plan.in_place {
            input
        } else if out_buffer.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        } else {
            // SAFETY: as for the input.
            unsafe { out_buffer.read() }
        };
        if input.is_null() || output.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        let (input, output) = (
            input.cast::<u8>().wrapping_add(plan.in_offset_bytes).cast::<c_void>(),
            output.cast::<u8>().wrapping_add(plan.out_offset_bytes).cast::<c_void>(),
        );
        let stream = crate::backend::nvidia::objects::stream_of(stream.cast())
            .map_err(|_| rocfft_status::rocfft_status_invalid_arg_value)?;
        // Bind and enqueue as one step: the cuFFT plan holds one stream and
        // one work area for every thread that executes it.
        let _executing = plan.executing.lock_unpoisoned();
        // SAFETY: a live handle and the HIP stream's CUDA stream (or null).
        ok("cufftSetStream", unsafe { (f.cufftSetStream)(plan.handle, stream) })?;
        if plan.work_size > 0 {
            // SAFETY: a live handle; the work area holds `work_size` bytes.
            ok("cufftSetWorkArea", unsafe { (f.cufftSetWorkArea)(plan.handle, work) })?;
        }
        // SAFETY: a live plan of the checked type; the buffers are the
        // caller's, of the sizes the plan describes (C contract).
        let result = unsafe {
            match (plan.kind, plan.double) {
                (Kind::Complex { direction }, false) => (f.cufftExecC2C)(plan.handle, input, output, direction),
                (Kind::Complex { direction }, true) => (f.cufftExecZ2Z)(plan.handle, input, output, direction),
                (Kind::RealForward, false) => (f.cufftExecR2C)(plan.handle, input, output),
                (Kind::RealForward, true) => (f.cufftExecD2Z)(plan.handle, input, output),
                (Kind::RealInverse, false) => (f.cufftExecC2R)(plan.handle, input, output),
                (Kind::RealInverse, true) => (f.cufftExecZ2D)(plan.handle, input, output),
            }
        };
        ok("cufftExec", result)
    })
}
