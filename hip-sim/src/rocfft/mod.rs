//! rocFFT in the simulator, computed with `rustfft`.
//!
//! - Transforms: complex forward and inverse, real forward (R2C) and real
//!   inverse (C2R), single and double precision, 1 to 3 dimensions,
//!   in-place and out-of-place, batched by `number_of_transforms`.
//! - Layout: rocFFT's defaults only, interleaved complex; `lengths[0]` is
//!   the innermost (fastest) dimension; transforms of a batch follow each
//!   other with no gap. The Hermitian side of a real transform has
//!   `lengths[0] / 2 + 1` elements in the innermost dimension; an in-place
//!   real transform pads each innermost row of its real side to
//!   `2 (lengths[0] / 2 + 1)` reals, as rocFFT requires.
//!   `rocfft_plan_description_set_data_layout` accepts only those defaults
//!   (null offsets and strides, distances 0, the array types the transform
//!   implies or `unset`); anything else is `rocfft_status_failure`.
//! - Scaling as rocFFT: none. The forward transform uses e^(-2πi jk/n), the
//!   inverse e^(+2πi jk/n), so inverse(forward(x)) = n x.
//! - Work buffer: plans of 2 or 3 dimensions ask for [`WORK_BUFFER_SIZE`]
//!   bytes and `rocfft_execute` then requires an execution info with a
//!   device work buffer at least that large
//!   (`rocfft_status_invalid_work_buffer` otherwise); 1-D plans ask for 0.
//! - Version: `rocfft_get_version_string` gives `1.0.27`, the rocFFT of
//!   ROCm 6.1 (the bindings' headers are those of Debian's
//!   `librocfft-dev 6.1.2`, named after the ROCm release; the library
//!   reports its own version), or the version `AMDGPU_SIM_ROCFFT_VERSION`
//!   names (`1.0.x`), or the one [`set_rocfft_version`] set. The version
//!   decides what an out-of-place transform does to its input, below.
//! - **Inputs are overwritten where rocFFT may overwrite them**: after an
//!   out-of-place real inverse (C2R) transform, and, when the version is
//!   before 1.0.25 (ROCm 6.0), after an out-of-place real forward (R2C)
//!   one, the whole input buffer of the transform is filled with NaNs
//!   (real rocFFT uses it as scratch space). Complex transforms leave their
//!   input intact, as rocFFT guarantees in every 1.0.x.
//! - Arithmetic in the operand precision: single-precision plans compute
//!   in `f32` (`rustfft` over `f32`), double-precision plans in `f64`, so
//!   single-precision errors are those of a single-precision FFT.
//! - **Setup and cleanup as rocFFT's**: `rocfft_setup` is optional (plans
//!   can be made without it) and reads the current device (rocFFT tunes
//!   its kernel choice for that device's architecture; [`setup_device`]
//!   tells which device that was). `rocfft_cleanup` succeeds even with
//!   live plans, as rocFFT's does, and frees what plans share: their
//!   twiddle tables and the kernel cache. A plan made before a cleanup, or
//!   whose creation overlapped one on another thread, is then unusable:
//!   `rocfft_execute` on it is `rocfft_status_failure`, as in rocFFT
//!   1.0.15 and 1.0.16 (later versions read the freed tables and compute
//!   garbage). Destroying it works. Plans made after the cleanup work, with
//!   or without a new setup, as in rocFFT.

mod execute;
mod plans;
mod setup;
mod status;
mod table;
mod transform;
mod version;

pub use plans::WORK_BUFFER_SIZE;
pub(crate) use plans::{Description, Info, Plan};
pub use setup::setup_device;
pub(crate) use table::SIM_ROCFFT;
pub use version::{env_version, parse_version, rocfft_version, set_rocfft_version, DEFAULT_VERSION};

/// rocFFT's objects: plans, plan descriptions and execution infos.
pub(crate) enum Kind {
    Plan(Plan),
    Description(Description),
    Info(Info),
}

/// Where they are kept.
pub(crate) static OBJECTS: crate::library::Registry<Kind> = crate::library::Registry::new();
