//! DLPack before 1.0: the unversioned `DLManagedTensor`, which consumers
//! that ask for no version take (`__dlpack__()` without `max_version`;
//! JAX's `from_dlpack` takes nothing else), made of a [`DlTensor`] and
//! taken into one. The unversioned tensor wraps the versioned one, or the
//! other way round, and each wrapper's deleter runs the wrapped one's
//! deleter, once, then frees the wrapper.

use super::{refused, DlTensor};
use crate::Result;
use hip_sys::dlpack::{DLManagedTensor, DLManagedTensorVersioned, DLPackVersion};
use std::ptr::NonNull;

impl DlTensor {
    /// Hand the tensor to C as an unversioned `DLManagedTensor` (DLPack
    /// before 1.0, for a capsule named `dltensor`): whoever takes the
    /// pointer must call its deleter once, which also runs this tensor's.
    ///
    /// # Errors
    /// [`Error::DlPack`](crate::Error::DlPack) for a read-only tensor (the
    /// old struct cannot say so, and its consumer would write) or a lost
    /// one ([`DlTensor::is_lost`]); a refused tensor is deleted as a drop
    /// deletes it (a lost one stays leaked).
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let array = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0])?;
    /// let pointer = array.as_ptr();
    /// let raw = array.into_dlpack(None)?.into_raw_unversioned()?;
    /// // A consumer of the old struct takes it (here, this crate again).
    /// // SAFETY: just made, owned by nobody else.
    /// let tensor = unsafe { amdgpu::dlpack::DlTensor::from_raw_unversioned(raw) }.unwrap();
    /// let imported = DeviceArray::<f32>::from_dlpack(tensor, &Stream::new()?)?;
    /// assert_eq!(imported.array().as_ptr(), pointer);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn into_raw_unversioned(self) -> Result<*mut DLManagedTensor> {
        if self.is_lost() {
            return Err(refused("the tensor was lost (a wait for work on its memory failed)".to_owned()));
        }
        if self.is_read_only() {
            return Err(refused(
                "a read-only tensor cannot be handed over unversioned (DLPack before 1.0 has no read-only flag); \
                 ask for a versioned one (`max_version=(1, 0)`)"
                    .to_owned(),
            ));
        }
        // The shape and strides it points to live until the versioned
        // tensor's deleter runs, which only the wrapper's deleter does.
        let dl_tensor = *self.tensor();
        let versioned = self.into_raw();
        let wrapper = Box::new(DLManagedTensor {
            dl_tensor,
            manager_ctx: versioned.cast(),
            deleter: Some(delete_wrapping_versioned),
        });
        Ok(Box::into_raw(wrapper))
    }

    /// Take ownership of an unversioned tensor (DLPack before 1.0) a
    /// producer handed over, as a tensor of version 1.0 with no flags
    /// (writable); `None` for null. Dropped, it runs the producer's
    /// deleter, once.
    ///
    /// # Safety
    ///
    /// As [`DlTensor::from_raw`], for a `DLManagedTensor`.
    pub unsafe fn from_raw_unversioned(raw: *mut DLManagedTensor) -> Option<DlTensor> {
        let raw = NonNull::new(raw)?;
        // SAFETY: the caller's promise: a valid tensor.
        let dl_tensor = unsafe { raw.as_ref().dl_tensor };
        let wrapper = Box::new(DLManagedTensorVersioned {
            version: DLPackVersion { major: 1, minor: 0 },
            manager_ctx: raw.as_ptr().cast(),
            deleter: Some(delete_wrapping_unversioned),
            flags: 0,
            dl_tensor,
        });
        // SAFETY: a tensor just made, owning the producer's.
        unsafe { DlTensor::from_raw(Box::into_raw(wrapper)) }
    }
}

/// The deleter of an unversioned wrapper: the versioned tensor's deleter,
/// then the wrapper.
///
/// # Safety
/// `this` is a wrapper [`DlTensor::into_raw_unversioned`] made, deleted once.
unsafe extern "C" fn delete_wrapping_versioned(this: *mut DLManagedTensor) {
    if this.is_null() {
        return;
    }
    // SAFETY: the caller's promise: our box, freed once, here.
    let wrapper = unsafe { Box::from_raw(this) };
    // SAFETY: the versioned tensor it owns; dropped, its deleter runs once.
    drop(unsafe { DlTensor::from_raw(wrapper.manager_ctx.cast::<DLManagedTensorVersioned>()) });
}

/// The deleter of a versioned wrapper: the producer's deleter, then the
/// wrapper.
///
/// # Safety
/// `this` is a wrapper [`DlTensor::from_raw_unversioned`] made, deleted once.
unsafe extern "C" fn delete_wrapping_unversioned(this: *mut DLManagedTensorVersioned) {
    if this.is_null() {
        return;
    }
    // SAFETY: the caller's promise: our box, freed once, here.
    let wrapper = unsafe { Box::from_raw(this) };
    let inner = wrapper.manager_ctx.cast::<DLManagedTensor>();
    // SAFETY: the producer's tensor it owns, deleted once, here.
    unsafe {
        if let Some(deleter) = (*inner).deleter {
            deleter(inner);
        }
    }
}
