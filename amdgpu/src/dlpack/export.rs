//! A [`DeviceArray`] made into a DLPack tensor.

use super::{compact_strides, device_type, refused, DlPackElement, DlTensor};
use crate::{DeviceArray, Result};
use hip_core::{DeviceMismatch, Stream};
use hip_pool::Access;
use hip_sys::dlpack::{
    DLDevice, DLManagedTensorVersioned, DLPackVersion, DLTensor, DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION,
};

/// What a tensor this crate made holds: the tensor first (its address is
/// the allocation's), then what it points to and what keeps the memory.
#[repr(C)]
struct Exported<T: DlPackElement> {
    managed: DLManagedTensorVersioned,
    shape: Vec<i64>,
    strides: Vec<i64>,
    array: DeviceArray<T>,
    /// The stream the consumer said it uses the tensor on, if not the
    /// array's own.
    consumer: Option<Stream>,
}

impl<T: DlPackElement> DeviceArray<T> {
    /// This array as a one-dimensional DLPack tensor; see
    /// [`DeviceArray::into_dlpack_shaped`].
    ///
    /// # Errors
    /// As [`DeviceArray::into_dlpack_shaped`].
    #[doc(alias = "__dlpack__")]
    pub fn into_dlpack(self, consumer: Option<&Stream>) -> Result<DlTensor> {
        let len = self.len();
        self.into_dlpack_shaped(&[len], consumer)
    }

    /// This array as a compact row-major DLPack tensor of `shape`
    /// (DLPack 1.1, `kDLROCM` or `kDLCUDA` memory, the element's dtype),
    /// for a consumer that uses it on `consumer` (the array's own stream
    /// if `None`).
    ///
    /// The array moves into the tensor and its memory stays the
    /// consumer's until the tensor's deleter runs. `consumer` waits on
    /// the GPU for the work queued on the array so far (the array API's
    /// stream handshake, with an event); when the deleter runs, the
    /// memory's next owner waits for what the consumer queued on
    /// `consumer` by then. If that cannot be recorded, the deleter waits
    /// for `consumer` on the host, and if that fails too, the memory is
    /// leaked rather than reused under the consumer's work.
    ///
    /// # Errors
    /// [`Error::DlPack`](crate::Error::DlPack) when `shape` does not hold
    /// exactly the array's elements (its product is checked for
    /// overflow) or has more dimensions than DLPack counts; a device
    /// mismatch when `consumer` is on another device; the pool's error
    /// when the handshake's wait cannot be queued. The array is dropped
    /// on error.
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let tensor = DeviceArray::from_slice(&[0u8; 12])?.into_dlpack_shaped(&[3, 4], None)?;
    /// assert_eq!((tensor.shape(), tensor.strides()), (&[3i64, 4][..], Some(&[4i64, 1][..])));
    /// let raw = tensor.into_raw(); // for C: its consumer calls the deleter
    /// // SAFETY: `raw` came from `into_raw` just above and nothing else owns it.
    /// drop(unsafe { amdgpu::dlpack::DlTensor::from_raw(raw) });
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    #[doc(alias = "DLManagedTensorVersioned")]
    pub fn into_dlpack_shaped(self, shape: &[usize], consumer: Option<&Stream>) -> Result<DlTensor> {
        let elements = shape.iter().try_fold(1usize, |n, d| n.checked_mul(*d));
        if elements != Some(self.len()) {
            return Err(refused(format!(
                "the shape {shape:?} holds {} elements, the array {}: give a shape whose product is the array's \
                 length",
                elements.map_or_else(|| "more than usize::MAX".to_owned(), |n| n.to_string()),
                self.len()
            )));
        }
        let ndim = i32::try_from(shape.len()).map_err(|_| refused(format!("{} dimensions", shape.len())))?;
        // Each extent is at most the length, which fits an i64.
        let shape: Vec<i64> = shape.iter().map(|d| i64::try_from(*d).unwrap_or(i64::MAX)).collect();
        let strides = compact_strides(&shape);
        let consumer = match consumer {
            Some(stream) if stream.id() != self.stream().id() => {
                DeviceMismatch::check(
                    "DeviceArray::into_dlpack",
                    "the consumer's stream",
                    self.device(),
                    stream.device(),
                )?;
                self.buffer().prepare(stream, Access::Write)?;
                Some(stream.clone())
            }
            _ => None,
        };
        let device = DLDevice {
            device_type: device_type(),
            device_id: i32::try_from(self.device().ordinal()).unwrap_or(i32::MAX),
        };
        let mut exported = Box::new(Exported {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: DLPACK_MAJOR_VERSION, minor: DLPACK_MINOR_VERSION },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete::<T>),
                flags: 0,
                dl_tensor: DLTensor {
                    data: self.as_ptr().cast_mut().cast(),
                    device,
                    ndim,
                    dtype: T::DTYPE,
                    shape: std::ptr::null_mut(),
                    strides: std::ptr::null_mut(),
                    byte_offset: 0,
                },
            },
            shape,
            strides,
            array: self,
            consumer,
        });
        exported.managed.dl_tensor.shape = exported.shape.as_mut_ptr();
        exported.managed.dl_tensor.strides = exported.strides.as_mut_ptr();
        let raw = Box::into_raw(exported);
        // SAFETY: `raw` is the box just leaked, valid until the deleter
        // frees it; the pointers into it stay put (the box does not move).
        unsafe {
            (*raw).managed.manager_ctx = raw.cast();
            Ok(DlTensor::from_raw(raw.cast::<DLManagedTensorVersioned>()).unwrap_or_else(|| unreachable!()))
        }
    }
}

/// The deleter of the tensors this crate makes.
///
/// # Safety
/// `this` is such a tensor, deleted once.
unsafe extern "C" fn delete<T: DlPackElement>(this: *mut DLManagedTensorVersioned) {
    if this.is_null() {
        return;
    }
    // SAFETY: the tensor's context is its `Exported` box (made in
    // `into_dlpack_shaped`), freed here once (the caller's promise).
    let exported = unsafe { Box::from_raw((*this).manager_ctx.cast::<Exported<T>>()) };
    // Never unwind into C.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || release(*exported)));
}

/// Give an exported array back, after the consumer's work.
fn release<T: DlPackElement>(exported: Exported<T>) {
    let Exported { array, consumer, .. } = exported;
    let Some(consumer) = consumer else { return };
    if let Err(error) = array.buffer().record(&consumer, Access::Write) {
        log::warn!("a DLPack tensor's deleter could not record the consumer's use ({error}); waiting for it");
        if let Err(error) = consumer.synchronize() {
            log::error!("a DLPack tensor's consumer stream failed ({error}): its memory is leaked, not reused");
            std::mem::forget(array);
        }
    }
}
