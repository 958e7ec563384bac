//! Softmax forward.

use std::ffi::{c_int, c_void};

use super::library::fns;
use super::scalar::Scalar;
use super::status::{entry, ok};
use super::tensors::{double, tensor};
use crate::miopen::{
    miopenHandle_t, miopenSoftmaxAlgorithm_t, miopenSoftmaxMode_t, miopenStatus_t, miopenTensorDescriptor_t,
};

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn miopenSoftmaxForward_V2(
    handle: miopenHandle_t,
    alpha: *const c_void,
    x_desc: miopenTensorDescriptor_t,
    x: *const c_void,
    beta: *const c_void,
    y_desc: miopenTensorDescriptor_t,
    y: *mut c_void,
    algorithm: miopenSoftmaxAlgorithm_t,
    mode: miopenSoftmaxMode_t,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let (xt, yt) = (tensor(x_desc)?, tensor(y_desc)?);
        let d = double(xt)?;
        if handle.is_null() || algorithm.0 > 2 || mode.0 > 1 {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: MIOpen's host floats (C contract).
        let (a, b) = unsafe { (Scalar::read(alpha, d)?, Scalar::read(beta, d)?) };
        // SAFETY: live handle and descriptors; the buffers hold the tensors
        // (C contract). The numbers of algorithm and mode are cuDNN's too.
        ok("cudnnSoftmaxForward", unsafe {
            (f.cudnnSoftmaxForward)(
                handle.cast(),
                algorithm.0 as c_int,
                mode.0 as c_int,
                a.ptr(),
                xt.tensor,
                x,
                b.ptr(),
                yt.tensor,
                y,
            )
        })
    })
}
