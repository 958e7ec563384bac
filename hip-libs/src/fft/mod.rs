//! rocFFT: complex and real FFTs in 1 to 3 dimensions, with a bounded
//! per-device plan cache.
//!
//! Shapes are given slowest dimension first, as in C arrays and NumPy
//! (`[rows, cols]`); rocFFT's own order (fastest first) is handled here.
//! Complex numbers are `[re, im]` pairs. Transforms are unnormalized, as
//! in rocFFT: a forward then inverse transform of `x` gives `n * x`.
//!
//! A plan records the device it was made for and is destroyed under it,
//! whichever thread evicts it from the cache. Work areas come from the
//! memory pool; each execution binds its own execution info to the
//! output's stream.
//!
//! # Capture
//!
//! Transforms capture once their plan exists; making a plan (rocFFT builds
//! twiddle tables with allocations and a blocking copy) is refused inside
//! a capture (`HipError::CaptureUnderway`): run each shape once before
//! capturing. Work areas come from the capture's private pool.
//!
//! Inputs: out-of-place complex and real-to-complex transforms take their
//! input by `&` and leave it intact (with rocFFT before 1.0.25, which may
//! overwrite an R2C input, the input is copied first); complex-to-real
//! transforms take it by `&mut`, since rocFFT may overwrite it in every
//! version.
//!
//! `rocfft_setup` runs once, before the first plan, under that plan's
//! device. [`cleanup`] (`rocfft_cleanup`, which frees what all plans
//! share) is ordered against plan creation by a lock, so a plan made on
//! one thread while another cleans up is never left unusable.

mod exec;
mod plan;
mod plan_cache;
mod raw;

pub use exec::{c2c, c2c_in_place, c2r, r2c, Direction};
pub use plan::{live_plans, FftReal, Placement, Plan, PlanKey, PlanQuery, TransformKind};
pub use plan_cache::{
    cached_plan, cached_plan_for, cleanup, plan_cache_capacity, plan_cache_len, set_plan_cache_capacity,
};
