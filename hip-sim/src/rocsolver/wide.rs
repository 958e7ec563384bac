//! The complex double the simulator's QR and eigensolver compute in,
//! whatever the operand's precision (results are rounded back to it).

use super::scalar::Scalar;

/// A complex number of the computation (a real one has 0 imaginary part).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) struct C(pub(super) f64, pub(super) f64);

impl C {
    pub(super) const ZERO: C = C(0.0, 0.0);
    pub(super) const ONE: C = C(1.0, 0.0);

    /// An element, widened exactly.
    pub(super) fn of<T: Scalar>(v: T) -> C {
        C(v.re(), v.im())
    }
    /// Rounded to the element type.
    pub(super) fn to<T: Scalar>(self) -> T {
        T::complex(self.0, self.1)
    }
    pub(super) fn add(self, o: C) -> C {
        C(self.0 + o.0, self.1 + o.1)
    }
    pub(super) fn sub(self, o: C) -> C {
        C(self.0 - o.0, self.1 - o.1)
    }
    pub(super) fn mul(self, o: C) -> C {
        C(self.0 * o.0 - self.1 * o.1, self.0 * o.1 + self.1 * o.0)
    }
    pub(super) fn div(self, o: C) -> C {
        let d = o.norm2();
        C((self.0 * o.0 + self.1 * o.1) / d, (self.1 * o.0 - self.0 * o.1) / d)
    }
    pub(super) fn scale(self, k: f64) -> C {
        C(self.0 * k, self.1 * k)
    }
    pub(super) fn conj(self) -> C {
        C(self.0, -self.1)
    }
    pub(super) fn norm2(self) -> f64 {
        self.0 * self.0 + self.1 * self.1
    }
    pub(super) fn abs(self) -> f64 {
        self.0.hypot(self.1)
    }
}

/// Elements, widened exactly.
pub(super) fn widen<T: Scalar>(from: &[T]) -> Vec<C> {
    from.iter().copied().map(C::of).collect()
}

/// `from`, rounded into the elements of `into`.
pub(super) fn narrow<T: Scalar>(from: &[C], into: &mut [T]) {
    for (out, v) in into.iter_mut().zip(from) {
        *out = v.to();
    }
}
