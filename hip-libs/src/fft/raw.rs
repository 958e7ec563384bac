//! The one place this crate calls rocFFT: a function per rocFFT call,
//! with rocFFT's statuses turned into errors.
//!
//! Each function makes one call and names it first in its docs; where the
//! call is sound only if the caller upholds something it is an `unsafe
//! fn` whose `# Safety` says what. None binds a device: plans and
//! executions run them under the plan's device.
//!
//! # References
//! rocFFT's [API reference](https://rocm.docs.amd.com/projects/rocFFT/en/latest/reference/api.html).

use hip_sys::hipStream_t;
use hip_sys::rocfft::{
    rocfft_execution_info, rocfft_plan, rocfft_precision, rocfft_result_placement, rocfft_status,
    rocfft_transform_type, RocfftApi,
};
use std::ffi::c_void;

use crate::{LibError, Result};

/// rocFFT's name for `status`, as the header names it (generated with the
/// bindings; the list has not changed from ROCm 5.0 to 6.x).
fn status_name(status: rocfft_status) -> &'static str {
    status.name().unwrap_or("a rocfft_status unknown to rocFFT 1.0.x's header")
}

/// Status to result, naming the rocFFT function.
pub(crate) fn check(status: rocfft_status, operation: &'static str) -> Result<()> {
    if status == rocfft_status::rocfft_status_success {
        return Ok(());
    }
    Err(LibError::Status { library: "rocFFT", operation, status: status.0, name: status_name(status) })
}

/// `rocfft_setup`: rocFFT's process-wide state, tuned for HIP's current
/// device.
///
/// # Safety
/// No plan is being made or destroyed meanwhile (the plan module's lock).
pub(crate) unsafe fn setup(api: &RocfftApi) -> Result<()> {
    // SAFETY: no arguments; as the caller guarantees.
    check(unsafe { (api.rocfft_setup)() }, "rocfft_setup")
}

/// `rocfft_cleanup`: free rocFFT's process-wide state.
///
/// # Safety
/// No plan is alive or being made (the plan module's lock and count).
pub(crate) unsafe fn cleanup(api: &RocfftApi) -> Result<()> {
    // SAFETY: no arguments; as the caller guarantees.
    check(unsafe { (api.rocfft_cleanup)() }, "rocfft_cleanup")
}

/// What a plan transforms, as `rocfft_plan_create` takes it.
pub(crate) struct PlanShape<'a> {
    pub placement: rocfft_result_placement,
    pub kind: rocfft_transform_type,
    pub precision: rocfft_precision,
    /// Fastest first.
    pub lengths: &'a [usize],
    pub batch: usize,
}

/// `rocfft_plan_create` with rocFFT's default layouts, under HIP's current
/// device.
///
/// # Safety
/// rocFFT is set up ([`setup`]) and not cleaned up while the plan lives.
pub(crate) unsafe fn plan_create(api: &RocfftApi, shape: &PlanShape<'_>) -> Result<rocfft_plan> {
    let mut plan: rocfft_plan = std::ptr::null_mut();
    let lengths = shape.lengths;
    // SAFETY: a valid out-pointer and `lengths.len()` lengths; a null
    // description means rocFFT's default layouts; as the caller guarantees.
    let status = unsafe {
        (api.rocfft_plan_create)(
            &mut plan,
            shape.placement,
            shape.kind,
            shape.precision,
            lengths.len(),
            lengths.as_ptr(),
            shape.batch,
            std::ptr::null_mut(),
        )
    };
    check(status, "rocfft_plan_create")?;
    Ok(plan)
}

/// `rocfft_plan_get_work_buffer_size`: bytes of work area an execution of
/// `plan` needs.
///
/// # Safety
/// `plan` is live.
pub(crate) unsafe fn work_buffer_size(api: &RocfftApi, plan: rocfft_plan) -> Result<usize> {
    let mut size = 0usize;
    // SAFETY: as the caller guarantees; a valid out-pointer.
    check(unsafe { (api.rocfft_plan_get_work_buffer_size)(plan, &mut size) }, "rocfft_plan_get_work_buffer_size")?;
    Ok(size)
}

/// `rocfft_plan_destroy`.
///
/// # Safety
/// `plan` is live, destroyed once, under its device, with no execution of
/// it queued on the host side.
pub(crate) unsafe fn plan_destroy(api: &RocfftApi, plan: rocfft_plan) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocfft_plan_destroy)(plan) }, "rocfft_plan_destroy")
}

/// `rocfft_execution_info_create`.
pub(crate) fn execution_info_create(api: &RocfftApi) -> Result<rocfft_execution_info> {
    let mut info: rocfft_execution_info = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.rocfft_execution_info_create)(&mut info) }, "rocfft_execution_info_create")?;
    Ok(info)
}

/// `rocfft_execution_info_destroy`.
///
/// # Safety
/// `info` is live and destroyed once.
pub(crate) unsafe fn execution_info_destroy(api: &RocfftApi, info: rocfft_execution_info) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocfft_execution_info_destroy)(info) }, "rocfft_execution_info_destroy")
}

/// `rocfft_execution_info_set_stream`: executions with `info` run on
/// `stream` (its value, not its address, as rocFFT takes it).
///
/// # Safety
/// `info` is live and `stream` a live stream (or null).
pub(crate) unsafe fn execution_info_set_stream(
    api: &RocfftApi,
    info: rocfft_execution_info,
    stream: hipStream_t,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocfft_execution_info_set_stream)(info, stream.cast()) }, "rocfft_execution_info_set_stream")
}

/// `rocfft_execution_info_set_work_buffer`.
///
/// # Safety
/// `info` is live, and `work` is device memory of `size` bytes that
/// outlives the executions using it.
pub(crate) unsafe fn execution_info_set_work_buffer(
    api: &RocfftApi,
    info: rocfft_execution_info,
    work: *mut c_void,
    size: usize,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    let status = unsafe { (api.rocfft_execution_info_set_work_buffer)(info, work, size) };
    check(status, "rocfft_execution_info_set_work_buffer")
}

/// `rocfft_execute` of `plan` from `input` to `output` (null for an
/// in-place plan), one buffer each.
///
/// # Safety
/// `plan` and `info` are live; the buffers are device memory of the sizes
/// the plan takes, alive until the execution has run on `info`'s stream.
pub(crate) unsafe fn execute(
    api: &RocfftApi,
    plan: rocfft_plan,
    input: *mut c_void,
    output: *mut c_void,
    info: rocfft_execution_info,
) -> Result<()> {
    let mut inputs = [input];
    let mut outputs = [output];
    let out_ptr = if output.is_null() { std::ptr::null_mut() } else { outputs.as_mut_ptr() };
    // SAFETY: as the caller guarantees; the arrays live for the call.
    check(unsafe { (api.rocfft_execute)(plan, inputs.as_mut_ptr(), out_ptr, info) }, "rocfft_execute")
}
