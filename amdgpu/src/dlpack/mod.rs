//! DLPack: arrays handed to and taken from other frameworks (PyTorch,
//! CuPy, JAX, anything that speaks the Python array API's `__dlpack__`)
//! with no copy: the same device memory, seen by both.
//!
//! - [`DeviceArray::into_dlpack`](crate::DeviceArray::into_dlpack) makes a [`DlTensor`] of an array
//!   (`kDLROCM` memory on AMD and the simulator, `kDLCUDA` on NVIDIA),
//!   with its shape ([`DeviceArray::into_dlpack_shaped`](crate::DeviceArray::into_dlpack_shaped)) and dtype. The
//!   array moves into the tensor and lives until the consumer calls its
//!   deleter. The stream handshake of the array API: the consumer names
//!   the stream it will use the tensor on, that stream waits on the GPU
//!   for the array's queued work (an event, never a host synchronize),
//!   and when the deleter runs, the memory's next owner waits for the
//!   work the consumer queued on it by then.
//! - [`DeviceArray::from_dlpack`](crate::DeviceArray::from_dlpack) takes a tensor another framework made
//!   as an [`ImportedArray`]: a [`DeviceArray`](crate::DeviceArray) over the producer's
//!   memory (any shape and strides, the element type checked), read-only
//!   if the producer said so. When it drops, every use of the
//!   memory is waited for and then the producer's deleter runs, once.
//!   To work on the framework's own stream (its current stream's raw
//!   handle: `torch.cuda.current_stream().cuda_stream`, CuPy's
//!   `Stream.ptr`), wrap it with [`Stream::from_raw`](crate::Stream::from_raw),
//!   which leaves the stream to the framework when dropped.
//! - [`DlTensor`] owns a `DLManagedTensorVersioned` (DLPack 1.x) of
//!   either side: [`DlTensor::into_raw`] hands it to C, and
//!   [`DlTensor::from_raw`] takes one; dropped, it calls the deleter.
//!   For consumers and producers of DLPack before 1.0 (a capsule named
//!   `dltensor`, as JAX's `from_dlpack` takes),
//!   [`DlTensor::into_raw_unversioned`] and
//!   [`DlTensor::from_raw_unversioned`] wrap one in the other.
//!
//! Element types: [`DlPackElement`] (f16, bf16, f32, f64, the complex
//! pairs, signed and unsigned integers of 8 to 64 bits, and bool as `u8`
//! with the `kDLBool` code through [`DlBool`]).
//!
//! ```
//! use amdgpu::prelude::*;
//!
//! let array = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//! let pointer = array.as_ptr();
//! let tensor = array.into_dlpack_shaped(&[2, 3], None)?;
//! assert_eq!(tensor.shape(), [2, 3]);
//! // A consumer takes it (here, this crate again): the same memory.
//! let stream = Stream::new()?;
//! let imported = DeviceArray::<f32>::from_dlpack(tensor, &stream)?;
//! assert_eq!(imported.array().as_ptr(), pointer);
//! assert_eq!(imported.shape(), [2, 3]);
//! assert_eq!(imported.array().to_vec()?, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
//! # Ok::<(), amdgpu::Error>(())
//! ```

mod element;
mod export;
mod import;
mod tensor;
mod unversioned;

pub use element::{DlBool, DlPackElement};
pub use hip_sys::dlpack as sys;
pub use import::ImportedArray;
pub use tensor::DlTensor;

use hip_sys::dlpack::DLDeviceType;

/// The DLPack device type of this process's device memory.
fn device_type() -> DLDeviceType {
    match hip_sys::backend() {
        hip_sys::Backend::Nvidia => DLDeviceType::kDLCUDA,
        _ => DLDeviceType::kDLROCM,
    }
}

/// The strides, in elements, of a compact row-major tensor of `shape`
/// (saturating: a shape whose span overflows is refused where it is used).
fn compact_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].saturating_mul(shape[i + 1]);
    }
    strides
}

/// The facade's error for a tensor that cannot be made or taken.
fn refused(problem: String) -> crate::Error {
    crate::Error::DlPack { problem }
}
