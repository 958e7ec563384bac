//! rocRAND over cuRAND: the nvidia backend's [`RocrandApi`](crate::rocrand::RocrandApi).
//!
//! As hipRAND does for NVIDIA, each rocRAND host function is a Rust
//! function over cuRAND's host API (`libcurand.so.10`, loaded at run
//! time).
//!
//! # The mapping
//!
//! - **Generators** are cuRAND's own, passed through as rocRAND's opaque
//!   pointers. Types: Philox4x32-10 (404 to `CURAND_RNG_PSEUDO_PHILOX4_32_10`
//!   161), XORWOW (401 to 101), MRG32k3a (402 to 121), MTGP32 (403 to
//!   141), MT19937 (407 to 142), the defaults (400 to 100, 500 to 200) and
//!   the Sobol generators (501, 502, 504, 505 to 201, 202, 203, 204);
//!   rocRAND's others (MRG31k3p, LFSR113, Threefry) have no cuRAND
//!   counterpart and are `ROCRAND_STATUS_TYPE_ERROR`. A pseudo-random
//!   generator is seeded 0 when made, rocRAND's default.
//! - **Seeds, offsets, orderings** pass through (the orderings have the
//!   same numbers); statuses map to rocRAND's of the same meaning, with
//!   cuRAND's name in the log. `rocrand_get_version` reports 2.10.17, the
//!   rocRAND whose API this follows.
//! - **Odd normal and log-normal counts.** cuRAND refuses them
//!   (`CURAND_STATUS_LENGTH_NOT_MULTIPLE`); rocRAND computes the last pair
//!   and drops its second value. The mapping does the same: the even part
//!   in place, the last pair into two elements from `hipMallocAsync` on
//!   the generator's stream, one of them copied out, then freed there
//!   (stream-ordered, so it also captures).
//!
//! # Differences from rocRAND
//!
//! cuRAND's sequences are not rocRAND's for the same generator and seed
//! (its Philox host API interleaves the stream over its threads, and its
//! conversions differ): numbers are reproducible within one backend, not
//! across them.

mod library;

use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::{Mutex, OnceLock};

use self::library::{entry, fns, load_once, ok};
use crate::bindings::hip::{hipMemcpyKind, hipStream_t};
use crate::rocrand::{rocrand_generator, rocrand_ordering, rocrand_rng_type, rocrand_status, RocrandApi};
use crate::sync::MutexExt;
use crate::BackendError;

pub(crate) use library::candidates;

/// The HIP stream each generator was last given, for the odd counts'
/// scratch (cuRAND does not say its stream).
static STREAMS: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

fn stream_of(generator: rocrand_generator) -> hipStream_t {
    STREAMS.lock_unpoisoned().as_ref().and_then(|m| m.get(&(generator as usize)).copied()).unwrap_or(0) as hipStream_t
}

/// cuRAND's type for a rocRAND type; `None` for those it lacks.
fn curand_type(kind: rocrand_rng_type) -> Option<c_int> {
    Some(match kind.0 {
        400 => 100,
        401 => 101,
        402 => 121,
        403 => 141,
        404 => 161,
        407 => 142,
        500 => 200,
        501 => 201,
        502 => 202,
        504 => 203,
        505 => 204,
        _ => return None,
    })
}

unsafe extern "C" fn rocrand_get_version(version: *mut c_int) -> rocrand_status {
    entry(|| {
        if version.is_null() {
            return Err(rocrand_status::ROCRAND_STATUS_OUT_OF_RANGE);
        }
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { version.write(201_017) };
        Ok(())
    })
}

unsafe extern "C" fn rocrand_create_generator(
    generator: *mut rocrand_generator,
    kind: rocrand_rng_type,
) -> rocrand_status {
    entry(|| {
        if generator.is_null() {
            return Err(rocrand_status::ROCRAND_STATUS_NOT_CREATED);
        }
        let curand = curand_type(kind).ok_or(rocrand_status::ROCRAND_STATUS_TYPE_ERROR)?;
        let f = fns()?;
        let mut made: *mut c_void = std::ptr::null_mut();
        // SAFETY: a valid out-pointer and a cuRAND type.
        ok("curandCreateGenerator", unsafe { (f.curandCreateGenerator)(&mut made, curand) })?;
        if curand < 200 {
            // SAFETY: a live pseudo-random generator.
            let seeded = unsafe { (f.curandSetPseudoRandomGeneratorSeed)(made, 0) };
            if let Err(status) = ok("curandSetPseudoRandomGeneratorSeed", seeded) {
                // SAFETY: made above, destroyed once.
                unsafe { (f.curandDestroyGenerator)(made) };
                return Err(status);
            }
        }
        // SAFETY: checked non-null.
        unsafe { generator.write(made.cast()) };
        Ok(())
    })
}

unsafe extern "C" fn rocrand_destroy_generator(generator: rocrand_generator) -> rocrand_status {
    entry(|| {
        if generator.is_null() {
            return Err(rocrand_status::ROCRAND_STATUS_NOT_CREATED);
        }
        if let Some(map) = STREAMS.lock_unpoisoned().as_mut() {
            map.remove(&(generator as usize));
        }
        // SAFETY: a generator of this mapping, destroyed once (C contract).
        ok("curandDestroyGenerator", unsafe { (fns()?.curandDestroyGenerator)(generator.cast()) })
    })
}

unsafe extern "C" fn rocrand_set_stream(generator: rocrand_generator, stream: hipStream_t) -> rocrand_status {
    entry(|| {
        if generator.is_null() {
            return Err(rocrand_status::ROCRAND_STATUS_NOT_CREATED);
        }
        let cuda = crate::backend::nvidia::objects::stream_of(stream)
            .map_err(|_| rocrand_status::ROCRAND_STATUS_OUT_OF_RANGE)?;
        // SAFETY: a live generator and the HIP stream's CUDA stream.
        ok("curandSetStream", unsafe { (fns()?.curandSetStream)(generator.cast(), cuda) })?;
        STREAMS.lock_unpoisoned().get_or_insert_with(HashMap::new).insert(generator as usize, stream as usize);
        Ok(())
    })
}

macro_rules! pass {
    ($name:ident($($arg:ident: $ty:ty),*) => $curand:ident($($expr:expr),*)) => {
        unsafe extern "C" fn $name(generator: rocrand_generator, $($arg: $ty),*) -> rocrand_status {
            entry(|| {
                if generator.is_null() {
                    return Err(rocrand_status::ROCRAND_STATUS_NOT_CREATED);
                }
                // SAFETY: a live generator (C contract); the arguments as
                // the caller gave them, which cuRAND checks as rocRAND does.
                ok(stringify!($curand), unsafe { (fns()?.$curand)(generator.cast(), $($expr),*) })
            })
        }
    };
}

pass!(rocrand_set_seed(seed: u64) => curandSetPseudoRandomGeneratorSeed(seed));
pass!(rocrand_set_offset(offset: u64) => curandSetGeneratorOffset(offset));
pass!(rocrand_set_ordering(order: rocrand_ordering) => curandSetGeneratorOrdering(order.0 as c_int));
pass!(rocrand_generate(out: *mut u32, n: usize) => curandGenerate(out, n));
pass!(rocrand_generate_uniform(out: *mut f32, n: usize) => curandGenerateUniform(out, n));
pass!(rocrand_generate_uniform_double(out: *mut f64, n: usize) => curandGenerateUniformDouble(out, n));
pass!(rocrand_generate_poisson(out: *mut u32, n: usize, lambda: f64) => curandGeneratePoisson(out, n, lambda));

unsafe extern "C" fn rocrand_initialize_generator(generator: rocrand_generator) -> rocrand_status {
    entry(|| {
        if generator.is_null() {
            return Err(rocrand_status::ROCRAND_STATUS_NOT_CREATED);
        }
        // SAFETY: a live generator.
        ok("curandGenerateSeeds", unsafe { (fns()?.curandGenerateSeeds)(generator.cast()) })
    })
}

/// One of cuRAND's pair-wise fills (normal or log-normal) of `n` values of
/// `T` at `out`, any `n`: the even part in place, an odd last value from a
/// pair made in stream-ordered scratch.
fn pairs<T: Copy>(
    name: &'static str,
    generator: rocrand_generator,
    out: *mut T,
    n: usize,
    fill: impl Fn(*mut T, usize) -> library::CurandStatus,
) -> Result<(), rocrand_status> {
    if generator.is_null() {
        return Err(rocrand_status::ROCRAND_STATUS_NOT_CREATED);
    }
    let even = n - n % 2;
    if even > 0 {
        ok(name, fill(out, even))?;
    }
    if n % 2 == 0 {
        return Ok(());
    }
    let stream = stream_of(generator);
    let size = std::mem::size_of::<T>();
    let mut scratch: *mut c_void = std::ptr::null_mut();
    let launch = rocrand_status::ROCRAND_STATUS_LAUNCH_FAILURE;
    // SAFETY: a valid out-pointer; the generator's stream (or null).
    if unsafe { super::hip::hipMallocAsync(&mut scratch, 2 * size, stream) }.0 != 0 {
        return Err(rocrand_status::ROCRAND_STATUS_ALLOCATION_FAILED);
    }
    let made = ok(name, fill(scratch.cast(), 2));
    // SAFETY: `out` holds `n` values (C contract), the last at `even`;
    // the scratch holds two, made above on the same stream.
    let copied = unsafe {
        super::hip::hipMemcpyAsync(out.add(even).cast(), scratch, size, hipMemcpyKind::hipMemcpyDeviceToDevice, stream)
    };
    // SAFETY: allocated above on `stream`, freed once in its order.
    let freed = unsafe { super::hip::hipFreeAsync(scratch, stream) };
    made?;
    if copied.0 != 0 || freed.0 != 0 {
        return Err(launch);
    }
    Ok(())
}

macro_rules! normals {
    ($name:ident, $t:ty, $curand:ident) => {
        unsafe extern "C" fn $name(
            generator: rocrand_generator,
            out: *mut $t,
            n: usize,
            mean: $t,
            stddev: $t,
        ) -> rocrand_status {
            entry(|| {
                let f = fns()?;
                pairs(stringify!($curand), generator, out, n, |at, count| {
                    // SAFETY: a live generator; `at` holds `count` values
                    // (the caller's output or the scratch).
                    unsafe { (f.$curand)(generator.cast(), at, count, mean, stddev) }
                })
            })
        }
    };
}

normals!(rocrand_generate_normal, f32, curandGenerateNormal);
normals!(rocrand_generate_normal_double, f64, curandGenerateNormalDouble);
normals!(rocrand_generate_log_normal, f32, curandGenerateLogNormal);
normals!(rocrand_generate_log_normal_double, f64, curandGenerateLogNormalDouble);

static TABLE: OnceLock<RocrandApi> = OnceLock::new();

/// Load cuRAND from `candidates` and return the rocRAND table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static RocrandApi, BackendError> {
    load_once(candidates).map(|_| {
        TABLE.get_or_init(|| RocrandApi {
            rocrand_get_version,
            rocrand_create_generator,
            rocrand_destroy_generator,
            rocrand_set_stream,
            rocrand_set_seed,
            rocrand_set_offset,
            rocrand_set_ordering,
            rocrand_initialize_generator,
            rocrand_generate,
            rocrand_generate_uniform,
            rocrand_generate_uniform_double,
            rocrand_generate_normal,
            rocrand_generate_normal_double,
            rocrand_generate_log_normal,
            rocrand_generate_log_normal_double,
            rocrand_generate_poisson,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_without_a_curand_counterpart_are_none() {
        assert_eq!(curand_type(rocrand_rng_type::ROCRAND_RNG_PSEUDO_PHILOX4_32_10), Some(161));
        assert_eq!(curand_type(rocrand_rng_type::ROCRAND_RNG_PSEUDO_LFSR113), None);
        assert_eq!(curand_type(rocrand_rng_type::ROCRAND_RNG_QUASI_SOBOL64), Some(203));
    }
}
