//! Data layouts: rocFFT's strides and distances as cuFFT's advanced layout.

use std::ffi::{c_int, c_longlong};

use crate::rocfft::{rocfft_array_type, rocfft_status};

/// What a transform computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Complex { direction: c_int },
    RealForward,
    RealInverse,
}

/// One side of a data layout in cuFFT's advanced form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Side {
    /// `inembed`/`onembed`, slowest first.
    pub(super) embed: Vec<c_longlong>,
    pub(super) stride: c_longlong,
    pub(super) distance: c_longlong,
    /// Elements to skip at the start of the buffer.
    pub(super) offset: usize,
}

/// A plan description's layout (`rocfft_plan_description_set_data_layout`).
#[derive(Debug, Clone, Default)]
pub(super) struct Layout {
    pub(super) in_type: u32,
    pub(super) out_type: u32,
    pub(super) in_offset: usize,
    pub(super) out_offset: usize,
    pub(super) in_strides: Vec<usize>,
    pub(super) in_distance: usize,
    pub(super) out_strides: Vec<usize>,
    pub(super) out_distance: usize,
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
pub(super) fn embed(logical: &[usize], strides: &[usize], distance: usize, offset: usize) -> Option<Side> {
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
pub(super) fn logical_sizes(kind: Kind, n: &[usize]) -> (Vec<usize>, Vec<usize>) {
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
pub(super) fn expected_types(kind: Kind, double: bool) -> ((u32, usize), (u32, usize)) {
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
pub(super) fn described_sides(
    layout: &Layout,
    kind: Kind,
    double: bool,
    n: &[usize],
) -> Result<(Side, Side), rocfft_status> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::nvidia::rocfft::library::FORWARD;

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
}
