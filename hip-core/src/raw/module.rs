//! Modules: load and unload a code object, find a kernel in it, launch
//! one.

use hip_sys::{hipError_t, hipFunction_t, hipModule_t, hipStream_t};
use std::ffi::{c_void, CString};

use super::{api, on_device, run_on};
use crate::{check, Device, HipError, Result};

/// Load the code object `image` on `device` (`hipModuleLoadData`, under
/// `device` through [`on_device`]).
pub(crate) fn load(device: Device, image: &[u8]) -> Result<hipModule_t> {
    let api = api()?;
    // Text formats (PTX, sim code objects) must end in NUL; a binary
    // image is unaffected by a trailing NUL.
    let owned;
    let image = if image.last() == Some(&0) {
        image
    } else {
        owned = [image, &[0]].concat();
        &owned
    };
    let mut handle: hipModule_t = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a valid out-pointer and an image that outlives the call.
        check(unsafe { (api.hipModuleLoadData)(&mut handle, image.as_ptr().cast()) }, "hipModuleLoadData")
    })??;
    Ok(handle)
}

/// Unload `module` (`hipModuleUnload`, under `device` through
/// [`on_device`]).
///
/// # Safety
/// `module` is a live module of `device`, unloaded once (no function of
/// it is used again).
pub(crate) unsafe fn unload(device: Device, module: hipModule_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: the caller's live module, unloaded once.
        check(unsafe { (api.hipModuleUnload)(module) }, "hipModuleUnload")
    })?
}

/// The kernel called `name` in `module` (`hipModuleGetFunction`, under
/// `device` through [`on_device`]); a name with a NUL byte, which cannot
/// name a kernel, is that call's `hipErrorInvalidValue`.
///
/// # Safety
/// `module` is a live module of `device`.
pub(crate) unsafe fn function(device: Device, module: hipModule_t, name: &str) -> Result<hipFunction_t> {
    let api = api()?;
    let name = CString::new(name)
        .map_err(|_| HipError::Call { code: hipError_t::hipErrorInvalidValue, operation: "hipModuleGetFunction" })?;
    let mut handle: hipFunction_t = std::ptr::null_mut();
    on_device(device, || {
        // SAFETY: a live module, a NUL-terminated name and a valid out-pointer.
        check(unsafe { (api.hipModuleGetFunction)(&mut handle, module, name.as_ptr()) }, "hipModuleGetFunction")
    })??;
    Ok(handle)
}

/// Launch `function` on `stream` with `grid` blocks of `block` threads,
/// `shared_memory` bytes of dynamic shared memory and `params` as
/// `kernelParams` (`hipModuleLaunchKernel`, under `device` through
/// [`run_on`]: a hot call).
///
/// # Safety
/// `function` is a kernel of a live module of `device`, `stream` a live
/// stream of `device` (or null); `params` holds one pointer per kernel
/// parameter, in order, each to a value of exactly the parameter's C type,
/// readable for the call; every device pointer among the values is valid
/// for what the kernel does with it until the launch has completed.
#[inline]
pub(crate) unsafe fn launch(
    device: Device,
    function: hipFunction_t,
    grid: [u32; 3],
    block: [u32; 3],
    shared_memory: u32,
    stream: hipStream_t,
    params: &mut [*mut c_void],
) -> Result<()> {
    let api = api()?;
    let params = if params.is_empty() { std::ptr::null_mut() } else { params.as_mut_ptr() };
    let [gx, gy, gz] = grid;
    let [bx, by, bz] = block;
    run_on(device, || {
        check(
            // SAFETY: a live function and stream; the caller vouches for the arguments.
            unsafe {
                (api.hipModuleLaunchKernel)(
                    function,
                    gx,
                    gy,
                    gz,
                    bx,
                    by,
                    bz,
                    shared_memory,
                    stream,
                    params,
                    std::ptr::null_mut(),
                )
            },
            "hipModuleLaunchKernel",
        )
    })?
}
