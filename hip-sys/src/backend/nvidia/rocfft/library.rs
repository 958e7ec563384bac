//! cuFFT itself: the functions the mapping calls, its numbers, and loading it.

use std::ffi::{c_int, c_longlong, c_void};
use std::sync::OnceLock;

use super::status::{result_name, CufftResult};
use crate::backend::nvidia::{library_candidates, open, Handle};
use crate::rocfft::rocfft_status;
use crate::BackendError;

/// `cufftHandle`.
pub(super) type CufftHandle = c_int;

fn_table! {
    /// The cuFFT functions this mapping calls (`cufft.h`, cuFFT 11 and 12).
    struct Cufft {
        /// `cufftResult cufftCreate(cufftHandle *handle)`
        cufftCreate = "cufftCreate": fn(*mut CufftHandle) -> CufftResult;
        /// `cufftResult cufftDestroy(cufftHandle plan)`
        cufftDestroy = "cufftDestroy": fn(CufftHandle) -> CufftResult;
        /// `cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)`
        cufftSetAutoAllocation = "cufftSetAutoAllocation": fn(CufftHandle, c_int) -> CufftResult;
        /// `cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long *n, long long *inembed,
        /// long long istride, long long idist, long long *onembed, long long ostride, long long odist,
        /// cufftType type, long long batch, size_t *workSize)`
        cufftMakePlanMany64 = "cufftMakePlanMany64": fn(
            CufftHandle, c_int, *mut c_longlong, *mut c_longlong, c_longlong, c_longlong,
            *mut c_longlong, c_longlong, c_longlong, c_int, c_longlong, *mut usize,
        ) -> CufftResult;
        /// `cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream)`
        cufftSetStream = "cufftSetStream": fn(CufftHandle, Handle) -> CufftResult;
        /// `cufftResult cufftSetWorkArea(cufftHandle plan, void *workArea)`
        cufftSetWorkArea = "cufftSetWorkArea": fn(CufftHandle, *mut c_void) -> CufftResult;
        /// `cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)`
        cufftExecC2C = "cufftExecC2C": fn(CufftHandle, *mut c_void, *mut c_void, c_int) -> CufftResult;
        /// `cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction)`
        cufftExecZ2Z = "cufftExecZ2Z": fn(CufftHandle, *mut c_void, *mut c_void, c_int) -> CufftResult;
        /// `cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)`
        cufftExecR2C = "cufftExecR2C": fn(CufftHandle, *mut c_void, *mut c_void) -> CufftResult;
        /// `cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata)`
        cufftExecD2Z = "cufftExecD2Z": fn(CufftHandle, *mut c_void, *mut c_void) -> CufftResult;
        /// `cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata)`
        cufftExecC2R = "cufftExecC2R": fn(CufftHandle, *mut c_void, *mut c_void) -> CufftResult;
        /// `cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata)`
        cufftExecZ2D = "cufftExecZ2D": fn(CufftHandle, *mut c_void, *mut c_void) -> CufftResult;
        /// `cufftResult cufftGetVersion(int *version)`
        cufftGetVersion = "cufftGetVersion": fn(*mut c_int) -> CufftResult;
    }
}

/// `CUFFT_FORWARD` and `CUFFT_INVERSE`.
pub(super) const FORWARD: c_int = -1;
pub(super) const INVERSE: c_int = 1;

/// The `cufftType` values (`cufft.h`).
pub(super) mod cufft_type {
    use std::ffi::c_int;
    pub const R2C: c_int = 0x2a;
    pub const C2R: c_int = 0x2c;
    pub const C2C: c_int = 0x29;
    pub const D2Z: c_int = 0x6a;
    pub const Z2D: c_int = 0x6c;
    pub const Z2Z: c_int = 0x69;
}

/// The candidate files for cuFFT, in the order they are tried.
pub(crate) fn candidates() -> Vec<String> {
    library_candidates(&["libcufft.so.12", "libcufft.so.11", "libcufft.so"])
}

const HINT: &str = "install cuFFT (CUDA 12 or 13: the toolkit, or the libcufft package) and add its \
     lib64 directory to LD_LIBRARY_PATH; or set AMDGPU_BACKEND=sim to use the simulator's rocFFT";

/// The loaded cuFFT functions and its version.
struct Loaded {
    fns: Cufft,
    version: c_int,
}

static LOADED: OnceLock<Result<Loaded, BackendError>> = OnceLock::new();

fn loaded() -> Option<&'static Loaded> {
    LOADED.get().and_then(|l| l.as_ref().ok())
}

/// Load cuFFT from `candidates`, once: later calls give the first call's
/// outcome.
pub(super) fn load_once(candidates: &[String]) -> Result<(), BackendError> {
    LOADED
        .get_or_init(|| {
            let library = open("libcufft", candidates, HINT)?;
            let path = library.path().to_owned();
            // SAFETY: `library` is cuFFT, whose exported functions have the
            // signatures declared in `Cufft` (cuFFT 11 and 12 headers).
            let fns = unsafe { Cufft::resolve(&library) }?;
            let mut version: c_int = 0;
            // SAFETY: a valid out-pointer.
            let status = unsafe { (fns.cufftGetVersion)(&mut version) };
            if status != 0 {
                return Err(BackendError::LibraryUnavailable {
                    library: "rocFFT".to_owned(),
                    hint: format!("{path} loaded but cufftGetVersion failed ({}); {HINT}", result_name(status)),
                });
            }
            // Keep the code the pointers point into mapped.
            library.keep();
            log::debug!("rocFFT over {path} (cuFFT {version})");
            Ok(Loaded { fns, version })
        })
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}

/// The cuFFT version (`cufftGetVersion`, e.g. 12000), once loaded.
pub(super) fn version() -> Option<c_int> {
    loaded().map(|l| l.version)
}

/// The loaded functions; `rocfft_status_failure` before a successful load.
pub(super) fn fns() -> Result<&'static Cufft, rocfft_status> {
    loaded().map(|l| &l.fns).ok_or(rocfft_status::rocfft_status_failure)
}
