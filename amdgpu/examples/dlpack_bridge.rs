//! A bridge a Python program loads with `ctypes` to hand `torch` (or
//! CuPy, JAX) tensors to Rust and back with no copy, through DLPack:
//! `dlpack_torch.py` beside this file shows both directions.
//!
//! ```text
//! cargo build --release --example dlpack_bridge   # target/release/examples/libdlpack_bridge.so
//! python3 amdgpu/examples/dlpack_torch.py target/release/examples/libdlpack_bridge.so
//! ```
//!
//! - `amdgpu_bridge_arange_f32(n)`: a new array `0, 1, …, n-1` made here,
//!   as a `DLManagedTensorVersioned*` the caller owns (its deleter gives
//!   the memory back to this crate's pool).
//! - `amdgpu_bridge_scale_f32(tensor, factor)`: takes a tensor a framework
//!   made (owning it: its deleter runs before this returns), scales it in
//!   place with rocBLAS `scal` on a stream of its device, and waits for
//!   it; 0 on success, -1 with the cause on stderr.
//! - `amdgpu_bridge_unversioned(tensor)`: takes a tensor of this crate's
//!   and hands it back as an unversioned `DLManagedTensor*` (DLPack before
//!   1.0, for consumers that ask for no version, such as JAX); null with
//!   the cause on stderr.
//!
//! A Python wrapper names the capsule `dltensor_versioned` (and renames a
//! consumed one `used_dltensor_versioned`), as the array API says.

use amdgpu::dlpack::sys::{DLManagedTensor, DLManagedTensorVersioned};
use amdgpu::dlpack::DlTensor;
use amdgpu::prelude::*;
use std::os::raw::c_int;

fn arange(n: usize) -> amdgpu::Result<DlTensor> {
    let values: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let array = DeviceArray::from_slice(&values)?;
    // Whoever takes it uses it on a stream of its own: the upload is
    // waited for, so any stream sees it.
    array.stream().synchronize()?;
    array.into_dlpack(None)
}

/// A new array `0..n` as a DLPack tensor the caller owns; null on failure.
#[no_mangle]
pub extern "C" fn amdgpu_bridge_arange_f32(n: usize) -> *mut DLManagedTensorVersioned {
    match arange(n) {
        Ok(tensor) => tensor.into_raw(),
        Err(e) => {
            eprintln!("amdgpu_bridge_arange_f32: {e}");
            std::ptr::null_mut()
        }
    }
}

fn scale(tensor: DlTensor, factor: f32) -> amdgpu::Result<()> {
    let ordinal = usize::try_from(tensor.tensor().device.device_id).unwrap_or(usize::MAX);
    let stream = Stream::new_on(Device::new(ordinal)?)?;
    let mut imported = DeviceArray::<f32>::from_dlpack(tensor, &stream)?;
    amdgpu::blas::scal(factor, imported.array_mut()?)?;
    stream.synchronize()?;
    Ok(())
}

/// Scale a framework's f32 tensor in place; 0 on success, -1 on failure.
///
/// # Safety
/// `tensor` is a `DLManagedTensorVersioned*` the caller hands over (this
/// call owns it and runs its deleter), or null.
#[no_mangle]
pub unsafe extern "C" fn amdgpu_bridge_scale_f32(tensor: *mut DLManagedTensorVersioned, factor: f32) -> c_int {
    // SAFETY: the caller's promise: an owned tensor, or null.
    let Some(tensor) = (unsafe { DlTensor::from_raw(tensor) }) else {
        eprintln!("amdgpu_bridge_scale_f32: a null tensor");
        return -1;
    };
    match scale(tensor, factor) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("amdgpu_bridge_scale_f32: {e}");
            -1
        }
    }
}

/// The same tensor as an unversioned `DLManagedTensor*`; null on failure.
///
/// # Safety
/// `tensor` is a `DLManagedTensorVersioned*` the caller hands over (this
/// call owns it: on failure, its deleter runs), or null.
#[no_mangle]
pub unsafe extern "C" fn amdgpu_bridge_unversioned(tensor: *mut DLManagedTensorVersioned) -> *mut DLManagedTensor {
    // SAFETY: the caller's promise: an owned tensor, or null.
    let Some(tensor) = (unsafe { DlTensor::from_raw(tensor) }) else {
        eprintln!("amdgpu_bridge_unversioned: a null tensor");
        return std::ptr::null_mut();
    };
    tensor.into_raw_unversioned().unwrap_or_else(|e| {
        eprintln!("amdgpu_bridge_unversioned: {e}");
        std::ptr::null_mut()
    })
}
