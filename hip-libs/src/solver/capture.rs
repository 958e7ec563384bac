//! What does not capture on one backend: cuSOLVER's eigensolver and SVD,
//! and the pointer-array batches NVIDIA has no batched call for.
//!
//! rocSOLVER's `syevd` and `gesvd` queue only kernels, so they capture on
//! AMD (and in the simulator, which follows rocSOLVER). On the nvidia
//! backend they are cuSOLVER's `syevd` and `gesvd`, which synchronize
//! with the host inside the call: in a capture they fail and would leave
//! the capture invalidated (found on the H200, CUDA 13). Likewise a
//! pointer-array batch whose shape has no NVIDIA batched call reads its
//! address array back to the host there, a wait for the stream. The
//! wrappers refuse them there before any call instead.

use crate::Result;

/// On the nvidia backend, refuse `call` (cuSOLVER's function) inside a
/// capture of this thread or a Global one.
///
/// # Errors
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// naming `call`, with what to do instead.
pub(super) fn refuse_cusolver_capture(call: &'static str) -> Result<()> {
    if hip_sys::backend() != hip_sys::Backend::Nvidia {
        return Ok(());
    }
    crate::handle_cache::refuse_during_capture_because(
        call,
        "on the nvidia backend this is cuSOLVER's, which synchronizes with the host and so cannot be \
         captured (rocSOLVER's captures on AMD): run it before or after the capture",
    )
}

/// On the nvidia backend, refuse inside a capture of this thread or a
/// Global one the pointer-array batch `call` when `no_batched_call` (its
/// shape has no NVIDIA batched call, `why`), whose mapping reads the
/// address array back to the host.
///
/// # Errors
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// naming `call`, with what to do instead.
pub(super) fn refuse_readback_capture(call: &'static str, no_batched_call: bool, why: &'static str) -> Result<()> {
    if !no_batched_call || hip_sys::backend() != hip_sys::Backend::Nvidia {
        return Ok(());
    }
    crate::handle_cache::refuse_during_capture_because(call, why)
}
