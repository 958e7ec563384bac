//! The element types of the simulated rocSOLVER, with the arithmetic the
//! factorizations need, in the operand's precision.

use crate::real::Real;

/// A real or complex element of a matrix: a [`Real`], or a complex
/// `[re, im]` pair of one.
pub(super) trait Scalar: Copy + PartialEq + Send + Sync + 'static {
    /// Bytes per element.
    const SIZE: usize;
    fn load(bytes: &[u8]) -> Self;
    fn store(self, bytes: &mut [u8]);
    fn zero() -> Self;
    fn one() -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn conj(self) -> Self;
    /// The pivot size of `getrf`: `|re| + |im|`, as LAPACK's and
    /// rocSOLVER's `iamax` measure complex numbers; `|x|` for reals.
    fn abs1(self) -> f64;
    /// The real part, as f64 (exact for both precisions).
    fn re(self) -> f64;
    /// The imaginary part, as f64 (0 for reals).
    fn im(self) -> f64;
    /// `re + i im` rounded to the type (the real part alone for reals).
    fn complex(re: f64, im: f64) -> Self;
    /// Bytes of the real type (`f32` or `f64`) of the element.
    const REAL_SIZE: usize;
    /// Store the real `x` as the element's real type.
    fn store_real(x: f64, bytes: &mut [u8]);
    /// The real value `x`, rounded to the precision.
    fn real(x: f64) -> Self;
    /// `√re`, computed in the precision (the diagonal of a Cholesky factor).
    fn sqrt_re(self) -> Self;
}

impl<R: Real> Scalar for R {
    const SIZE: usize = R::SIZE;
    fn load(bytes: &[u8]) -> Self {
        Real::load(bytes)
    }
    fn store(self, bytes: &mut [u8]) {
        Real::store(self, bytes);
    }
    fn zero() -> Self {
        R::ZERO
    }
    fn one() -> Self {
        R::ONE
    }
    fn sub(self, o: Self) -> Self {
        self - o
    }
    fn mul(self, o: Self) -> Self {
        self * o
    }
    fn div(self, o: Self) -> Self {
        self / o
    }
    fn conj(self) -> Self {
        self
    }
    fn abs1(self) -> f64 {
        Real::abs(self).to_f64()
    }
    fn re(self) -> f64 {
        self.to_f64()
    }
    fn im(self) -> f64 {
        0.0
    }
    fn complex(re: f64, _: f64) -> Self {
        R::from_f64(re)
    }
    const REAL_SIZE: usize = R::SIZE;
    fn store_real(x: f64, bytes: &mut [u8]) {
        R::from_f64(x).store(bytes);
    }
    fn real(x: f64) -> Self {
        R::from_f64(x)
    }
    fn sqrt_re(self) -> Self {
        Real::sqrt(self)
    }
}

impl<R: Real> Scalar for [R; 2] {
    const SIZE: usize = 2 * R::SIZE;
    fn load(bytes: &[u8]) -> Self {
        [R::load(&bytes[..R::SIZE]), R::load(&bytes[R::SIZE..])]
    }
    fn store(self, bytes: &mut [u8]) {
        self[0].store(&mut bytes[..R::SIZE]);
        self[1].store(&mut bytes[R::SIZE..]);
    }
    fn zero() -> Self {
        [R::ZERO, R::ZERO]
    }
    fn one() -> Self {
        [R::ONE, R::ZERO]
    }
    fn sub(self, o: Self) -> Self {
        [self[0] - o[0], self[1] - o[1]]
    }
    fn mul(self, o: Self) -> Self {
        [self[0] * o[0] - self[1] * o[1], self[0] * o[1] + self[1] * o[0]]
    }
    fn div(self, o: Self) -> Self {
        let d = o[0] * o[0] + o[1] * o[1];
        [(self[0] * o[0] + self[1] * o[1]) / d, (self[1] * o[0] - self[0] * o[1]) / d]
    }
    fn conj(self) -> Self {
        [self[0], -self[1]]
    }
    fn abs1(self) -> f64 {
        (self[0].abs() + self[1].abs()).to_f64()
    }
    fn re(self) -> f64 {
        self[0].to_f64()
    }
    fn im(self) -> f64 {
        self[1].to_f64()
    }
    fn complex(re: f64, im: f64) -> Self {
        [R::from_f64(re), R::from_f64(im)]
    }
    const REAL_SIZE: usize = R::SIZE;
    fn store_real(x: f64, bytes: &mut [u8]) {
        R::from_f64(x).store(bytes);
    }
    fn real(x: f64) -> Self {
        [R::from_f64(x), R::ZERO]
    }
    fn sqrt_re(self) -> Self {
        [self[0].sqrt(), R::ZERO]
    }
}
