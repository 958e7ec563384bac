//! The two real types the simulated libraries compute in, `f32` and
//! `f64`, behind one trait: their arithmetic is Rust's own operators, so
//! a computation generic over [`Real`] runs in the operand's precision
//! (as the real library's kernels do), and the complex types are pairs of
//! them (`[R; 2]`) with one generic implementation in each library.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// `f32` or `f64`.
pub(crate) trait Real:
    Copy
    + PartialEq
    + PartialOrd
    + Send
    + Sync
    + std::fmt::Debug
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Bytes of one value.
    const SIZE: usize;
    const ZERO: Self;
    const ONE: Self;
    /// The value in native byte order from `bytes` (`SIZE` of them; zero
    /// if there are fewer).
    fn load(bytes: &[u8]) -> Self;
    /// The value into `bytes` (`SIZE` of them), in native byte order.
    fn store(self, bytes: &mut [u8]);
    /// `x` rounded to the type.
    fn from_f64(x: f64) -> Self;
    /// The value as an `f64` (exact).
    fn to_f64(self) -> f64;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
}

/// `Real` for a primitive float: its operations are the type's own.
macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn load(bytes: &[u8]) -> Self {
                <$t>::from_ne_bytes(bytes.try_into().unwrap_or([0; std::mem::size_of::<$t>()]))
            }
            fn store(self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_ne_bytes());
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
        }
    };
}

real!(f32);
real!(f64);

#[cfg(test)]
mod tests {
    use super::Real;

    fn round_trip<R: Real>(x: R) -> R {
        let mut bytes = vec![0u8; R::SIZE];
        x.store(&mut bytes);
        R::load(&bytes)
    }

    #[test]
    fn values_round_trip_and_round_to_their_precision() {
        assert_eq!(round_trip(1.5f32), 1.5);
        assert_eq!(round_trip(-2.25f64), -2.25);
        assert_eq!(f32::from_f64(0.1).to_f64(), f64::from(0.1f32));
        assert_eq!(<f64 as Real>::load(&[1, 2]), 0.0, "too few bytes read as zero");
        assert_eq!(Real::sqrt(2.0f32), 2.0f32.sqrt());
    }
}
