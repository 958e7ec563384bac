//! `ManagedArray<T>`: managed (unified) memory, which the host and every
//! device reach at one address, the runtime moving pages where they are
//! used (on an APU such as MI300A, one memory for both).

use crate::host::{HostRef, HostRefMut};
use crate::{DeviceArray, DeviceCopy, Error, Result};
use hip_core::raw::{self, managed};
use hip_core::Stream;
use hip_pool::{Access, Buffer};

pub use managed::{Advice, Location};

/// `ptr`, or for an array of no bytes (null) a dangling aligned pointer, as
/// a slice of none needs.
fn non_null<T>(ptr: *mut T) -> *mut T {
    if ptr.is_null() {
        std::ptr::NonNull::dangling().as_ptr()
    } else {
        ptr
    }
}

/// An array of `T` in managed memory: a [`DeviceArray`] for device work
/// ([`ManagedArray::array`], [`ManagedArray::array_mut`]: kernels, copies,
/// the libraries, with the same stream rules) that the host also reads
/// and writes in place ([`ManagedArray::as_slice`],
/// [`ManagedArray::as_mut_slice`]), with no copy.
///
/// Host access follows the use-list protocol of pinned memory: a read
/// waits for the work that writes the array (on its own stream and on
/// others), a write for all of it, and while the guard lives, graph
/// replays that would conflict are refused. Work enqueued directly needs
/// a borrow of the array (`&` to read, `&mut` to write), so the borrow
/// checker keeps it from a live guard. Host code and device work never
/// race, whatever the caller does: misuse is a wait or an error.
///
/// ```
/// use amdgpu::prelude::*;
/// use amdgpu::ManagedArray;
///
/// # if !amdgpu::runtime::raw::managed::supported(amdgpu::device())? { return Ok(()); }
/// let mut values = ManagedArray::from_slice(&[1.0f32, 2.0, 3.0])?;
/// amdgpu::blas::scal(2.0, values.array_mut())?; // on the GPU, queued
/// assert_eq!(*values.as_slice()?, [2.0, 4.0, 6.0]); // waits, then reads in place
/// values.as_mut_slice()?[0] = 10.0; // the host writes the same memory
/// assert_eq!(values.array().to_vec()?, [10.0, 4.0, 6.0]);
/// # Ok::<(), amdgpu::Error>(())
/// ```
pub struct ManagedArray<T: DeviceCopy> {
    array: DeviceArray<T>,
}

impl<T: DeviceCopy> ManagedArray<T> {
    /// `len` zeroed values of managed memory on this thread's device, with
    /// this thread's stream as its own.
    ///
    /// # Errors
    /// As [`ManagedArray::zeroed_on`].
    pub fn zeroed(len: usize) -> Result<Self> {
        Self::zeroed_on(&crate::stream(), len)
    }

    /// `len` zeroed values of managed memory on `stream`'s device
    /// (`hipMallocManaged`, attached globally), with `stream` as its own.
    ///
    /// # Errors
    /// [`Error::NoManagedMemory`] where the device pages none;
    /// [`Error::OutOfBounds`] when `len` values overflow the address space;
    /// [`Error::Hip`] with HIP's status of `hipMallocManaged`.
    #[doc(alias = "hipMallocManaged")]
    pub fn zeroed_on(stream: &Stream, len: usize) -> Result<Self> {
        let device = stream.device();
        if !managed::supported(device)? {
            return Err(Error::NoManagedMemory { device });
        }
        let bytes = crate::array::bytes_of::<T>(len)?;
        if bytes == 0 {
            let buffer = Buffer::empty(stream);
            buffer.allow_host_views();
            return Ok(ManagedArray { array: DeviceArray::from_buffer(buffer, len) });
        }
        // Relaxed while a capture is underway: new memory is safe for it.
        let ptr = hip_core::capture::relaxed(|| managed::malloc(device, bytes))??;
        // SAFETY: `bytes` fresh bytes of managed memory, which the host may
        // write before any device work (none is queued on it yet).
        unsafe { std::ptr::write_bytes(ptr.cast::<u8>(), 0, bytes) };
        let address = ptr as usize;
        let release = move || {
            // SAFETY: the managed memory made above, freed once, after every
            // use of it was waited for (the buffer's release rule).
            if let Err(error) = unsafe { raw::mem::free(device, address as *mut std::ffi::c_void) } {
                log::error!("freeing managed memory on {device}: {error}");
            }
        };
        // SAFETY: device memory of `stream`'s device, valid for `bytes`
        // until `release` runs.
        let buffer = unsafe { Buffer::foreign(ptr, bytes, stream, release) };
        // Before any use: every replay of it is counted against host views.
        buffer.allow_host_views();
        Ok(ManagedArray { array: DeviceArray::from_buffer(buffer, len) })
    }

    /// The values of `values` in new managed memory on this thread's
    /// device (written by the host: no copy is queued).
    ///
    /// # Errors
    /// As [`ManagedArray::zeroed_on`].
    pub fn from_slice(values: &[T]) -> Result<Self> {
        let mut array = Self::zeroed(values.len())?;
        array.as_mut_slice()?.copy_from_slice(values);
        Ok(array)
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.array.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.array.is_empty()
    }

    /// The array for device work that reads it.
    pub fn array(&self) -> &DeviceArray<T> {
        &self.array
    }

    /// The array for device work that writes it.
    pub fn array_mut(&mut self) -> &mut DeviceArray<T> {
        &mut self.array
    }

    /// The values, read in place by the host after the work that writes
    /// them (on the array's stream and on others), as a guard that reads
    /// as a `&[T]`. While it lives, a graph replay that would write the
    /// array is refused.
    ///
    /// # Errors
    /// [`Error::Pool`] with HIP's status of a wait
    /// (`hipStreamSynchronize`, `hipEventSynchronize`), or
    /// `HipError::CaptureUnderway` while the array's stream captures.
    pub fn as_slice(&self) -> Result<HostRef<'_, T>> {
        let uses = self.array.buffer().begin_host_view(Access::Read)?;
        // SAFETY: `len` values of managed memory the array owns, borrowed
        // with it; the view just begun keeps writers away (see `HostRef`).
        let values = unsafe { std::slice::from_raw_parts(non_null(self.array.as_ptr().cast_mut()), self.len()) };
        Ok(HostRef::new(values, uses))
    }

    /// The values, written in place by the host after every use of them,
    /// as a guard that reads as a `&mut [T]`. While it lives, a graph
    /// replay that would touch the array is refused.
    ///
    /// # Errors
    /// As [`ManagedArray::as_slice`].
    pub fn as_mut_slice(&mut self) -> Result<HostRefMut<'_, T>> {
        let uses = self.array.buffer().begin_host_view(Access::Write)?;
        let ptr = non_null(self.array.as_mut_ptr());
        // SAFETY: `len` values of managed memory the array owns, borrowed
        // mutably with it; the view just begun keeps all work away.
        let values = unsafe { std::slice::from_raw_parts_mut(ptr, self.len()) };
        Ok(HostRefMut::new(values, uses))
    }

    /// The values in a new vector, read by the host (after the writes).
    ///
    /// # Errors
    /// As [`ManagedArray::as_slice`].
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Move the pages to `to` (a device, or the host) on `stream`, ahead
    /// of their use there (`hipMemPrefetchAsync`); ordered as a read of the
    /// array on `stream` (the values do not change).
    ///
    /// # Errors
    /// [`Error::Pool`] as the operand protocol's ordering calls;
    /// [`Error::Hip`] with HIP's status of `hipMemPrefetchAsync`.
    #[doc(alias = "hipMemPrefetchAsync")]
    pub fn prefetch(&self, to: Location, stream: &Stream) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let bytes = self.array.buffer().len();
        hip_pool::enqueue(stream, [(self.array.buffer(), Access::Read)], || {
            // SAFETY: the array's managed memory, kept alive past the
            // prefetch by the operand protocol; a live stream.
            unsafe { managed::prefetch_async(stream.device(), self.array.as_ptr().cast(), bytes, to, stream.as_raw()) }
                .map_err(hip_pool::PoolError::from)
        })?;
        Ok(())
    }

    /// Tell the runtime how the array will be used (`hipMemAdvise`).
    ///
    /// # Errors
    /// [`Error::Hip`] with HIP's status of `hipMemAdvise`.
    #[doc(alias = "hipMemAdvise")]
    pub fn advise(&self, advice: Advice) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let bytes = self.array.buffer().len();
        Ok(managed::advise(self.array.device(), self.array.as_ptr().cast(), bytes, advice)?)
    }
}
