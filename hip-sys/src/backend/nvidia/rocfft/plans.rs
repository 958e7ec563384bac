//! Setup, the version, and plans: made, sized and destroyed.

use std::ffi::{c_char, c_int, c_longlong};

use super::layout::{described_sides, expected_types, Kind};
use super::library::{cufft_type, fns, version, CufftHandle, FORWARD, INVERSE};
use super::objects::{is_live, register, unregister, Description, Plan};
use super::status::{entry, ok};
use crate::rocfft::{
    rocfft_plan, rocfft_plan_description, rocfft_precision, rocfft_result_placement, rocfft_status,
    rocfft_transform_type,
};

pub(super) unsafe extern "C" fn rocfft_setup() -> rocfft_status {
    rocfft_status::rocfft_status_success
}

pub(super) unsafe extern "C" fn rocfft_cleanup() -> rocfft_status {
    rocfft_status::rocfft_status_success
}

pub(super) unsafe extern "C" fn rocfft_get_version_string(buf: *mut c_char, len: usize) -> rocfft_status {
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
pub(super) unsafe extern "C" fn rocfft_plan_create(
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
            executing: std::sync::Mutex::new(()),
        });
        // SAFETY: `plan` is non-null and valid for a write (C contract).
        unsafe { plan.write(made.cast()) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn rocfft_plan_destroy(plan: rocfft_plan) -> rocfft_status {
    entry(|| {
        let plan = unregister(plan.cast::<Plan>()).ok_or(rocfft_status::rocfft_status_invalid_arg_value)?;
        // A live plan means cuFFT is loaded.
        let f = fns()?;
        // SAFETY: the plan's live cuFFT handle, destroyed once.
        ok("cufftDestroy", unsafe { (f.cufftDestroy)(plan.handle) })
    })
}

pub(super) unsafe extern "C" fn rocfft_plan_get_work_buffer_size(plan: rocfft_plan, size: *mut usize) -> rocfft_status {
    entry(|| {
        if size.is_null() || !is_live(plan as usize) {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        // SAFETY: a live plan of this backend; `size` is valid for a write.
        unsafe { size.write((*plan.cast::<Plan>()).work_size) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
