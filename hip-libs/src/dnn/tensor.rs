//! RAII tensor descriptors.

use super::handle::check;
use crate::{LibError, Result};
use hip_core::audit;
use hip_sys::miopen::{miopenDataType_t, miopenTensorDescriptor_t};

/// An element type MIOpen computes with.
pub trait DnnScalar: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// MIOpen's data type.
    const DATATYPE: miopenDataType_t;
    /// 1 and 0 as this type, for alpha and beta.
    const ONE: Self;
    /// Zero.
    const ZERO: Self;
}

impl DnnScalar for f32 {
    const DATATYPE: miopenDataType_t = miopenDataType_t::miopenFloat;
    const ONE: Self = 1.0;
    const ZERO: Self = 0.0;
}

impl DnnScalar for f64 {
    const DATATYPE: miopenDataType_t = miopenDataType_t::miopenDouble;
    const ONE: Self = 1.0;
    const ZERO: Self = 0.0;
}

/// A 4-D tensor shape in NCHW order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape4 {
    /// Batch.
    pub n: usize,
    /// Channels.
    pub c: usize,
    /// Height.
    pub h: usize,
    /// Width.
    pub w: usize,
}

impl Shape4 {
    /// A shape.
    pub fn new(n: usize, c: usize, h: usize, w: usize) -> Shape4 {
        Shape4 { n, c, h, w }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.n * self.c * self.h * self.w
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn check(&self, operation: &'static str, what: &str) -> Result<()> {
        let dims = [self.n, self.c, self.h, self.w];
        if dims.iter().any(|d| *d == 0 || *d > i32::MAX as usize) {
            return Err(LibError::invalid(
                operation,
                format!("{what} shape {self:?}: every dimension must be 1 to {}", i32::MAX),
            ));
        }
        if dims.iter().try_fold(1usize, |a, d| a.checked_mul(*d)).is_none() {
            return Err(LibError::invalid(operation, format!("{what} shape {self:?} overflows")));
        }
        Ok(())
    }
}

/// A packed NCHW tensor descriptor, destroyed on drop.
pub(crate) struct TensorDesc(pub miopenTensorDescriptor_t);

impl TensorDesc {
    pub fn new<T: DnnScalar>(shape: Shape4) -> Result<TensorDesc> {
        let api = hip_sys::miopen()?;
        let mut raw: miopenTensorDescriptor_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        check(unsafe { (api.miopenCreateTensorDescriptor)(&mut raw) }, "miopenCreateTensorDescriptor")?;
        let desc = TensorDesc(raw);
        check(
            // SAFETY: a live descriptor; dimensions were checked to fit an int.
            unsafe {
                (api.miopenSet4dTensorDescriptor)(
                    desc.0,
                    T::DATATYPE,
                    shape.n as i32,
                    shape.c as i32,
                    shape.h as i32,
                    shape.w as i32,
                )
            },
            "miopenSet4dTensorDescriptor",
        )?;
        Ok(desc)
    }
}

impl Drop for TensorDesc {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        if let Ok(api) = hip_sys::miopen() {
            if let Err(e) =
                // SAFETY: made by miopenCreateTensorDescriptor, destroyed once.
                check(unsafe { (api.miopenDestroyTensorDescriptor)(self.0) }, "miopenDestroyTensorDescriptor")
            {
                log::error!("dropping a tensor descriptor: {e}");
            }
        }
    }
}
