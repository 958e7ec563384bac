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

use super::{accesses, call, insert, remove_if, span, with, write_out, Kind, Real, Span};
use crate::backend::sim::lock::lock;
use crate::backend::sim::machine::sim;
use crate::backend::sim::thread::current_device;
use crate::backend::sim::violations;
use crate::backend::sim::violations::AccessKind;
use crate::backend::sim::{submit, targets};
use crate::bindings::rocfft::*;
use crate::shared::rocfft_version::RocfftVersion;
use crate::BackendError;
use rustfft::num_complex::Complex;
use rustfft::{FftNum, FftPlanner};
use std::ffi::{c_char, c_void};
use std::sync::{Mutex, OnceLock};

type Status = rocfft_status;
const OK: Status = rocfft_status::rocfft_status_success;
const FAILURE: Status = rocfft_status::rocfft_status_failure;
const INVALID_ARG: Status = rocfft_status::rocfft_status_invalid_arg_value;
const INVALID_DIMENSIONS: Status = rocfft_status::rocfft_status_invalid_dimensions;
const INVALID_WORK_BUFFER: Status = rocfft_status::rocfft_status_invalid_work_buffer;

/// The version the simulator reports unless told otherwise.
pub const DEFAULT_VERSION: RocfftVersion = RocfftVersion::new(1, 0, 27);

/// The variable that selects the simulated rocFFT version.
const VERSION_VARIABLE: &str = "AMDGPU_SIM_ROCFFT_VERSION";

/// Parse a value of `AMDGPU_SIM_ROCFFT_VERSION`: a rocFFT 1.0.x version
/// (`1.0.24`), as the amd loader accepts.
pub fn parse_version(value: &str) -> Result<RocfftVersion, BackendError> {
    match RocfftVersion::parse(value) {
        Some(version) if version.major == 1 && version.minor == 0 => Ok(version),
        _ => Err(BackendError::InvalidSimConfig {
            variable: VERSION_VARIABLE.to_owned(),
            value: value.to_owned(),
            reason: format!(
                "expected a rocFFT 1.0.x version such as 1.0.24 (ROCm 5.7) or {DEFAULT_VERSION} (ROCm 6.1, the default)"
            ),
        }),
    }
}

/// The version `AMDGPU_SIM_ROCFFT_VERSION` selects (read once), or the
/// default when it is unset or empty.
pub fn env_version() -> Result<RocfftVersion, BackendError> {
    static ENV: OnceLock<Result<RocfftVersion, BackendError>> = OnceLock::new();
    ENV.get_or_init(|| match std::env::var(VERSION_VARIABLE) {
        Ok(value) if !value.trim().is_empty() => parse_version(&value),
        _ => Ok(DEFAULT_VERSION),
    })
    .clone()
}

/// The version set by [`set_rocfft_version`], overriding the environment.
static VERSION_OVERRIDE: Mutex<Option<RocfftVersion>> = Mutex::new(None);

/// The rocFFT version the simulator models now: the one
/// [`set_rocfft_version`] set, else `AMDGPU_SIM_ROCFFT_VERSION`'s, else
/// [`DEFAULT_VERSION`] (also when the variable is invalid: the rocFFT
/// table then fails to load, saying why).
pub fn rocfft_version() -> RocfftVersion {
    (*lock(&VERSION_OVERRIDE)).unwrap_or_else(|| env_version().unwrap_or(DEFAULT_VERSION))
}

/// Model `version` from now on (`None`: back to the environment's or the
/// default), for tests of code that must handle older rocFFT behaviour.
/// Process-wide: take [`crate::sim::exclusive()`] around its use.
pub fn set_rocfft_version(version: Option<RocfftVersion>) {
    *lock(&VERSION_OVERRIDE) = version;
}

/// The work buffer multi-dimensional plans ask for, in bytes.
pub const WORK_BUFFER_SIZE: usize = 512;

/// The kinds of transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transform {
    Forward,
    Inverse,
    RealForward,
    RealInverse,
}

/// An `rocfft_plan`.
#[derive(Clone)]
pub(crate) struct Plan {
    transform: Transform,
    real: Real,
    in_place: bool,
    /// Lengths, innermost first.
    lengths: Vec<usize>,
    batch: usize,
    work: usize,
    /// The cleanups counted when its creation began: a later cleanup freed
    /// what it uses.
    epoch: u64,
}

/// A `rocfft_plan_description` (only defaults are accepted).
pub(crate) struct Description;

/// A `rocfft_execution_info`.
pub(crate) struct Info {
    stream: usize,
    work: usize,
    work_size: usize,
}

/// rocFFT's process-wide state.
struct Library {
    /// The device current at the last `rocfft_setup`, unless cleaned up since.
    setup_device: Option<usize>,
    /// `rocfft_cleanup` calls so far.
    cleanups: u64,
}

static LIBRARY: Mutex<Library> = Mutex::new(Library { setup_device: None, cleanups: 0 });

/// The device that was current when `rocfft_setup` last ran, or `None` if
/// it has not run since the last `rocfft_cleanup`.
pub fn setup_device() -> Option<usize> {
    lock(&LIBRARY).setup_device
}

pub(crate) unsafe extern "C" fn rocfft_setup() -> Status {
    call("rocfft_setup", OK, FAILURE, || {
        // rocFFT reads the current device's properties here.
        let device = current_device();
        if sim().device(device).is_none() {
            return Err(FAILURE);
        }
        lock(&LIBRARY).setup_device = Some(device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocfft_cleanup() -> Status {
    call("rocfft_cleanup", OK, FAILURE, || {
        let mut library = lock(&LIBRARY);
        library.cleanups += 1;
        library.setup_device = None;
        let alive = super::count(|o| matches!(o.kind, Kind::FftPlan(_)));
        if alive > 0 {
            log::warn!("hip simulator: rocfft_cleanup with {alive} live plan(s): they can no longer be executed");
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocfft_get_version_string(buf: *mut c_char, len: usize) -> Status {
    call("rocfft_get_version_string", OK, FAILURE, || {
        let version = rocfft_version().to_string();
        if buf.is_null() || len < version.len() + 1 {
            return Err(INVALID_ARG);
        }
        // SAFETY: `buf` is valid for `len` bytes (C contract), and the
        // string with its NUL fits.
        unsafe {
            std::ptr::copy_nonoverlapping(version.as_ptr(), buf.cast::<u8>(), version.len());
            *buf.add(version.len()) = 0;
        }
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn rocfft_plan_create(
    plan: *mut rocfft_plan,
    placement: rocfft_result_placement,
    transform_type: rocfft_transform_type,
    precision: rocfft_precision,
    dimensions: usize,
    lengths: *const usize,
    number_of_transforms: usize,
    description: rocfft_plan_description,
) -> Status {
    call("rocfft_plan_create", OK, FAILURE, || {
        let epoch = lock(&LIBRARY).cleanups;
        if plan.is_null() || lengths.is_null() {
            return Err(INVALID_ARG);
        }
        if !(1..=3).contains(&dimensions) {
            return Err(INVALID_DIMENSIONS);
        }
        if sim().device(current_device()).is_none() {
            return Err(FAILURE);
        }
        if !description.is_null()
            && with(description as usize, |o| matches!(o.kind, Kind::FftDescription(_))) != Some(true)
        {
            return Err(INVALID_ARG);
        }
        // SAFETY: `lengths` holds `dimensions` values (C contract), non-null.
        let lengths = unsafe { std::slice::from_raw_parts(lengths, dimensions) }.to_vec();
        if lengths.contains(&0) || number_of_transforms == 0 {
            return Err(INVALID_ARG);
        }
        let transform = match transform_type.0 {
            0 => Transform::Forward,
            1 => Transform::Inverse,
            2 => Transform::RealForward,
            3 => Transform::RealInverse,
            _ => return Err(INVALID_ARG),
        };
        let real = match precision {
            rocfft_precision::rocfft_precision_single => Real::F32,
            rocfft_precision::rocfft_precision_double => Real::F64,
            _ => return Err(INVALID_ARG),
        };
        let in_place = match placement {
            rocfft_result_placement::rocfft_placement_inplace => true,
            rocfft_result_placement::rocfft_placement_notinplace => false,
            _ => return Err(INVALID_ARG),
        };
        let work = if dimensions > 1 { WORK_BUFFER_SIZE } else { 0 };
        // Building a plan takes a while in rocFFT (kernels, twiddle
        // tables): let other threads run, as they would meanwhile.
        std::thread::yield_now();
        let h = insert(Kind::FftPlan(Plan {
            transform,
            real,
            in_place,
            lengths,
            batch: number_of_transforms,
            work,
            epoch,
        }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(plan, h as rocfft_plan, INVALID_ARG) }
    })
}

/// The plan and its device, recording a violation if the calling thread
/// is on another device.
fn plan_of(function: &'static str, plan: rocfft_plan) -> Result<(usize, Plan), Status> {
    let (device, p) = with(plan as usize, |o| match &o.kind {
        Kind::FftPlan(p) => Some((o.device, p.clone())),
        _ => None,
    })
    .flatten()
    .ok_or(INVALID_ARG)?;
    violations::check(function, device);
    Ok((device, p))
}

pub(crate) unsafe extern "C" fn rocfft_plan_destroy(plan: rocfft_plan) -> Status {
    call("rocfft_plan_destroy", OK, FAILURE, || {
        let object = remove_if(plan as usize, |k| matches!(k, Kind::FftPlan(_))).ok_or(INVALID_ARG)?;
        violations::check("rocfft_plan_destroy", object.device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocfft_plan_get_work_buffer_size(plan: rocfft_plan, size: *mut usize) -> Status {
    call("rocfft_plan_get_work_buffer_size", OK, FAILURE, || {
        let (_, p) = plan_of("rocfft_plan_get_work_buffer_size", plan)?;
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(size, p.work, INVALID_ARG) }
    })
}

pub(crate) unsafe extern "C" fn rocfft_plan_description_create(description: *mut rocfft_plan_description) -> Status {
    call("rocfft_plan_description_create", OK, FAILURE, || {
        if description.is_null() {
            return Err(INVALID_ARG);
        }
        let h = insert(Kind::FftDescription(Description));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(description, h as rocfft_plan_description, INVALID_ARG) }
    })
}

pub(crate) unsafe extern "C" fn rocfft_plan_description_destroy(description: rocfft_plan_description) -> Status {
    call("rocfft_plan_description_destroy", OK, FAILURE, || {
        remove_if(description as usize, |k| matches!(k, Kind::FftDescription(_))).map(drop).ok_or(INVALID_ARG)
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn rocfft_plan_description_set_data_layout(
    description: rocfft_plan_description,
    in_array_type: rocfft_array_type,
    out_array_type: rocfft_array_type,
    in_offsets: *const usize,
    out_offsets: *const usize,
    in_strides_size: usize,
    in_strides: *const usize,
    in_distance: usize,
    out_strides_size: usize,
    out_strides: *const usize,
    out_distance: usize,
) -> Status {
    call("rocfft_plan_description_set_data_layout", OK, FAILURE, || {
        if with(description as usize, |o| matches!(o.kind, Kind::FftDescription(_))) != Some(true) {
            return Err(INVALID_ARG);
        }
        let planar = |t: rocfft_array_type| {
            t == rocfft_array_type::rocfft_array_type_complex_planar
                || t == rocfft_array_type::rocfft_array_type_hermitian_planar
        };
        let defaults = in_offsets.is_null()
            && out_offsets.is_null()
            && (in_strides_size == 0 || in_strides.is_null())
            && (out_strides_size == 0 || out_strides.is_null())
            && in_distance == 0
            && out_distance == 0;
        if !defaults || planar(in_array_type) || planar(out_array_type) {
            return Err(FAILURE);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocfft_execution_info_create(info: *mut rocfft_execution_info) -> Status {
    call("rocfft_execution_info_create", OK, FAILURE, || {
        if info.is_null() {
            return Err(INVALID_ARG);
        }
        let h = insert(Kind::FftInfo(Info { stream: 0, work: 0, work_size: 0 }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(info, h as rocfft_execution_info, INVALID_ARG) }
    })
}

pub(crate) unsafe extern "C" fn rocfft_execution_info_destroy(info: rocfft_execution_info) -> Status {
    call("rocfft_execution_info_destroy", OK, FAILURE, || {
        remove_if(info as usize, |k| matches!(k, Kind::FftInfo(_))).map(drop).ok_or(INVALID_ARG)
    })
}

fn update_info(info: rocfft_execution_info, f: impl FnOnce(&mut Info)) -> Result<(), Status> {
    with(info as usize, |o| match &mut o.kind {
        Kind::FftInfo(i) => {
            f(i);
            true
        }
        _ => false,
    })
    .filter(|found| *found)
    .map(drop)
    .ok_or(INVALID_ARG)
}

pub(crate) unsafe extern "C" fn rocfft_execution_info_set_stream(
    info: rocfft_execution_info,
    stream: *mut c_void,
) -> Status {
    call("rocfft_execution_info_set_stream", OK, FAILURE, || update_info(info, |i| i.stream = stream as usize))
}

pub(crate) unsafe extern "C" fn rocfft_execution_info_set_work_buffer(
    info: rocfft_execution_info,
    work_buffer: *mut c_void,
    size_in_bytes: usize,
) -> Status {
    call("rocfft_execution_info_set_work_buffer", OK, FAILURE, || {
        if work_buffer.is_null() && size_in_bytes > 0 {
            return Err(INVALID_ARG);
        }
        update_info(info, |i| {
            i.work = work_buffer as usize;
            i.work_size = size_in_bytes;
        })
    })
}

/// Element counts of one transform's input and output, in reals.
fn reals_per_transform(p: &Plan) -> (usize, usize) {
    let n: usize = p.lengths.iter().product();
    let outer: usize = p.lengths[1..].iter().product();
    let hermitian = 2 * (p.lengths[0] / 2 + 1) * outer;
    let real_side = if p.in_place { hermitian } else { n };
    match p.transform {
        Transform::Forward | Transform::Inverse => (2 * n, 2 * n),
        Transform::RealForward => (real_side, hermitian),
        Transform::RealInverse => (hermitian, real_side),
    }
}

/// The real types transforms compute in.
trait Float: FftNum {
    fn of(v: f64) -> Self;
    fn wide(self) -> f64;
}

impl Float for f32 {
    fn of(v: f64) -> Self {
        v as f32
    }
    fn wide(self) -> f64 {
        self as f64
    }
}

impl Float for f64 {
    fn of(v: f64) -> Self {
        v
    }
    fn wide(self) -> f64 {
        self
    }
}

fn zero<T: Float>() -> Complex<T> {
    Complex::new(T::zero(), T::zero())
}

/// Transform `data` (dims innermost first, element (i0, i1, i2) at
/// i0 + d0 (i1 + d1 i2)) along `axis` with `fft`.
fn along_axis<T: Float>(data: &mut [Complex<T>], dims: &[usize], axis: usize, fft: &dyn rustfft::Fft<T>) {
    let len = dims[axis];
    let stride: usize = dims[..axis].iter().product();
    let total: usize = dims.iter().product();
    let mut line = vec![zero::<T>(); len];
    for start in 0..total {
        // Lines start where the axis index is 0.
        if (start / stride) % len != 0 {
            continue;
        }
        for (k, v) in line.iter_mut().enumerate() {
            *v = data[start + k * stride];
        }
        fft.process(&mut line);
        for (k, v) in line.iter().enumerate() {
            data[start + k * stride] = *v;
        }
    }
}

/// Run one transform of `p` from `input` reals to output reals, computing
/// in `T`.
fn transform_one<T: Float>(p: &Plan, planner: &mut FftPlanner<T>, input: &[T]) -> Vec<T> {
    let dims = &p.lengths;
    let n0 = dims[0];
    let h0 = n0 / 2 + 1;
    let outer: usize = dims[1..].iter().product();
    // Row pitch of the real side, in reals.
    let pitch = if p.in_place { 2 * h0 } else { n0 };
    match p.transform {
        Transform::Forward | Transform::Inverse => {
            let mut data: Vec<Complex<T>> = input.chunks_exact(2).map(|c| Complex::new(c[0], c[1])).collect();
            for axis in 0..dims.len() {
                let fft = if p.transform == Transform::Forward {
                    planner.plan_fft_forward(dims[axis])
                } else {
                    planner.plan_fft_inverse(dims[axis])
                };
                along_axis(&mut data, dims, axis, fft.as_ref());
            }
            data.iter().flat_map(|c| [c.re, c.im]).collect()
        }
        Transform::RealForward => {
            let mut hdims = dims.clone();
            hdims[0] = h0;
            let mut data = vec![zero::<T>(); h0 * outer];
            let fft = planner.plan_fft_forward(n0);
            let mut line = vec![zero::<T>(); n0];
            for row in 0..outer {
                for (k, v) in line.iter_mut().enumerate() {
                    *v = Complex::new(input[row * pitch + k], T::zero());
                }
                fft.process(&mut line);
                data[row * h0..row * h0 + h0].copy_from_slice(&line[..h0]);
            }
            for (axis, &len) in dims.iter().enumerate().skip(1) {
                let fft = planner.plan_fft_forward(len);
                along_axis(&mut data, &hdims, axis, fft.as_ref());
            }
            data.iter().flat_map(|c| [c.re, c.im]).collect()
        }
        Transform::RealInverse => {
            let mut hdims = dims.clone();
            hdims[0] = h0;
            let mut data: Vec<Complex<T>> = input.chunks_exact(2).map(|c| Complex::new(c[0], c[1])).collect();
            for (axis, &len) in dims.iter().enumerate().skip(1) {
                let fft = planner.plan_fft_inverse(len);
                along_axis(&mut data, &hdims, axis, fft.as_ref());
            }
            let fft = planner.plan_fft_inverse(n0);
            let mut out = vec![T::zero(); pitch * outer];
            let mut line = vec![zero::<T>(); n0];
            for row in 0..outer {
                let half = &data[row * h0..row * h0 + h0];
                for (k, v) in line.iter_mut().enumerate() {
                    *v = if k < h0 { half[k] } else { half[n0 - k].conj() };
                }
                fft.process(&mut line);
                for (k, v) in line.iter().enumerate() {
                    out[row * pitch + k] = v.re;
                }
            }
            out
        }
    }
}

/// The batch of `p`, read from `input` and written to `output`, computed
/// in `T`.
fn run<T: Float>(
    p: &Plan,
    input: &Span,
    output: &Span,
    dists: (usize, usize),
    reals: usize,
) -> Result<(), crate::hipError_t> {
    let mut planner = FftPlanner::<T>::new();
    for t in 0..p.batch {
        // Values of the operand type, so the widening to f64 is exact.
        let data: Vec<T> = input.read(p.real, t * dists.0, reals)?.into_iter().map(T::of).collect();
        let result: Vec<f64> = transform_one(p, &mut planner, &data).into_iter().map(T::wide).collect();
        output.write(p.real, t * dists.1, &result)?;
    }
    Ok(())
}

pub(crate) unsafe extern "C" fn rocfft_execute(
    plan: rocfft_plan,
    in_buffer: *mut *mut c_void,
    out_buffer: *mut *mut c_void,
    info: rocfft_execution_info,
) -> Status {
    call("rocfft_execute", OK, FAILURE, || {
        let (device, p) = plan_of("rocfft_execute", plan)?;
        if p.epoch != lock(&LIBRARY).cleanups {
            log::warn!(
                "hip simulator: rocfft_execute on a plan made before (or while) rocfft_cleanup ran: rocFFT freed \
                 its twiddle tables; destroy it and make a new plan"
            );
            return Err(FAILURE);
        }
        let (stream, work, work_size) = if info.is_null() {
            (0, 0, 0)
        } else {
            with(info as usize, |o| match &o.kind {
                Kind::FftInfo(i) => Some((i.stream, i.work, i.work_size)),
                _ => None,
            })
            .flatten()
            .ok_or(INVALID_ARG)?
        };
        let work_span = if p.work > 0 {
            if work_size < p.work {
                return Err(INVALID_WORK_BUFFER);
            }
            Some(span(work, p.work).ok_or(INVALID_WORK_BUFFER)?)
        } else {
            None
        };
        if in_buffer.is_null() || (!p.in_place && out_buffer.is_null()) {
            return Err(INVALID_ARG);
        }
        // SAFETY: non-null arrays holding at least one buffer pointer
        // (interleaved layouts have one), per the C contract.
        let (input, output) = unsafe { (*in_buffer as usize, if p.in_place { 0 } else { *out_buffer as usize }) };
        let (in_reals, out_reals) = reals_per_transform(&p);
        let size = p.real.size();
        let (in_span, out_span) = if p.in_place {
            let s = span(input, size * p.batch * in_reals.max(out_reals)).ok_or(INVALID_ARG)?;
            (s.clone(), s)
        } else {
            (
                span(input, size * p.batch * in_reals).ok_or(INVALID_ARG)?,
                span(output, size * p.batch * out_reals).ok_or(INVALID_ARG)?,
            )
        };
        let target = if stream == 0 {
            targets::null_target(device).map_err(|_| FAILURE)?
        } else {
            targets::target(stream as crate::hipStream_t).map_err(|_| INVALID_ARG)?
        };
        if target.device != device {
            return Err(INVALID_ARG);
        }
        // Where rocFFT may use the input as scratch space, so does this.
        let scribble = !p.in_place
            && match p.transform {
                Transform::RealInverse => true,
                Transform::RealForward => rocfft_version().r2c_may_overwrite_input(),
                Transform::Forward | Transform::Inverse => false,
            };
        // In place, or where it scribbles on it, the input is written too.
        let input_kind = if p.in_place || scribble { AccessKind::Write } else { AccessKind::Read };
        let mut used = vec![(&in_span, input_kind)];
        if !p.in_place {
            used.push((&out_span, AccessKind::Write));
        }
        used.extend(work_span.iter().map(|w| (w, AccessKind::Write)));
        let op = submit::Op::with("rocfft_execute", accesses(used));
        submit::submit(&target, false, op, move || {
            // In place, each transform's input and output start at the same
            // place, at the larger of the two distances.
            let dists =
                if p.in_place { (in_reals.max(out_reals), in_reals.max(out_reals)) } else { (in_reals, out_reals) };
            match p.real {
                Real::F32 => run::<f32>(&p, &in_span, &out_span, dists, in_reals)?,
                Real::F64 => run::<f64>(&p, &in_span, &out_span, dists, in_reals)?,
            }
            if scribble {
                in_span.write(p.real, 0, &vec![f64::NAN; p.batch * in_reals])?;
            }
            Ok(())
        })
        .map_err(|_| FAILURE)
    })
}

/// The simulator's rocFFT table.
pub(crate) static SIM_ROCFFT: RocfftApi = RocfftApi {
    rocfft_setup,
    rocfft_cleanup,
    rocfft_get_version_string,
    rocfft_plan_create,
    rocfft_plan_destroy,
    rocfft_plan_get_work_buffer_size,
    rocfft_plan_description_create,
    rocfft_plan_description_destroy,
    rocfft_plan_description_set_data_layout,
    rocfft_execution_info_create,
    rocfft_execution_info_destroy,
    rocfft_execution_info_set_stream,
    rocfft_execution_info_set_work_buffer,
    rocfft_execute,
};
