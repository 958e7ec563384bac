//! Executing transforms.

use super::plan::{FftReal, Placement, PlanQuery, TransformKind};
use super::plan_cache::cached_plan_for;
use super::raw;
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::{LibError, Result};
use hip_core::raw::run_on;
use hip_core::{Device, Stream};
use hip_pool::{enqueue, Access};
use hip_sys::hipMemcpyKind;
use std::ffi::c_void;

/// The sign of a complex transform's exponent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `e^{-2πi jk/n}`.
    Forward,
    /// `e^{+2πi jk/n}` (unnormalized).
    Inverse,
}

fn elements(operation: &'static str, shape: &[usize], batch: usize) -> Result<usize> {
    if shape.is_empty() || shape.len() > 3 || shape.contains(&0) || batch == 0 {
        return Err(LibError::invalid(
            operation,
            format!("shape {shape:?} with batch {batch}: 1 to 3 positive lengths and a positive batch are needed"),
        ));
    }
    shape
        .iter()
        .try_fold(batch, |n, &d| n.checked_mul(d))
        .ok_or_else(|| LibError::invalid(operation, format!("shape {shape:?} × batch {batch} overflows")))
}

/// Complex elements of the half spectrum of a real transform of `shape`.
fn half_spectrum(shape: &[usize], batch: usize) -> usize {
    let (last, rest) = shape.split_last().map_or((1, &[][..]), |(l, r)| (*l, r));
    rest.iter().product::<usize>() * (last / 2 + 1) * batch
}

fn expect_len(operation: &'static str, what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(LibError::invalid(operation, format!("{what} has {got} elements; the transform needs {want}")))
    }
}

/// Execute `key`'s plan on `stream`.
fn execute(key: PlanQuery<'_>, input: *mut c_void, output: *mut c_void, stream: &Stream) -> Result<()> {
    let device: Device = key.device;
    let plan = cached_plan_for(key)?;
    let api = hip_sys::rocfft()?;
    let work = if plan.work_size() > 0 { Some(hip_pool::alloc_on(device, plan.work_size(), stream)?) } else { None };
    run_on(device, || -> Result<()> {
        let info = raw::execution_info_create(api)?;
        let result = (|| {
            // SAFETY: a live info and a live stream.
            unsafe { raw::execution_info_set_stream(api, info, stream.as_raw()) }?;
            if let Some(work) = &work {
                // SAFETY: the work area holds the plan's size and outlives
                // the execution (its block returns to the pool in this
                // stream's order).
                unsafe { raw::execution_info_set_work_buffer(api, info, work.as_ptr(), plan.work_size()) }?;
            }
            // SAFETY: the buffers were checked against the plan's sizes.
            unsafe { raw::execute(api, plan.raw(), input, output, info) }
        })();
        // SAFETY: made above, destroyed once.
        let _ = unsafe { raw::execution_info_destroy(api, info) };
        result
    })?
}

/// Complex-to-complex transform of `input` into `output` (each
/// `batch × shape` `[re, im]` pairs), on `output`'s stream (`rocfft_execute`).
///
/// `input` is left intact: rocFFT never writes the input of an
/// out-of-place complex transform (in any 1.0.x, ROCm 5.0 on), hence the
/// `&`.
///
/// # Errors
/// Before any call: [`LibError::InvalidInput`] for 0 or more than 3
/// dimensions, a zero length or batch, or an operand of another length
/// than `batch × shape`; [`LibError::Hip`] with a device mismatch when the
/// input is not on the output's device. Then as [`cached_plan`](super::cached_plan),
/// `LibError::Pool` for the work area, and [`LibError::Status`] with
/// rocFFT's status of `rocfft_execute` or its execution-info calls.
///
/// # Examples
/// ```
/// use hip_libs::fft::{self, Direction};
/// # fn spectra(x: &impl hip_libs::DeviceData<[f32; 2]>, y: &mut impl hip_libs::DeviceDataMut<[f32; 2]>)
/// #     -> hip_libs::Result<()> {
/// // 8 transforms of 64 × 64 complex values (x and y hold 8 × 64 × 64 pairs).
/// fft::c2c(x, y, &[64, 64], 8, Direction::Forward)?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocfft_execute")]
pub fn c2c<T: FftReal>(
    input: &impl DeviceData<[T; 2]>,
    output: &mut impl DeviceDataMut<[T; 2]>,
    shape: &[usize],
    batch: usize,
    direction: Direction,
) -> Result<()> {
    const OP: &str = "fft::c2c";
    let n = elements(OP, shape, batch)?;
    expect_len(OP, "the input", input.len(), n)?;
    expect_len(OP, "the output", output.len(), n)?;
    let device = output.device();
    same_device(OP, device, &[("the input", input.device())])?;
    let stream = output.stream().clone();
    let kind = match direction {
        Direction::Forward => TransformKind::ComplexForward,
        Direction::Inverse => TransformKind::ComplexInverse,
    };
    let key = PlanQuery { device, shape, batch, kind, double: T::PRECISION.0 == 1, placement: Placement::OutOfPlace };
    let (input_ptr, output_ptr) = (input.device_ptr() as *mut c_void, output.device_ptr_mut());
    let operands = [(input.buffer(), Access::Read), (output.buffer(), Access::Write)];
    enqueue(&stream, operands, || execute(key, input_ptr, output_ptr, &stream))
}

/// Complex-to-complex transform in place, on `data`'s stream
/// (`rocfft_execute`).
///
/// # Errors
/// As [`c2c`] (with one operand, no device mismatch).
#[doc(alias = "rocfft_execute")]
pub fn c2c_in_place<T: FftReal>(
    data: &mut impl DeviceDataMut<[T; 2]>,
    shape: &[usize],
    batch: usize,
    direction: Direction,
) -> Result<()> {
    const OP: &str = "fft::c2c_in_place";
    let n = elements(OP, shape, batch)?;
    expect_len(OP, "the data", data.len(), n)?;
    let kind = match direction {
        Direction::Forward => TransformKind::ComplexForward,
        Direction::Inverse => TransformKind::ComplexInverse,
    };
    let stream = data.stream().clone();
    let key = PlanQuery {
        device: data.device(),
        shape,
        batch,
        kind,
        double: T::PRECISION.0 == 1,
        placement: Placement::InPlace,
    };
    let data_ptr = data.device_ptr_mut();
    enqueue(&stream, [(data.buffer(), Access::Write)], || execute(key, data_ptr, std::ptr::null_mut(), &stream))
}

/// Real-to-complex transform: `batch × shape` reals to the half spectrum
/// (`shape` with its last length `n` replaced by `n / 2 + 1`), on
/// `output`'s stream (`rocfft_execute`).
///
/// `input` is left intact, hence the `&`. rocFFT 1.0.25 (ROCm 6.0) and
/// later do not write an R2C input; older versions may use it as scratch
/// space, so with those (see [`hip_sys::rocfft_version`]) the input is
/// first copied, on the stream, into a block from the memory pool, and the
/// transform reads the copy.
///
/// # Errors
/// As [`c2c`], the output's length being the half spectrum's;
/// [`LibError::Unavailable`] when rocFFT's version cannot be read; for the
/// copy of the input, `LibError::Pool` or HIP's status of `hipMemcpyAsync`.
///
/// # Examples
/// ```
/// # fn spectra(signals: &impl hip_libs::DeviceData<f32>, bins: &mut impl hip_libs::DeviceDataMut<[f32; 2]>)
/// #     -> hip_libs::Result<()> {
/// // 16 real signals of 1024 samples each into 16 × 513 complex bins.
/// hip_libs::fft::r2c(signals, bins, &[1024], 16)?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocfft_execute")]
pub fn r2c<T: FftReal>(
    input: &impl DeviceData<T>,
    output: &mut impl DeviceDataMut<[T; 2]>,
    shape: &[usize],
    batch: usize,
) -> Result<()> {
    const OP: &str = "fft::r2c";
    let n = elements(OP, shape, batch)?;
    expect_len(OP, "the real input", input.len(), n)?;
    expect_len(OP, "the complex output", output.len(), half_spectrum(shape, batch))?;
    let device = output.device();
    same_device(OP, device, &[("the real input", input.device())])?;
    let stream = output.stream().clone();
    let key = PlanQuery {
        device,
        shape,
        batch,
        kind: TransformKind::RealForward,
        double: T::PRECISION.0 == 1,
        placement: Placement::OutOfPlace,
    };
    let may_overwrite = hip_sys::rocfft_version()?.r2c_may_overwrite_input();
    let (input_ptr, output_ptr) = (input.device_ptr() as *mut c_void, output.device_ptr_mut());
    let operands = [(input.buffer(), Access::Read), (output.buffer(), Access::Write)];
    enqueue(&stream, operands, || {
        if may_overwrite {
            let bytes = n * std::mem::size_of::<T>();
            let copy = hip_pool::alloc_on(device, bytes, &stream)?;
            // SAFETY: `input` holds `n` elements (checked above) on `device`,
            // and the block `bytes`; the copy is ordered before the transform
            // on `stream`, and the block returns to the pool in its order.
            unsafe {
                hip_core::raw::mem::copy_async(
                    device,
                    copy.as_ptr(),
                    input_ptr,
                    bytes,
                    hipMemcpyKind::hipMemcpyDeviceToDevice,
                    stream.as_raw(),
                )
            }?;
            return execute(key, copy.as_ptr(), output_ptr, &stream);
        }
        execute(key, input_ptr, output_ptr, &stream)
    })
}

/// Complex-to-real transform: the half spectrum back to `batch × shape`
/// reals (unnormalized), on `output`'s stream (`rocfft_execute`).
///
/// rocFFT may use a C2R input as scratch space, in every version and
/// although the transform is not in place: afterwards `input` holds
/// unspecified values, hence the `&mut`. Copy the spectrum first if it is
/// still needed.
///
/// # Errors
/// As [`c2c`], the input's length being the half spectrum's.
#[doc(alias = "rocfft_execute")]
pub fn c2r<T: FftReal>(
    input: &mut impl DeviceDataMut<[T; 2]>,
    output: &mut impl DeviceDataMut<T>,
    shape: &[usize],
    batch: usize,
) -> Result<()> {
    const OP: &str = "fft::c2r";
    let n = elements(OP, shape, batch)?;
    expect_len(OP, "the complex input", input.len(), half_spectrum(shape, batch))?;
    expect_len(OP, "the real output", output.len(), n)?;
    let device = output.device();
    same_device(OP, device, &[("the complex input", input.device())])?;
    let stream = output.stream().clone();
    let key = PlanQuery {
        device,
        shape,
        batch,
        kind: TransformKind::RealInverse,
        double: T::PRECISION.0 == 1,
        placement: Placement::OutOfPlace,
    };
    let (input_ptr, output_ptr) = (input.device_ptr_mut(), output.device_ptr_mut());
    // The input is scratch space: a write.
    let operands = [(input.buffer(), Access::Write), (output.buffer(), Access::Write)];
    enqueue(&stream, operands, || execute(key, input_ptr, output_ptr, &stream))
}
