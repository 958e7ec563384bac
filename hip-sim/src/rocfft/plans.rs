//! Plans, plan descriptions and execution infos: the objects and their
//! entry points.

use super::setup::cleanups;
use super::status::*;
use super::{Kind, OBJECTS};
use crate::bindings::rocfft::*;
use crate::library::{call, write_out, Real};
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations;
use std::ffi::c_void;

/// The work buffer multi-dimensional plans ask for, in bytes.
pub const WORK_BUFFER_SIZE: usize = 512;

/// The kinds of transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transform {
    Forward,
    Inverse,
    RealForward,
    RealInverse,
}

/// An `rocfft_plan`.
#[derive(Clone)]
pub(crate) struct Plan {
    pub(super) transform: Transform,
    pub(super) real: Real,
    pub(super) in_place: bool,
    /// Lengths, innermost first.
    pub(super) lengths: Vec<usize>,
    pub(super) batch: usize,
    pub(super) work: usize,
    /// The cleanups counted when its creation began: a later cleanup freed
    /// what it uses.
    pub(super) epoch: u64,
}

/// A `rocfft_plan_description` (only defaults are accepted).
pub(crate) struct Description;

/// A `rocfft_execution_info`.
pub(crate) struct Info {
    pub(super) stream: usize,
    pub(super) work: usize,
    pub(super) work_size: usize,
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
        let epoch = cleanups();
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
            && OBJECTS.with(description as usize, |o| matches!(o.kind, Kind::Description(_))) != Some(true)
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
        // rocFFT builds the plan's twiddle tables in device memory
        // (hipMalloc, then a synchronous hipMemcpy): a capture refuses as
        // those calls would; the library answers failure.
        crate::machine::capture::check_allocation().map_err(|_| FAILURE)?;
        crate::machine::capture::check_synchronous().map_err(|_| FAILURE)?;
        let work = if dimensions > 1 { WORK_BUFFER_SIZE } else { 0 };
        // Building a plan takes a while in rocFFT (kernels, twiddle
        // tables): let other threads run, as they would meanwhile.
        std::thread::yield_now();
        let h = OBJECTS.insert(Kind::Plan(Plan {
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
pub(super) fn plan_of(function: &'static str, plan: rocfft_plan) -> Result<(usize, Plan), Status> {
    let (device, p) = OBJECTS
        .with(plan as usize, |o| match &o.kind {
            Kind::Plan(p) => Some((o.device, p.clone())),
            _ => None,
        })
        .flatten()
        .ok_or(INVALID_ARG)?;
    violations::check(function, device);
    Ok((device, p))
}

pub(crate) unsafe extern "C" fn rocfft_plan_destroy(plan: rocfft_plan) -> Status {
    call("rocfft_plan_destroy", OK, FAILURE, || {
        let object = OBJECTS.remove_if(plan as usize, |k| matches!(k, Kind::Plan(_))).ok_or(INVALID_ARG)?;
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
        let h = OBJECTS.insert(Kind::Description(Description));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(description, h as rocfft_plan_description, INVALID_ARG) }
    })
}

pub(crate) unsafe extern "C" fn rocfft_plan_description_destroy(description: rocfft_plan_description) -> Status {
    call("rocfft_plan_description_destroy", OK, FAILURE, || {
        OBJECTS.remove_if(description as usize, |k| matches!(k, Kind::Description(_))).map(drop).ok_or(INVALID_ARG)
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
        if OBJECTS.with(description as usize, |o| matches!(o.kind, Kind::Description(_))) != Some(true) {
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
        let h = OBJECTS.insert(Kind::Info(Info { stream: 0, work: 0, work_size: 0 }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(info, h as rocfft_execution_info, INVALID_ARG) }
    })
}

pub(crate) unsafe extern "C" fn rocfft_execution_info_destroy(info: rocfft_execution_info) -> Status {
    call("rocfft_execution_info_destroy", OK, FAILURE, || {
        OBJECTS.remove_if(info as usize, |k| matches!(k, Kind::Info(_))).map(drop).ok_or(INVALID_ARG)
    })
}

pub(super) fn update_info(info: rocfft_execution_info, f: impl FnOnce(&mut Info)) -> Result<(), Status> {
    OBJECTS
        .with(info as usize, |o| match &mut o.kind {
            Kind::Info(i) => {
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
