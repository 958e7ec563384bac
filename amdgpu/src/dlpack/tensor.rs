//! [`DlTensor`]: ownership of one `DLManagedTensorVersioned`.

use hip_sys::dlpack::{DLManagedTensorVersioned, DLPackVersion, DLTensor, DLPACK_FLAG_BITMASK_READ_ONLY};
use std::ptr::NonNull;

/// A DLPack tensor (`DLManagedTensorVersioned`) owned by this value:
/// made by [`DeviceArray::into_dlpack`](crate::DeviceArray::into_dlpack)
/// or taken from a producer with [`DlTensor::from_raw`]. Dropped, it
/// calls the tensor's deleter, once; [`DlTensor::into_raw`] hands the
/// tensor (and that duty) to C.
#[derive(Debug)]
pub struct DlTensor {
    raw: NonNull<DLManagedTensorVersioned>,
    /// Work that may still use the memory could not be waited for: the
    /// deleter never runs (the memory is leaked).
    lost: bool,
}

// SAFETY: a DlTensor is the one owner of its tensor (the producer handed
// it over, or this crate made it), and it only reads the tensor's fields
// and calls its deleter once; DLPack lets the owner do both on any thread
// (the array API's producers free under their own locks, and this crate's
// deleter needs no particular thread). Pinned by
// `a_tensor_dropped_on_another_thread_is_deleted_once` in
// tests/tests/dlpack.rs.
unsafe impl Send for DlTensor {}

impl DlTensor {
    /// Take ownership of a tensor a producer handed over; `None` for null.
    ///
    /// # Safety
    ///
    /// `raw` must be a `DLManagedTensorVersioned` the caller owns: valid,
    /// its deleter not yet called, and no one else going to call it; its
    /// fields (shape, strides, data) valid until the deleter runs.
    pub unsafe fn from_raw(raw: *mut DLManagedTensorVersioned) -> Option<DlTensor> {
        NonNull::new(raw).map(|raw| DlTensor { raw, lost: false })
    }

    /// Never run the deleter: work that may still use the memory could
    /// not be waited for.
    pub(crate) fn mark_lost(&mut self) {
        self.lost = true;
    }

    /// Whether the tensor was lost: a wait for work on its memory failed,
    /// so its deleter will never run and its memory is leaked.
    pub fn is_lost(&self) -> bool {
        self.lost
    }

    /// Hand the tensor to C: whoever takes the pointer must call its
    /// deleter once (the DLPack contract). Null for a lost tensor
    /// ([`DlTensor::is_lost`]), which stays leaked.
    pub fn into_raw(self) -> *mut DLManagedTensorVersioned {
        let raw = if self.lost { std::ptr::null_mut() } else { self.raw.as_ptr() };
        std::mem::forget(self);
        raw
    }

    /// The tensor, for reading its fields.
    pub fn as_raw(&self) -> &DLManagedTensorVersioned {
        // SAFETY: valid until the deleter runs, which only `drop` does.
        unsafe { self.raw.as_ref() }
    }

    /// The producer's DLPack version.
    pub fn version(&self) -> DLPackVersion {
        self.as_raw().version
    }

    /// The `DLTensor` (device, dtype, data pointer, shape, strides).
    pub fn tensor(&self) -> &DLTensor {
        &self.as_raw().dl_tensor
    }

    /// Whether the producer said the memory must not be written.
    pub fn is_read_only(&self) -> bool {
        self.as_raw().flags & DLPACK_FLAG_BITMASK_READ_ONLY != 0
    }

    /// The extents, outermost first (empty if `ndim` is not positive or
    /// the shape pointer is null).
    pub fn shape(&self) -> &[i64] {
        // SAFETY: `ndim` extents behind `shape`, valid until the deleter
        // runs (DLPack's contract, the caller's promise in `from_raw`).
        unsafe { extents(self.tensor().shape, self.tensor().ndim) }
    }

    /// The strides in elements, or `None` for compact row-major.
    pub fn strides(&self) -> Option<&[i64]> {
        let tensor = self.tensor();
        // SAFETY: as in `shape`.
        (!tensor.strides.is_null()).then(|| unsafe { extents(tensor.strides, tensor.ndim) })
    }
}

/// `ndim` values at `values` (none if null or `ndim` not positive).
///
/// # Safety
/// If not null and `ndim` is positive, `values` points to `ndim` values.
unsafe fn extents<'a>(values: *const i64, ndim: i32) -> &'a [i64] {
    match usize::try_from(ndim) {
        // SAFETY: the caller's promise.
        Ok(n) if n > 0 && !values.is_null() => unsafe { std::slice::from_raw_parts(values, n) },
        _ => &[],
    }
}

impl Drop for DlTensor {
    fn drop(&mut self) {
        if self.lost {
            return;
        }
        // SAFETY: this value owns the tensor, whose deleter has not run
        // (it runs only here, once).
        unsafe {
            if let Some(deleter) = self.raw.as_ref().deleter {
                deleter(self.raw.as_ptr());
            }
        }
    }
}
