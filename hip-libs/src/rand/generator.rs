//! The generator: one per (thread, device), made on first use, of the
//! engine the thread chose for the device (Philox4x32-10 unless it chose
//! another).

use super::raw;
use crate::handle_cache::{HandleCache, HandleStats, LibHandle, ThreadHandles};
use crate::Result;
use hip_core::raw::{on_device, run_on};
use hip_core::{Device, Stream};
use hip_sys::rocrand::{rocrand_generator, rocrand_rng_type};
use std::cell::RefCell;

/// rocRAND's pseudo-random engines the fills may use, one per (thread,
/// device), chosen with [`set_engine`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Engine {
    /// Philox4x32-10 (Salmon et al., 2011): counter-based, the smallest
    /// state, and the fastest fills. The default.
    #[default]
    #[doc(alias = "ROCRAND_RNG_PSEUDO_PHILOX4_32_10")]
    Philox4x32_10,
    /// XORWOW (Marsaglia, 2003): rocRAND's and cuRAND's default type;
    /// 131072 engines on rocRAND's host API, cuRAND's own layout on NVIDIA.
    #[doc(alias = "ROCRAND_RNG_PSEUDO_XORWOW")]
    Xorwow,
    /// MRG32k3a (L'Ecuyer, 1999): a combined multiple recursive generator
    /// of long period and good statistical quality, slower than the others.
    #[doc(alias = "ROCRAND_RNG_PSEUDO_MRG32K3A")]
    Mrg32k3a,
}

impl Engine {
    /// rocRAND's type for the engine.
    fn rng_type(self) -> rocrand_rng_type {
        match self {
            Engine::Philox4x32_10 => rocrand_rng_type::ROCRAND_RNG_PSEUDO_PHILOX4_32_10,
            Engine::Xorwow => rocrand_rng_type::ROCRAND_RNG_PSEUDO_XORWOW,
            Engine::Mrg32k3a => rocrand_rng_type::ROCRAND_RNG_PSEUDO_MRG32K3A,
        }
    }
}

/// A rocRAND generator of one device.
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
/// allocation for Philox (XORWOW's and MRG32k3a's engines are device
/// memory).
static CACHE: HandleCache<RandHandle> = HandleCache::new(0);

thread_local! {
    pub(crate) static HANDLES: RefCell<ThreadHandles<RandHandle>> = const { RefCell::new(ThreadHandles::new()) };
    /// The engines this thread chose, per device; Philox elsewhere.
    static CHOSEN: RefCell<Vec<(Device, Engine)>> = const { RefCell::new(Vec::new()) };
}

/// The engine this thread's fills on `device` use.
pub fn engine(device: Device) -> Engine {
    CHOSEN
        .try_with(|chosen| chosen.borrow().iter().find(|(d, _)| *d == device).map(|(_, e)| *e))
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Choose the engine this thread's fills on `device` use from now on.
/// Choosing another engine than the current one destroys this thread's
/// generator of `device` (`rocrand_destroy_generator`); the next fill makes
/// one of the new engine, whose stream starts at seed 0 and offset 0, as
/// every new generator's does. Choosing the current engine changes
/// nothing.
///
/// The numbers are each engine's own: rocRAND's on AMD and in the
/// simulator, cuRAND's (which differ for the same engine and seed) on the
/// nvidia backend.
///
/// # Errors
/// [`LibError::Hip`](crate::LibError::Hip) with
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// during a capture of this thread or a Global one (the new generator's
/// state is device memory); [`LibError::Status`](crate::LibError::Status)
/// with rocRAND's status of destroying the old generator (which is gone
/// whatever it answered).
///
/// # Examples
/// ```
/// # fn main() -> hip_libs::Result<()> {
/// use hip_libs::rand::{self, Engine};
///
/// let device = hip_core::Device::new(0)?;
/// rand::set_engine(device, Engine::Mrg32k3a)?;
/// assert_eq!(rand::engine(device), Engine::Mrg32k3a);
/// # Ok(()) }
/// ```
#[doc(alias = "rocrand_create_generator")]
pub fn set_engine(device: Device, engine: Engine) -> Result<()> {
    if self::engine(device) == engine {
        return Ok(());
    }
    crate::handle_cache::refuse_during_capture_because(
        "rand::set_engine",
        "a new generator is made, whose state is device memory; choose engines before capturing",
    )?;
    let _ = CHOSEN.try_with(|chosen| {
        let mut chosen = chosen.borrow_mut();
        chosen.retain(|(d, _)| *d != device);
        chosen.push((device, engine));
    });
    crate::handle_cache::discard(&HANDLES, device)
}

impl LibHandle for RandHandle {
    const CREATE: &'static str = "rocrand_create_generator";

    fn create(device: Device) -> Result<Self> {
        let api = hip_sys::rocrand()?;
        let engine = engine(device);
        let raw = on_device(device, || {
            let raw = raw::create_generator(api, engine.rng_type())?;
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
