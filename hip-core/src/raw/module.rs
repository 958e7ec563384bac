//! Modules: load and unload a code object, find a kernel in it, launch
//! one.
//!
//! # References
//! HIP's [module management](https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___module.html) reference.

use hip_sys::{hipError_t, hipFunction_t, hipModule_t, hipStream_t};
use std::ffi::{c_void, CString};

use super::{api, on_device, run_on};
use crate::{check, Device, HipError, Result};

/// `hipModuleLoadData`: load the code object `image` on `device` (under
/// `device` through [`on_device`]).
///
/// # Errors
/// HIP's status.
#[doc(alias = "hipModuleLoadData")]
pub fn load(device: Device, image: &[u8]) -> Result<hipModule_t> {
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

/// `hipModuleUnload`: unload `module` (under `device` through
/// [`on_device`]).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `module` is a live module of `device`, unloaded once (no function of
/// it is used again).
#[doc(alias = "hipModuleUnload")]
pub unsafe fn unload(device: Device, module: hipModule_t) -> Result<()> {
    let api = api()?;
    on_device(device, || {
        // SAFETY: the caller's live module, unloaded once.
        check(unsafe { (api.hipModuleUnload)(module) }, "hipModuleUnload")
    })?
}

/// `hipModuleGetFunction`: the kernel called `name` in `module` (under
/// `device` through [`on_device`]); a name with a NUL byte, which cannot
/// name a kernel, is that call's `hipErrorInvalidValue`.
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `module` is a live module of `device`.
#[doc(alias = "hipModuleGetFunction")]
pub unsafe fn function(device: Device, module: hipModule_t, name: &str) -> Result<hipFunction_t> {
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

/// `hipModuleLaunchKernel`: launch `function` on `stream` with `grid`
/// blocks of `block` threads, `shared_memory` bytes of dynamic shared
/// memory and `params` as `kernelParams` (under `device` through
/// [`run_on`]: a hot call).
///
/// # Errors
/// HIP's status.
///
/// # Safety
/// `function` is a kernel of a live module of `device`, `stream` a live
/// stream of `device` (or null); `params` holds one pointer per kernel
/// parameter, in order, each to a value of exactly the parameter's C type,
/// readable for the call; every device pointer among the values is valid
/// for what the kernel does with it until the launch has completed.
#[inline]
#[doc(alias = "hipModuleLaunchKernel")]
pub unsafe fn launch(
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
