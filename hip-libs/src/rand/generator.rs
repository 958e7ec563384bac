//! The Philox generator: one per (thread, device), made on first use.

use super::raw;
use crate::handle_cache::{HandleCache, HandleStats, LibHandle, ThreadHandles};
use crate::Result;
use hip_core::raw::{on_device, run_on};
use hip_core::{Device, Stream};
use hip_sys::rocrand::{rocrand_generator, rocrand_rng_type};
use std::cell::RefCell;

/// A rocRAND Philox4x32-10 generator of one device.
pub(crate) struct RandHandle {
    pub raw: rocrand_generator,
    device: Device,
}

// SAFETY: a generator is used by one thread at a time (the cache hands it
// to one thread), and may move between threads.
unsafe impl Send for RandHandle {}

/// No idle list: a generator carries its position in the stream, so a
/// thread's first generator must start where rocRAND's do (seed 0, offset
/// 0), not where an exited thread's left off. Making one makes no device
/// allocation for Philox.
static CACHE: HandleCache<RandHandle> = HandleCache::new(0);

thread_local! {
    pub(crate) static HANDLES: RefCell<ThreadHandles<RandHandle>> = const { RefCell::new(ThreadHandles::new()) };
}

impl LibHandle for RandHandle {
    const CREATE: &'static str = "rocrand_create_generator";

    fn create(device: Device) -> Result<Self> {
        let api = hip_sys::rocrand()?;
        let kind = rocrand_rng_type::ROCRAND_RNG_PSEUDO_PHILOX4_32_10;
        let raw = on_device(device, || {
            let raw = raw::create_generator(api, kind)?;
            // The state now, outside any capture: cuRAND allocates it at
            // the first generate otherwise, which a capture refuses.
            // SAFETY: the live generator just made, under its device.
            if let Err(error) = unsafe { raw::initialize(api, raw) } {
                // SAFETY: made above, never handed out, destroyed once.
                if let Err(destroyed) = unsafe { raw::destroy_generator(api, raw) } {
                    log::error!("destroying a rocRAND generator whose state could not be made: {destroyed}");
                }
                return Err(error);
            }
            Ok(raw)
        })??;
        Ok(RandHandle { raw, device })
    }

    fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        let api = hip_sys::rocrand()?;
        // SAFETY: a live generator and a stream of its device.
        run_on(self.device, || unsafe { raw::set_stream(api, self.raw, stream.as_raw()) })?
    }

    fn destroy(self) -> Result<()> {
        let api = hip_sys::rocrand()?;
        // SAFETY: a live generator, destroyed once, under its device.
        on_device(self.device, || unsafe { raw::destroy_generator(api, self.raw) })?
    }

    fn device(&self) -> Device {
        self.device
    }

    fn cache() -> &'static HandleCache<Self> {
        &CACHE
    }
}

/// Run `f` with this thread's generator for `stream`'s device, bound to
/// `stream`, under that device.
pub(crate) fn on_generator<R>(
    stream: &Stream,
    f: impl FnOnce(&'static hip_sys::rocrand::RocrandApi, rocrand_generator) -> Result<R>,
) -> Result<R> {
    let device = stream.device();
    let api = hip_sys::rocrand()?;
    crate::handle_cache::with_handle::<RandHandle, _>(&HANDLES, device, stream, |g| run_on(device, || f(api, g.raw))?)
}

/// Make sure this thread has its rocRAND generator for `stream`'s device,
/// bound to `stream`: made on first use (`rocrand_create_generator`),
/// then only looked up. Calling it ahead of a capture gives the capture a
/// generator, which cannot be made inside one.
///
/// # Errors
/// [`LibError::Unavailable`](crate::LibError::Unavailable) without rocRAND;
/// [`LibError::Hip`](crate::LibError::Hip) with
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway) when
/// the generator would be made during a capture of this thread or a
/// Global one; [`LibError::Status`](crate::LibError::Status) with rocRAND's
/// status of `rocrand_create_generator` or `rocrand_set_stream`.
#[doc(alias = "rocrand_create_generator")]
pub fn warm_handle(stream: &Stream) -> Result<()> {
    crate::handle_cache::warm(&HANDLES, stream)
}

/// Counters of the rocRAND generators: made and destroyed (none is kept
/// idle).
pub fn handle_stats() -> HandleStats {
    CACHE.stats()
}
