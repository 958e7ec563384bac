//! The one place this crate calls rocRAND: a function per rocRAND call,
//! with rocRAND's statuses turned into errors.
//!
//! Each function makes one call and names it first in its docs; where the
//! call is sound only if the caller upholds something it is an `unsafe
//! fn` whose `# Safety` says what. None binds a device: the handle cache
//! and the wrappers run them under the generator's device.
//!
//! # References
//! rocRAND's [host API](https://rocm.docs.amd.com/projects/rocRAND/en/latest/api-reference/c-host-api.html).

use hip_sys::hipStream_t;
use hip_sys::rocrand::{rocrand_generator, rocrand_rng_type, rocrand_status, RocrandApi};

use crate::{LibError, Result};

/// Status to result, naming the rocRAND function.
pub(crate) fn check(status: rocrand_status, operation: &'static str) -> Result<()> {
    if status.0 == 0 {
        return Ok(());
    }
    let name = status.name().unwrap_or("an unknown rocrand_status");
    Err(LibError::Status { library: "rocRAND", operation, status: status.0, name })
}

/// `rocrand_create_generator`: a generator of `kind`, of the current
/// device.
pub(crate) fn create_generator(api: &RocrandApi, kind: rocrand_rng_type) -> Result<rocrand_generator> {
    let mut generator: rocrand_generator = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check(unsafe { (api.rocrand_create_generator)(&mut generator, kind) }, "rocrand_create_generator")?;
    Ok(generator)
}

/// `rocrand_destroy_generator`.
///
/// # Safety
/// `generator` is live and not used afterwards.
pub(crate) unsafe fn destroy_generator(api: &RocrandApi, generator: rocrand_generator) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_destroy_generator)(generator) }, "rocrand_destroy_generator")
}

/// `rocrand_set_stream`: later work of `generator` runs on `stream`.
///
/// # Safety
/// `generator` is live and `stream` is a live stream of its device.
pub(crate) unsafe fn set_stream(api: &RocrandApi, generator: rocrand_generator, stream: hipStream_t) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_set_stream)(generator, stream) }, "rocrand_set_stream")
}

/// `rocrand_set_seed`: the seed, the stream restarting at the offset.
///
/// # Safety
/// `generator` is live.
pub(crate) unsafe fn set_seed(api: &RocrandApi, generator: rocrand_generator, seed: u64) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_set_seed)(generator, seed) }, "rocrand_set_seed")
}

/// `rocrand_set_offset`: where the stream restarts, in 32-bit words.
///
/// # Safety
/// `generator` is live.
pub(crate) unsafe fn set_offset(api: &RocrandApi, generator: rocrand_generator, offset: u64) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_set_offset)(generator, offset) }, "rocrand_set_offset")
}

/// `rocrand_initialize_generator`: make the generator's state now, not at
/// the next generate (cuRAND allocates it then).
///
/// # Safety
/// `generator` is live.
pub(crate) unsafe fn initialize(api: &RocrandApi, generator: rocrand_generator) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_initialize_generator)(generator) }, "rocrand_initialize_generator")
}

/// `rocrand_generate`: `n` 32-bit words at `out`.
///
/// # Safety
/// `generator` is live; `out` holds `n` `u32` on its device.
pub(crate) unsafe fn generate(api: &RocrandApi, generator: rocrand_generator, out: *mut u32, n: usize) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_generate)(generator, out, n) }, "rocrand_generate")
}

/// `rocrand_generate_poisson`: `n` Poisson numbers of `lambda` at `out`.
///
/// # Safety
/// As [`generate`].
pub(crate) unsafe fn poisson(
    api: &RocrandApi,
    generator: rocrand_generator,
    out: *mut u32,
    n: usize,
    lambda: f64,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_generate_poisson)(generator, out, n, lambda) }, "rocrand_generate_poisson")
}

/// `rocrand_generate_uniform`: `n` floats in (0, 1] at `out`.
///
/// # Safety
/// As [`generate`], for `f32`.
pub(crate) unsafe fn uniform_f32(
    api: &RocrandApi,
    generator: rocrand_generator,
    out: *mut f32,
    n: usize,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_generate_uniform)(generator, out, n) }, "rocrand_generate_uniform")
}

/// `rocrand_generate_uniform_double`: `n` doubles in (0, 1] at `out`.
///
/// # Safety
/// As [`generate`], for `f64`.
pub(crate) unsafe fn uniform_f64(
    api: &RocrandApi,
    generator: rocrand_generator,
    out: *mut f64,
    n: usize,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    check(unsafe { (api.rocrand_generate_uniform_double)(generator, out, n) }, "rocrand_generate_uniform_double")
}

/// `rocrand_generate_normal` (`log` false) or `rocrand_generate_log_normal`.
///
/// # Safety
/// As [`generate`], for `f32`.
pub(crate) unsafe fn normal_f32(
    api: &RocrandApi,
    generator: rocrand_generator,
    out: *mut f32,
    n: usize,
    (mean, stddev): (f32, f32),
    log: bool,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    unsafe {
        if log {
            check((api.rocrand_generate_log_normal)(generator, out, n, mean, stddev), "rocrand_generate_log_normal")
        } else {
            check((api.rocrand_generate_normal)(generator, out, n, mean, stddev), "rocrand_generate_normal")
        }
    }
}

/// `rocrand_generate_normal_double` (`log` false) or
/// `rocrand_generate_log_normal_double`.
///
/// # Safety
/// As [`generate`], for `f64`.
pub(crate) unsafe fn normal_f64(
    api: &RocrandApi,
    generator: rocrand_generator,
    out: *mut f64,
    n: usize,
    (mean, stddev): (f64, f64),
    log: bool,
) -> Result<()> {
    // SAFETY: as the caller guarantees.
    unsafe {
        if log {
            check(
                (api.rocrand_generate_log_normal_double)(generator, out, n, mean, stddev),
                "rocrand_generate_log_normal_double",
            )
        } else {
            check(
                (api.rocrand_generate_normal_double)(generator, out, n, mean, stddev),
                "rocrand_generate_normal_double",
            )
        }
    }
}
