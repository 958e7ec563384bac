//! Softmax forward.

use super::handle::{DnnHandle, HANDLES};
use super::raw;
use super::tensor::{require_fp32, DnnScalar, Shape4, TensorDesc, ALPHA_ONE, BETA_ZERO};
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::handle_cache::with_handle;
use crate::{LibError, Result};
use hip_core::raw::run_on;
use hip_pool::{enqueue, Access};
use hip_sys::miopen::{miopenSoftmaxAlgorithm_t, miopenSoftmaxMode_t};

/// How softmax is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SoftmaxAlgorithm {
    /// Without subtracting the maximum (may overflow).
    Fast,
    /// Subtracting the maximum first.
    #[default]
    Accurate,
    /// The logarithm of the accurate softmax.
    Log,
}

/// Over what softmax normalizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SoftmaxMode {
    /// Over C × H × W, per image.
    Instance,
    /// Over C, per image and pixel.
    #[default]
    Channel,
}

/// `y = softmax(x)` over NCHW tensors of `shape`, on `y`'s stream
/// (`miopenSoftmaxForward_V2`).
///
/// # Errors
/// As [`activation`](fn@crate::dnn::activation): bad shapes and lengths, `f64`
/// and device mismatches before any call, then MIOpen's status of
/// `miopenSoftmaxForward_V2` or a descriptor call.
///
/// # Examples
/// ```
/// use hip_libs::dnn::{softmax, Shape4, SoftmaxAlgorithm, SoftmaxMode};
/// # fn probabilities(logits: &impl hip_libs::DeviceData<f32>, probs: &mut impl hip_libs::DeviceDataMut<f32>)
/// #     -> hip_libs::Result<()> {
/// // 32 rows of 1000 class scores: N = 32, C = 1000, H = W = 1.
/// let shape = Shape4::new(32, 1000, 1, 1);
/// softmax(logits, probs, shape, SoftmaxAlgorithm::Accurate, SoftmaxMode::Channel)?;
/// # Ok(()) }
/// ```
#[doc(alias = "miopenSoftmaxForward_V2")]
pub fn softmax<T: DnnScalar>(
    x: &impl DeviceData<T>,
    y: &mut impl DeviceDataMut<T>,
    shape: Shape4,
    algorithm: SoftmaxAlgorithm,
    mode: SoftmaxMode,
) -> Result<()> {
    const OP: &str = "softmax";
    shape.check(OP, "the tensor")?;
    if x.len() != shape.len() || y.len() != shape.len() {
        return Err(LibError::invalid(
            OP,
            format!("{shape:?} has {} elements; x has {}, y {}", shape.len(), x.len(), y.len()),
        ));
    }
    require_fp32::<T>(OP)?;
    let device = y.device();
    same_device(OP, device, &[("x", x.device())])?;
    let stream = y.stream().clone();
    let api = hip_sys::miopen()?;
    let desc = TensorDesc::new::<T>(shape)?;
    let algorithm = match algorithm {
        SoftmaxAlgorithm::Fast => miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_FAST,
        SoftmaxAlgorithm::Accurate => miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_ACCURATE,
        SoftmaxAlgorithm::Log => miopenSoftmaxAlgorithm_t::MIOPEN_SOFTMAX_LOG,
    };
    let mode = match mode {
        SoftmaxMode::Instance => miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_INSTANCE,
        SoftmaxMode::Channel => miopenSoftmaxMode_t::MIOPEN_SOFTMAX_MODE_CHANNEL,
    };
    let (x_ptr, y_ptr) = (x.device_ptr(), y.device_ptr_mut());
    let (alpha, beta) = (ALPHA_ONE, BETA_ZERO);
    let operands = [(x.buffer(), Access::Read), (y.buffer(), Access::Write)];
    enqueue(&stream, operands, || {
        with_handle::<DnnHandle, _>(&HANDLES, device, &stream, |handle| {
            // SAFETY: a live handle; x and y hold `shape` elements of T
            // on its device.
            run_on(device, || unsafe {
                raw::softmax_forward(
                    api,
                    handle.raw,
                    (alpha, beta),
                    (desc.0, x_ptr),
                    (desc.0, y_ptr),
                    (algorithm, mode),
                )
            })?
        })
    })
}
