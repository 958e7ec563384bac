//! The element types of the simulated rocSOLVER, with the arithmetic the
//! factorizations need, in the operand's precision.

/// A real or complex element of a matrix.
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

macro_rules! real {
    ($t:ty) => {
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn load(bytes: &[u8]) -> Self {
                <$t>::from_ne_bytes(bytes.try_into().unwrap_or([0; std::mem::size_of::<$t>()]))
            }
            fn store(self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_ne_bytes());
            }
            fn zero() -> Self {
                0.0
            }
            fn one() -> Self {
                1.0
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
                self.abs() as f64
            }
            fn re(self) -> f64 {
                self as f64
            }
            fn im(self) -> f64 {
                0.0
            }
            fn complex(re: f64, _: f64) -> Self {
                re as $t
            }
            const REAL_SIZE: usize = std::mem::size_of::<$t>();
            fn store_real(x: f64, bytes: &mut [u8]) {
                bytes.copy_from_slice(&(x as $t).to_ne_bytes());
            }
            fn real(x: f64) -> Self {
                x as $t
            }
            fn sqrt_re(self) -> Self {
                self.sqrt()
            }
        }
    };
}

real!(f32);
real!(f64);

macro_rules! complex {
    ($t:ty) => {
        impl Scalar for [$t; 2] {
            const SIZE: usize = 2 * std::mem::size_of::<$t>();
            fn load(bytes: &[u8]) -> Self {
                let half = std::mem::size_of::<$t>();
                [<$t as Scalar>::load(&bytes[..half]), <$t as Scalar>::load(&bytes[half..])]
            }
            fn store(self, bytes: &mut [u8]) {
                let half = std::mem::size_of::<$t>();
                self[0].store(&mut bytes[..half]);
                self[1].store(&mut bytes[half..]);
            }
            fn zero() -> Self {
                [0.0, 0.0]
            }
            fn one() -> Self {
                [1.0, 0.0]
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
                (self[0].abs() + self[1].abs()) as f64
            }
            fn re(self) -> f64 {
                self[0] as f64
            }
            fn im(self) -> f64 {
                self[1] as f64
            }
            fn complex(re: f64, im: f64) -> Self {
                [re as $t, im as $t]
            }
            const REAL_SIZE: usize = std::mem::size_of::<$t>();
            fn store_real(x: f64, bytes: &mut [u8]) {
                bytes.copy_from_slice(&(x as $t).to_ne_bytes());
            }
            fn real(x: f64) -> Self {
                [x as $t, 0.0]
            }
            fn sqrt_re(self) -> Self {
                [self[0].sqrt(), 0.0]
            }
        }
    };
}

complex!(f32);
complex!(f64);
