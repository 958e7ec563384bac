//! rocFFT over cuFFT: the nvidia backend's [`RocfftApi`](crate::rocfft::RocfftApi).
//!
//! As HIP's hipFFT does for NVIDIA, each rocFFT entry point is a Rust
//! function over cuFFT (`libcufft.so.12`, `.11`, loaded at run time).
//!
//! # The mapping
//!
//! - **Plans.** `rocfft_plan_create` makes a cuFFT plan with
//!   `cufftCreate`, `cufftSetAutoAllocation(0)` and `cufftMakePlanMany64`,
//!   under the thread's current device, which the plan belongs to (as a
//!   rocFFT plan does). rocFFT lists lengths fastest first, cuFFT slowest
//!   first; the order is reversed. The transform type and precision choose
//!   `C2C`/`Z2Z` (the direction is the plan's), `R2C`/`D2Z` or
//!   `C2R`/`Z2D`.
//! - **Work areas** are the caller's: cuFFT's own allocation is off, the
//!   size `cufftMakePlanMany64` reports is the plan's work buffer size, and
//!   `rocfft_execute` hands the execution info's buffer to
//!   `cufftSetWorkArea`. A plan that needs one and gets none (or a smaller
//!   one) is `rocfft_status_invalid_work_buffer`, not a cuFFT allocation.
//! - **Layouts.** Without a description, cuFFT's basic layout is rocFFT's
//!   default one (contiguous; in-place real transforms padded to
//!   `2 * (n / 2 + 1)` along the fastest dimension). With
//!   `rocfft_plan_description_set_data_layout`, strides must nest as
//!   cuFFT's advanced layout can express (each stride a multiple of the
//!   next faster one, covering its length: see [`layout::embed`]) and are mapped
//!   to `inembed`/`istride`/`idist`; offsets are added to the buffers at
//!   execution. Planar arrays, or array types that do not fit the
//!   transform, are refused with rocFFT's status for them: a layout cuFFT
//!   cannot express is an error, never a different transform.
//! - **Streams**: the execution info's stream goes to `cufftSetStream`
//!   before each execution.
//! - `rocfft_setup` and `rocfft_cleanup` succeed and do nothing: cuFFT
//!   keeps no global state to build or tear down.
//! - `rocfft_get_version_string` reports `1.0.25 (cuFFT <version>)`:
//!   cuFFT's out-of-place real forward transforms keep their input, as
//!   rocFFT's do from 1.0.25, and its complex-to-real ones may overwrite
//!   it, as rocFFT's may (cuFFT's documentation says so for out-of-place
//!   C2R), so that is the rocFFT the wrappers above must treat it as.
//!
//! # Differences from rocFFT
//!
//! - Half precision is refused (`rocfft_status_invalid_arg_value`).
//! - A plan, a description or an execution info that this backend did not
//!   make (or already destroyed) is `rocfft_status_invalid_arg_value`,
//!   where rocFFT would read freed memory.

mod descriptions;
mod exec;
mod layout;
mod library;
mod objects;
mod plans;
mod status;
mod table;

pub(crate) use library::candidates;
pub(crate) use table::load;
