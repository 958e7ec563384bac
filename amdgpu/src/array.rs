//! `DeviceArray<T>`: a typed array in device memory, and `DeviceSlice`
//! views of it.

use crate::{Device, DeviceMismatch, Error, Result, Stream};
use hip_pool::{Access, Buffer};
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

/// Plain data that can live in device memory and be copied byte for byte:
/// every [`bytemuck::Pod`] type that may cross threads.
///
/// Copies read and write a value as its bytes in both directions, so a
/// type must have no padding (its bytes are all initialised: reading
/// padding is undefined behaviour) and accept every bit pattern (the
/// device may write any bytes), and hold no host pointers or drop glue.
/// That is exactly bytemuck's `Pod`, whose derive checks the layout at
/// compile time, so this trait has no other implementations than the one
/// for every `Pod + Send + Sync` type: the numbers, `half::f16` and
/// `half::bf16`, arrays of them, and your own `#[repr(C)]` structs with
/// `#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]`
/// ([`bytemuck`] is re-exported as `amdgpu::bytemuck`).
///
/// ```
/// use amdgpu::prelude::*;
///
/// #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// struct Particle {
///     position: [f32; 3],
///     mass: f32,
/// }
///
/// let mut particles = DeviceArray::<Particle>::zeros(4)?;
/// particles.fill(Particle { position: [1.0, 2.0, 3.0], mass: 0.5 })?;
/// assert_eq!(particles.to_vec()?[3].mass, 0.5);
/// # Ok::<(), amdgpu::Error>(())
/// ```
///
/// A type with padding is refused when it is compiled, so its padding is
/// never read:
///
/// ```compile_fail
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// struct Padded {
///     tag: u8, // three bytes of padding follow
///     value: u32,
/// }
/// let _ = amdgpu::DeviceArray::<Padded>::zeros(1);
/// ```
///
/// Nor can a type opt in by hand without `Pod`:
///
/// ```compile_fail
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Padded {
///     tag: u8,
///     value: u32,
/// }
/// impl amdgpu::DeviceCopy for Padded {}
/// ```
pub trait DeviceCopy: bytemuck::Pod + Send + Sync {}

impl<T: bytemuck::Pod + Send + Sync> DeviceCopy for T {}

/// An array of `T` in one device's memory, from that device's pool.
///
/// It remembers its device and stream; copies run on that stream and wait
/// for it, so they see the results of earlier work on it. Dropping it
/// returns its memory to the pool, from any thread, with no HIP call.
///
/// ```
/// use amdgpu::prelude::*;
///
/// let data: Vec<f32> = (0..1000).map(|i| i as f32).collect();
/// let array = DeviceArray::from_slice(&data)?;
/// assert_eq!(array.len(), 1000);
/// assert_eq!(array.device(), amdgpu::device());
/// assert_eq!(array.to_vec()?, data);
/// let middle = array.slice(10..20)?;
/// assert_eq!(middle.to_vec()?, &data[10..20]);
/// # Ok::<(), amdgpu::Error>(())
/// ```
pub struct DeviceArray<T: DeviceCopy> {
    buffer: Buffer,
    len: usize,
    _t: PhantomData<T>,
}

pub(crate) fn bytes_of<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or(Error::OutOfBounds {
        start: 0,
        end: len,
        len: usize::MAX / std::mem::size_of::<T>().max(1),
    })
}

/// [`hip_core::copy_after`], with the facade's error.
///
/// # Safety
/// Both ranges are valid for `bytes` until the call returns.
unsafe fn copy_sync(dst: *mut c_void, src: *const c_void, bytes: usize, stream: &Stream) -> Result<()> {
    // SAFETY: the caller's guarantee, passed on.
    Ok(unsafe { hip_core::copy_after(dst, src, bytes, stream) }?)
}

impl<T: DeviceCopy> DeviceArray<T> {
    /// An array of `len` elements over `buffer` (at least that many
    /// bytes).
    pub(crate) fn from_buffer(buffer: Buffer, len: usize) -> Self {
        DeviceArray { buffer, len, _t: PhantomData }
    }

    /// An array of `len` elements whose contents are whatever the memory
    /// held.
    ///
    /// # Errors
    /// [`Error::Hip`] with a device mismatch when `stream` is not on
    /// `device`; [`Error::OutOfBounds`] when `len` elements overflow the
    /// address space; [`Error::Pool`] as [`hip_pool::alloc_on`] (e.g.
    /// `PoolError::OutOfMemory` after the out-of-memory ladder).
    ///
    /// # Safety
    /// Reading an element before writing it reads unspecified bytes; `T`
    /// tolerates any bytes ([`DeviceCopy`]), but the values are garbage.
    pub unsafe fn uninit_on(device: Device, len: usize, stream: &Stream) -> Result<Self> {
        DeviceMismatch::check("DeviceArray::uninit_on", "the stream", device, stream.device())?;
        let buffer = hip_pool::alloc_on(device, bytes_of::<T>(len)?, stream)?;
        Ok(DeviceArray { buffer, len, _t: PhantomData })
    }

    /// A copy of `data` on this thread's device, using this thread's stream.
    ///
    /// # Errors
    /// As [`DeviceArray::from_slice_on`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let array = DeviceArray::from_slice(&[1u32, 2, 3])?;
    /// assert_eq!(array.len(), 3);
    /// assert_eq!(array.device(), device());
    /// assert_eq!(array.to_vec()?, [1, 2, 3]);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    #[track_caller]
    pub fn from_slice(data: &[T]) -> Result<Self> {
        Self::from_slice_on(&crate::stream(), data)
    }

    /// A copy of `data` on `stream`'s device.
    ///
    /// # Errors
    /// As [`DeviceArray::uninit_on`], then as [`DeviceArray::copy_from_slice`].
    pub fn from_slice_on(stream: &Stream, data: &[T]) -> Result<Self> {
        // SAFETY: every element is written by the copy below before any read.
        let mut array = unsafe { Self::uninit_on(stream.device(), data.len(), stream)? };
        array.copy_from_slice(data)?;
        Ok(array)
    }

    /// `len` zeroed elements on this thread's device.
    ///
    /// # Errors
    /// As [`DeviceArray::zeros_on`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let array = DeviceArray::<f32>::zeros(4)?;
    /// assert_eq!(array.len(), 4);
    /// assert_eq!(array.to_vec()?, [0.0; 4]);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    #[track_caller]
    pub fn zeros(len: usize) -> Result<Self> {
        Self::zeros_on(&crate::stream(), len)
    }

    /// `len` zeroed elements on `stream`'s device.
    ///
    /// # Errors
    /// As [`DeviceArray::uninit_on`]; then [`Error::Hip`] with HIP's status
    /// of `hipMemsetAsync` or `hipStreamSynchronize`.
    pub fn zeros_on(stream: &Stream, len: usize) -> Result<Self> {
        // SAFETY: the memset below writes every byte before any read.
        let array = unsafe { Self::uninit_on(stream.device(), len, stream)? };
        array.memset(0)?;
        Ok(array)
    }

    fn memset(&self, byte: u8) -> Result<()> {
        let bytes = self.len * std::mem::size_of::<T>();
        if bytes == 0 {
            return Ok(());
        }
        let stream = self.stream().clone();
        // Before the fill is queued: it is waited for below.
        hip_core::capture::check_wait("DeviceArray::fill", &stream)?;
        hip_pool::enqueue(&stream, [(&self.buffer, Access::Write)], || {
            // SAFETY: the range is this array's memory, on the stream's
            // device; the stream is synchronized before the array is
            // handed out.
            unsafe { hip_core::raw::mem::fill_async(self.device(), self.buffer.as_ptr(), byte, bytes, stream.as_raw()) }
                .map_err(Error::from)
        })?;
        Ok(stream.synchronize()?)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device the array lives on.
    pub fn device(&self) -> Device {
        self.buffer.device()
    }

    /// The stream the array's copies run on.
    pub fn stream(&self) -> &Stream {
        self.buffer.stream()
    }

    /// Make `stream` (same device) the array's own stream: later copies
    /// run on it, and work queued so far on the old one is ordered before
    /// them on the GPU.
    ///
    /// # Errors
    /// [`Error::Pool`] as [`Buffer::set_stream`]: a device mismatch when
    /// `stream` is on another device, or a failed ordering call.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        Ok(self.buffer.set_stream(stream)?)
    }

    /// The device address of the first element.
    pub fn as_ptr(&self) -> *const T {
        self.buffer.as_ptr().cast()
    }

    /// The device address of the first element, for writing.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.buffer.as_ptr().cast()
    }

    /// The memory behind the array.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// Copy `data` in; its length must equal the array's. Synchronous:
    /// `data` is pageable memory, so this returns once the copy is done;
    /// for a copy that overlaps other work, copy from a
    /// [`HostBuffer`](crate::HostBuffer) with
    /// [`DeviceArray::copy_from_host_async`].
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the lengths differ (nothing copied);
    /// [`Error::Hip`] with HIP's status of `hipStreamSynchronize` or
    /// `hipMemcpy`; [`Error::Pool`] when ordering the array's other uses fails.
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let mut array = DeviceArray::<i32>::zeros(3)?;
    /// array.copy_from_slice(&[7, 8, 9])?; // done when it returns
    /// assert_eq!(array.to_vec()?, [7, 8, 9]);
    /// let error = array.copy_from_slice(&[1, 2]);
    /// assert!(matches!(error, Err(amdgpu::Error::LengthMismatch { .. })));
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch { operation: "copy_from_slice", device: self.len, host: data.len() });
        }
        let stream = self.buffer.stream();
        hip_pool::enqueue(stream, [(&self.buffer, Access::Write)], || {
            // SAFETY: both ranges hold len elements; the copy is waited for.
            unsafe { copy_sync(self.buffer.as_ptr(), data.as_ptr().cast(), std::mem::size_of_val(data), stream) }
        })
    }

    /// Copy the array out into `out`; lengths must be equal. Synchronous
    /// (see [`DeviceArray::copy_from_slice`]; the asynchronous copy is
    /// [`DeviceArray::copy_to_host_async`]).
    ///
    /// # Errors
    /// As [`DeviceSlice::copy_to_slice`].
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        self.as_slice().copy_to_slice(out)
    }

    /// The array's contents, copied synchronously.
    ///
    /// # Errors
    /// As [`DeviceSlice::to_vec`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let array = DeviceArray::from_slice(&[1.5f32, 2.5])?;
    /// let values: Vec<f32> = array.to_vec()?;
    /// assert_eq!(values, [1.5, 2.5]);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.as_slice().to_vec()
    }

    /// Set every element to `value`.
    ///
    /// # Errors
    /// [`Error::Hip`] with HIP's status of `hipMemsetAsync` or
    /// `hipStreamSynchronize` (a value of one repeated byte), else as
    /// [`DeviceArray::copy_from_slice`]; [`Error::Pool`] when ordering fails.
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let mut array = DeviceArray::<f32>::zeros(4)?;
    /// array.fill(2.5)?;
    /// assert_eq!(array.to_vec()?, [2.5; 4]);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn fill(&mut self, value: T) -> Result<()> {
        // Pod: every byte of the value is initialised.
        let bytes = bytemuck::bytes_of(&value);
        if let Some(&first) = bytes.first() {
            if bytes.iter().all(|b| *b == first) {
                return self.memset(first);
            }
        }
        let host = vec![value; self.len];
        self.copy_from_slice(&host)
    }

    /// Copy another array's contents in (device to device, also across
    /// devices); lengths must be equal. Returns once the copy is done; the
    /// asynchronous copy is [`DeviceArray::copy_from_async`].
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the lengths differ (nothing copied);
    /// [`Error::Hip`] with HIP's status of `hipMemcpyAsync` or
    /// `hipStreamSynchronize`; [`Error::Pool`] when ordering the uses fails.
    pub fn copy_from(&mut self, other: &DeviceArray<T>) -> Result<()> {
        if other.len != self.len {
            return Err(Error::LengthMismatch { operation: "copy_from", device: self.len, host: other.len });
        }
        // The copy runs on this array's stream: it waits on the GPU for the
        // source's queued work and uses on other streams, and for this
        // array's. It is waited for, so nothing needs recording after.
        let stream = self.buffer.stream();
        let bytes = other.len * std::mem::size_of::<T>();
        hip_pool::enqueue(stream, [(&self.buffer, Access::Write), (&other.buffer, Access::Read)], || {
            // Not `copy_sync`: a blocking hipMemcpy within one device
            // returns before the copy has run.
            // SAFETY: both are device ranges of len elements, alive until
            // the copy has been waited for.
            unsafe { hip_core::copy_device_after(self.buffer.as_ptr(), other.buffer.as_ptr(), bytes, stream) }
                .map_err(Error::from)
        })
    }

    /// A view of the whole array.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { array: self, start: 0, len: self.len }
    }

    /// A view of `range` (an error if it is out of bounds).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range starts after it ends or ends
    /// past the array.
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let array = DeviceArray::from_slice(&[0u32, 1, 2, 3, 4])?;
    /// let middle = array.slice(1..4)?;
    /// assert_eq!(middle.len(), 3);
    /// assert_eq!(middle.to_vec()?, [1, 2, 3]);
    /// assert!(matches!(array.slice(3..9), Err(amdgpu::Error::OutOfBounds { .. })));
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        let start = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s.saturating_add(1),
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(&e) => e.saturating_add(1),
            Bound::Excluded(&e) => e,
            Bound::Unbounded => self.len,
        };
        if start > end || end > self.len {
            return Err(Error::OutOfBounds { start, end, len: self.len });
        }
        Ok(DeviceSlice { array: self, start, len: end - start })
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceArray<{}>({} elements on {})", std::any::type_name::<T>(), self.len, self.device())
    }
}

/// A view of part of a [`DeviceArray`].
#[derive(Clone, Copy)]
pub struct DeviceSlice<'a, T: DeviceCopy> {
    array: &'a DeviceArray<T>,
    start: usize,
    len: usize,
}

impl<'a, T: DeviceCopy> DeviceSlice<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device of the array.
    pub fn device(&self) -> Device {
        self.array.device()
    }

    /// The device address of the view's first element.
    pub fn as_ptr(&self) -> *const T {
        self.array.as_ptr().wrapping_add(self.start)
    }

    /// The array the view is of.
    pub fn array(&self) -> &'a DeviceArray<T> {
        self.array
    }

    /// Copy the view out into `out`; lengths must be equal.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the lengths differ (nothing copied);
    /// [`Error::Hip`] with HIP's status of `hipStreamSynchronize` or
    /// `hipMemcpy`; [`Error::Pool`] when ordering the array's other uses fails.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        if out.len() != self.len {
            return Err(Error::LengthMismatch { operation: "copy_to_slice", device: self.len, host: out.len() });
        }
        let stream = self.array.stream();
        hip_pool::enqueue(stream, [(&self.array.buffer, Access::Read)], || {
            // SAFETY: both ranges hold len elements; the copy is waited for.
            unsafe { copy_sync(out.as_mut_ptr().cast(), self.as_ptr().cast(), std::mem::size_of_val(out), stream) }
        })
    }

    /// The view's contents.
    ///
    /// # Errors
    /// [`Error::Hip`] with HIP's status of `hipStreamSynchronize` or
    /// `hipMemcpy`; [`Error::Pool`] when ordering the array's other uses fails.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let stream = self.array.stream();
        let mut out: Vec<T> = Vec::with_capacity(self.len);
        let bytes = self.len * std::mem::size_of::<T>();
        hip_pool::enqueue(stream, [(&self.array.buffer, Access::Read)], || {
            // SAFETY: the vector has room for len elements; the copy writes
            // them all (through a raw pointer: no reference to
            // uninitialised memory) and is waited for.
            unsafe { copy_sync(out.as_mut_ptr().cast(), self.as_ptr().cast(), bytes, stream) }
        })?;
        // SAFETY: the copy above wrote all len elements.
        unsafe {
            out.set_len(self.len);
        }
        Ok(out)
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceSlice<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceSlice<{}>({}..{} on {})",
            std::any::type_name::<T>(),
            self.start,
            self.start + self.len,
            self.device()
        )
    }
}

// SAFETY: the array owns `len` elements of T on its device.
unsafe impl<T: DeviceCopy> hip_libs::DeviceData<T> for DeviceArray<T> {
    fn device_ptr(&self) -> *const c_void {
        self.buffer.as_ptr()
    }
    fn len(&self) -> usize {
        self.len
    }
    fn device(&self) -> Device {
        self.buffer.device()
    }
    fn buffer(&self) -> &Buffer {
        &self.buffer
    }
}

// SAFETY: a mutable borrow of the array gives exclusive access to its memory.
unsafe impl<T: DeviceCopy> hip_libs::DeviceDataMut<T> for DeviceArray<T> {
    fn device_ptr_mut(&mut self) -> *mut c_void {
        self.buffer.as_ptr()
    }
}

// SAFETY: the view covers `len` elements inside its array's buffer.
unsafe impl<T: DeviceCopy> hip_libs::DeviceData<T> for DeviceSlice<'_, T> {
    fn device_ptr(&self) -> *const c_void {
        self.as_ptr().cast()
    }
    fn len(&self) -> usize {
        self.len
    }
    fn device(&self) -> Device {
        self.array.device()
    }
    fn buffer(&self) -> &Buffer {
        &self.array.buffer
    }
}
