//! Dense linear algebra on the CPU for the solver tests: the element
//! types as complex f64, products, well-conditioned and Hermitian positive
//! definite matrices, and residuals.

use super::noise;
use amdgpu::blas::Op;
use amdgpu::solver::SolverScalar;

/// The element types, as complex f64 for the CPU references.
pub trait Elem:
    SolverScalar<Real: amdgpu::DeviceCopy + Default + Into<f64>> + amdgpu::DeviceCopy + Default + std::fmt::Debug
{
    /// The tolerance of a relative residual in this precision.
    const TOLERANCE: f64;
    fn from_c(re: f64, im: f64) -> Self;
    fn to_c(self) -> (f64, f64);
    const COMPLEX: bool;
}

impl Elem for f32 {
    const TOLERANCE: f64 = 1e-4;
    const COMPLEX: bool = false;
    fn from_c(re: f64, _: f64) -> Self {
        re as f32
    }
    fn to_c(self) -> (f64, f64) {
        (self as f64, 0.0)
    }
}
impl Elem for f64 {
    const TOLERANCE: f64 = 1e-11;
    const COMPLEX: bool = false;
    fn from_c(re: f64, _: f64) -> Self {
        re
    }
    fn to_c(self) -> (f64, f64) {
        (self, 0.0)
    }
}
impl Elem for [f32; 2] {
    const TOLERANCE: f64 = 1e-4;
    const COMPLEX: bool = true;
    fn from_c(re: f64, im: f64) -> Self {
        [re as f32, im as f32]
    }
    fn to_c(self) -> (f64, f64) {
        (self[0] as f64, self[1] as f64)
    }
}
impl Elem for [f64; 2] {
    const TOLERANCE: f64 = 1e-11;
    const COMPLEX: bool = true;
    fn from_c(re: f64, im: f64) -> Self {
        [re, im]
    }
    fn to_c(self) -> (f64, f64) {
        (self[0], self[1])
    }
}

pub fn cmul((a, b): (f64, f64), (c, d): (f64, f64)) -> (f64, f64) {
    (a * c - b * d, a * d + b * c)
}

/// `op(A) x` on the CPU in f64, A `n × n` column-major with leading dimension `lda`.
pub fn apply<T: Elem>(op: Op, n: usize, a: &[T], lda: usize, x: &[T]) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| {
            (0..n).fold((0.0, 0.0), |(re, im), k| {
                let (v, conj) = match op {
                    Op::None => (a[i + k * lda].to_c(), false),
                    Op::Transpose => (a[k + i * lda].to_c(), false),
                    Op::ConjTranspose => (a[k + i * lda].to_c(), true),
                };
                let v = if conj { (v.0, -v.1) } else { v };
                let p = cmul(v, x[k].to_c());
                (re + p.0, im + p.1)
            })
        })
        .collect()
}

/// A well-conditioned `n × n` matrix (leading dimension `lda`): noise
/// plus `n` on the diagonal.
pub fn general<T: Elem>(n: usize, lda: usize, seed: u64) -> Vec<T> {
    let (re, im) = (noise(lda * n, seed), noise(lda * n, seed + 1));
    let mut a: Vec<T> = (0..lda * n).map(|e| T::from_c(re[e], if T::COMPLEX { im[e] } else { 0.0 })).collect();
    for i in 0..n {
        a[i + i * lda] = T::from_c(re[i + i * lda] + n as f64, 0.0);
    }
    a
}

/// A Hermitian positive definite `n × n` matrix: `M Mᴴ + n I` in full.
pub fn hpd<T: Elem>(n: usize, seed: u64) -> Vec<T> {
    let m: Vec<T> = general(n, n, seed);
    let mut a = vec![T::default(); n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = (0.0, 0.0);
            for k in 0..n {
                let (x, y) = (m[i + k * n].to_c(), m[j + k * n].to_c());
                let p = cmul(x, (y.0, -y.1));
                s = (s.0 + p.0, s.1 + p.1);
            }
            if i == j {
                s = (s.0 + n as f64, 0.0);
            }
            a[i + j * n] = T::from_c(s.0, s.1);
        }
    }
    a
}

/// `|r − b| / |b|` over the first `n` entries of each column.
pub fn relative_residual<T: Elem>(got: &[(f64, f64)], want: &[T]) -> f64 {
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (g, w) in got.iter().zip(want) {
        let w = w.to_c();
        diff += (g.0 - w.0).powi(2) + (g.1 - w.1).powi(2);
        norm += w.0.powi(2) + w.1.powi(2);
    }
    (diff / norm.max(f64::MIN_POSITIVE)).sqrt()
}
