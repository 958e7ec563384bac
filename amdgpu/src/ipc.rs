//! Arrays shared with other processes: [`DeviceArray::ipc_handle`] gives
//! the bytes another process opens the array by with
//! [`DeviceArray::open_ipc`], over the same device memory, with no copy.
//!
//! The exporter's queued work on the array comes before the opener's use
//! (the handle carries an event the opener's stream waits for on the
//! GPU). After that, each process's uses are the program's to order, with
//! events made for IPC ([`Event::interprocess_on`](crate::Event), its
//! `ipc_handle` and `Event::open_ipc`), as on a GPU. The exporter's
//! array, when dropped, gives its memory back to the pool only once no
//! living process has it open (`hip_pool::ipc`). `cargo run --example
//! ipc` runs both sides, each process ordered after the other on the GPU.
//!
//! ```no_run
//! use amdgpu::prelude::*;
//! use amdgpu::ipc::IpcHandle;
//!
//! // In the exporting process:
//! let array = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0])?;
//! let bytes = array.ipc_handle()?.to_bytes(); // send these to the other process
//!
//! // In the other process, on the same machine:
//! let handle = IpcHandle::from_bytes(&bytes)?;
//! let opened = DeviceArray::<f32>::open_ipc(&handle, &Stream::new()?)?;
//! assert_eq!(opened.to_vec()?, [1.0, 2.0, 3.0]);
//! # Ok::<(), amdgpu::Error>(())
//! ```

use crate::{DeviceArray, DeviceCopy, Error, Result};
use hip_core::Stream;

pub use hip_core::IpcEventHandle;
pub use hip_pool::ipc::{allow_openers, collect, IpcHandle};

impl<T: DeviceCopy> DeviceArray<T> {
    /// The handle another process opens this array by
    /// ([`DeviceArray::open_ipc`]). The array stays this process's to use;
    /// dropped, its memory is kept until no living process has it open.
    ///
    /// # Errors
    /// [`Error::Pool`] with `PoolError::Ipc` for an empty array or one
    /// opened from another process; HIP's status where the memory cannot
    /// be shared (the `async` pool strategy's memory).
    #[doc(alias = "hipIpcGetMemHandle")]
    pub fn ipc_handle(&self) -> Result<IpcHandle> {
        Ok(hip_pool::ipc::share(self.buffer())?)
    }

    /// Another process's array, opened from its handle on `stream` (of
    /// the exporter's device, or one that reaches it), with no copy;
    /// `stream` waits for the exporter's work queued before it made the
    /// handle. Dropped, it waits for its uses and closes the memory.
    ///
    /// # Errors
    /// [`Error::Pool`] with `PoolError::Ipc` when the exporter no longer
    /// shares the memory, or the handle is corrupt; HIP's status of the
    /// open (`hipErrorInvalidContext` for a handle of this process); and
    /// `PoolError::Ipc` when the handle's bytes are no whole number of
    /// `T`s or not aligned for `T`.
    #[doc(alias = "hipIpcOpenMemHandle")]
    pub fn open_ipc(handle: &IpcHandle, stream: &Stream) -> Result<DeviceArray<T>> {
        let size = size_of::<T>().max(1);
        let refused = |why: String| Error::Pool(hip_pool::PoolError::Ipc(why));
        let name = std::any::type_name::<T>();
        if handle.len() % size != 0 {
            return Err(refused(format!(
                "the shared {} bytes are no whole number of {name} ({size} bytes)",
                handle.len()
            )));
        }
        let buffer = hip_pool::ipc::open(handle, stream)?;
        if buffer.as_ptr() as usize % align_of::<T>() != 0 {
            return Err(refused(format!("the shared memory is not aligned for {name}")));
        }
        Ok(DeviceArray::from_buffer(buffer, handle.len() / size))
    }
}
