//! Activation descriptors and activation forward.

use std::ffi::{c_int, c_void};

use super::library::{fns, NOT_PROPAGATE_NAN};
use super::scalar::Scalar;
use super::status::{entry, ok};
use super::tensors::{double, tensor};
use crate::backend::nvidia::Handle;
use crate::miopen::{
    miopenActivationDescriptor_t, miopenActivationMode_t, miopenHandle_t, miopenStatus_t, miopenTensorDescriptor_t,
};

/// A MIOpen activation descriptor: cuDNN's, once its mode is mapped.
#[derive(Debug)]
struct Activation {
    cudnn: Handle,
}

pub(super) unsafe extern "C" fn miopenCreateActivationDescriptor(
    desc: *mut miopenActivationDescriptor_t,
) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let mut cudnn: Handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        ok("cudnnCreateActivationDescriptor", unsafe { (fns()?.cudnnCreateActivationDescriptor)(&mut cudnn) })?;
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { desc.write(Box::into_raw(Box::new(Activation { cudnn })).cast()) };
        Ok(())
    })
}

/// MIOpen's activation as cuDNN's `(mode, coef)`; `None` where cuDNN has
/// no activation computing the same function.
fn activation_mode(mode: miopenActivationMode_t, alpha: f64, beta: f64) -> Option<(c_int, f64)> {
    use miopenActivationMode_t as M;
    match mode {
        M::miopenActivationLOGISTIC => Some((0, 0.0)),
        M::miopenActivationRELU => Some((1, 0.0)),
        M::miopenActivationTANH if alpha == 1.0 && beta == 1.0 => Some((2, 0.0)),
        M::miopenActivationCLIPPEDRELU => Some((3, alpha)),
        M::miopenActivationELU => Some((4, alpha)),
        _ => None,
    }
}

pub(super) unsafe extern "C" fn miopenSetActivationDescriptor(
    desc: miopenActivationDescriptor_t,
    mode: miopenActivationMode_t,
    alpha: f64,
    beta: f64,
    _power: f64,
) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let Some((cudnn_mode, coef)) = activation_mode(mode, alpha, beta) else {
            log::error!("MIOpen over cuDNN: activation mode {} ({alpha}, {beta}) has no cuDNN counterpart", mode.0);
            return Err(miopenStatus_t::miopenStatusNotImplemented);
        };
        // SAFETY: a descriptor made below (C contract).
        let a = unsafe { &*desc.cast::<Activation>() };
        // SAFETY: its live cuDNN descriptor.
        ok("cudnnSetActivationDescriptor", unsafe {
            (fns()?.cudnnSetActivationDescriptor)(a.cudnn, cudnn_mode, NOT_PROPAGATE_NAN, coef)
        })
    })
}

pub(super) unsafe extern "C" fn miopenDestroyActivationDescriptor(
    desc: miopenActivationDescriptor_t,
) -> miopenStatus_t {
    entry(|| {
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: made by miopenCreateActivationDescriptor, destroyed once.
        let a = unsafe { Box::from_raw(desc.cast::<Activation>()) };
        // SAFETY: its live cuDNN descriptor, destroyed once.
        ok("cudnnDestroyActivationDescriptor", unsafe { (fns()?.cudnnDestroyActivationDescriptor)(a.cudnn) })
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn miopenActivationForward(
    handle: miopenHandle_t,
    desc: miopenActivationDescriptor_t,
    alpha: *const c_void,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    beta: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let (xt, yt) = (tensor(x_desc)?, tensor(y_desc)?);
        let d = double(xt)?;
        if handle.is_null() || desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: MIOpen's host floats (C contract).
        let (a, b) = unsafe { (Scalar::read(alpha, d)?, Scalar::read(beta, d)?) };
        if a.value() != 1.0 || b.value() != 0.0 {
            // MIOpen's activation forward takes only alpha 1, beta 0.
            return Err(miopenStatus_t::miopenStatusUnknownError);
        }
        // SAFETY: a descriptor made above (C contract).
        let act = unsafe { &*desc.cast::<Activation>() };
        // SAFETY: live handle and descriptors; the buffers hold the tensors.
        ok("cudnnActivationForward", unsafe {
            (f.cudnnActivationForward)(handle.cast(), act.cudnn, a.ptr(), xt.tensor, x, b.ptr(), yt.tensor, y)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations_map_only_to_the_same_function() {
        use miopenActivationMode_t as M;
        assert_eq!(activation_mode(M::miopenActivationLOGISTIC, 0.0, 0.0), Some((0, 0.0)));
        assert_eq!(activation_mode(M::miopenActivationRELU, 0.0, 0.0), Some((1, 0.0)));
        assert_eq!(activation_mode(M::miopenActivationTANH, 1.0, 1.0), Some((2, 0.0)));
        assert_eq!(activation_mode(M::miopenActivationTANH, 2.0, 1.0), None, "scaled tanh");
        assert_eq!(activation_mode(M::miopenActivationCLIPPEDRELU, 6.0, 0.0), Some((3, 6.0)));
        assert_eq!(activation_mode(M::miopenActivationELU, 0.5, 0.0), Some((4, 0.5)));
        for m in [
            M::miopenActivationPASTHRU,
            M::miopenActivationSOFTRELU,
            M::miopenActivationABS,
            M::miopenActivationPOWER,
            M::miopenActivationLEAKYRELU,
        ] {
            assert_eq!(activation_mode(m, 1.0, 1.0), None, "{m:?}");
        }
    }
}
