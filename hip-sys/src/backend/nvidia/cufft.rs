//! rocFFT over cuFFT: the nvidia backend's [`RocfftApi`].
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
//!   next faster one, covering its length: see [`embed`]) and are mapped
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

use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_longlong, c_void};
use std::sync::{Mutex, OnceLock};

use super::{catch_status, library_candidates, open, Handle};
use crate::rocfft::{
    rocfft_array_type, rocfft_execution_info, rocfft_plan, rocfft_plan_description, rocfft_precision,
    rocfft_result_placement, rocfft_status, rocfft_transform_type, RocfftApi,
};
use crate::sync::MutexExt;
use crate::BackendError;

/// `cufftResult`.
type CufftResult = c_int;
/// `cufftHandle`.
type CufftHandle = c_int;

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
const FORWARD: c_int = -1;
const INVERSE: c_int = 1;

/// The `cufftType` values (`cufft.h`).
mod cufft_type {
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

/// Load cuFFT from `candidates` and return the rocFFT table over it.
pub(crate) fn load(candidates: &[String]) -> Result<&'static RocfftApi, BackendError> {
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
        .map(|_| &ROCFFT_OVER_CUFFT)
        .map_err(Clone::clone)
}

/// The cuFFT version (`cufftGetVersion`, e.g. 12000), once loaded.
pub(crate) fn version() -> Option<c_int> {
    loaded().map(|l| l.version)
}

/// A `cufftResult`'s name (`cufft.h`).
fn result_name(result: CufftResult) -> &'static str {
    match result {
        0x0 => "CUFFT_SUCCESS",
        0x1 => "CUFFT_INVALID_PLAN",
        0x2 => "CUFFT_ALLOC_FAILED",
        0x3 => "CUFFT_INVALID_TYPE",
        0x4 => "CUFFT_INVALID_VALUE",
        0x5 => "CUFFT_INTERNAL_ERROR",
        0x6 => "CUFFT_EXEC_FAILED",
        0x7 => "CUFFT_SETUP_FAILED",
        0x8 => "CUFFT_INVALID_SIZE",
        0x9 => "CUFFT_UNALIGNED_DATA",
        0xA => "CUFFT_INCOMPLETE_PARAMETER_LIST",
        0xB => "CUFFT_INVALID_DEVICE",
        0xC => "CUFFT_PARSE_ERROR",
        0xD => "CUFFT_NO_WORKSPACE",
        0xE => "CUFFT_NOT_IMPLEMENTED",
        0xF => "CUFFT_LICENSE_ERROR",
        0x10 => "CUFFT_NOT_SUPPORTED",
        _ => "an unknown cufftResult",
    }
}

/// A `cufftResult` as a `rocfft_status`, logging cuFFT's name for it.
fn status(function: &str, result: CufftResult) -> rocfft_status {
    match result {
        0 => rocfft_status::rocfft_status_success,
        r => {
            log::error!("rocFFT over cuFFT: {function} failed with {} ({r})", result_name(r));
            match r {
                // Invalid value, size or type: what rocFFT calls a bad argument.
                0x3 | 0x4 | 0x8 => rocfft_status::rocfft_status_invalid_arg_value,
                0xD => rocfft_status::rocfft_status_invalid_work_buffer,
                _ => rocfft_status::rocfft_status_failure,
            }
        }
    }
}

/// What a transform computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Complex { direction: c_int },
    RealForward,
    RealInverse,
}

/// One side of a data layout in cuFFT's advanced form.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Side {
    /// `inembed`/`onembed`, slowest first.
    embed: Vec<c_longlong>,
    stride: c_longlong,
    distance: c_longlong,
    /// Elements to skip at the start of the buffer.
    offset: usize,
}

/// A plan description's layout (`rocfft_plan_description_set_data_layout`).
#[derive(Debug, Clone, Default)]
struct Layout {
    in_type: u32,
    out_type: u32,
    in_offset: usize,
    out_offset: usize,
    in_strides: Vec<usize>,
    in_distance: usize,
    out_strides: Vec<usize>,
    out_distance: usize,
}

/// A `rocfft_plan_description`.
#[derive(Debug, Default)]
struct Description {
    layout: Option<Layout>,
}

/// A `rocfft_plan`.
#[derive(Debug)]
struct Plan {
    handle: CufftHandle,
    kind: Kind,
    double: bool,
    in_place: bool,
    work_size: usize,
    /// Bytes to add to the input and output buffers (offsets of the layout).
    in_offset_bytes: usize,
    out_offset_bytes: usize,
}

/// A `rocfft_execution_info`.
#[derive(Debug)]
struct ExecutionInfo {
    stream: Handle,
    work: *mut c_void,
    work_size: usize,
}

/// The live objects this backend made, by address: anything else passed
/// in is refused rather than read.
static LIVE: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn register<T>(object: T) -> *mut T {
    let p = Box::into_raw(Box::new(object));
    LIVE.lock_unpoisoned().get_or_insert_with(HashSet::new).insert(p as usize);
    p
}

fn is_live(p: usize) -> bool {
    p != 0 && LIVE.lock_unpoisoned().as_ref().is_some_and(|s| s.contains(&p))
}

/// Take back an object made by [`register`]; `None` if it is not live.
fn unregister<T>(p: *mut T) -> Option<Box<T>> {
    let removed = LIVE.lock_unpoisoned().as_mut().is_some_and(|s| s.remove(&(p as usize)));
    // SAFETY: `p` was made by `register` with this `T` (each handle type
    // maps to one `T`) and was live: this is its only release.
    removed.then(|| unsafe { Box::from_raw(p) })
}

/// Run one entry point, never unwinding into C.
fn entry(body: impl FnOnce() -> Result<(), rocfft_status>) -> rocfft_status {
    catch_status("rocFFT over cuFFT", rocfft_status::rocfft_status_success, rocfft_status::rocfft_status_failure, body)
}

fn ok(function: &str, result: CufftResult) -> Result<(), rocfft_status> {
    match status(function, result) {
        rocfft_status::rocfft_status_success => Ok(()),
        s => Err(s),
    }
}

fn fns() -> Result<&'static Cufft, rocfft_status> {
    loaded().map(|l| &l.fns).ok_or(rocfft_status::rocfft_status_failure)
}

/// cuFFT's advanced layout for one side of a transform of `n` (slowest
/// first, as cuFFT lists it; `logical` is the side's element count along
/// each dimension, which differs from `n` in the fastest dimension of the
/// half spectrum), from rocFFT's `strides` (fastest first) and `distance`.
///
/// cuFFT addresses element `x` of batch `b` at
/// `b * dist + stride * (x[r-1] + embed[r-1] * (x[r-2] + embed[r-2] * ...))`,
/// so rocFFT's strides must be `stride`, `stride * embed[r-1]`, ... with
/// each `embed` at least the logical length it covers; `None` otherwise.
fn embed(logical: &[usize], strides: &[usize], distance: usize, offset: usize) -> Option<Side> {
    let rank = logical.len();
    if strides.len() != rank || strides[0] == 0 {
        return None;
    }
    let mut embed = vec![0 as c_longlong; rank];
    embed[0] = c_longlong::try_from(logical[0]).ok()?;
    // strides are fastest first: strides[k] belongs to dimension rank-1-k.
    for k in 1..rank {
        let (faster, this) = (strides[k - 1], strides[k]);
        if this % faster != 0 {
            return None;
        }
        let covered = this / faster;
        if covered < logical[rank - k] {
            return None;
        }
        embed[rank - k] = c_longlong::try_from(covered).ok()?;
    }
    let span: usize = strides[rank - 1].checked_mul(logical[0])?;
    let distance = if distance == 0 { span } else { distance };
    Some(Side {
        embed,
        stride: c_longlong::try_from(strides[0]).ok()?,
        distance: c_longlong::try_from(distance).ok()?,
        offset,
    })
}

/// The logical element counts (slowest first) of the input and output of
/// a transform of `n` (slowest first).
fn logical_sizes(kind: Kind, n: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut half = n.to_vec();
    if let Some(last) = half.last_mut() {
        *last = *last / 2 + 1;
    }
    match kind {
        Kind::Complex { .. } => (n.to_vec(), n.to_vec()),
        Kind::RealForward => (n.to_vec(), half),
        Kind::RealInverse => (half, n.to_vec()),
    }
}

/// The array types (input, output) rocFFT expects for `kind`, and the
/// element size in bytes of each side, for `double` or single precision.
fn expected_types(kind: Kind, double: bool) -> ((u32, usize), (u32, usize)) {
    let real = if double { 8 } else { 4 };
    let complex = 2 * real;
    let t = |a: rocfft_array_type| a.0;
    match kind {
        Kind::Complex { .. } => (
            (t(rocfft_array_type::rocfft_array_type_complex_interleaved), complex),
            (t(rocfft_array_type::rocfft_array_type_complex_interleaved), complex),
        ),
        Kind::RealForward => (
            (t(rocfft_array_type::rocfft_array_type_real), real),
            (t(rocfft_array_type::rocfft_array_type_hermitian_interleaved), complex),
        ),
        Kind::RealInverse => (
            (t(rocfft_array_type::rocfft_array_type_hermitian_interleaved), complex),
            (t(rocfft_array_type::rocfft_array_type_real), real),
        ),
    }
}

/// Both sides of a described layout, checked against the transform;
/// `Err` with rocFFT's status for what cuFFT cannot express.
fn described_sides(layout: &Layout, kind: Kind, double: bool, n: &[usize]) -> Result<(Side, Side), rocfft_status> {
    let ((in_type, _), (out_type, _)) = expected_types(kind, double);
    let unset = rocfft_array_type::rocfft_array_type_unset.0;
    if (layout.in_type != unset && layout.in_type != in_type)
        || (layout.out_type != unset && layout.out_type != out_type)
    {
        return Err(rocfft_status::rocfft_status_invalid_array_type);
    }
    let (logical_in, logical_out) = logical_sizes(kind, n);
    // Default strides: contiguous along the logical lengths.
    let contiguous = |logical: &[usize]| -> Vec<usize> {
        let mut strides = Vec::with_capacity(logical.len());
        let mut s = 1usize;
        for len in logical.iter().rev() {
            strides.push(s);
            s = s.saturating_mul(*len);
        }
        strides
    };
    let in_strides = if layout.in_strides.is_empty() { contiguous(&logical_in) } else { layout.in_strides.clone() };
    let out_strides = if layout.out_strides.is_empty() { contiguous(&logical_out) } else { layout.out_strides.clone() };
    let input = embed(&logical_in, &in_strides, layout.in_distance, layout.in_offset)
        .ok_or(rocfft_status::rocfft_status_invalid_strides)?;
    let output = embed(&logical_out, &out_strides, layout.out_distance, layout.out_offset)
        .ok_or(rocfft_status::rocfft_status_invalid_strides)?;
    Ok((input, output))
}

// ---- the entry points --------------------------------------------------------

unsafe extern "C" fn rocfft_setup() -> rocfft_status {
    rocfft_status::rocfft_status_success
}

unsafe extern "C" fn rocfft_cleanup() -> rocfft_status {
    rocfft_status::rocfft_status_success
}

unsafe extern "C" fn rocfft_get_version_string(buf: *mut c_char, len: usize) -> rocfft_status {
    entry(|| {
        let text = format!("1.0.25 (cuFFT {})\0", version().unwrap_or(0));
        if buf.is_null() || len < text.len() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        // SAFETY: `buf` is valid for `len >= text.len()` bytes (C contract).
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, text.len()) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn rocfft_plan_create(
    plan: *mut rocfft_plan,
    placement: rocfft_result_placement,
    transform_type: rocfft_transform_type,
    precision: rocfft_precision,
    dimensions: usize,
    lengths: *const usize,
    number_of_transforms: usize,
    description: rocfft_plan_description,
) -> rocfft_status {
    entry(|| {
        let f = fns()?;
        if plan.is_null() || lengths.is_null() || number_of_transforms == 0 {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        if !(1..=3).contains(&dimensions) {
            return Err(rocfft_status::rocfft_status_invalid_dimensions);
        }
        // SAFETY: `lengths` holds `dimensions` values (C contract).
        let fastest_first = unsafe { std::slice::from_raw_parts(lengths, dimensions) };
        if fastest_first.contains(&0) {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        let n: Vec<usize> = fastest_first.iter().rev().copied().collect();
        let kind = match transform_type {
            rocfft_transform_type::rocfft_transform_type_complex_forward => Kind::Complex { direction: FORWARD },
            rocfft_transform_type::rocfft_transform_type_complex_inverse => Kind::Complex { direction: INVERSE },
            rocfft_transform_type::rocfft_transform_type_real_forward => Kind::RealForward,
            rocfft_transform_type::rocfft_transform_type_real_inverse => Kind::RealInverse,
            _ => return Err(rocfft_status::rocfft_status_invalid_arg_value),
        };
        let double = match precision {
            rocfft_precision::rocfft_precision_single => false,
            rocfft_precision::rocfft_precision_double => true,
            // cuFFT's half precision needs cufftXt; not mapped.
            _ => return Err(rocfft_status::rocfft_status_invalid_arg_value),
        };
        let in_place = match placement {
            rocfft_result_placement::rocfft_placement_inplace => true,
            rocfft_result_placement::rocfft_placement_notinplace => false,
            _ => return Err(rocfft_status::rocfft_status_invalid_arg_value),
        };
        let layout = if description.is_null() {
            None
        } else if is_live(description as usize) {
            // SAFETY: a live description made by this backend.
            unsafe { &*(description as *const Description) }.layout.clone()
        } else {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        };
        let sides = layout.as_ref().map(|l| described_sides(l, kind, double, &n)).transpose()?;
        let ((_, in_size), (_, out_size)) = expected_types(kind, double);
        let cufft_type = match (kind, double) {
            (Kind::Complex { .. }, false) => cufft_type::C2C,
            (Kind::Complex { .. }, true) => cufft_type::Z2Z,
            (Kind::RealForward, false) => cufft_type::R2C,
            (Kind::RealForward, true) => cufft_type::D2Z,
            (Kind::RealInverse, false) => cufft_type::C2R,
            (Kind::RealInverse, true) => cufft_type::Z2D,
        };
        let too_big = |_| rocfft_status::rocfft_status_invalid_arg_value;
        let mut n64: Vec<c_longlong> =
            n.iter().map(|v| c_longlong::try_from(*v)).collect::<Result<_, _>>().map_err(too_big)?;
        let batch = c_longlong::try_from(number_of_transforms).map_err(too_big)?;
        let mut handle: CufftHandle = 0;
        // SAFETY: a valid out-pointer.
        ok("cufftCreate", unsafe { (f.cufftCreate)(&mut handle) })?;
        let made = (|| {
            // SAFETY: a live cuFFT handle.
            ok("cufftSetAutoAllocation", unsafe { (f.cufftSetAutoAllocation)(handle, 0) })?;
            let mut work_size = 0usize;
            let rank = c_int::try_from(dimensions).map_err(too_big)?;
            let result = match &sides {
                // SAFETY: a live handle; `n64` holds `rank` lengths; null
                // embeds select cuFFT's basic layout (strides and distances
                // are then ignored); a valid out-pointer.
                None => unsafe {
                    (f.cufftMakePlanMany64)(
                        handle,
                        rank,
                        n64.as_mut_ptr(),
                        std::ptr::null_mut(),
                        1,
                        0,
                        std::ptr::null_mut(),
                        1,
                        0,
                        cufft_type,
                        batch,
                        &mut work_size,
                    )
                },
                Some((input, output)) => {
                    let (mut inembed, mut onembed) = (input.embed.clone(), output.embed.clone());
                    // SAFETY: as above, with embeds of `rank` values each.
                    unsafe {
                        (f.cufftMakePlanMany64)(
                            handle,
                            rank,
                            n64.as_mut_ptr(),
                            inembed.as_mut_ptr(),
                            input.stride,
                            input.distance,
                            onembed.as_mut_ptr(),
                            output.stride,
                            output.distance,
                            cufft_type,
                            batch,
                            &mut work_size,
                        )
                    }
                }
            };
            ok("cufftMakePlanMany64", result)?;
            Ok(work_size)
        })();
        let work_size = match made {
            Ok(w) => w,
            Err(s) => {
                // SAFETY: the handle made above, destroyed once.
                let _ = unsafe { (f.cufftDestroy)(handle) };
                return Err(s);
            }
        };
        let (in_offset, out_offset) = sides.as_ref().map_or((0, 0), |(i, o)| (i.offset, o.offset));
        let made = register(Plan {
            handle,
            kind,
            double,
            in_place,
            work_size,
            in_offset_bytes: in_offset * in_size,
            out_offset_bytes: out_offset * out_size,
        });
        // SAFETY: `plan` is non-null and valid for a write (C contract).
        unsafe { plan.write(made.cast()) };
        Ok(())
    })
}

unsafe extern "C" fn rocfft_plan_destroy(plan: rocfft_plan) -> rocfft_status {
    entry(|| {
        let plan = unregister(plan.cast::<Plan>()).ok_or(rocfft_status::rocfft_status_invalid_arg_value)?;
        // A live plan means cuFFT is loaded.
        let f = fns()?;
        // SAFETY: the plan's live cuFFT handle, destroyed once.
        ok("cufftDestroy", unsafe { (f.cufftDestroy)(plan.handle) })
    })
}

unsafe extern "C" fn rocfft_plan_get_work_buffer_size(plan: rocfft_plan, size: *mut usize) -> rocfft_status {
    entry(|| {
        if size.is_null() || !is_live(plan as usize) {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        // SAFETY: a live plan of this backend; `size` is valid for a write.
        unsafe { size.write((*plan.cast::<Plan>()).work_size) };
        Ok(())
    })
}

unsafe extern "C" fn rocfft_plan_description_create(description: *mut rocfft_plan_description) -> rocfft_status {
    entry(|| {
        if description.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { description.write(register(Description::default()).cast()) };
        Ok(())
    })
}

unsafe extern "C" fn rocfft_plan_description_destroy(description: rocfft_plan_description) -> rocfft_status {
    entry(|| {
        unregister(description.cast::<Description>()).map(drop).ok_or(rocfft_status::rocfft_status_invalid_arg_value)
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn rocfft_plan_description_set_data_layout(
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
) -> rocfft_status {
    entry(|| {
        if !is_live(description as usize) {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        let planar = [
            rocfft_array_type::rocfft_array_type_complex_planar,
            rocfft_array_type::rocfft_array_type_hermitian_planar,
        ];
        if planar.contains(&in_array_type) || planar.contains(&out_array_type) {
            log::error!("rocFFT over cuFFT: planar arrays have no cuFFT layout");
            return Err(rocfft_status::rocfft_status_invalid_array_type);
        }
        let read = |p: *const usize, count: usize| -> Result<Vec<usize>, rocfft_status> {
            if count == 0 {
                return Ok(Vec::new());
            }
            if p.is_null() || count > 3 {
                return Err(rocfft_status::rocfft_status_invalid_strides);
            }
            // SAFETY: `p` holds `count` values (C contract).
            Ok(unsafe { std::slice::from_raw_parts(p, count) }.to_vec())
        };
        let offset = |p: *const usize| -> usize {
            if p.is_null() {
                0
            } else {
                // SAFETY: a non-null offsets array holds at least one value
                // (one per plane; interleaved arrays have one).
                unsafe { p.read() }
            }
        };
        let layout = Layout {
            in_type: in_array_type.0,
            out_type: out_array_type.0,
            in_offset: offset(in_offsets),
            out_offset: offset(out_offsets),
            in_strides: read(in_strides, in_strides_size)?,
            in_distance,
            out_strides: read(out_strides, out_strides_size)?,
            out_distance,
        };
        // SAFETY: a live description of this backend, used by one caller at
        // a time (rocFFT's rule for descriptions).
        unsafe { (*description.cast::<Description>()).layout = Some(layout) };
        Ok(())
    })
}

unsafe extern "C" fn rocfft_execution_info_create(info: *mut rocfft_execution_info) -> rocfft_status {
    entry(|| {
        if info.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        let made = register(ExecutionInfo { stream: std::ptr::null_mut(), work: std::ptr::null_mut(), work_size: 0 });
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { info.write(made.cast()) };
        Ok(())
    })
}

unsafe extern "C" fn rocfft_execution_info_destroy(info: rocfft_execution_info) -> rocfft_status {
    entry(|| unregister(info.cast::<ExecutionInfo>()).map(drop).ok_or(rocfft_status::rocfft_status_invalid_arg_value))
}

/// Change a live execution info of this backend.
fn with_info(info: rocfft_execution_info, change: impl FnOnce(&mut ExecutionInfo)) -> Result<(), rocfft_status> {
    if !is_live(info as usize) {
        return Err(rocfft_status::rocfft_status_invalid_arg_value);
    }
    // SAFETY: a live execution info of this backend, used by one caller at
    // a time (rocFFT's rule for execution infos).
    change(unsafe { &mut *info.cast::<ExecutionInfo>() });
    Ok(())
}

unsafe extern "C" fn rocfft_execution_info_set_stream(
    info: rocfft_execution_info,
    stream: *mut c_void,
) -> rocfft_status {
    entry(|| with_info(info, |i| i.stream = stream))
}

unsafe extern "C" fn rocfft_execution_info_set_work_buffer(
    info: rocfft_execution_info,
    work_buffer: *mut c_void,
    size_in_bytes: usize,
) -> rocfft_status {
    entry(|| {
        if work_buffer.is_null() && size_in_bytes > 0 {
            return Err(rocfft_status::rocfft_status_invalid_work_buffer);
        }
        with_info(info, |i| {
            i.work = work_buffer;
            i.work_size = size_in_bytes;
        })
    })
}

unsafe extern "C" fn rocfft_execute(
    plan: rocfft_plan,
    in_buffer: *mut *mut c_void,
    out_buffer: *mut *mut c_void,
    info: rocfft_execution_info,
) -> rocfft_status {
    entry(|| {
        let f = fns()?;
        if !is_live(plan as usize) || in_buffer.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        // SAFETY: a live plan of this backend, only read here.
        let plan = unsafe { &*plan.cast::<Plan>() };
        let (stream, work, work_size) = if info.is_null() {
            (std::ptr::null_mut(), std::ptr::null_mut(), 0)
        } else if is_live(info as usize) {
            // SAFETY: a live execution info of this backend, only read here.
            let i = unsafe { &*info.cast::<ExecutionInfo>() };
            (i.stream, i.work, i.work_size)
        } else {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        };
        if plan.work_size > 0 && (work.is_null() || work_size < plan.work_size) {
            log::error!(
                "rocFFT over cuFFT: the plan needs a work buffer of {} bytes; the execution info has {work_size}",
                plan.work_size
            );
            return Err(rocfft_status::rocfft_status_invalid_work_buffer);
        }
        // SAFETY: `in_buffer` holds at least one pointer (C contract).
        let input = unsafe { in_buffer.read() };
        let output = if plan.in_place {
            input
        } else if out_buffer.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        } else {
            // SAFETY: as for the input.
            unsafe { out_buffer.read() }
        };
        if input.is_null() || output.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        let (input, output) = (
            input.cast::<u8>().wrapping_add(plan.in_offset_bytes).cast::<c_void>(),
            output.cast::<u8>().wrapping_add(plan.out_offset_bytes).cast::<c_void>(),
        );
        // SAFETY: a live handle; the stream is the caller's (a CUDA stream
        // on this backend) or null.
        ok("cufftSetStream", unsafe { (f.cufftSetStream)(plan.handle, stream) })?;
        if plan.work_size > 0 {
            // SAFETY: a live handle; the work area holds `work_size` bytes.
            ok("cufftSetWorkArea", unsafe { (f.cufftSetWorkArea)(plan.handle, work) })?;
        }
        // SAFETY: a live plan of the checked type; the buffers are the
        // caller's, of the sizes the plan describes (C contract).
        let result = unsafe {
            match (plan.kind, plan.double) {
                (Kind::Complex { direction }, false) => (f.cufftExecC2C)(plan.handle, input, output, direction),
                (Kind::Complex { direction }, true) => (f.cufftExecZ2Z)(plan.handle, input, output, direction),
                (Kind::RealForward, false) => (f.cufftExecR2C)(plan.handle, input, output),
                (Kind::RealForward, true) => (f.cufftExecD2Z)(plan.handle, input, output),
                (Kind::RealInverse, false) => (f.cufftExecC2R)(plan.handle, input, output),
                (Kind::RealInverse, true) => (f.cufftExecZ2D)(plan.handle, input, output),
            }
        };
        ok("cufftExec", result)
    })
}

/// The rocFFT table over cuFFT.
static ROCFFT_OVER_CUFFT: RocfftApi = RocfftApi {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_strides_map_to_cufft_embeds() {
        // A 4 x 6 (slowest first) complex array, contiguous: strides 1, 6.
        let side = embed(&[4, 6], &[1, 6], 0, 0).unwrap();
        assert_eq!(side, Side { embed: vec![4, 6], stride: 1, distance: 24, offset: 0 });
    }

    #[test]
    fn padded_rows_and_strided_elements_map() {
        // Rows padded to 8, every second element, batches 100 apart.
        let side = embed(&[4, 6], &[2, 16], 100, 3).unwrap();
        assert_eq!(side, Side { embed: vec![4, 8], stride: 2, distance: 100, offset: 3 });
    }

    #[test]
    fn strides_cufft_cannot_express_are_refused() {
        // Not a multiple of the faster stride.
        assert_eq!(embed(&[4, 6], &[4, 6], 0, 0), None);
        // Rows overlap: the row stride covers fewer than 6 elements.
        assert_eq!(embed(&[4, 6], &[1, 5], 0, 0), None);
        // Wrong number of strides, zero stride.
        assert_eq!(embed(&[4, 6], &[1], 0, 0), None);
        assert_eq!(embed(&[6], &[0], 0, 0), None);
    }

    #[test]
    fn real_transforms_have_half_spectra_on_the_complex_side() {
        let (i, o) = logical_sizes(Kind::RealForward, &[4, 6]);
        assert_eq!((i, o), (vec![4, 6], vec![4, 4]));
        let (i, o) = logical_sizes(Kind::RealInverse, &[5]);
        assert_eq!((i, o), (vec![3], vec![5]));
    }

    #[test]
    fn mismatched_or_planar_array_types_are_refused() {
        let layout = Layout {
            in_type: rocfft_array_type::rocfft_array_type_real.0,
            out_type: rocfft_array_type::rocfft_array_type_real.0,
            ..Layout::default()
        };
        let e = described_sides(&layout, Kind::Complex { direction: FORWARD }, false, &[8]).unwrap_err();
        assert_eq!(e, rocfft_status::rocfft_status_invalid_array_type);
        let layout = Layout {
            in_type: rocfft_array_type::rocfft_array_type_unset.0,
            out_type: rocfft_array_type::rocfft_array_type_unset.0,
            ..Layout::default()
        };
        let (i, o) = described_sides(&layout, Kind::RealForward, false, &[8]).unwrap();
        assert_eq!((i.embed, o.embed), (vec![8], vec![5]));
    }

    #[test]
    fn objects_not_made_here_are_refused() {
        let mut size = 0usize;
        let bogus = 0x1234usize as rocfft_plan;
        // SAFETY: the pointer is only looked up, never read.
        let status = unsafe { rocfft_plan_get_work_buffer_size(bogus, &mut size) };
        assert_eq!(status, rocfft_status::rocfft_status_invalid_arg_value);
        // SAFETY: as above.
        assert_eq!(unsafe { rocfft_plan_destroy(bogus) }, rocfft_status::rocfft_status_invalid_arg_value);
    }
}
