//! One library handle per (thread, device), bound to the thread's stream
//! on use, returned to an idle list when the thread exits.
//!
//! The idle lists are keyed by the device **recorded when the handle was
//! made**, never by a device read when it is returned (AMDGPU.jl #1094 put
//! handles back under the exiting task's current device and handed them to
//! the wrong device). Lists are bounded; a handle beyond the bound is
//! destroyed under its own device.

use crate::Result;
use hip_core::{Device, Stream};
use hip_sys::sync::MutexExt;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread::LocalKey;

/// A library handle the cache manages.
pub(crate) trait LibHandle: Sized + Send + 'static {
    /// The C call that makes one (`"rocblas_create_handle"`), for errors.
    const CREATE: &'static str;
    /// Make a handle for `device` (under that device).
    fn create(device: Device) -> Result<Self>;
    /// Bind the handle to `stream`.
    fn set_stream(&mut self, stream: &Stream) -> Result<()>;
    /// Destroy the handle under its own device.
    fn destroy(self) -> Result<()>;
    /// The device recorded at creation.
    fn device(&self) -> Device;
    /// The process's cache for this kind of handle.
    fn cache() -> &'static HandleCache<Self>;
}

/// Idle handles of one kind, per device, and counters.
pub(crate) struct HandleCache<H> {
    idle: Mutex<Vec<(Device, Vec<H>)>>,
    created: AtomicUsize,
    destroyed: AtomicUsize,
    limit: usize,
}

/// Counters of a handle cache, for diagnostics and tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandleStats {
    /// Handles made.
    pub created: usize,
    /// Handles destroyed.
    pub destroyed: usize,
    /// Idle handles per device ordinal.
    pub idle: Vec<(usize, usize)>,
}

impl<H: LibHandle> HandleCache<H> {
    pub const fn new(limit: usize) -> Self {
        HandleCache {
            idle: Mutex::new(Vec::new()),
            created: AtomicUsize::new(0),
            destroyed: AtomicUsize::new(0),
            limit,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Device, Vec<H>)>> {
        self.idle.lock_unpoisoned()
    }

    /// The idle list of `device` (a few devices: a vector serves).
    fn list(idle: &mut Vec<(Device, Vec<H>)>, device: Device) -> &mut Vec<H> {
        let index = match idle.iter().position(|(d, _)| *d == device) {
            Some(i) => i,
            None => {
                idle.push((device, Vec::new()));
                idle.len() - 1
            }
        };
        &mut idle[index].1
    }

    /// An idle handle of `device`, or a new one.
    fn acquire(&self, device: Device) -> Result<H> {
        if let Some(handle) = Self::list(&mut self.lock(), device).pop() {
            return Ok(handle);
        }
        refuse_during_capture(H::CREATE)?;
        let handle = H::create(device)?;
        self.created.fetch_add(1, Ordering::Relaxed);
        Ok(handle)
    }

    /// Return a handle to its own device's idle list.
    fn release(&self, handle: H) {
        let device = handle.device();
        let overflow = {
            let mut idle = self.lock();
            let list = Self::list(&mut idle, device);
            if list.len() < self.limit {
                list.push(handle);
                None
            } else {
                Some(handle)
            }
        };
        if let Some(handle) = overflow {
            self.destroy(handle);
        }
    }

    fn destroy(&self, handle: H) {
        let device = handle.device();
        match handle.destroy() {
            Ok(()) => {
                self.destroyed.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => log::error!("destroying a library handle of {device}: {e}"),
        }
    }

    /// Destroy every idle handle (each under its device).
    pub fn clear(&self) {
        let all: Vec<H> = self.lock().drain(..).flat_map(|(_, v)| v).collect();
        for handle in all {
            self.destroy(handle);
        }
    }

    pub fn stats(&self) -> HandleStats {
        let mut idle: Vec<(usize, usize)> = self.lock().iter().map(|(d, v)| (d.ordinal(), v.len())).collect();
        idle.sort_unstable();
        HandleStats {
            created: self.created.load(Ordering::Relaxed),
            destroyed: self.destroyed.load(Ordering::Relaxed),
            idle,
        }
    }
}

struct Entry<H> {
    handle: H,
    /// [`Stream::id`] of the stream the handle is bound to: the workspace's
    /// one notion of stream identity (a raw handle may name a later stream
    /// once HIP reuses it).
    stream: Option<u64>,
}

/// A thread's handles of one kind.
pub(crate) struct ThreadHandles<H: LibHandle> {
    entries: Vec<Entry<H>>,
}

impl<H: LibHandle> ThreadHandles<H> {
    pub const fn new() -> Self {
        ThreadHandles { entries: Vec::new() }
    }
}

impl<H: LibHandle> Drop for ThreadHandles<H> {
    fn drop(&mut self) {
        let _scope = hip_core::audit::drop_scope();
        for entry in self.entries.drain(..) {
            H::cache().release(entry.handle);
        }
    }
}

/// Refuse to make a library object (`operation`, its C call) while doing so
/// would break a capture: the libraries allocate device memory and
/// synchronize when they make a handle or a plan (rocSPARSE's handle: five
/// `hipMalloc` and a `hipStreamSynchronize`; rocFFT's plan: its twiddle
/// tables), which breaks a capture of the calling thread, and a Global
/// capture of any thread.
///
/// # Errors
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// naming `operation`.
pub(crate) fn refuse_during_capture(operation: &'static str) -> Result<()> {
    refuse_during_capture_because(
        operation,
        "the library allocates device memory and synchronizes to make it, which breaks the capture; \
         make one call of the same kind on this device before capturing, so that it exists",
    )
}

/// [`refuse_during_capture`] with the reason and the fix in `why`.
///
/// # Errors
/// As [`refuse_during_capture`].
pub(crate) fn refuse_during_capture_because(operation: &'static str, why: &'static str) -> Result<()> {
    if hip_core::capture::on_this_thread() || hip_core::capture::global_underway() {
        return Err(hip_core::HipError::CaptureUnderway { operation, why }.into());
    }
    Ok(())
}

/// Make sure this thread has its handle for `stream`'s device, bound to
/// `stream`: what every `warm_handle` of the libraries does.
///
/// # Errors
/// As [`with_handle`] when it makes or binds the handle.
pub(crate) fn warm<H: LibHandle>(local: &'static LocalKey<RefCell<ThreadHandles<H>>>, stream: &Stream) -> Result<()> {
    with_handle(local, stream.device(), stream, |_| Ok(()))
}

/// Take this thread's entry for `device` out of its list, if it has one
/// (none while the thread is exiting).
fn take<H: LibHandle>(local: &'static LocalKey<RefCell<ThreadHandles<H>>>, device: Device) -> Option<Entry<H>> {
    local
        .try_with(|cell| {
            let mut handles = cell.borrow_mut();
            let position = handles.entries.iter().position(|e| e.handle.device() == device)?;
            Some(handles.entries.swap_remove(position))
        })
        .ok()
        .flatten()
}

/// Destroy this thread's handle for `device`, if it has one, under its
/// device: the next use makes a new one.
///
/// # Errors
/// What destroying it answered (it is gone either way).
pub(crate) fn discard<H: LibHandle>(local: &'static LocalKey<RefCell<ThreadHandles<H>>>, device: Device) -> Result<()> {
    let Some(entry) = take(local, device) else { return Ok(()) };
    entry.handle.destroy()?;
    H::cache().destroyed.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// Run `f` with this thread's handle for `device`, bound to `stream`.
pub(crate) fn with_handle<H: LibHandle, R>(
    local: &'static LocalKey<RefCell<ThreadHandles<H>>>,
    device: Device,
    stream: &Stream,
    f: impl FnOnce(&mut H) -> Result<R>,
) -> Result<R> {
    // Take the entry out, so `f` may use other handles of this thread.
    let mut entry = match take(local, device) {
        Some(entry) => entry,
        None => Entry { handle: H::cache().acquire(device)?, stream: None },
    };
    let id = stream.id();
    let result = if entry.stream != Some(id) {
        entry.handle.set_stream(stream).map(|()| entry.stream = Some(id))
    } else {
        Ok(())
    };
    let result = result.and_then(|()| f(&mut entry.handle));
    // Put the entry back; if the thread is exiting, to the idle list.
    let mut slot = Some(entry);
    let _ = local.try_with(|cell| {
        if let Some(entry) = slot.take() {
            cell.borrow_mut().entries.push(entry);
        }
    });
    if let Some(entry) = slot {
        H::cache().release(entry.handle);
    }
    result
}
