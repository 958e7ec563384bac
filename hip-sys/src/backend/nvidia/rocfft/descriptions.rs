//! Plan descriptions: the data layouts of the plans made with them.

use super::layout::Layout;
use super::objects::{is_live, register, unregister, Description};
use super::status::entry;
use crate::rocfft::{rocfft_array_type, rocfft_plan_description, rocfft_status};

pub(super) unsafe extern "C" fn rocfft_plan_description_create(
    description: *mut rocfft_plan_description,
) -> rocfft_status {
    entry(|| {
        if description.is_null() {
            return Err(rocfft_status::rocfft_status_invalid_arg_value);
        }
        // SAFETY: non-null and valid for a write (C contract).
        unsafe { description.write(register(Description::default()).cast()) };
        Ok(())
    })
}

pub(super) unsafe extern "C" fn rocfft_plan_description_destroy(description: rocfft_plan_description) -> rocfft_status {
    entry(|| {
        unregister(description.cast::<Description>()).map(drop).ok_or(rocfft_status::rocfft_status_invalid_arg_value)
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn rocfft_plan_description_set_data_layout(
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
