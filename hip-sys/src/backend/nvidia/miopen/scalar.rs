//! MIOpen's `alpha` and `beta`, read as floats and passed as cuDNN reads them.

use std::ffi::c_void;

use crate::miopen::miopenStatus_t;

/// MIOpen's float scalar, as the type cuDNN reads for the tensors: a
/// float for float tensors, a double for double ones.
pub(super) enum Scalar {
    F32(f32),
    F64(f64),
}

impl Scalar {
    /// Read MIOpen's `float *`.
    ///
    /// # Safety
    /// `p` is null or points to a readable `float`.
    pub(super) unsafe fn read(p: *const c_void, double: bool) -> Result<Scalar, miopenStatus_t> {
        if p.is_null() {
            return Err(miopenStatus_t::miopenStatusBadParm);
        }
        // SAFETY: the caller's guarantee; MIOpen reads a float.
        let v = unsafe { p.cast::<f32>().read_unaligned() };
        Ok(if double { Scalar::F64(f64::from(v)) } else { Scalar::F32(v) })
    }

    pub(super) fn ptr(&self) -> *const c_void {
        match self {
            Scalar::F32(v) => (v as *const f32).cast(),
            Scalar::F64(v) => (v as *const f64).cast(),
        }
    }

    pub(super) fn value(&self) -> f64 {
        match self {
            Scalar::F32(v) => f64::from(*v),
            Scalar::F64(v) => *v,
        }
    }
}
