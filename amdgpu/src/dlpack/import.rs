//! A DLPack tensor another framework made, taken as a [`DeviceArray`].

use super::{device_type, refused, DlPackElement, DlTensor};
use crate::{DeviceArray, Error, Result};
use hip_core::Stream;
use hip_sys::dlpack::DLPACK_MAJOR_VERSION;

/// A [`DeviceArray`] over a DLPack tensor's memory, made by
/// [`DeviceArray::from_dlpack`]. Dropped, it waits on the host for every
/// use of the memory and then calls the producer's deleter, once.
#[derive(Debug)]
pub struct ImportedArray<T: DlPackElement> {
    array: DeviceArray<T>,
    shape: Vec<i64>,
    read_only: bool,
}

impl<T: DlPackElement> ImportedArray<T> {
    /// The memory as an array (its elements in row-major order).
    pub fn array(&self) -> &DeviceArray<T> {
        &self.array
    }

    /// The memory as an array to write.
    ///
    /// # Errors
    /// [`Error::DlPack`] when the producer marked it read-only.
    pub fn array_mut(&mut self) -> Result<&mut DeviceArray<T>> {
        if self.read_only {
            return Err(read_only());
        }
        Ok(&mut self.array)
    }

    /// The array itself, to keep (the producer's deleter runs when it
    /// drops).
    ///
    /// # Errors
    /// [`Error::DlPack`] when the producer marked it read-only.
    pub fn into_array(self) -> Result<DeviceArray<T>> {
        if self.read_only {
            return Err(read_only());
        }
        Ok(self.array)
    }

    /// The tensor's extents, outermost first.
    pub fn shape(&self) -> &[i64] {
        &self.shape
    }

    /// Whether the producer marked the memory read-only.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }
}

fn read_only() -> Error {
    refused("the producer marked this tensor read-only: copy it to write (DeviceArray::copy_from)".to_owned())
}

impl<T: DlPackElement> DeviceArray<T> {
    /// Take a DLPack tensor another framework made (a PyTorch, CuPy or
    /// JAX array's `__dlpack__(stream=…)`, or this crate's
    /// [`into_dlpack`](DeviceArray::into_dlpack)) as an array on `stream`,
    /// with no copy.
    ///
    /// The producer must have made its writes visible to `stream` (the
    /// array API's handshake: pass `stream` to `__dlpack__`). The tensor
    /// must be DLPack 1.x device memory of this backend (`kDLROCM` on AMD
    /// and the simulator, `kDLCUDA` on NVIDIA) on `stream`'s device, of
    /// `T`'s dtype, and compact row-major (any shape); its data pointer
    /// plus offset must be aligned for `T`.
    ///
    /// # Errors
    /// [`Error::DlPack`] naming what does not fit (the version, the
    /// device, the dtype, a stride, a size that overflows, an unaligned
    /// pointer); the tensor is deleted (its deleter called once) on every
    /// error.
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let tensor = DeviceArray::from_slice(&[1i32, 2, 3])?.into_dlpack(None)?;
    /// let stream = Stream::new()?;
    /// assert!(DeviceArray::<f32>::from_dlpack(tensor, &stream).is_err(), "i32 is not f32");
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    #[doc(alias = "__dlpack__")]
    pub fn from_dlpack(tensor: DlTensor, stream: &Stream) -> Result<ImportedArray<T>> {
        let version = tensor.version();
        if version.major != DLPACK_MAJOR_VERSION {
            return Err(refused(format!(
                "DLPack {}.{}: this crate reads major version {DLPACK_MAJOR_VERSION}",
                version.major, version.minor
            )));
        }
        let t = *tensor.tensor();
        if t.device.device_type != device_type() {
            return Err(refused(format!(
                "device type {} is not this backend's device memory ({}): move the tensor to the GPU first",
                t.device.device_type.0,
                device_type().0
            )));
        }
        if usize::try_from(t.device.device_id).ok() != Some(stream.device().ordinal()) {
            return Err(refused(format!(
                "the tensor is on device {}, the stream on {}: import it on a stream of its device",
                t.device.device_id,
                stream.device()
            )));
        }
        if t.dtype != T::DTYPE {
            return Err(refused(format!(
                "the tensor's dtype (code {}, {} bits, {} lanes) is not {}'s (code {}, {} bits)",
                t.dtype.code,
                t.dtype.bits,
                t.dtype.lanes,
                std::any::type_name::<T>(),
                T::DTYPE.code,
                T::DTYPE.bits
            )));
        }
        if t.ndim < 0 || (t.ndim > 0 && t.shape.is_null()) {
            return Err(refused(format!(
                "ndim {} with {} shape",
                t.ndim,
                if t.shape.is_null() { "a null" } else { "a" }
            )));
        }
        let shape = tensor.shape().to_vec();
        let mut len = 1usize;
        for extent in &shape {
            let extent = usize::try_from(*extent).map_err(|_| refused(format!("a negative extent in {shape:?}")))?;
            len = len.checked_mul(extent).ok_or_else(|| refused(format!("the shape {shape:?} overflows")))?;
        }
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or_else(|| refused(format!("{len} elements of {} bytes overflow", size_of::<T>())))?;
        if let Some(strides) = tensor.strides() {
            let mut expected = 1i64;
            for (i, (extent, stride)) in shape.iter().zip(strides).enumerate().rev() {
                if *extent > 1 && *stride != expected {
                    return Err(refused(format!(
                        "stride {stride} of dimension {i} in {strides:?} (shape {shape:?}) is not compact row-major: \
                         make the tensor contiguous first (e.g. tensor.contiguous())"
                    )));
                }
                expected = expected.saturating_mul(*extent);
            }
        }
        let offset = usize::try_from(t.byte_offset).map_err(|_| refused(format!("byte offset {}", t.byte_offset)))?;
        let address = (t.data as usize)
            .checked_add(offset)
            .ok_or_else(|| refused(format!("data {:p} plus byte offset {offset} overflows", t.data)))?;
        if len > 0 && (address == 0 || address % align_of::<T>() != 0) {
            return Err(refused(format!(
                "the data at {address:#x} is not aligned for {} ({} bytes)",
                std::any::type_name::<T>(),
                align_of::<T>()
            )));
        }
        let read_only = tensor.is_read_only();
        let buffer = if len == 0 {
            drop(tensor);
            hip_pool::Buffer::empty(stream)
        } else {
            // SAFETY: the producer's tensor: `bytes` of device memory of
            // the stream's device at `address` (checked above), valid
            // until its deleter runs, which the release does (by dropping
            // the tensor) only after every use of the buffer is waited for.
            unsafe { hip_pool::Buffer::foreign(address as *mut _, bytes, stream, move || drop(tensor)) }
        };
        Ok(ImportedArray { array: DeviceArray::from_buffer(buffer, len), shape, read_only })
    }
}
