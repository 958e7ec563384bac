//! cuRAND itself: the functions the mapping calls, loading them, and its
//! statuses as rocRAND's.

use std::ffi::c_int;
use std::sync::OnceLock;

use crate::backend::nvidia::{catch_status, library_candidates, open, Handle};
use crate::rocrand::rocrand_status;
use crate::BackendError;

/// `curandStatus_t`.
pub(super) type CurandStatus = c_int;

fn_table! {
    /// The cuRAND host functions this mapping calls (`curand.h`, cuRAND
    /// 10). Enums are `int`; generators and streams opaque pointers.
    struct Curand {
        /// `curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type)`
        curandCreateGenerator = "curandCreateGenerator": fn(*mut Handle, c_int) -> CurandStatus;
        /// `curandStatus_t curandDestroyGenerator(curandGenerator_t generator)`
        curandDestroyGenerator = "curandDestroyGenerator": fn(Handle) -> CurandStatus;
        /// `curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream)`
        curandSetStream = "curandSetStream": fn(Handle, Handle) -> CurandStatus;
        /// `curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed)`
        curandSetPseudoRandomGeneratorSeed = "curandSetPseudoRandomGeneratorSeed": fn(Handle, u64) -> CurandStatus;
        /// `curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset)`
        curandSetGeneratorOffset = "curandSetGeneratorOffset": fn(Handle, u64) -> CurandStatus;
        /// `curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order)`
        curandSetGeneratorOrdering = "curandSetGeneratorOrdering": fn(Handle, c_int) -> CurandStatus;
        /// `curandStatus_t curandGenerateSeeds(curandGenerator_t generator)`
        curandGenerateSeeds = "curandGenerateSeeds": fn(Handle) -> CurandStatus;
        /// `curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num)`
        curandGenerate = "curandGenerate": fn(Handle, *mut u32, usize) -> CurandStatus;
        /// `curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num)`
        curandGenerateUniform = "curandGenerateUniform": fn(Handle, *mut f32, usize) -> CurandStatus;
        /// `curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num)`
        curandGenerateUniformDouble = "curandGenerateUniformDouble": fn(Handle, *mut f64, usize) -> CurandStatus;
        /// `curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n,
        /// float mean, float stddev)`
        curandGenerateNormal = "curandGenerateNormal": fn(Handle, *mut f32, usize, f32, f32) -> CurandStatus;
        /// `curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
        /// double mean, double stddev)`
        curandGenerateNormalDouble = "curandGenerateNormalDouble": fn(Handle, *mut f64, usize, f64, f64) -> CurandStatus;
        /// `curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n,
        /// float mean, float stddev)`
        curandGenerateLogNormal = "curandGenerateLogNormal": fn(Handle, *mut f32, usize, f32, f32) -> CurandStatus;
        /// `curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
        /// double mean, double stddev)`
        curandGenerateLogNormalDouble = "curandGenerateLogNormalDouble": fn(Handle, *mut f64, usize, f64, f64) -> CurandStatus;
        /// `curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int *outputPtr, size_t n,
        /// double lambda)`
        curandGeneratePoisson = "curandGeneratePoisson": fn(Handle, *mut u32, usize, f64) -> CurandStatus;
    }
}

/// The candidate files for cuRAND, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libcurand.so.10", "libcurand.so"])
}

const HINT: &str = "install cuRAND (CUDA 12 or 13: the toolkit, or the libcurand package) and add its lib64 \
     directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's rocRAND";

static LOADED: OnceLock<Result<Curand, BackendError>> = OnceLock::new();

/// The loaded functions; `ROCRAND_STATUS_NOT_CREATED` before a load.
pub(super) fn fns() -> Result<&'static Curand, rocrand_status> {
    LOADED.get().and_then(|l| l.as_ref().ok()).ok_or(rocrand_status::ROCRAND_STATUS_NOT_CREATED)
}

/// Load cuRAND from `candidates`, once: later calls give the first
/// call's outcome.
pub(super) fn load_once(candidates: &[String]) -> Result<(), BackendError> {
    LOADED
        .get_or_init(|| {
            let library = open("libcurand", candidates, HINT)?;
            // SAFETY: `library` is cuRAND, whose exported functions have
            // the signatures declared in `Curand` (cuRAND 10).
            let fns = unsafe { Curand::resolve(&library) }?;
            let path = library.keep();
            log::debug!("rocRAND over {path}");
            Ok(fns)
        })
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}

/// A `curandStatus_t`'s name (`curand.h`).
pub(super) fn status_name(status: CurandStatus) -> &'static str {
    match status {
        0 => "CURAND_STATUS_SUCCESS",
        100 => "CURAND_STATUS_VERSION_MISMATCH",
        101 => "CURAND_STATUS_NOT_INITIALIZED",
        102 => "CURAND_STATUS_ALLOCATION_FAILED",
        103 => "CURAND_STATUS_TYPE_ERROR",
        104 => "CURAND_STATUS_OUT_OF_RANGE",
        105 => "CURAND_STATUS_LENGTH_NOT_MULTIPLE",
        106 => "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED",
        201 => "CURAND_STATUS_LAUNCH_FAILURE",
        202 => "CURAND_STATUS_PREEXISTING_FAILURE",
        203 => "CURAND_STATUS_INITIALIZATION_FAILED",
        204 => "CURAND_STATUS_ARCH_MISMATCH",
        999 => "CURAND_STATUS_INTERNAL_ERROR",
        _ => "an unknown curandStatus_t",
    }
}

/// A cuRAND status as the rocRAND status of the same meaning (100-106
/// have the same numbers and meanings).
pub(super) fn to_rocrand(status: CurandStatus) -> rocrand_status {
    match status {
        0 => rocrand_status::ROCRAND_STATUS_SUCCESS,
        100..=106 => rocrand_status(status as u32),
        201 | 202 => rocrand_status::ROCRAND_STATUS_LAUNCH_FAILURE,
        _ => rocrand_status::ROCRAND_STATUS_INTERNAL_ERROR,
    }
}

pub(super) fn ok(function: &str, status: CurandStatus) -> Result<(), rocrand_status> {
    if status == 0 {
        return Ok(());
    }
    log::error!("rocRAND over cuRAND: {function} failed with {} ({status})", status_name(status));
    Err(to_rocrand(status))
}

/// Run one entry point, never unwinding into C.
pub(super) fn entry(body: impl FnOnce() -> Result<(), rocrand_status>) -> rocrand_status {
    catch_status(
        "rocRAND over cuRAND",
        rocrand_status::ROCRAND_STATUS_SUCCESS,
        rocrand_status::ROCRAND_STATUS_INTERNAL_ERROR,
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_rocrands() {
        assert_eq!(to_rocrand(105), rocrand_status::ROCRAND_STATUS_LENGTH_NOT_MULTIPLE);
        assert_eq!(to_rocrand(201), rocrand_status::ROCRAND_STATUS_LAUNCH_FAILURE);
        assert_eq!(to_rocrand(999), rocrand_status::ROCRAND_STATUS_INTERNAL_ERROR);
        assert_eq!(status_name(203), "CURAND_STATUS_INITIALIZATION_FAILED");
    }
}
