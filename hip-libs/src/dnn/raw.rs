//! The one place this crate calls MIOpen: a function per MIOpen call,
//! with MIOpen's statuses turned into errors that name the function and
//! status.
//!
//! Each function makes one call and names it first in its docs; where the
//! call is sound only if the caller upholds something it is an `unsafe
//! fn` whose `# Safety` says what. None binds a device: the handle cache
//! and the wrappers run them under the handle's device. A tensor operand
//! is its descriptor with its device pointer.
//!
//! # References
//! MIOpen's [API reference](https://rocm.docs.amd.com/projects/MIOpen/en/latest/reference/index.html).

use crate::{LibError, Result};
use hip_sys::hipStream_t;
use hip_sys::miopen::{
    miopenActivationDescriptor_t, miopenActivationMode_t, miopenConvAlgoPerf_t, miopenConvFwdAlgorithm_t,
    miopenConvolutionDescriptor_t, miopenConvolutionMode_t, miopenDataType_t, miopenHandle_t, miopenSoftmaxAlgorithm_t,
    miopenSoftmaxMode_t, miopenStatus_t, miopenTensorDescriptor_t, MiopenApi,
};
use std::ffi::{c_int, c_void};

/// An input tensor: its descriptor and device memory.
pub(crate) type In = (miopenTensorDescriptor_t, *const c_void);
/// An output tensor: its descriptor and device memory.
pub(crate) type Out = (miopenTensorDescriptor_t, *mut c_void);

/// Status to result, naming the MIOpen function.
pub(crate) fn check(status: miopenStatus_t, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    let name = match status.0 {
        1 => "miopenStatusNotInitialized",
        2 => "miopenStatusInvalidValue",
        3 => "miopenStatusBadParm",
        4 => "miopenStatusAllocFailed",
        5 => "miopenStatusInternalError",
        6 => "miopenStatusNotImplemented",
        7 => "miopenStatusUnknownError",
        8 => "miopenStatusUnsupportedOp",
        9 => "miopenStatusGpuOperationsSkipped",
        10 => "miopenStatusVersionMismatch",
        _ => "an unknown miopenStatus_t",
    };
    Err(LibError::Status { library: "MIOpen", operation, status: status.0, name })
}

/// `miopenCreate`: a handle of HIP's current device.
pub(crate) fn create(api: &MiopenApi) -> Result<miopenHandle_t> {
    let mut handle: miopenHandle_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.miopenCreate)(&mut handle) }, "miopenCreate")?;
    Ok(handle)
}

/// `miopenDestroy`.
///
/// # Safety
/// `handle` is live, destroyed once, under its device.
pub(crate) unsafe fn destroy(api: &MiopenApi, handle: miopenHandle_t) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.miopenDestroy)(handle) }, "miopenDestroy")
}

/// `miopenSetStream`: later calls on `handle` run on `stream`.
///
/// # Safety
/// `handle` is live and `stream` is a live stream of its device (or null).
pub(crate) unsafe fn set_stream(api: &MiopenApi, handle: miopenHandle_t, stream: hipStream_t) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.miopenSetStream)(handle, stream.cast()) }, "miopenSetStream")
}

/// `miopenCreateTensorDescriptor`.
pub(crate) fn create_tensor(api: &MiopenApi) -> Result<miopenTensorDescriptor_t> {
    let mut desc: miopenTensorDescriptor_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.miopenCreateTensorDescriptor)(&mut desc) }, "miopenCreateTensorDescriptor")?;
    Ok(desc)
}

/// `miopenSet4dTensorDescriptor`: a packed NCHW tensor of `datatype`.
///
/// # Safety
/// `desc` is live.
pub(crate) unsafe fn set_4d_tensor(
    api: &MiopenApi,
    desc: miopenTensorDescriptor_t,
    datatype: miopenDataType_t,
    [n, c, h, w]: [c_int; 4],
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.miopenSet4dTensorDescriptor)(desc, datatype, n, c, h, w) }, "miopenSet4dTensorDescriptor")
}

/// `miopenDestroyTensorDescriptor`.
///
/// # Safety
/// `desc` is live and destroyed once.
pub(crate) unsafe fn destroy_tensor(api: &MiopenApi, desc: miopenTensorDescriptor_t) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.miopenDestroyTensorDescriptor)(desc) }, "miopenDestroyTensorDescriptor")
}

/// `miopenCreateActivationDescriptor`.
pub(crate) fn create_activation(api: &MiopenApi) -> Result<miopenActivationDescriptor_t> {
    let mut desc: miopenActivationDescriptor_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.miopenCreateActivationDescriptor)(&mut desc) }, "miopenCreateActivationDescriptor")?;
    Ok(desc)
}

/// `miopenSetActivationDescriptor`: the function `mode` with its α, β
/// and power.
///
/// # Safety
/// `desc` is live.
pub(crate) unsafe fn set_activation(
    api: &MiopenApi,
    desc: miopenActivationDescriptor_t,
    mode: miopenActivationMode_t,
    (alpha, beta, power): (f64, f64, f64),
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(
        unsafe { (api.miopenSetActivationDescriptor)(desc, mode, alpha, beta, power) },
        "miopenSetActivationDescriptor",
    )
}

/// `miopenDestroyActivationDescriptor`.
///
/// # Safety
/// `desc` is live and destroyed once.
pub(crate) unsafe fn destroy_activation(api: &MiopenApi, desc: miopenActivationDescriptor_t) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.miopenDestroyActivationDescriptor)(desc) }, "miopenDestroyActivationDescriptor")
}

/// `miopenCreateConvolutionDescriptor`.
pub(crate) fn create_convolution(api: &MiopenApi) -> Result<miopenConvolutionDescriptor_t> {
    let mut desc: miopenConvolutionDescriptor_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.miopenCreateConvolutionDescriptor)(&mut desc) }, "miopenCreateConvolutionDescriptor")?;
    Ok(desc)
}

/// `miopenInitConvolutionDescriptor`: a cross-correlation ("convolution"
/// mode) with (height, width) padding, stride and dilation.
///
/// # Safety
/// `desc` is live.
pub(crate) unsafe fn init_convolution(
    api: &MiopenApi,
    desc: miopenConvolutionDescriptor_t,
    [pad, stride, dilation]: [(c_int, c_int); 3],
) -> Result<()> {
    let mode = miopenConvolutionMode_t::miopenConvolution;
    // SAFETY: as the caller guarantees.
    let status = unsafe {
        (api.miopenInitConvolutionDescriptor)(desc, mode, pad.0, pad.1, stride.0, stride.1, dilation.0, dilation.1)
    };
    check(status, "miopenInitConvolutionDescriptor")
}

/// `miopenDestroyConvolutionDescriptor`.
///
/// # Safety
/// `desc` is live and destroyed once.
pub(crate) unsafe fn destroy_convolution(api: &MiopenApi, desc: miopenConvolutionDescriptor_t) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.miopenDestroyConvolutionDescriptor)(desc) }, "miopenDestroyConvolutionDescriptor")
}

/// `miopenActivationForward`: `y = alpha * f(x) + beta * y`.
///
/// # Safety
/// The handle and descriptors are live; `x` and `y` are device memory of
/// their descriptors' sizes on the handle's device.
pub(crate) unsafe fn activation_forward(
    api: &MiopenApi,
    handle: miopenHandle_t,
    desc: miopenActivationDescriptor_t,
    (alpha, beta): (f32, f32),
    x: In,
    y: Out,
) -> Result<()> {
    let (alpha, beta) = ((&alpha as *const f32).cast(), (&beta as *const f32).cast());
    // SAFETY: as the caller guarantees; α and β are host floats, as MIOpen
    // reads them for float data.
    let status = unsafe { (api.miopenActivationForward)(handle, desc, alpha, x.0, x.1, beta, y.0, y.1) };
    check(status, "miopenActivationForward")
}

/// `miopenSoftmaxForward_V2`.
///
/// # Safety
/// As for [`activation_forward`].
pub(crate) unsafe fn softmax_forward(
    api: &MiopenApi,
    handle: miopenHandle_t,
    (alpha, beta): (f32, f32),
    x: In,
    y: Out,
    (algorithm, mode): (miopenSoftmaxAlgorithm_t, miopenSoftmaxMode_t),
) -> Result<()> {
    let (alpha, beta) = ((&alpha as *const f32).cast(), (&beta as *const f32).cast());
    // SAFETY: as the caller guarantees; host floats for α and β.
    let status = unsafe { (api.miopenSoftmaxForward_V2)(handle, alpha, x.0, x.1, beta, y.0, y.1, algorithm, mode) };
    check(status, "miopenSoftmaxForward_V2")
}

/// `miopenConvolutionForwardGetWorkSpaceSize`: the bytes of workspace a
/// forward convolution of these descriptors may need.
///
/// # Safety
/// The handle and descriptors are live.
pub(crate) unsafe fn convolution_forward_workspace_size(
    api: &MiopenApi,
    handle: miopenHandle_t,
    [x, w, y]: [miopenTensorDescriptor_t; 3],
    conv: miopenConvolutionDescriptor_t,
) -> Result<usize> {
    let mut size = 0usize;
    // SAFETY: as the caller guarantees; a valid out-pointer.
    let status = unsafe { (api.miopenConvolutionForwardGetWorkSpaceSize)(handle, w, x, conv, y, &mut size) };
    check(status, "miopenConvolutionForwardGetWorkSpaceSize")?;
    Ok(size)
}

/// `miopenFindConvolutionForwardAlgorithm` (not exhaustive): the fastest
/// forward algorithm MIOpen finds, running candidates on the operands;
/// `None` where it finds none.
///
/// # Safety
/// The handle and descriptors are live; the operands and the workspace
/// (`(pointer, bytes)`) are device memory of their sizes on the handle's
/// device, which the search writes.
pub(crate) unsafe fn find_convolution_forward(
    api: &MiopenApi,
    handle: miopenHandle_t,
    (x, w): (In, In),
    conv: miopenConvolutionDescriptor_t,
    y: Out,
    workspace: (*mut c_void, usize),
) -> Result<Option<miopenConvAlgoPerf_t>> {
    let mut found = 0i32;
    // SAFETY: an all-zero result is a valid plain struct.
    let mut perf: miopenConvAlgoPerf_t = unsafe { std::mem::zeroed() };
    // SAFETY: as the caller guarantees; room for one result.
    let status = unsafe {
        (api.miopenFindConvolutionForwardAlgorithm)(
            handle,
            x.0,
            x.1,
            w.0,
            w.1,
            conv,
            y.0,
            y.1,
            1,
            &mut found,
            &mut perf,
            workspace.0,
            workspace.1,
            false,
        )
    };
    check(status, "miopenFindConvolutionForwardAlgorithm")?;
    Ok((found >= 1).then_some(perf))
}

/// `miopenConvolutionForward`: `y = alpha * conv(x, w) + beta * y` with
/// `algorithm`.
///
/// # Safety
/// As for [`find_convolution_forward`]; the workspace holds what the
/// algorithm needs.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn convolution_forward(
    api: &MiopenApi,
    handle: miopenHandle_t,
    (alpha, beta): (f32, f32),
    (x, w): (In, In),
    conv: miopenConvolutionDescriptor_t,
    algorithm: miopenConvFwdAlgorithm_t,
    y: Out,
    workspace: (*mut c_void, usize),
) -> Result<()> {
    let (alpha, beta) = ((&alpha as *const f32).cast(), (&beta as *const f32).cast());
    // SAFETY: as the caller guarantees; host floats for α and β.
    let status = unsafe {
        (api.miopenConvolutionForward)(
            handle,
            alpha,
            x.0,
            x.1,
            w.0,
            w.1,
            conv,
            algorithm,
            beta,
            y.0,
            y.1,
            workspace.0,
            workspace.1,
        )
    };
    check(status, "miopenConvolutionForward")
}
