//! A DLPack tensor another framework made, taken as a [`DeviceArray`].

use super::{compact_strides, device_type, refused, DlPackElement, DlTensor};
use crate::{DeviceArray, DeviceSliceMut, Error, Result};
use hip_core::Stream;
use hip_sys::dlpack::DLPACK_MAJOR_VERSION;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A [`DeviceArray`] over a DLPack tensor's memory, made by
/// [`DeviceArray::from_dlpack`]. Dropped, it waits on the host for every
/// use of the memory and then calls the producer's deleter, once.
#[derive(Debug)]
pub struct ImportedArray<T: DlPackElement> {
    array: DeviceArray<T>,
    shape: Vec<i64>,
    strides: Vec<i64>,
    first: usize,
    read_only: bool,
}

/// Where a tensor's elements lie: its strides (the compact ones if it
/// gave none), and the span of memory they cover.
struct Layout {
    strides: Vec<i64>,
    /// Elements from the lowest element to the highest, both included
    /// (0 for no elements).
    span: usize,
    /// Elements from the lowest element to element `[0, …, 0]`.
    lowest: usize,
}

impl Layout {
    fn of(shape: &[i64], strides: Option<&[i64]>) -> Result<Layout> {
        let mut elements = 1u128;
        for extent in shape {
            let extent = u128::try_from(*extent).map_err(|_| refused(format!("a negative extent in {shape:?}")))?;
            elements = elements.saturating_mul(extent);
        }
        let strides = match strides {
            Some(strides) => strides.to_vec(),
            None => compact_strides(shape),
        };
        if elements == 0 {
            return Ok(Layout { strides, span: 0, lowest: 0 });
        }
        // Offsets in i128: 63-bit extents times 63-bit strides, summed
        // over at most i32::MAX dimensions, stay far inside it only with
        // saturation, which then fails the range check below.
        let (mut low, mut high) = (0i128, 0i128);
        for (extent, stride) in shape.iter().zip(&strides) {
            let reach = i128::from(*stride).saturating_mul(i128::from(*extent) - 1);
            if reach < 0 {
                low = low.saturating_add(reach);
            } else {
                high = high.saturating_add(reach);
            }
        }
        let span = usize::try_from(high - low + 1)
            .ok()
            .filter(|_| elements <= usize::MAX as u128)
            .ok_or_else(|| refused(format!("the shape {shape:?} with strides {strides:?} overflows")))?;
        let lowest = usize::try_from(-low).map_err(|_| refused(format!("the strides {strides:?} overflow")))?;
        Ok(Layout { strides, span, lowest })
    }
}

impl<T: DlPackElement> ImportedArray<T> {
    /// The memory as an array: the span from the tensor's lowest element
    /// to its highest. For a compact tensor, its elements in row-major
    /// order; otherwise element `[i, j, …]` is at
    /// [`first`](ImportedArray::first)` + i·strides[0] + j·strides[1] + …`.
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

    /// The tensor's strides in elements (the compact ones if it gave
    /// none).
    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    /// The index in [`array`](ImportedArray::array) of element
    /// `[0, …, 0]` (not 0 only with a negative stride).
    pub fn first(&self) -> usize {
        self.first
    }

    /// Whether the tensor is compact row-major, so that the array holds
    /// exactly its elements in order.
    pub fn is_contiguous(&self) -> bool {
        let compact = compact_strides(&self.shape);
        self.shape
            .iter()
            .zip(&self.strides)
            .zip(compact)
            .all(|((extent, stride), expected)| *extent <= 1 || *stride == expected)
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
    /// `T`'s dtype, of any shape and strides (a transposed or sliced
    /// tensor is taken as the span of memory its elements lie in, with
    /// its strides; see [`ImportedArray::array`]); its data pointer plus
    /// offset must be aligned for `T`.
    ///
    /// # Errors
    /// [`Error::DlPack`] naming what does not fit (the version, the
    /// device, the dtype, a negative extent, a shape and strides whose
    /// span overflows, an unaligned pointer); the tensor is deleted (its
    /// deleter called once) on every error.
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
        let Placed { address, bytes, len, shape, layout } = place::<T>(&tensor, stream)?;
        let read_only = tensor.is_read_only();
        let buffer = if len == 0 {
            drop(tensor);
            hip_pool::Buffer::empty(stream)
        } else {
            // SAFETY: the producer's tensor: its elements lie in the
            // `bytes` at `address` (the span of its shape and strides,
            // checked by `place`), device memory of the stream's device,
            // valid until its deleter runs, which the release does (by
            // dropping the tensor) only after every use of the buffer is
            // waited for.
            unsafe { hip_pool::Buffer::foreign(address as *mut _, bytes, stream, move || drop(tensor)) }
        };
        let (strides, first) = (layout.strides, layout.lowest);
        Ok(ImportedArray { array: DeviceArray::from_buffer(buffer, len), shape, strides, first, read_only })
    }
}

/// Where a tensor's elements are, once every rule is checked.
struct Placed {
    address: usize,
    bytes: usize,
    len: usize,
    shape: Vec<i64>,
    layout: Layout,
}

/// Check `tensor` against `T` and `stream` and find its span.
fn place<T: DlPackElement>(tensor: &DlTensor, stream: &Stream) -> Result<Placed> {
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
        return Err(refused(format!("ndim {} with {} shape", t.ndim, if t.shape.is_null() { "a null" } else { "a" })));
    }
    let shape = tensor.shape().to_vec();
    let layout = Layout::of(&shape, tensor.strides())?;
    let offset = usize::try_from(t.byte_offset).map_err(|_| refused(format!("byte offset {}", t.byte_offset)))?;
    let first = (t.data as usize)
        .checked_add(offset)
        .ok_or_else(|| refused(format!("data {:p} plus byte offset {offset} overflows", t.data)))?;
    // The span starts `lowest` elements before the first element (a
    // negative stride), and holds `len` elements.
    let (len, lowest) = (layout.span, layout.lowest);
    let bytes = len
        .checked_mul(size_of::<T>())
        .ok_or_else(|| refused(format!("{len} elements of {} bytes overflow", size_of::<T>())))?;
    let address = lowest
        .checked_mul(size_of::<T>())
        .and_then(|back| first.checked_sub(back))
        .ok_or_else(|| refused(format!("a stride reaches below address 0 from {first:#x}")))?;
    if len > 0 && (address == 0 || first % align_of::<T>() != 0) {
        return Err(refused(format!(
            "the data at {first:#x} is not aligned for {} ({} bytes)",
            std::any::type_name::<T>(),
            align_of::<T>()
        )));
    }
    Ok(Placed { address, bytes, len, shape, layout })
}

impl DlTensor {
    /// Use the tensor's memory as an array of `T` on `stream` for the
    /// length of `f`, without taking the tensor: its owner keeps it (and
    /// its deleter). When `f` returns, every use of the memory that `f`
    /// queued is waited for on the host, so none is left when the owner
    /// frees it. The rules are [`DeviceArray::from_dlpack`]'s; the array
    /// is the span of the tensor's elements (see [`ImportedArray::array`]).
    ///
    /// If that wait fails (a device error), the tensor is marked lost:
    /// its deleter never runs and its memory is leaked, never freed under
    /// a use that may still run.
    ///
    /// # Errors
    /// As [`DeviceArray::from_dlpack`] (the tensor is kept, not deleted);
    /// the error of the final wait.
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let mut tensor = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0])?.into_dlpack(None)?;
    /// let stream = Stream::new()?;
    /// let sum = tensor.with_array(&stream, |array: &DeviceArray<f32>| array.to_vec())??.iter().sum::<f32>();
    /// assert_eq!(sum, 6.0);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn with_array<T: DlPackElement, R>(
        &mut self,
        stream: &Stream,
        f: impl FnOnce(&DeviceArray<T>) -> R,
    ) -> Result<R> {
        self.borrowed(stream, |array| f(array))
    }

    /// [`DlTensor::with_array`] to write: `f` gets a mutable view of the
    /// whole array (a view, so that the array cannot be moved out of the
    /// scope).
    ///
    /// The view cannot leave the scope:
    ///
    /// ```compile_fail
    /// use amdgpu::prelude::*;
    ///
    /// let mut tensor = DeviceArray::from_slice(&[1.0f32])?.into_dlpack(None)?;
    /// let stream = Stream::new()?;
    /// let escaped = tensor.with_array_mut(&stream, |view: DeviceSliceMut<'_, f32>| view)?;
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`DlTensor::with_array`]; [`Error::DlPack`] when the producer
    /// marked the tensor read-only.
    pub fn with_array_mut<T: DlPackElement, R>(
        &mut self,
        stream: &Stream,
        f: impl FnOnce(DeviceSliceMut<'_, T>) -> R,
    ) -> Result<R> {
        if self.is_read_only() {
            return Err(read_only());
        }
        self.borrowed(stream, |array| array.slice_mut(..).map(f))?
    }

    /// An array over the tensor's span for `f`, then every use waited for.
    fn borrowed<T: DlPackElement, R>(
        &mut self,
        stream: &Stream,
        f: impl FnOnce(&mut DeviceArray<T>) -> R,
    ) -> Result<R> {
        let Placed { address, bytes, len, .. } = place::<T>(self, stream)?;
        let waited = Arc::new(AtomicBool::new(len == 0));
        let buffer = if len == 0 {
            hip_pool::Buffer::empty(stream)
        } else {
            let done = waited.clone();
            // SAFETY: the tensor's span (checked by `place`), valid while
            // the tensor lives: `self` is borrowed for this whole call, and
            // the buffer is dropped (its uses waited for) before it ends.
            unsafe {
                hip_pool::Buffer::foreign(address as *mut _, bytes, stream, move || done.store(true, Ordering::Release))
            }
        };
        let mut array = DeviceArray::from_buffer(buffer, len);
        let result = f(&mut array);
        // The drop waits for the array's uses; a failed wait leaves
        // `waited` false.
        drop(array);
        if !waited.load(Ordering::Acquire) {
            self.mark_lost();
            return Err(refused(
                "waiting for the work queued on the tensor failed: the tensor is lost (leaked, never freed under that \
                 work)"
                    .to_owned(),
            ));
        }
        Ok(result)
    }
}
