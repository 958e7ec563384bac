//! The HIP entry points served by the CUDA driver API: initialisation,
//! devices by driver handle, contexts, primary contexts, modules, launches
//! and `hipMemsetD32`.
//!
//! # A current context before a driver call
//!
//! The runtime creates and binds a device's primary context lazily, on a
//! thread's first runtime call; the driver API instead fails with
//! `CUDA_ERROR_INVALID_CONTEXT` when no context is current. HIP has no such
//! step (on AMD the current device's context always exists), so before a
//! call that needs a context (module load, function lookup, launch,
//! `hipMemsetD32*`, `hipCtxGetCurrent`, `hipCtxGetDevice`) this backend
//! makes sure one is current:
//!
//! - fast path: a thread-local flag says this thread already has one; no
//!   CUDA call;
//! - otherwise `cuCtxGetCurrent`; when it reports none, `cudaFree(NULL)`,
//!   which makes the runtime initialise the primary context of its
//!   current device (device 0 unless `hipSetDevice` chose another) and bind
//!   it to the thread. After `hipDeviceReset`, `cudaFree(NULL)` runs even
//!   if a (now reset) context is still bound, so the runtime sets it up
//!   again.
//!
//! The flag is set by a successful check and by `hipSetDevice` (which binds
//! the primary context); it is cleared by `hipCtxSetCurrent`,
//! `hipCtxPushCurrent`, `hipCtxPopCurrent` (which may leave no context
//! bound) and `hipDeviceReset`. So `hipCtxGetCurrent` on a fresh thread
//! returns the current device's primary context, as HIP on AMD does, where
//! CUDA alone would return NULL.
//!
//! Calls that need only an initialised driver (device handles, names,
//! memory size, primary-context retain, release and state, setting and
//! pushing contexts) call `cuInit(0)` once per process first.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

use super::call::{cu, entry, non_null, rt};
use super::{CudaFns, Handle};
use crate::bindings::hip::{
    hipCtx_t, hipDevice_t, hipDeviceptr_t, hipError_t, hipFunction_t, hipModule_t, hipStream_t,
};

/// What this thread knows about its current context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Not checked since the last change: ask the driver.
    Unknown,
    /// A context is current.
    Ready,
    /// `hipDeviceReset` ran: let the runtime set its context up again.
    AfterReset,
}

thread_local! {
    static CONTEXT: Cell<Context> = const { Cell::new(Context::Unknown) };
}

/// Whether `cuInit` has succeeded in this process.
static DRIVER_INITIALISED: AtomicBool = AtomicBool::new(false);

fn set_context_state(state: Context) {
    // A thread being torn down has no context state to keep.
    let _ = CONTEXT.try_with(|c| c.set(state));
}

/// Note that the thread's current context may have changed.
pub(super) fn context_changed() {
    set_context_state(Context::Unknown);
}

/// Note that the thread's current context is the primary context the
/// runtime just bound (after a successful `cudaSetDevice`).
pub(super) fn context_bound() {
    set_context_state(Context::Ready);
}

/// Note that the current device was reset.
pub(super) fn device_reset() {
    set_context_state(Context::AfterReset);
}

/// Initialise the driver once per process.
pub(super) fn ensure_init(f: &CudaFns) -> Result<(), hipError_t> {
    if DRIVER_INITIALISED.load(Ordering::Acquire) {
        return Ok(());
    }
    // SAFETY: `cuInit(0)` takes no pointers; it may be called any number
    // of times.
    cu(unsafe { (f.drv.cuInit)(0) })?;
    DRIVER_INITIALISED.store(true, Ordering::Release);
    Ok(())
}

/// Make sure a context is current on this thread (see the module docs).
pub(super) fn ensure_context(f: &CudaFns) -> Result<(), hipError_t> {
    let state = CONTEXT.try_with(Cell::get).unwrap_or(Context::Unknown);
    if state == Context::Ready {
        return Ok(());
    }
    let mut bound = false;
    if state == Context::Unknown {
        ensure_init(f)?;
        let mut ctx: Handle = std::ptr::null_mut();
        // SAFETY: `ctx` is a valid out-pointer.
        let status = unsafe { (f.drv.cuCtxGetCurrent)(&mut ctx) };
        bound = status == 0 && !ctx.is_null();
    }
    if !bound {
        // SAFETY: `cudaFree(NULL)` frees nothing; it initialises the
        // runtime's context for its current device and binds it.
        rt(unsafe { (f.rt.cudaFree)(std::ptr::null_mut()) })?;
    }
    set_context_state(Context::Ready);
    Ok(())
}

/// HIP's `hipDeviceptr_t` (a pointer) as CUDA's `CUdeviceptr` (an integer).
pub(crate) fn device_ptr(p: hipDeviceptr_t) -> super::CuDevicePtr {
    p as usize as super::CuDevicePtr
}

pub(super) unsafe extern "C" fn hipInit(flags: c_uint) -> hipError_t {
    entry(|f| {
        // SAFETY: takes no pointers.
        cu(unsafe { (f.drv.cuInit)(flags) })?;
        DRIVER_INITIALISED.store(true, Ordering::Release);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn hipDeviceGet(device: *mut hipDevice_t, ordinal: c_int) -> hipError_t {
    entry(|f| {
        non_null(device)?;
        ensure_init(f)?;
        // SAFETY: `device` is non-null and valid for a write (caller).
        cu(unsafe { (f.drv.cuDeviceGet)(device, ordinal) })
    })
}

pub(super) unsafe extern "C" fn hipDeviceGetName(name: *mut c_char, len: c_int, device: hipDevice_t) -> hipError_t {
    entry(|f| {
        non_null(name)?;
        // clr: no room for a name is hipErrorInvalidValue (CUDA may crash).
        if len <= 0 {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        ensure_init(f)?;
        // SAFETY: `name` is non-null and valid for `len` > 0 bytes (caller).
        cu(unsafe { (f.drv.cuDeviceGetName)(name, len, device) })
    })
}

pub(super) unsafe extern "C" fn hipDeviceTotalMem(bytes: *mut usize, device: hipDevice_t) -> hipError_t {
    entry(|f| {
        non_null(bytes)?;
        ensure_init(f)?;
        // SAFETY: `bytes` is non-null and valid for a write (caller).
        cu(unsafe { (f.drv.cuDeviceTotalMem)(bytes, device) })
    })
}

pub(super) unsafe extern "C" fn hipCtxGetCurrent(ctx: *mut hipCtx_t) -> hipError_t {
    entry(|f| {
        non_null(ctx)?;
        ensure_context(f)?;
        // SAFETY: `ctx` is non-null and valid for a write of a handle.
        cu(unsafe { (f.drv.cuCtxGetCurrent)(ctx.cast()) })
    })
}

pub(super) unsafe extern "C" fn hipCtxSetCurrent(ctx: hipCtx_t) -> hipError_t {
    entry(|f| {
        ensure_init(f)?;
        context_changed();
        // SAFETY: `ctx` is passed through as the caller gave it.
        cu(unsafe { (f.drv.cuCtxSetCurrent)(ctx.cast()) })
    })
}

pub(super) unsafe extern "C" fn hipCtxGetDevice(device: *mut hipDevice_t) -> hipError_t {
    entry(|f| {
        non_null(device)?;
        ensure_context(f)?;
        // SAFETY: `device` is non-null and valid for a write (caller).
        cu(unsafe { (f.drv.cuCtxGetDevice)(device) })
    })
}

pub(super) unsafe extern "C" fn hipCtxPushCurrent(ctx: hipCtx_t) -> hipError_t {
    entry(|f| {
        ensure_init(f)?;
        context_changed();
        // SAFETY: `ctx` is passed through as the caller gave it.
        cu(unsafe { (f.drv.cuCtxPushCurrent)(ctx.cast()) })
    })
}

pub(super) unsafe extern "C" fn hipCtxPopCurrent(ctx: *mut hipCtx_t) -> hipError_t {
    entry(|f| {
        ensure_init(f)?;
        context_changed();
        // SAFETY: `ctx` is null or valid for a write of a handle (caller);
        // the driver accepts null.
        cu(unsafe { (f.drv.cuCtxPopCurrent)(ctx.cast()) })
    })
}

pub(super) unsafe extern "C" fn hipDevicePrimaryCtxRetain(pctx: *mut hipCtx_t, dev: hipDevice_t) -> hipError_t {
    entry(|f| {
        non_null(pctx)?;
        ensure_init(f)?;
        // SAFETY: `pctx` is non-null and valid for a write of a handle.
        cu(unsafe { (f.drv.cuDevicePrimaryCtxRetain)(pctx.cast(), dev) })
    })
}

pub(super) unsafe extern "C" fn hipDevicePrimaryCtxRelease(dev: hipDevice_t) -> hipError_t {
    entry(|f| {
        ensure_init(f)?;
        // SAFETY: takes no pointers.
        cu(unsafe { (f.drv.cuDevicePrimaryCtxRelease)(dev) })
    })
}

pub(super) unsafe extern "C" fn hipDevicePrimaryCtxGetState(
    dev: hipDevice_t,
    flags: *mut c_uint,
    active: *mut c_int,
) -> hipError_t {
    entry(|f| {
        non_null(flags)?;
        non_null(active)?;
        ensure_init(f)?;
        // SAFETY: both out-pointers are non-null and valid (caller).
        cu(unsafe { (f.drv.cuDevicePrimaryCtxGetState)(dev, flags, active) })
    })
}

pub(super) unsafe extern "C" fn hipModuleLoadData(module: *mut hipModule_t, image: *const c_void) -> hipError_t {
    entry(|f| {
        non_null(module)?;
        if image.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        ensure_context(f)?;
        // SAFETY: `module` is non-null and valid for a write; `image` is a
        // PTX (NUL-terminated), cubin or fatbin image (caller).
        cu(unsafe { (f.drv.cuModuleLoadData)(module.cast(), image) })
    })
}

pub(super) unsafe extern "C" fn hipModuleUnload(module: hipModule_t) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        // SAFETY: the handle is passed through as the caller gave it.
        cu(unsafe { (f.drv.cuModuleUnload)(module.cast()) })
    })
}

pub(super) unsafe extern "C" fn hipModuleGetFunction(
    function: *mut hipFunction_t,
    module: hipModule_t,
    kname: *const c_char,
) -> hipError_t {
    entry(|f| {
        non_null(function)?;
        if kname.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        ensure_context(f)?;
        // SAFETY: `function` is non-null and valid for a write; `kname` a
        // NUL-terminated string (caller).
        cu(unsafe { (f.drv.cuModuleGetFunction)(function.cast(), module.cast(), kname) })
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn hipModuleLaunchKernel(
    function: hipFunction_t,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared_mem_bytes: c_uint,
    stream: hipStream_t,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        let stream = super::objects::stream_of(stream)?;
        // SAFETY: the arguments are passed through as the caller gave them
        // (the stream resolved to its CUDA stream); `kernel_params` (or
        // `extra`) describe the kernel's parameters.
        cu(unsafe {
            (f.drv.cuLaunchKernel)(
                function.cast(),
                grid_x,
                grid_y,
                grid_z,
                block_x,
                block_y,
                block_z,
                shared_mem_bytes,
                stream.cast(),
                kernel_params,
                extra,
            )
        })
    })
}

/// `hipMemGetAddressRange`: the allocation holding `dptr` (CUDA's
/// `CUDA_ERROR_NOT_FOUND` is `hipErrorNotFound`, as clr answers); a null
/// out-pointer is `hipErrorInvalidValue` (the driver's own answer).
pub(super) unsafe extern "C" fn hipMemGetAddressRange(
    pbase: *mut hipDeviceptr_t,
    psize: *mut usize,
    dptr: hipDeviceptr_t,
) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        let mut base: super::CuDevicePtr = 0;
        // SAFETY: valid out-pointers (the size passed through, checked by
        // the driver); a device address.
        cu(unsafe { (f.drv.cuMemGetAddressRange)(&mut base, psize, device_ptr(dptr)) })?;
        if pbase.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: checked non-null; the caller passes a valid out-pointer.
        unsafe { pbase.write(base as hipDeviceptr_t) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn hipMemsetD32(dest: hipDeviceptr_t, value: c_int, count: usize) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        // SAFETY: a device address and sizes, passed through; the driver
        // validates the range.
        cu(unsafe { (f.drv.cuMemsetD32)(device_ptr(dest), value as c_uint, count) })
    })
}

pub(super) unsafe extern "C" fn hipMemsetD32Async(
    dst: hipDeviceptr_t,
    value: c_int,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    entry(|f| {
        ensure_context(f)?;
        let stream = super::objects::stream_of(stream)?;
        // SAFETY: as for `hipMemsetD32`; the stream is the handle's.
        cu(unsafe { (f.drv.cuMemsetD32Async)(device_ptr(dst), value as c_uint, count, stream.cast()) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_pointers_convert_to_integers() {
        assert_eq!(device_ptr(std::ptr::null_mut()), 0);
        let p = 0x7f00_dead_b000_usize as hipDeviceptr_t;
        assert_eq!(device_ptr(p), 0x7f00_dead_b000_u64);
    }

    #[test]
    fn context_state_is_per_thread() {
        device_reset();
        assert_eq!(CONTEXT.with(Cell::get), Context::AfterReset);
        std::thread::spawn(|| assert_eq!(CONTEXT.with(Cell::get), Context::Unknown)).join().expect("thread");
        context_bound();
        assert_eq!(CONTEXT.with(Cell::get), Context::Ready);
        context_changed();
        assert_eq!(CONTEXT.with(Cell::get), Context::Unknown);
    }
}
