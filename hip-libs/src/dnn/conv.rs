//! 2-D convolution forward, with the descriptors and the algorithm search
//! kept per handle.
//!
//! MIOpen's forward convolution runs an invoker that only its algorithm
//! search (`miopenFindConvolutionForwardAlgorithm`) registers, in the
//! handle that ran the search: a cache per device would make a second
//! thread's handle, or a recreated one, fail on every AMD GPU. So each
//! handle keeps what its own searches found ([`super::conv_plan`]); a new
//! handle searches once per problem (MIOpen's find-db makes repeats
//! cheap).

use super::conv_plan::{Conv2d, ConvPlan};
use super::handle::{DnnHandle, HANDLES};
use super::raw;
use super::tensor::{require_fp32, DnnScalar, Shape4, ALPHA_ONE, BETA_ZERO};
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::handle_cache::with_handle;
use crate::{LibError, Result};
use hip_core::raw::run_on;
use hip_pool::{enqueue, Access};
use std::ffi::c_void;

/// A work area of `bytes` from the pool, or none for 0 bytes: MIOpen
/// wants a null workspace when its size is 0 and a non-null one otherwise.
fn work_area(device: hip_core::Device, bytes: usize, stream: &hip_core::Stream) -> Result<Option<hip_pool::Buffer>> {
    Ok(if bytes > 0 { Some(hip_pool::alloc_on(device, bytes, stream)?) } else { None })
}

/// A work area's pointer and size for MIOpen (null and 0 for none).
fn raw_area(area: &Option<hip_pool::Buffer>) -> (*mut c_void, usize) {
    area.as_ref().map_or((std::ptr::null_mut(), 0), |b| (b.as_ptr(), b.len()))
}

/// The output shape of convolving `input` with `filter` (K × C × R × S).
///
/// # Errors
/// [`LibError::InvalidInput`] for a zero dimension or one over `i32::MAX`
/// (of the input, the filter or the output), channels of the input and
/// filter that differ, or a (dilated) filter larger than the padded
/// input. No library call.
pub fn conv2d_output_shape(input: Shape4, filter: Shape4, params: Conv2d) -> Result<Shape4> {
    const OP: &str = "conv2d";
    input.check(OP, "the input")?;
    filter.check(OP, "the filter")?;
    if input.c != filter.c {
        return Err(LibError::invalid(OP, format!("the input has {} channels, the filter {}", input.c, filter.c)));
    }
    // Every step checked: a padding or dilation near usize::MAX would
    // wrap to a shape that looks as if it fit.
    let out = |size: usize, pad: usize, dilation: usize, taps: usize, stride: usize| -> Option<usize> {
        let span = dilation.checked_mul(taps - 1)?.checked_add(1)?;
        let padded = pad.checked_mul(2).and_then(|both| size.checked_add(both))?;
        padded.checked_sub(span).map(|d| d / stride + 1)
    };
    let (Some(h), Some(w)) = (
        out(input.h, params.pad.0, params.dilation.0, filter.h, params.stride.0.max(1)),
        out(input.w, params.pad.1, params.dilation.1, filter.w, params.stride.1.max(1)),
    ) else {
        return Err(LibError::invalid(
            OP,
            format!("the filter {filter:?} with {params:?} does not fit the input {input:?}"),
        ));
    };
    let output = Shape4::new(input.n, filter.n, h, w);
    // A large padding makes an output MIOpen cannot describe (its
    // dimensions are ints) or whose count overflows.
    output.check(OP, "the output")?;
    Ok(output)
}

/// Convolve `x` (`input` shape) with `w` (`filter`: K × C × R × S) into
/// `y`, whose shape is [`conv2d_output_shape`]; on `y`'s stream. Returns
/// the output shape. Runs `miopenConvolutionForward`, after this handle's
/// first `miopenFindConvolutionForwardAlgorithm` for the problem.
///
/// # Errors
/// As [`conv2d_output_shape`]; before any call, [`LibError::InvalidInput`]
/// for x, w or y of another length, [`LibError::Unsupported`] for `f64`,
/// [`LibError::Hip`] with a device mismatch when x or w is not on y's device.
/// Then [`LibError::Status`] with MIOpen's status, [`LibError::InvalidInput`]
/// when the search finds no algorithm, or `Pool`/`Hip` for the workspace.
#[doc(alias = "miopenConvolutionForward")]
#[doc(alias = "miopenFindConvolutionForwardAlgorithm")]
pub fn conv2d_forward<T: DnnScalar>(
    x: &impl DeviceData<T>,
    input: Shape4,
    w: &impl DeviceData<T>,
    filter: Shape4,
    y: &mut impl DeviceDataMut<T>,
    params: Conv2d,
) -> Result<Shape4> {
    const OP: &str = "conv2d";
    let output = conv2d_output_shape(input, filter, params)?;
    for (what, have, want) in [("x", x.len(), input.len()), ("w", w.len(), filter.len()), ("y", y.len(), output.len())]
    {
        if have != want {
            return Err(LibError::invalid(OP, format!("{what} has {have} elements; {want} are needed")));
        }
    }
    require_fp32::<T>(OP)?;
    let device = y.device();
    same_device(OP, device, &[("x", x.device()), ("w", w.device())])?;
    let stream = y.stream().clone();
    let api = hip_sys::miopen()?;
    let (x_ptr, w_ptr, y_ptr) = (x.device_ptr(), w.device_ptr(), y.device_ptr_mut());
    let problem = (input, filter, params, T::DATATYPE == hip_sys::miopen::miopenDataType_t::miopenDouble);
    let operands = [(x.buffer(), Access::Read), (w.buffer(), Access::Read), (y.buffer(), Access::Write)];
    enqueue(&stream, operands, || {
        with_handle::<DnnHandle, _>(&HANDLES, device, &stream, |handle| {
            run_on(device, || -> Result<Shape4> {
                let mut plans = handle.convolutions.borrow_mut();
                let plan = plans.get_or_make(problem, || ConvPlan::new::<T>(input, filter, output, params))?;
                let (x_desc, w_desc, y_desc, conv) = (&plan.x, &plan.w, &plan.y, &plan.conv);
                let (algorithm, workspace) = match plan.algorithm {
                    // The algorithm this handle's search found, with the
                    // workspace it needs: no size query, no search.
                    Some((algorithm, bytes)) => (algorithm, work_area(device, bytes, &stream)?),
                    None => {
                        crate::handle_cache::refuse_during_capture_because(
                            "miopenFindConvolutionForwardAlgorithm",
                            "MIOpen's search runs and times every algorithm, which a capture cannot do; \
                             run this convolution once on this device before capturing",
                        )?;
                        let descriptors = [x_desc.0, w_desc.0, y_desc.0];
                        // SAFETY: live handle and descriptors.
                        let workspace_size =
                            unsafe { raw::convolution_forward_workspace_size(api, handle.raw, descriptors, conv.0) }?;
                        let workspace = work_area(device, workspace_size, &stream)?;
                        // SAFETY: live handle, descriptors and buffers of the
                        // checked sizes on its device.
                        let found = unsafe {
                            raw::find_convolution_forward(
                                api,
                                handle.raw,
                                ((x_desc.0, x_ptr), (w_desc.0, w_ptr)),
                                conv.0,
                                (y_desc.0, y_ptr),
                                raw_area(&workspace),
                            )
                        }?;
                        let Some(perf) = found else {
                            return Err(LibError::invalid(OP, "MIOpen found no forward algorithm for this problem"));
                        };
                        // SAFETY: the forward search fills the forward member of the union.
                        let algorithm = unsafe { perf.algo.fwd_algo };
                        plan.algorithm = Some((algorithm, perf.memory));
                        (algorithm, workspace)
                    }
                };
                // SAFETY: as above; the workspace holds what the algorithm
                // needs.
                unsafe {
                    raw::convolution_forward(
                        api,
                        handle.raw,
                        (ALPHA_ONE, BETA_ZERO),
                        ((x_desc.0, x_ptr), (w_desc.0, w_ptr)),
                        conv.0,
                        algorithm,
                        (y_desc.0, y_ptr),
                        raw_area(&workspace),
                    )
                }?;
                Ok(output)
            })?
        })
    })
}
