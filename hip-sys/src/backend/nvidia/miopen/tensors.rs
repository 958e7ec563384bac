//! Tensor descriptors: a cuDNN tensor and filter descriptor each.

use std::ffi::c_int;

use super::library::{fns, NCHW};
use super::status::{entry, ok};
use crate::backend::nvidia::Handle;
use crate::miopen::{miopenDataType_t, miopenStatus_t, miopenTensorDescriptor_t};

/// A 4-d MIOpen tensor descriptor: cuDNN's tensor and filter descriptors
/// of the same shape and type.
#[derive(Debug)]
pub(super) struct Tensor {
    pub(super) tensor: Handle,
    pub(super) filter: Handle,
    /// `true` for `miopenDouble`; `None` until set.
    pub(super) double: Option<bool>,
    /// N, C, H, W as set; zeros until then.
    pub(super) dims: [c_int; 4],
}

pub(super) fn tensor<'a>(desc: miopenTensorDescriptor_t) -> Result<&'a Tensor, miopenStatus_t> {
    if desc.is_null() {
        return Err(miopenStatus_t::miopenStatusBadParm);
    }
    // SAFETY: a descriptor made by `miopenCreateTensorDescriptor` below
    // (C contract), alive while the caller uses it.
    Ok(unsafe { &*desc.cast::<Tensor>() })
}

/// The tensor's type, once set.
pub(super) fn double(t: &Tensor) -> Result<bool, miopenStatus_t> {
    t.double.ok_or(miopenStatus_t::miopenStatusNotInitialized)
}

pub(super) unsafe extern "C" fn miopenCreateTensorDescriptor(desc: *mut miopenTensorDescriptor_t) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        let (mut tensor, mut filter): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: valid out-pointers.
        ok("cudnnCreateTensorDescriptor", unsafe { (f.cudnnCreateTensorDescriptor)(&mut tensor) })?;
        // SAFETY: as above.
        if let Err(s) = ok("cudnnCreateFilterDescriptor", unsafe { (f.cudnnCreateFilterDescriptor)(&mut filter) }) {
            // SAFETY: made above, destroyed once.
            let _ = unsafe { (f.cudnnDestroyTensorDescriptor)(tensor) };
            return Err(s);
        }
        let made = Box::into_raw(Box::new(Tensor { tensor, filter, double: None, dims: [0; 4] }));
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { desc.write(made.cast()) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn miopenSet4dTensorDescriptor(
    desc: miopenTensorDescriptor_t,
    data_type: miopenDataType_t,
    n: c_int,
    c: c_int,
    h: c_int,
    w: c_int,
) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        let t = tensor(desc)?;
        let (cudnn_type, double) = match data_type {
            miopenDataType_t::miopenFloat => (0, false),
            miopenDataType_t::miopenDouble => (1, true),
            _ => return Err(miopenStatus_t::miopenStatusNotImplemented),
        };
        // SAFETY: live descriptors of this tensor.
        ok("cudnnSetTensor4dDescriptor", unsafe {
            (f.cudnnSetTensor4dDescriptor)(t.tensor, NCHW, cudnn_type, n, c, h, w)
        })?;
        // SAFETY: as above.
        ok("cudnnSetFilter4dDescriptor", unsafe {
            (f.cudnnSetFilter4dDescriptor)(t.filter, cudnn_type, NCHW, n, c, h, w)
        })?;
        // SAFETY: the descriptor is used by one caller at a time (MIOpen's rule).
        unsafe {
            let set = desc.cast::<Tensor>();
            (*set).double = Some(double);
            (*set).dims = [n, c, h, w];
        }
        Ok(())
    })
}

pub(super) unsafe extern "C" fn miopenDestroyTensorDescriptor(desc: miopenTensorDescriptor_t) -> miopenStatus_t {
    entry(|| {
        let f = fns()?;
        if desc.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: made by miopenCreateTensorDescriptor, destroyed once (C contract).
        let t = unsafe { Box::from_raw(desc.cast::<Tensor>()) };
        // SAFETY: its live cuDNN descriptors, destroyed once.
        let (a, b) =
            unsafe { ((f.cudnnDestroyTensorDescriptor)(t.tensor), (f.cudnnDestroyFilterDescriptor)(t.filter)) };
        ok("cudnnDestroyTensorDescriptor", a)?;
        ok("cudnnDestroyFilterDescriptor", b)
    })
}
