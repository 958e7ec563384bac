//! RAII tensor descriptors.

use super::raw;
use crate::{LibError, Result};
use hip_core::audit;
use hip_sys::miopen::{miopenDataType_t, miopenTensorDescriptor_t};

/// An element type of MIOpen tensors.
///
/// MIOpen computes softmax, activations and convolutions in FP32 (and
/// half types), never in FP64: its softmax runs the FP32 kernel over a
/// double tensor and returns garbage, and its activations and convolution
/// solvers refuse one. So the operations here take `f64` tensors only to
/// refuse them with [`LibError::Unsupported`], before MIOpen runs.
pub trait DnnScalar: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// MIOpen's data type.
    const DATATYPE: miopenDataType_t;
}

impl DnnScalar for f32 {
    const DATATYPE: miopenDataType_t = miopenDataType_t::miopenFloat;
}

impl DnnScalar for f64 {
    const DATATYPE: miopenDataType_t = miopenDataType_t::miopenDouble;
}

/// `alpha` 1 and `beta` 0, as MIOpen reads them for every data type:
/// `float`.
pub(crate) const ALPHA_ONE: f32 = 1.0;
/// See [`ALPHA_ONE`].
pub(crate) const BETA_ZERO: f32 = 0.0;

/// Refuse a data type MIOpen cannot compute `operation` in (FP64).
pub(crate) fn require_fp32<T: DnnScalar>(operation: &'static str) -> Result<()> {
    if T::DATATYPE == miopenDataType_t::miopenFloat {
        return Ok(());
    }
    Err(LibError::Unsupported {
        library: "MIOpen",
        operation,
        problem: format!(
            "MIOpen has no FP64 kernels for {operation}, so {} tensors are refused rather than computed \
             wrongly; convert to f32",
            std::any::type_name::<T>()
        ),
    })
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

    /// Number of elements, saturating at `usize::MAX` (which no array
    /// holds, so a shape that overflows never passes a length check).
    pub fn len(&self) -> usize {
        [self.n, self.c, self.h, self.w].iter().fold(1usize, |a, d| a.saturating_mul(*d))
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
        let desc = TensorDesc(raw::create_tensor(api)?);
        let dims = [shape.n as i32, shape.c as i32, shape.h as i32, shape.w as i32];
        // SAFETY: a live descriptor; dimensions were checked to fit an int.
        unsafe { raw::set_4d_tensor(api, desc.0, T::DATATYPE, dims) }?;
        Ok(desc)
    }
}

impl Drop for TensorDesc {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        if let Ok(api) = hip_sys::miopen() {
            // SAFETY: made by miopenCreateTensorDescriptor, destroyed once.
            if let Err(e) = unsafe { raw::destroy_tensor(api, self.0) } {
                log::error!("dropping a tensor descriptor: {e}");
            }
        }
    }
}
