//! The rocBLAS handle, its workspace from the pool, and its status codes.

use super::raw;
use crate::handle_cache::{HandleCache, HandleStats, LibHandle, ThreadHandles};
use crate::Result;
use hip_core::raw::on_device;
use hip_core::raw::run_on;
use hip_core::{Device, DeviceMismatch, Stream};
use hip_pool::{enqueue, Access, Buffer};
use hip_sys::rocblas::{rocblas_handle, RocblasApi};
use std::cell::RefCell;
use std::sync::OnceLock;

/// The workspace a handle of `device` gets from the pool, in bytes:
/// `AMDGPU_BLAS_WORKSPACE` (`"64MiB"`, `"0"` for none, read once) if set,
/// else what rocBLAS allocates for itself on that architecture
/// ([`default_workspace_size`]).
pub fn workspace_size(device: Device) -> usize {
    static SIZE: OnceLock<Option<usize>> = OnceLock::new();
    let forced = *SIZE.get_or_init(|| {
        let text = std::env::var("AMDGPU_BLAS_WORKSPACE").ok()?;
        hip_sys::units::parse_bytes(&text)
            .map_err(|e| log::warn!("AMDGPU_BLAS_WORKSPACE={text:?} is not a size ({e}); using rocBLAS's default"))
            .ok()
    });
    forced.unwrap_or_else(|| default_workspace_size(hip_sys::backend(), device.architecture().unwrap_or((0, 0))))
}

/// What rocBLAS allocates for a handle itself (`handle.hpp`,
/// `getDefaultDeviceMemorySize`): 128 MiB on gfx94x and gfx950 (architecture
/// 9.4 and later of major 9), whose Tensile kernels skip solutions that
/// need more workspace than a handle has, else 32 MiB, which is also what
/// cuBLAS recommends on Hopper.
pub fn default_workspace_size(backend: hip_sys::Backend, (major, minor): (u32, u32)) -> usize {
    if backend == hip_sys::Backend::Amd && major == 9 && minor >= 4 {
        128 << 20
    } else {
        32 << 20
    }
}

/// A rocBLAS handle of one device, with its workspace.
pub(crate) struct BlasHandle {
    pub raw: rocblas_handle,
    device: Device,
    /// The pool memory given to rocBLAS as its workspace (`None` for a
    /// zero size). Its own stream follows the handle's, so a handle moving
    /// to another stream orders the old stream's use of it first, on the
    /// GPU (rocBLAS's guide asks the caller to synchronize there).
    workspace: Option<Buffer>,
}

// SAFETY: a rocBLAS handle is used by one thread at a time (the cache
// hands it to one thread), and may move between threads.
unsafe impl Send for BlasHandle {}

static CACHE: HandleCache<BlasHandle> = HandleCache::new(16);

thread_local! {
    pub(crate) static HANDLES: RefCell<ThreadHandles<BlasHandle>> = const { RefCell::new(ThreadHandles::new()) };
}

impl LibHandle for BlasHandle {
    const CREATE: &'static str = "rocblas_create_handle";

    fn create(device: Device) -> Result<Self> {
        let api = hip_sys::rocblas()?;
        // The handle binds to `device`, current here.
        let raw = on_device(device, || raw::create_handle(api))??;
        let mut handle = BlasHandle { raw, device, workspace: None };
        let size = workspace_size(device);
        if size > 0 {
            let buffer = hip_pool::alloc_on(device, size, &Stream::null(device))?;
            // SAFETY: a live handle, and pool memory of `size` bytes on its
            // device that lives as long as the handle (dropped after
            // `rocblas_destroy_handle`).
            on_device(device, || unsafe { raw::set_workspace(api, raw, buffer.as_ptr(), size) })??;
            handle.workspace = Some(buffer);
        }
        Ok(handle)
    }

    fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        let api = hip_sys::rocblas()?;
        if let Some(workspace) = &mut self.workspace {
            // Moved along so that calls on the handle's stream find it
            // there (the operand protocol's same-stream case). A workspace
            // that a graph holds, or a move between capturing streams,
            // stays: the calls' operand declaration orders it instead.
            match workspace.set_stream(stream) {
                Err(hip_pool::PoolError::Hip(hip_core::HipError::CaptureUnderway { .. })) | Ok(()) => {}
                Err(error) => return Err(error.into()),
            }
        }
        // SAFETY: a live handle and a stream of its device.
        run_on(self.device, || unsafe { raw::set_stream(api, self.raw, stream.as_raw()) })?
    }

    fn destroy(self) -> Result<()> {
        let api = hip_sys::rocblas()?;
        // SAFETY: a live handle, destroyed once, under its device.
        let destroyed = on_device(self.device, || unsafe { raw::destroy_handle(api, self.raw) })?;
        // The workspace goes back to the pool after the handle, on its
        // stream, so work still queued there keeps it.
        drop(self.workspace);
        destroyed
    }

    fn device(&self) -> Device {
        self.device
    }

    fn cache() -> &'static HandleCache<Self> {
        &CACHE
    }
}

/// Run `call` with this thread's rocBLAS handle for `stream`'s device,
/// bound to `stream`, under that device, the operands' uses declared on
/// `stream` around it: how every wrapper reaches rocBLAS.
pub(crate) fn on_handle<R>(
    stream: &Stream,
    operands: &[(&Buffer, Access)],
    call: impl FnOnce(&'static RocblasApi, rocblas_handle) -> Result<R>,
) -> Result<R> {
    let api = hip_sys::rocblas()?;
    crate::handle_cache::with_handle::<BlasHandle, _>(&HANDLES, stream.device(), stream, |handle| {
        handle.run(stream, "rocBLAS", 0, operands, |raw| call(api, raw))
    })
}

/// As [`on_handle`], for a call that takes its workspace from the handle
/// (rocSOLVER's): `sized` makes the same call during a device memory size
/// query, and if it needs more than the handle's workspace, the workspace
/// grows to that first (rounded up to a MiB), from the pool; inside a
/// capture, the capture's own workspace is that large. A handle without a
/// workspace of its own (`AMDGPU_BLAS_WORKSPACE=0`) leaves its memory to
/// rocBLAS, which allocates as it needs.
///
/// # Errors
/// As [`on_handle`]; [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// when the handle's workspace would grow while a capture of this thread,
/// or a Global one, is underway and `stream` does not capture into one of
/// [`Stream::capture`]'s (growing allocates; make the same call once
/// before capturing); `LibError::Pool` when the pool cannot serve it.
pub(crate) fn on_handle_sized<R>(
    stream: &Stream,
    operation: &'static str,
    operands: &[(&Buffer, Access)],
    sized: impl FnOnce(rocblas_handle) -> hip_sys::rocblas::rocblas_status,
    call: impl FnOnce(rocblas_handle) -> Result<R>,
) -> Result<R> {
    let device = stream.device();
    let api = hip_sys::rocblas()?;
    crate::handle_cache::with_handle::<BlasHandle, _>(&HANDLES, device, stream, |handle| {
        let mut need = 0;
        if handle.workspace.is_some() {
            let raw = handle.raw;
            // SAFETY: a live handle; `sized` makes the wrapper's own call on it.
            need = run_on(device, || unsafe { raw::device_memory_need(api, raw, operation, || sized(raw)) })??;
        }
        handle.run(stream, operation, need, operands, call)
    })
}

impl BlasHandle {
    /// Make `call` on this handle (bound to `stream`) with a workspace of
    /// at least `need` bytes as one more operand it writes, and `operands`'
    /// uses declared around it.
    ///
    /// The workspace is the handle's own, grown first if `need` is more,
    /// except while `stream` captures through [`Stream::capture`]: then it
    /// is one of the capture's, from its private pool (the handle's size,
    /// or `need` if more), set on the handle for this call only. So every
    /// graph has its own: graphs captured on one handle replay at once on
    /// different streams, and none holds back the handle's eager calls.
    /// Inside one capture, calls on one stream reuse one block in capture
    /// order (the private pool's reuse), and calls on forked streams get
    /// blocks of their own.
    fn run<R>(
        &mut self,
        stream: &Stream,
        operation: &'static str,
        need: usize,
        operands: &[(&Buffer, Access)],
        call: impl FnOnce(rocblas_handle) -> Result<R>,
    ) -> Result<R> {
        let device = self.device;
        if let Some(own) = &self.workspace {
            if hip_core::capture::of(stream)?.is_some() {
                let size = need.max(own.len()).div_ceil(1 << 20) << 20;
                return self.run_with_capture_workspace(stream, size, operands, call);
            }
            if need > own.len() {
                self.grow(need, stream, operation)?;
            }
        }
        let workspace = self.workspace.as_ref().map(|w| (w, Access::Write));
        let raw = self.raw;
        enqueue(stream, operands.iter().copied().chain(workspace), || run_on(device, || call(raw))?)
    }

    /// [`run`](Self::run) with a workspace of `size` bytes from the
    /// capture `stream` records into, the handle's own set back after.
    fn run_with_capture_workspace<R>(
        &self,
        stream: &Stream,
        size: usize,
        operands: &[(&Buffer, Access)],
        call: impl FnOnce(rocblas_handle) -> Result<R>,
    ) -> Result<R> {
        let (api, device, raw) = (hip_sys::rocblas()?, self.device, self.raw);
        // From the capture's private pool: the graph holds it while it may
        // replay, and no work outside the graph gets it meanwhile.
        let captured = hip_pool::alloc_on(device, size, stream)?;
        // SAFETY: a live handle, and pool memory of `size` bytes on its
        // device; rocBLAS only records the pointer (memory it was given by
        // the caller is neither freed nor waited for), and the handle gets
        // its own back below, before `captured` goes.
        on_device(device, || unsafe { raw::set_workspace(api, raw, captured.as_ptr(), size) })??;
        let operands = operands.iter().copied().chain([(&captured, Access::Write)]);
        let result = enqueue(stream, operands, || run_on(device, || call(raw))?);
        let own = self.workspace.as_ref().map_or((std::ptr::null_mut(), 0), |w| (w.as_ptr(), w.len()));
        // SAFETY: as above, with the handle's own workspace, which it holds.
        let restored = on_device(device, || unsafe { raw::set_workspace(api, raw, own.0, own.1) });
        let result = result?;
        restored??;
        Ok(result)
    }

    /// Give the handle a workspace of at least `need` bytes, bound to
    /// `stream`; the old one goes back to the pool once the work queued
    /// with it is done.
    fn grow(&mut self, need: usize, stream: &Stream, operation: &'static str) -> Result<()> {
        crate::handle_cache::refuse_during_capture_because(
            operation,
            "the call needs more workspace than this thread's rocBLAS handle has, and growing it allocates: make \
             the same call once before capturing",
        )?;
        let api = hip_sys::rocblas()?;
        let size = need.div_ceil(1 << 20) << 20;
        let buffer = hip_pool::alloc_on(self.device, size, stream)?;
        // SAFETY: a live handle, and pool memory of `size` bytes on its
        // device that the handle keeps as long as it uses it.
        on_device(self.device, || unsafe { raw::set_workspace(api, self.raw, buffer.as_ptr(), size) })??;
        log::debug!("rocBLAS handle of {:?}: workspace grown to {size} bytes for {operation}", self.device);
        self.workspace = Some(buffer);
        Ok(())
    }
}

/// Run `f` with this thread's rocBLAS handle for `device`, bound to
/// `stream` (of that device), for rocBLAS calls this crate does not wrap.
/// `f` runs with `device` current in HIP. The handle has its workspace and
/// host pointer mode.
///
/// `f` may change the handle's stream or pointer mode: afterwards they are
/// set back (only if they changed), since the cache and the wrappers rely
/// on them. Declaring the operands' stream uses is `f`'s job
/// ([`hip_pool::Buffer::prepare`] / [`hip_pool::Buffer::record`]).
///
/// # Errors
/// [`LibError::Hip`](crate::LibError::Hip) with a device mismatch when
/// `stream` is not on `device` (`f` does not run);
/// [`LibError::Unavailable`](crate::LibError::Unavailable) without rocBLAS;
/// `LibError::Pool` or `LibError::Hip` when a new handle's workspace or
/// binding fails; [`LibError::Status`](crate::LibError::Status) when setting
/// the handle back fails. What `f` returns is its own.
pub fn with_raw_handle<R>(device: Device, stream: &Stream, f: impl FnOnce(rocblas_handle) -> R) -> Result<R> {
    use hip_sys::rocblas::rocblas_pointer_mode;
    DeviceMismatch::check("blas::with_raw_handle", "the stream", device, stream.device())?;
    on_handle(stream, &[], |api, handle| {
        let result = f(handle);
        // SAFETY: a live handle of `device`, and a stream of it.
        if unsafe { raw::stream(api, handle) }? != stream.as_raw() {
            // SAFETY: as above.
            unsafe { raw::set_stream(api, handle, stream.as_raw()) }?;
        }
        let host = rocblas_pointer_mode::rocblas_pointer_mode_host;
        // SAFETY: a live handle.
        if unsafe { raw::pointer_mode(api, handle) }? != host {
            // SAFETY: a live handle.
            unsafe { raw::set_pointer_mode(api, handle, host) }?;
        }
        Ok(result)
    })
}

/// Make sure this thread has its rocBLAS handle for `stream`'s device,
/// bound to `stream`: made on first use (`rocblas_create_handle`), then only looked up
/// and, if the thread's last call was on another stream, bound again
/// (`rocblas_set_stream`). Every wrapper does this first; calling it ahead of a
/// capture gives the capture a handle, which cannot be made inside one.
///
/// # Errors
/// [`LibError::Unavailable`](crate::LibError::Unavailable) without rocBLAS;
/// [`LibError::Hip`](crate::LibError::Hip) with
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway) when
/// the handle would be made during a capture of this thread or a Global
/// one; [`LibError::Status`](crate::LibError::Status) with rocBLAS's status of
/// `rocblas_create_handle` or `rocblas_set_stream`; `LibError::Pool` when a new handle's workspace cannot be allocated.
///
/// # Examples
/// ```
/// let stream = hip_core::stream();
/// hip_libs::blas::warm_handle(&stream)?;
/// assert!(hip_libs::blas::handle_stats().created >= 1);
/// # Ok::<(), hip_libs::LibError>(())
/// ```
#[doc(alias = "rocblas_create_handle")]
pub fn warm_handle(stream: &Stream) -> Result<()> {
    crate::handle_cache::warm(&HANDLES, stream)
}

/// Counters of the rocBLAS handle cache: handles made, destroyed, and idle
/// per device.
pub fn handle_stats() -> HandleStats {
    CACHE.stats()
}

/// Destroy the idle rocBLAS handles (each under its own device, its
/// workspace back to the pool). Handles in use by live threads are kept.
pub fn clear_idle_handles() {
    CACHE.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_follows_rocblas_per_architecture() {
        use hip_sys::Backend;
        for arch in [(9, 4), (9, 5)] {
            assert_eq!(default_workspace_size(Backend::Amd, arch), 128 << 20, "gfx94x and gfx950");
        }
        for arch in [(9, 0), (9, 2), (10, 3), (11, 0)] {
            assert_eq!(default_workspace_size(Backend::Amd, arch), 32 << 20, "{arch:?}");
        }
        assert_eq!(default_workspace_size(Backend::Nvidia, (9, 0)), 32 << 20, "Hopper: cuBLAS's advice");
        assert_eq!(default_workspace_size(Backend::Sim, (9, 4)), 32 << 20);
    }
}
