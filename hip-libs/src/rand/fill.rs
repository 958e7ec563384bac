//! Fills: the output's whole length, on its stream, its use declared.

use super::generator::on_generator;
use super::raw;
use crate::data::DeviceDataMut;
use crate::handle_cache::refuse_during_capture_because;
use crate::Result;
use hip_core::Device;
use hip_pool::{enqueue, Access};
use hip_sys::rocrand::rocrand_generator;
use hip_sys::rocrand::RocrandApi;

/// The floating-point types rocRAND fills: `f32` and `f64`.
pub trait RandFloat: Copy + sealed::Sealed {
    #[doc(hidden)]
    /// # Safety
    /// `generator` is live; `out` holds `n` values on its device.
    unsafe fn uniform(api: &RocrandApi, generator: rocrand_generator, out: *mut Self, n: usize) -> Result<()>;
    #[doc(hidden)]
    /// # Safety
    /// As `uniform`.
    unsafe fn normal(
        api: &RocrandApi,
        generator: rocrand_generator,
        out: *mut Self,
        n: usize,
        moments: (Self, Self),
        log: bool,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl RandFloat for f32 {
    unsafe fn uniform(api: &RocrandApi, generator: rocrand_generator, out: *mut f32, n: usize) -> Result<()> {
        // SAFETY: as the caller guarantees.
        unsafe { raw::uniform_f32(api, generator, out, n) }
    }
    unsafe fn normal(
        api: &RocrandApi,
        generator: rocrand_generator,
        out: *mut f32,
        n: usize,
        moments: (f32, f32),
        log: bool,
    ) -> Result<()> {
        // SAFETY: as the caller guarantees.
        unsafe { raw::normal_f32(api, generator, out, n, moments, log) }
    }
}

impl RandFloat for f64 {
    unsafe fn uniform(api: &RocrandApi, generator: rocrand_generator, out: *mut f64, n: usize) -> Result<()> {
        // SAFETY: as the caller guarantees.
        unsafe { raw::uniform_f64(api, generator, out, n) }
    }
    unsafe fn normal(
        api: &RocrandApi,
        generator: rocrand_generator,
        out: *mut f64,
        n: usize,
        moments: (f64, f64),
        log: bool,
    ) -> Result<()> {
        // SAFETY: as the caller guarantees.
        unsafe { raw::normal_f64(api, generator, out, n, moments, log) }
    }
}

/// The output alignment rocRAND's kernels assume for the distributions
/// that take several words an element (double uniforms, normals): 16
/// bytes. rocRAND 2.10's Philox (and its later versions, to date)
/// misplaces values when such an output starts elsewhere, silently; the
/// rule holds for every engine, so that code that runs on one runs on all.
const ALIGN: usize = 16;

/// Fill `out` on its stream with `call`, which gets the table, this
/// thread's generator (bound to that stream), the pointer and the length.
/// `aligned`: the output must start on [`ALIGN`] bytes.
fn fill<T>(
    operation: &'static str,
    out: &mut impl DeviceDataMut<T>,
    aligned: bool,
    call: impl FnOnce(&'static RocrandApi, rocrand_generator, *mut T, usize) -> Result<()>,
) -> Result<()> {
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let at = out.device_ptr() as usize;
    if aligned && at % ALIGN != 0 {
        return Err(crate::LibError::invalid(
            operation,
            format!(
                "the output starts at {at:#x}, not on {ALIGN} bytes; rocRAND would misplace values there (it assumes \
                 the alignment for distributions that take several words an element): fill an array of its own \
                 and copy, or start the slice on a multiple of {} elements",
                ALIGN / std::mem::size_of::<T>().max(1)
            ),
        ));
    }
    let stream = out.stream().clone();
    let ptr = out.device_ptr_mut().cast::<T>();
    on_generator(&stream, |api, generator| {
        enqueue(&stream, [(out.buffer(), Access::Write)], || call(api, generator, ptr, n))
    })
}

/// Fill `out` with uniform numbers in (0, 1] on its stream
/// (`rocrand_generate_uniform`, `_double`), continuing this thread's
/// stream of the device.
///
/// # Errors
/// [`LibError::InvalidInput`](crate::LibError::InvalidInput) for a double
/// output that does not start on 16 bytes (a slice of an array at an odd
/// element), before any call: rocRAND would misplace values there;
/// [`LibError::Unavailable`](crate::LibError::Unavailable) without rocRAND;
/// [`LibError::Hip`](crate::LibError::Hip) when the generator would be
/// made inside a capture (see [`warm_handle`](super::warm_handle)), or
/// declaring the output's use fails; [`LibError::Status`](crate::LibError::Status)
/// with rocRAND's status.
///
/// # Examples
/// ```
/// use hip_libs::rand;
/// # fn init(weights: &mut impl hip_libs::DeviceDataMut<f32>) -> hip_libs::Result<()> {
/// rand::set_seed(weights.device(), 42)?; // this thread's stream of that device
/// rand::uniform(weights)?; // values in (0, 1]
/// # Ok(()) }
/// ```
#[doc(alias = "rocrand_generate_uniform")]
#[doc(alias = "rocrand_generate_uniform_double")]
pub fn uniform<T: RandFloat>(out: &mut impl DeviceDataMut<T>) -> Result<()> {
    // A double takes two words.
    let aligned = std::mem::size_of::<T>() == 8;
    // SAFETY: `fill` hands over the output's pointer and length, on the
    // generator's device (the output's stream's).
    fill("rand::uniform", out, aligned, |api, g, ptr, n| unsafe { T::uniform(api, g, ptr, n) })
}

/// Fill `out` with normal numbers of `mean` and `stddev` on its stream
/// (`rocrand_generate_normal`, `_double`; Box-Muller). Any length: an odd
/// one computes the last pair and drops its second value, as rocRAND does.
///
/// # Errors
/// As [`uniform`], for any output (f32 too) that does not start on 16
/// bytes.
///
/// # Examples
/// ```
/// # fn noise(x: &mut impl hip_libs::DeviceDataMut<f32>) -> hip_libs::Result<()> {
/// // Standard normal numbers; x starts on 16 bytes (a whole array does).
/// hip_libs::rand::normal(x, 0.0, 1.0)?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocrand_generate_normal")]
#[doc(alias = "rocrand_generate_normal_double")]
pub fn normal<T: RandFloat>(out: &mut impl DeviceDataMut<T>, mean: T, stddev: T) -> Result<()> {
    // SAFETY: as in `uniform`.
    fill("rand::normal", out, true, |api, g, ptr, n| unsafe { T::normal(api, g, ptr, n, (mean, stddev), false) })
}

/// Fill `out` with log-normal numbers, `exp` of normals of `mean` and
/// `stddev`, on its stream (`rocrand_generate_log_normal`, `_double`).
///
/// # Errors
/// As [`normal`].
///
/// # Examples
/// ```
/// # fn prices(x: &mut impl hip_libs::DeviceDataMut<f64>) -> hip_libs::Result<()> {
/// // exp(N(0, 0.25²)): positive, with median 1.
/// hip_libs::rand::log_normal(x, 0.0, 0.25)?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocrand_generate_log_normal")]
#[doc(alias = "rocrand_generate_log_normal_double")]
pub fn log_normal<T: RandFloat>(out: &mut impl DeviceDataMut<T>, mean: T, stddev: T) -> Result<()> {
    // SAFETY: as in `uniform`.
    fill("rand::log_normal", out, true, |api, g, ptr, n| unsafe { T::normal(api, g, ptr, n, (mean, stddev), true) })
}

/// Fill `out` with the generator's 32-bit words on its stream
/// (`rocrand_generate`). Any alignment.
///
/// # Errors
/// As [`uniform`] (no alignment rule).
///
/// # Examples
/// ```
/// # fn words(x: &mut impl hip_libs::DeviceDataMut<u32>) -> hip_libs::Result<()> {
/// hip_libs::rand::bits(x)?; // one 32-bit word per element
/// # Ok(()) }
/// ```
#[doc(alias = "rocrand_generate")]
pub fn bits(out: &mut impl DeviceDataMut<u32>) -> Result<()> {
    // SAFETY: as in `uniform`.
    fill("rand::bits", out, false, |api, g, ptr, n| unsafe { raw::generate(api, g, ptr, n) })
}

/// The largest `lambda` [`poisson`] takes: rocRAND's table code casts
/// `floor(lambda)` to a 32-bit `int`.
pub const POISSON_LAMBDA_MAX: f64 = 2_147_483_647.0;

/// Fill `out` with Poisson numbers of mean `lambda` on its stream
/// (`rocrand_generate_poisson`). rocRAND draws each from one word through
/// an alias table of the values down to probability 1e-12, which it
/// builds on the host and keeps until a fill asks for another `lambda`;
/// cuRAND (the nvidia backend) has its own method. Any alignment.
///
/// # Errors
/// [`LibError::InvalidInput`](crate::LibError::InvalidInput) for a
/// `lambda` that is not positive and finite, or above
/// [`POISSON_LAMBDA_MAX`], before any call;
/// [`LibError::Hip`](crate::LibError::Hip) with
/// [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// during a capture of this thread or a Global one: a new `lambda`'s table
/// is device memory filled by a synchronous copy, which would break the
/// capture, so Poisson fills are not captured; otherwise as [`uniform`].
///
/// # Examples
/// ```
/// # use hip_libs::DeviceDataMut;
/// # fn counts(out: &mut impl DeviceDataMut<u32>) -> hip_libs::Result<()> {
/// hip_libs::rand::poisson(out, 4.5)?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocrand_generate_poisson")]
pub fn poisson(out: &mut impl DeviceDataMut<u32>, lambda: f64) -> Result<()> {
    if !(lambda > 0.0 && lambda <= POISSON_LAMBDA_MAX) {
        return Err(crate::LibError::invalid(
            "rand::poisson",
            format!("lambda is {lambda}; a Poisson mean must be positive, finite and at most {POISSON_LAMBDA_MAX}"),
        ));
    }
    refuse_during_capture_because(
        "rand::poisson",
        "a new lambda's table is device memory filled by a synchronous copy; fill Poisson numbers outside captures",
    )?;
    // SAFETY: as in `uniform`.
    fill("rand::poisson", out, false, |api, g, ptr, n| unsafe { raw::poisson(api, g, ptr, n, lambda) })
}

/// Restart this thread's stream of `device` at `seed`, from the offset
/// (`rocrand_set_seed`). Threads each have their own stream: give each its
/// own seed (or offset) for independent numbers.
///
/// # Errors
/// As [`uniform`], with rocRAND's status of `rocrand_set_seed` or
/// `rocrand_initialize_generator`; [`LibError::Hip`](crate::LibError::Hip)
/// with [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway)
/// during a capture of this thread or a Global one (the state is made
/// again at once, which allocates on cuRAND).
///
/// # Examples
/// ```
/// let device = hip_core::device();
/// hip_libs::rand::set_seed(device, 1234)?; // reproducible from here
/// hip_libs::rand::set_offset(device, 1 << 20)?; // skip 2^20 words: another thread's share
/// # Ok::<(), hip_libs::LibError>(())
/// ```
#[doc(alias = "rocrand_set_seed")]
pub fn set_seed(device: Device, seed: u64) -> Result<()> {
    restart(device, "rocrand_set_seed", |api, g| {
        // SAFETY: a live generator (the cache's), under its device.
        unsafe { raw::set_seed(api, g, seed) }
    })
}

/// Run `set` (a seed or offset change) on this thread's generator of
/// `device`, then make its state again at once, as its creation did: not
/// inside a capture, where cuRAND's allocation would break it.
fn restart(
    device: Device,
    operation: &'static str,
    set: impl FnOnce(&'static RocrandApi, rocrand_generator) -> Result<()>,
) -> Result<()> {
    refuse_during_capture_because(
        operation,
        "the generator's state is made again, which allocates device memory on cuRAND; set seeds and offsets \
         before capturing",
    )?;
    let stream = hip_core::Stream::null(device);
    on_generator(&stream, |api, g| {
        set(api, g)?;
        // SAFETY: a live generator (the cache's), under its device.
        unsafe { raw::initialize(api, g) }
    })
}

/// Restart this thread's stream of `device` at `offset` 32-bit words from
/// the seed's start (`rocrand_set_offset`). A float uniform, word or
/// Poisson number takes one word, a double uniform two, a pair of float
/// normals two and a pair of double normals four; on MRG32k3a a double
/// uniform takes one and a pair of normals two in either precision. On
/// XORWOW and MRG32k3a rocRAND deals the stream to 131072 engines: an
/// offset of `k` leaves them where `k` one-word values would have.
///
/// # Errors
/// As [`set_seed`], with rocRAND's status of `rocrand_set_offset`.
#[doc(alias = "rocrand_set_offset")]
pub fn set_offset(device: Device, offset: u64) -> Result<()> {
    restart(device, "rocrand_set_offset", |api, g| {
        // SAFETY: a live generator (the cache's), under its device.
        unsafe { raw::set_offset(api, g, offset) }
    })
}
