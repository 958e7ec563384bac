//! The transforms themselves, computed with `rustfft` in the plan's
//! precision.

use super::plans::{Plan, Transform};
use crate::library::Span;
use rustfft::num_complex::Complex;
use rustfft::{FftNum, FftPlanner};

/// Element counts of one transform's input and output, in reals.
pub(super) fn reals_per_transform(p: &Plan) -> (usize, usize) {
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
pub(super) trait Float: FftNum {
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

pub(super) fn zero<T: Float>() -> Complex<T> {
    Complex::new(T::zero(), T::zero())
}

/// Transform `data` (dims innermost first, element (i0, i1, i2) at
/// i0 + d0 (i1 + d1 i2)) along `axis` with `fft`.
pub(super) fn along_axis<T: Float>(data: &mut [Complex<T>], dims: &[usize], axis: usize, fft: &dyn rustfft::Fft<T>) {
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
pub(super) fn transform_one<T: Float>(p: &Plan, planner: &mut FftPlanner<T>, input: &[T]) -> Vec<T> {
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
pub(super) fn run<T: Float>(
    p: &Plan,
    input: &Span,
    output: &Span,
    dists: (usize, usize),
    reals: usize,
) -> Result<(), crate::bindings::hip::hipError_t> {
    let mut planner = FftPlanner::<T>::new();
    for t in 0..p.batch {
        // Values of the operand type, so the widening to f64 is exact.
        let data: Vec<T> = input.read(p.real, t * dists.0, reals)?.into_iter().map(T::of).collect();
        let result: Vec<f64> = transform_one(p, &mut planner, &data).into_iter().map(T::wide).collect();
        output.write(p.real, t * dists.1, &result)?;
    }
    Ok(())
}
