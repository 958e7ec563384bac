//! `HostBuffer<T>`: page-locked (pinned) host memory, the host side of
//! asynchronous copies.

mod guard;
mod uses;
mod view;

pub use guard::{HostRef, HostRefMut};
pub use view::{HostSlice, HostSliceMut};

pub(crate) use uses::HostUses;

use crate::{bounds, Device, DeviceCopy, Error, Result};
use hip_core::audit;
use hip_core::raw;
use hip_pool::Access;
use std::ffi::c_void;
use std::ops::RangeBounds;
use std::ptr::NonNull;

/// Where the memory comes from.
enum Origin {
    /// `hipHostMalloc`, freed by `hipHostFree`.
    Pinned,
    /// A vector's memory pinned by `hipHostRegister` (when it has bytes),
    /// given back as the vector after `hipHostUnregister`.
    Registered { capacity: usize, pinned: bool },
    /// No bytes: nothing allocated.
    Empty,
}

/// Page-locked host memory holding `len` values of `T`, made on a device
/// (the one `hipHostMalloc` ran under, whose work its release waits for)
/// and usable by copies on every device.
///
/// Asynchronous copies ([`DeviceArray::copy_from_host_async`],
/// [`DeviceArray::copy_to_host_async`]) record, on the buffer, an event
/// after each copy that touches it. Host access waits for them:
/// [`HostBuffer::as_slice`] for the copies that write the buffer,
/// [`HostBuffer::as_mut_slice`] for every copy. Dropping the buffer waits
/// for them too before the memory is released (under its device, touching
/// no thread state). So a pending copy can never race with host code or
/// outlive the memory, whatever the caller does: misuse is a wait (or a
/// borrow error at compile time), never a race. Host access is a guard
/// ([`HostRef`], [`HostRefMut`]) that graph replays respect: while it lives
/// a replay that would copy into the buffer (or, under a write view, out
/// of it) is refused. Copies made in a
/// [`copy_scope`](crate::copy_scope) record nothing here: they borrow the
/// buffer until the scope has waited for its stream.
///
/// ```
/// use amdgpu::prelude::*;
///
/// let stream = Stream::new()?;
/// let input = HostBuffer::from_slice(&[1.0f32, 2.0, 3.0])?;
/// let mut output = HostBuffer::<f32>::zeroed(3)?;
/// let mut array = DeviceArray::<f32>::zeros(3)?;
/// array.copy_from_host_async(&input, &stream)?; // returns at once
/// array.copy_to_host_async(&mut output, &stream)?;
/// assert_eq!(output.as_slice()?, [1.0, 2.0, 3.0]); // waits for the copy
/// # Ok::<(), amdgpu::Error>(())
/// ```
///
/// [`DeviceArray::copy_from_host_async`]: crate::DeviceArray::copy_from_host_async
/// [`DeviceArray::copy_to_host_async`]: crate::DeviceArray::copy_to_host_async
pub struct HostBuffer<T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
    device: Device,
    origin: Origin,
    pub(crate) uses: HostUses,
}

// SAFETY: the buffer owns its memory; pending copies are tracked by
// `uses` (behind a lock), and T is Send + Sync plain data.
unsafe impl<T: DeviceCopy> Send for HostBuffer<T> {}
// SAFETY: shared access only reads the memory (host views and copies
// from it): a view waits for the copies that write it, direct copies that
// write it need `&mut`, and replays that write it are refused while a view
// lives (`HostRef`).
unsafe impl<T: DeviceCopy> Sync for HostBuffer<T> {}

fn byte_len<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or(Error::HostRangeOutOfBounds { start: 0, end: len, len: 0 })
}

impl<T: DeviceCopy> HostBuffer<T> {
    /// `len` zeroed values in pinned memory, made under this thread's device.
    ///
    /// # Errors
    /// As [`HostBuffer::zeroed_on`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let buffer = HostBuffer::<f64>::zeroed(4)?;
    /// assert_eq!(buffer.len(), 4);
    /// assert_eq!(buffer.device(), device());
    /// assert_eq!(buffer.as_slice()?, [0.0; 4]);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    #[track_caller]
    pub fn zeroed(len: usize) -> Result<Self> {
        Self::zeroed_on(crate::device(), len)
    }

    /// `len` zeroed values in pinned memory, made under `device`
    /// (`hipHostMalloc`).
    ///
    /// # Errors
    /// [`Error::HostRangeOutOfBounds`] when `len` values overflow the address
    /// space; [`Error::Hip`] with HIP's status of `hipHostMalloc` (or of
    /// binding `device`), `hipErrorOutOfMemory` also for a null pointer.
    #[doc(alias = "hipHostMalloc")]
    pub fn zeroed_on(device: Device, len: usize) -> Result<Self> {
        let bytes = byte_len::<T>(len)?;
        if bytes == 0 {
            return Ok(HostBuffer {
                ptr: NonNull::dangling(),
                len,
                device,
                origin: Origin::Empty,
                uses: HostUses::default(),
            });
        }
        // Relaxed while a capture is underway: new pinned memory is safe for
        // it, but HIP refuses the call in the Global mode and breaks it.
        let ptr = hip_core::capture::relaxed(|| raw::host::malloc(device, bytes))??;
        let Some(ptr) = NonNull::new(ptr.cast::<T>()) else {
            return Err(hip_core::HipError::Call {
                code: hip_sys::hipError_t::hipErrorOutOfMemory,
                operation: "hipHostMalloc",
            }
            .into());
        };
        // SAFETY: `bytes` fresh bytes of pinned memory, page-aligned
        // (enough for any T); every bit pattern is a valid T.
        unsafe { std::ptr::write_bytes(ptr.as_ptr().cast::<u8>(), 0, bytes) };
        Ok(HostBuffer { ptr, len, device, origin: Origin::Pinned, uses: HostUses::default() })
    }

    /// A copy of `data` in pinned memory, made under this thread's device.
    ///
    /// # Errors
    /// As [`HostBuffer::zeroed_on`].
    #[track_caller]
    pub fn from_slice(data: &[T]) -> Result<Self> {
        Self::from_slice_on(crate::device(), data)
    }

    /// A copy of `data` in pinned memory, made under `device`.
    ///
    /// # Errors
    /// As [`HostBuffer::zeroed_on`].
    pub fn from_slice_on(device: Device, data: &[T]) -> Result<Self> {
        let mut buffer = Self::zeroed_on(device, data.len())?;
        buffer.as_mut_slice()?.copy_from_slice(data);
        Ok(buffer)
    }

    /// Pin `data`'s memory where it lies (`hipHostRegister`, under this
    /// thread's device) instead of copying it; [`HostBuffer::into_vec`]
    /// gives the vector back. On an error the vector is dropped.
    ///
    /// # Errors
    /// As [`HostBuffer::register_on`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let stream = Stream::new()?;
    /// let input = HostBuffer::register(vec![1.0f32, 2.0, 3.0])?; // pinned where it lies
    /// assert!(input.is_registered());
    /// let mut array = DeviceArray::<f32>::zeros(3)?;
    /// array.copy_from_host_async(&input, &stream)?;
    /// assert_eq!(array.to_vec()?, [1.0, 2.0, 3.0]);
    /// assert_eq!(input.into_vec()?, [1.0, 2.0, 3.0]); // the vector back
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    #[track_caller]
    pub fn register(data: Vec<T>) -> Result<Self> {
        Self::register_on(crate::device(), data)
    }

    /// [`HostBuffer::register`] under `device` (`hipHostRegister`).
    ///
    /// # Errors
    /// [`Error::Hip`] with HIP's status of `hipHostRegister`, or of binding
    /// `device`; the vector is then dropped. No call for an empty vector.
    #[doc(alias = "hipHostRegister")]
    pub fn register_on(device: Device, data: Vec<T>) -> Result<Self> {
        let mut data = std::mem::ManuallyDrop::new(data);
        let (len, capacity) = (data.len(), data.capacity());
        // SAFETY: a vector's pointer is never null.
        let ptr = unsafe { NonNull::new_unchecked(data.as_mut_ptr()) };
        let bytes = std::mem::size_of_val::<[T]>(&data);
        let mut buffer = HostBuffer {
            ptr,
            len,
            device,
            origin: Origin::Registered { capacity, pinned: false },
            uses: HostUses::default(),
        };
        if bytes == 0 {
            return Ok(buffer);
        }
        // SAFETY: `bytes` bytes of the vector, which the buffer owns until
        // it unregisters them.
        hip_core::capture::relaxed(|| unsafe { raw::host::register(device, ptr.as_ptr().cast(), bytes) })??;
        buffer.origin = Origin::Registered { capacity, pinned: true };
        Ok(buffer)
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device the memory was made (or registered) under.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Whether the memory is a registered vector's ([`HostBuffer::register`]).
    pub fn is_registered(&self) -> bool {
        matches!(self.origin, Origin::Registered { .. })
    }

    /// Whether copies recorded on the buffer may still be pending (not yet
    /// waited for by a host access).
    pub fn has_pending_copies(&self) -> bool {
        !self.uses.is_empty()
    }

    /// The host address of the first value (for raw HIP calls; copies
    /// through it are not tracked).
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    pub(crate) fn raw(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// The values, after waiting for every pending copy that writes them,
    /// as a guard that reads as a `&[T]`. While it lives, a graph replay
    /// that would write the buffer is refused
    /// ([`HipError::HostBorrowed`](hip_core::HipError::HostBorrowed)): drop
    /// it before launching such a graph.
    ///
    /// # Errors
    /// [`Error::HostBufferLost`] for a buffer lost to a failed device;
    /// [`Error::Hip`] with HIP's status of `hipEventSynchronize` when waiting
    /// for a copy fails, or [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
    /// while a capture forbids the wait (one in the Global mode on any
    /// thread: wait for it to end).
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    /// use amdgpu::CaptureMode;
    ///
    /// let stream = Stream::new()?;
    /// let array = DeviceArray::from_slice(&[1u32, 2, 3])?;
    /// let mut out = HostBuffer::<u32>::zeroed(3)?;
    /// let (graph, ()) = stream.capture(CaptureMode::Global, |s| array.copy_to_host_async(&mut out, s))?;
    /// let exec = graph.instantiate()?;
    /// exec.launch(&stream)?;
    /// let view = out.as_slice()?; // waits for the replay's copy
    /// assert_eq!(view, [1, 2, 3]);
    /// assert!(exec.launch(&stream).is_err(), "it would write under the view");
    /// drop(view);
    /// exec.launch(&stream)?;
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn as_slice(&self) -> Result<HostRef<'_, T>> {
        self.uses.begin_view(Access::Read)?;
        // SAFETY: `len` initialized values owned by the buffer, borrowed
        // with it; the view just begun keeps writers away (see `HostRef`).
        let values = unsafe { std::slice::from_raw_parts(self.raw(), self.len) };
        Ok(HostRef::new(values, self.uses.list()))
    }

    /// The values for writing, after waiting for every pending copy, as a
    /// guard that reads as a `&mut [T]`. While it lives, a graph replay
    /// that would touch the buffer is refused; the next replay after it
    /// copies what was written.
    ///
    /// # Errors
    /// As [`HostBuffer::as_slice`].
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let stream = Stream::new()?;
    /// let mut input = HostBuffer::<i32>::zeroed(4)?;
    /// input.as_mut_slice()?.copy_from_slice(&[1, 2, 3, 4]);
    /// let mut array = DeviceArray::<i32>::zeros(4)?;
    /// array.copy_from_host_async(&input, &stream)?;
    /// input.as_mut_slice()?[0] = 10; // waits for the copy that reads it first
    /// assert_eq!(array.to_vec()?, [1, 2, 3, 4]);
    /// assert_eq!(input.as_slice()?, [10, 2, 3, 4]);
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> Result<HostRefMut<'_, T>> {
        self.uses.begin_view(Access::Write)?;
        let uses = self.uses.list();
        // SAFETY: `len` initialized values owned by the buffer, borrowed
        // mutably with it; the view just begun keeps all work away.
        let values = unsafe { std::slice::from_raw_parts_mut(self.raw(), self.len) };
        Ok(HostRefMut::new(values, uses))
    }

    /// The values in a new vector (after the pending writes).
    ///
    /// # Errors
    /// As [`HostBuffer::as_slice`].
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Wait for every pending copy that touches the buffer.
    ///
    /// # Errors
    /// As [`HostBuffer::as_slice`].
    pub fn synchronize(&self) -> Result<()> {
        self.uses.wait_host(Access::Write)
    }

    /// A view of `range`, for copies that read it (an error if out of bounds).
    ///
    /// # Errors
    /// [`Error::HostRangeOutOfBounds`] when the range starts after it ends or
    /// ends past the buffer.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<HostSlice<'_, T>> {
        let (start, end) = bounds(range, self.len).map_err(|(start, end)| self.out_of_bounds(start, end))?;
        Ok(HostSlice::new(self, start, end - start))
    }

    /// A view of `range`, for copies that write it (an error if out of bounds).
    ///
    /// # Errors
    /// As [`HostBuffer::slice`].
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<HostSliceMut<'_, T>> {
        let (start, end) = bounds(range, self.len).map_err(|(start, end)| self.out_of_bounds(start, end))?;
        Ok(HostSliceMut::new(self, start, end - start))
    }

    #[cold]
    fn out_of_bounds(&self, start: usize, end: usize) -> Error {
        Error::HostRangeOutOfBounds { start, end, len: self.len }
    }

    /// The memory as a vector: a registered vector is unregistered and
    /// given back; pinned memory is copied out (and released).
    ///
    /// # Errors
    /// As [`HostBuffer::as_slice`]; for a registered vector also
    /// [`Error::Hip`] with HIP's status of `hipHostUnregister`, the memory
    /// then being leaked rather than freed while still pinned, and with
    /// `HipError::CaptureUnderway` while a graph that copies the buffer
    /// lives (the buffer is then dropped after those graphs).
    ///
    /// # Examples
    /// ```
    /// use amdgpu::prelude::*;
    ///
    /// let stream = Stream::new()?;
    /// let array = DeviceArray::from_slice(&[7u16, 8, 9])?;
    /// let mut buffer = HostBuffer::register(vec![0u16; 3])?;
    /// array.copy_to_host_async(&mut buffer, &stream)?;
    /// let data: Vec<u16> = buffer.into_vec()?; // waits for the copy, then unregisters
    /// assert_eq!(data, [7, 8, 9]);
    /// assert_eq!(HostBuffer::from_slice(&[1u16, 2])?.into_vec()?, [1, 2]); // pinned: copied out
    /// # Ok::<(), amdgpu::Error>(())
    /// ```
    pub fn into_vec(self) -> Result<Vec<T>> {
        if let Origin::Registered { capacity, pinned } = self.origin {
            if self.uses.is_held() {
                // A graph may still copy into the vector's memory.
                return Err(hip_core::HipError::CaptureUnderway {
                    operation: "HostBuffer::into_vec",
                    why: "a graph that copies this buffer still lives; drop its executable graphs first, or \
                          take a copy with to_vec",
                }
                .into());
            }
            self.uses.wait_host(Access::Write)?;
            let this = std::mem::ManuallyDrop::new(self);
            if pinned {
                unregister(this.device, this.ptr.as_ptr().cast())?;
            }
            // SAFETY: the vector's parts, taken apart in `register_on`;
            // unregistered and with no copy pending; `this` is never dropped.
            return Ok(unsafe { Vec::from_raw_parts(this.ptr.as_ptr(), this.len, capacity) });
        }
        self.to_vec()
    }
}

fn unregister(device: Device, ptr: *mut c_void) -> Result<()> {
    // SAFETY: memory this buffer registered, unregistered once, with no
    // copy pending (the callers waited).
    Ok(hip_core::capture::relaxed(|| unsafe { raw::host::unregister(device, ptr) })??)
}

impl<T: DeviceCopy> Drop for HostBuffer<T> {
    /// Waits for the pending copies, then releases the memory under the
    /// buffer's device; touches no thread state. If a wait fails the
    /// memory is leaked (logged) rather than freed under a copy.
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        if self.uses.is_held() {
            // A graph may still copy from or into it: the last hold
            // releases it.
            let parts = HostBuffer {
                ptr: self.ptr,
                len: self.len,
                device: self.device,
                origin: std::mem::replace(&mut self.origin, Origin::Empty),
                uses: std::mem::take(&mut self.uses),
            };
            let list = parts.uses.list();
            return list.release_after_holds(move || drop(parts));
        }
        if hip_core::capture::underway() && !self.uses.is_empty() {
            // Waiting for its copies would break the capture: the buffer
            // is released when the captures have ended.
            let parts = HostBuffer {
                ptr: self.ptr,
                len: self.len,
                device: self.device,
                origin: std::mem::replace(&mut self.origin, Origin::Empty),
                uses: std::mem::take(&mut self.uses),
            };
            return hip_core::capture::after_captures(move || drop(parts));
        }
        let settled = self.uses.settle_for_drop();
        if !settled {
            log::error!(
                "a host buffer of {} bytes is leaked: a copy using it may still be pending",
                self.len * std::mem::size_of::<T>()
            );
            return;
        }
        let ptr = self.ptr.as_ptr().cast::<c_void>();
        let result = match self.origin {
            Origin::Empty => Ok(()),
            // Relaxed while a capture is underway, as the allocation.
            // SAFETY: allocated by hipHostMalloc, freed once, no copy pending.
            Origin::Pinned => hip_core::capture::relaxed(|| unsafe { raw::host::free(self.device, ptr) })
                .and_then(|freed| freed)
                .map_err(Error::from),
            Origin::Registered { capacity, pinned } => {
                let unregistered = if pinned { unregister(self.device, ptr) } else { Ok(()) };
                if unregistered.is_ok() {
                    // SAFETY: the vector's parts (see `register_on`),
                    // unregistered, no copy pending; rebuilt once.
                    drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), self.len, capacity) });
                }
                unregistered
            }
        };
        if let Err(error) = result {
            log::error!("dropping a host buffer of {}: {error}", self.device);
        }
    }
}

impl<T: DeviceCopy> std::fmt::Debug for HostBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.is_registered() { "registered" } else { "pinned" };
        write!(f, "HostBuffer<{}>({} elements, {kind}, made on {})", std::any::type_name::<T>(), self.len, self.device)
    }
}
