//! The arithmetic of SpMV and SpMM, in the operands' precision.

/// Arithmetic in one precision: the operands' own.
pub(super) trait Elem: Copy + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> + PartialEq {
    const ZERO: Self;
    fn of(v: f64) -> Self;
    fn wide(self) -> f64;
}

impl Elem for f32 {
    const ZERO: Self = 0.0;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn wide(self) -> f64 {
        self as f64
    }
}

impl Elem for f64 {
    const ZERO: Self = 0.0;
    fn of(v: f64) -> Self {
        v
    }
    fn wide(self) -> f64 {
        self
    }
}

/// `α op(A) x + β y` in precision `E`, summing each row's products in
/// storage order; β = 0 ignores `y` (NaN in `y` does not propagate).
pub(super) fn csrmv<E: Elem>(
    t: bool,
    a: f64,
    b: f64,
    nonzeros: &[(usize, usize, f64)],
    x: &[f64],
    y: &[f64],
) -> Vec<f64> {
    let (a, b) = (E::of(a), E::of(b));
    let mut product = vec![E::ZERO; y.len()];
    for &(row, col, v) in nonzeros {
        if t {
            product[col] = product[col] + E::of(v) * E::of(x[row]);
        } else {
            product[row] = product[row] + E::of(v) * E::of(x[col]);
        }
    }
    product.iter().zip(y).map(|(p, yi)| (a * *p + if b == E::ZERO { E::ZERO } else { b * E::of(*yi) }).wide()).collect()
}

/// `α op(A) op(B) + β C` in precision `E`: `c` is C's storage, updated
/// through `at(i, j)`; `b_at(k, j)` reads op(B).
#[allow(clippy::too_many_arguments)]
pub(super) fn csrmm<E: Elem>(
    ta: bool,
    alpha: f64,
    beta: f64,
    nonzeros: &[(usize, usize, f64)],
    (m, n): (usize, usize),
    b_at: impl Fn(usize, usize) -> f64,
    c: &mut [f64],
    at: impl Fn(usize, usize) -> usize,
) {
    let (alpha, beta) = (E::of(alpha), E::of(beta));
    let mut product = vec![E::ZERO; m * n];
    for &(row, col, v) in nonzeros {
        let (i, kk) = if ta { (col, row) } else { (row, col) };
        for j in 0..n {
            product[i * n + j] = product[i * n + j] + E::of(v) * E::of(b_at(kk, j));
        }
    }
    for i in 0..m {
        for j in 0..n {
            let k = at(i, j);
            let old = if beta == E::ZERO { E::ZERO } else { beta * E::of(c[k]) };
            c[k] = (alpha * product[i * n + j] + old).wide();
        }
    }
}
