//! The symmetric / Hermitian eigensolver (`syevd`, `heevd`): the cyclic
//! Jacobi method, on the triangle the caller names, computed in double
//! precision whatever the operand's and rounded to it at the end (more
//! accurate than a GPU's single-precision solver, never less). rocSOLVER's
//! result: eigenvalues in ascending order; with vectors, A overwritten by
//! orthonormal eigenvectors (column `j` for eigenvalue `j`), whose signs
//! (phases) are not specified by rocSOLVER and are not normalized here.

use super::scalar::Scalar;
use super::wide::C;

/// The most sweeps before giving up (`info` > 0); Jacobi converges
/// quadratically, in well under 20 sweeps for any order tested.
const SWEEPS: usize = 60;

/// Eigenvalues (ascending) of the Hermitian `n × n` matrix in the `upper`
/// or lower triangle of `a`, and with `vectors` the eigenvectors written
/// over `a`. Returns the eigenvalues and `info`: 0, or the number of
/// off-diagonal entries left above the tolerance when the sweeps ran out.
pub(super) fn syevd<T: Scalar>(vectors: bool, upper: bool, n: usize, a: &mut [T], lda: usize) -> (Vec<f64>, i32) {
    // The full matrix from the named triangle (the diagonal's real part).
    let mut m = vec![C::ZERO; n * n];
    for j in 0..n {
        for i in 0..n {
            let stored = if (i <= j) == upper { (i, j) } else { (j, i) };
            let v = C::of(a[stored.0 + stored.1 * lda]);
            m[i + j * n] = if i == j {
                C(v.0, 0.0)
            } else if stored == (i, j) {
                v
            } else {
                v.conj()
            };
        }
    }
    let mut v: Vec<C> = (0..n * n).map(|e| if e % (n + 1) == 0 { C::ONE } else { C::ZERO }).collect();
    let norm: f64 = m.iter().map(|x| x.abs().powi(2)).sum::<f64>().sqrt();
    let tolerance = f64::EPSILON * norm.max(f64::MIN_POSITIVE);
    let off = |m: &[C]| {
        (0..n)
            .flat_map(|j| (0..n).map(move |i| (i, j)))
            .filter(|&(i, j)| i != j && m[i + j * n].abs() > tolerance)
            .count()
    };
    let mut sweeps = 0;
    while off(&m) > 0 && sweeps < SWEEPS {
        sweeps += 1;
        for p in 0..n {
            for q in p + 1..n {
                let b = m[p + q * n];
                let r = b.abs();
                if r <= tolerance {
                    continue;
                }
                // U = diag(1, e^{-iφ}) · R, with b = r e^{iφ}: Uᴴ M U zeroes (p, q).
                let phase = C(b.0 / r, -b.1 / r);
                let theta = (m[q + q * n].0 - m[p + p * n].0) / (2.0 * r);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // Columns: M ← M U, V ← V U.
                for x in [&mut m, &mut v] {
                    for k in 0..n {
                        let (xp, xq) = (x[k + p * n], x[k + q * n]);
                        x[k + p * n] = xp.scale(c).add(xq.mul(phase).scale(-s));
                        x[k + q * n] = xp.scale(s).add(xq.mul(phase).scale(c));
                    }
                }
                // Rows: M ← Uᴴ M.
                let back = phase.conj();
                for k in 0..n {
                    let (yp, yq) = (m[p + k * n], m[q + k * n]);
                    m[p + k * n] = yp.scale(c).add(yq.mul(back).scale(-s));
                    m[q + k * n] = yp.scale(s).add(yq.mul(back).scale(c));
                }
                m[p + q * n] = C::ZERO;
                m[q + p * n] = C::ZERO;
            }
        }
    }
    let info = off(&m) as i32;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| m[x + x * n].0.total_cmp(&m[y + y * n].0));
    let values = order.iter().map(|&k| m[k + k * n].0).collect();
    if vectors {
        for (j, &k) in order.iter().enumerate() {
            for i in 0..n {
                let x = v[i + k * n];
                a[i + j * lda] = x.to();
            }
        }
    }
    (values, info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_finds_the_spectrum_and_orthonormal_vectors() {
        // [[2, 1], [1, 2]]: eigenvalues 1 and 3, from the lower triangle
        // (the upper holds garbage the solver must not read).
        let mut a = vec![2.0f64, 1.0, 99.0, 2.0];
        let (values, info) = syevd(true, false, 2, &mut a, 2);
        assert_eq!(info, 0);
        assert!((values[0] - 1.0).abs() < 1e-14 && (values[1] - 3.0).abs() < 1e-14, "{values:?}");
        assert!((a[0] * a[2] + a[1] * a[3]).abs() < 1e-14, "orthogonal: {a:?}");
        assert!((a[0].abs() - a[1].abs()).abs() < 1e-14, "(1, -1)/√2 for 1: {a:?}");
        // Hermitian [[2, i], [-i, 2]] from the upper triangle: 1 and 3 too.
        let mut h = vec![[2.0f64, 0.0], [7.0, 7.0], [0.0, 1.0], [2.0, 0.0]];
        let (values, _) = syevd(true, true, 2, &mut h, 2);
        assert!((values[0] - 1.0).abs() < 1e-14 && (values[1] - 3.0).abs() < 1e-14, "{values:?}");
    }
}
