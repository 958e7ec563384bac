//! Activation forward.

use super::handle::{DnnHandle, HANDLES};
use super::raw;
use super::tensor::{require_fp32, DnnScalar, Shape4, TensorDesc, ALPHA_ONE, BETA_ZERO};
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::handle_cache::with_handle;
use crate::{LibError, Result};
use hip_core::audit;
use hip_core::raw::run_on;
use hip_pool::{enqueue, Access};
use hip_sys::miopen::{miopenActivationDescriptor_t, miopenActivationMode_t};

/// An activation function, with MIOpen's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Activation {
    /// `y = x`.
    Identity,
    /// `y = 1 / (1 + e^-x)`.
    Sigmoid,
    /// `y = tanh(x)` (MIOpen's `beta * tanh(alpha * x)` with both 1).
    Tanh,
    /// `y = max(0, x)`.
    Relu,
    /// `y = ln(1 + e^x)`.
    SoftRelu,
    /// `y = |x|`.
    Abs,
    /// `y = min(max(0, x), ceiling)`.
    ClippedRelu {
        /// The ceiling.
        ceiling: f64,
    },
    /// `y = x` for `x > 0`, else `slope * x`.
    LeakyRelu {
        /// The negative slope.
        slope: f64,
    },
    /// `y = x` for `x > 0`, else `alpha * (e^x - 1)`.
    Elu {
        /// The scale of the negative part.
        alpha: f64,
    },
}

impl Activation {
    fn raw(self) -> (miopenActivationMode_t, f64, f64, f64) {
        use miopenActivationMode_t as M;
        match self {
            Activation::Identity => (M::miopenActivationPASTHRU, 0.0, 0.0, 0.0),
            Activation::Sigmoid => (M::miopenActivationLOGISTIC, 0.0, 0.0, 0.0),
            Activation::Tanh => (M::miopenActivationTANH, 1.0, 1.0, 0.0),
            Activation::Relu => (M::miopenActivationRELU, 0.0, 0.0, 0.0),
            Activation::SoftRelu => (M::miopenActivationSOFTRELU, 0.0, 0.0, 0.0),
            Activation::Abs => (M::miopenActivationABS, 0.0, 0.0, 0.0),
            Activation::ClippedRelu { ceiling } => (M::miopenActivationCLIPPEDRELU, ceiling, 0.0, 0.0),
            Activation::LeakyRelu { slope } => (M::miopenActivationLEAKYRELU, slope, 0.0, 0.0),
            Activation::Elu { alpha } => (M::miopenActivationELU, alpha, 0.0, 0.0),
        }
    }
}

struct ActivationDesc(miopenActivationDescriptor_t);

impl Drop for ActivationDesc {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        if let Ok(api) = hip_sys::miopen() {
            // SAFETY: made by miopenCreateActivationDescriptor, destroyed once.
            let _ = unsafe { raw::destroy_activation(api, self.0) };
        }
    }
}

/// `y = f(x)` elementwise over NCHW tensors of `shape`, on `y`'s stream
/// (`miopenActivationForward`).
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for a zero dimension, one
/// over `i32::MAX`, or x or y of another length than `shape`;
/// [`LibError::Unsupported`] for `f64`; [`LibError::Hip`] with a device
/// mismatch when x is not on y's device. Then [`LibError::Unavailable`]
/// without MIOpen, [`LibError::Status`] with MIOpen's status, or `Pool`/`Hip`
/// from operand ordering.
#[doc(alias = "miopenActivationForward")]
pub fn activation<T: DnnScalar>(
    x: &impl DeviceData<T>,
    y: &mut impl DeviceDataMut<T>,
    shape: Shape4,
    function: Activation,
) -> Result<()> {
    const OP: &str = "activation";
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
    let tensor = TensorDesc::new::<T>(shape)?;
    let desc = ActivationDesc(raw::create_activation(api)?);
    let (mode, a, b, g) = function.raw();
    // SAFETY: a live descriptor.
    unsafe { raw::set_activation(api, desc.0, mode, (a, b, g)) }?;
    let (x_ptr, y_ptr) = (x.device_ptr(), y.device_ptr_mut());
    let (alpha, beta) = (ALPHA_ONE, BETA_ZERO);
    let operands = [(x.buffer(), Access::Read), (y.buffer(), Access::Write)];
    enqueue(&stream, operands, || {
        with_handle::<DnnHandle, _>(&HANDLES, device, &stream, |handle| {
            // SAFETY: live handle and descriptors; x and y hold `shape`
            // elements on the handle's device.
            run_on(device, || unsafe {
                raw::activation_forward(api, handle.raw, desc.0, (alpha, beta), (tensor.0, x_ptr), (tensor.0, y_ptr))
            })?
        })
    })
}
