//! `hipMalloc` and `hipFree` under the pool's device: where the cached
//! backing gets its segments and the `none` backing each block.

use hip_core::raw::{self, forget_expected_failure};
use hip_core::{Device, HipError};

/// What a driver allocation can answer: what it gave (an address, or
/// the expandable backing's chunk handles), out of memory, or an error.
pub(crate) enum Driver<T = usize> {
    Ok(T),
    OutOfMemory,
    Failed(HipError),
}

impl<T> Driver<T> {
    /// The answer of an allocation call: out-of-memory is the pool's to
    /// handle (its ladder), not the caller's error, so it is forgotten as
    /// the thread's last error too.
    pub(crate) fn of(allocated: Result<T, HipError>) -> Driver<T> {
        match allocated {
            Ok(value) => Driver::Ok(value),
            Err(e) if e.is_out_of_memory() => {
                if let Some(code) = e.code() {
                    forget_expected_failure(code);
                }
                Driver::OutOfMemory
            }
            Err(e) => Driver::Failed(e),
        }
    }
}

/// `hipMalloc(bytes)` on `device`, whatever the thread's device is.
///
/// While a stream capture is underway the call is made in the Relaxed
/// capture mode: in the Global mode, HIP (and CUDA) refuse an allocation
/// on any thread and break the capture (`hipErrorStreamCaptureUnsupported`),
/// although new memory is safe for it (nothing captured uses it yet).
pub(crate) fn malloc(device: Device, bytes: usize) -> Driver {
    hip_core::capture::relaxed(|| Driver::of(raw::mem::malloc(device, bytes).map(|ptr| ptr as usize)))
        .unwrap_or_else(Driver::Failed)
}

/// `hipFree(ptr)` on `device`.
pub(crate) fn free(device: Device, ptr: usize) -> Result<(), HipError> {
    crate::collective_gate::before_driver_sync(device);
    // SAFETY: `ptr` came from hipMalloc on this device and is freed once,
    // after its uses (the pool's rule).
    unsafe { raw::mem::free(device, ptr as *mut std::ffi::c_void) }
}
