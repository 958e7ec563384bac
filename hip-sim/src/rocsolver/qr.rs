//! QR by Householder reflectors, as LAPACK's `geqr2` / `org2r` (`ung2r`)
//! define the results rocSOLVER returns: R on and above the diagonal, the
//! reflectors' vectors below it (their leading 1 implicit), their scalars
//! in `tau`; `orgqr` builds the first columns of `Q = H₁ H₂ … H_k`.
//! Computed in double precision whatever the operand's and rounded to it.

use super::scalar::Scalar;
use super::wide::{narrow, widen, C};

/// LAPACK's `larfg` on (alpha, x): the reflector `H = I − τ v vᴴ` with
/// `Hᴴ (alpha; x) = (β; 0)`, β real; x becomes v's tail. Returns (β, τ).
fn larfg(alpha: C, x: &mut [C]) -> (C, C) {
    let xnorm = x.iter().map(|v| v.norm2()).sum::<f64>().sqrt();
    if xnorm == 0.0 && alpha.1 == 0.0 {
        return (alpha, C::ZERO);
    }
    let beta = -(alpha.0.signum()) * (alpha.norm2() + xnorm * xnorm).sqrt();
    let tau = C((beta - alpha.0) / beta, -alpha.1 / beta);
    let scale = C::ONE.div(alpha.sub(C(beta, 0.0)));
    for v in x.iter_mut() {
        *v = v.mul(scale);
    }
    (C(beta, 0.0), tau)
}

/// Apply `I − t v vᴴ` from the left to the `rows × cols` block of `a` at
/// (r0, c0), `v` the column of `a` at (r0, vc) with its first entry taken
/// as 1.
fn apply(a: &mut [C], lda: usize, (r0, c0): (usize, usize), rows: usize, cols: usize, vc: usize, t: C) {
    let v = |a: &[C], r: usize| if r == 0 { C::ONE } else { a[r0 + r + vc * lda] };
    for j in c0..c0 + cols {
        // w = vᴴ a_j
        let w = (0..rows).fold(C::ZERO, |s, r| s.add(v(a, r).conj().mul(a[r0 + r + j * lda])));
        let tw = t.mul(w);
        for r in 0..rows {
            let vr = v(a, r);
            a[r0 + r + j * lda] = a[r0 + r + j * lda].sub(vr.mul(tw));
        }
    }
}

/// `geqrf` of the `m × n` matrix in `a` (leading dimension `lda`), in
/// place; the `min(m, n)` scalars returned.
pub(super) fn geqrf<T: Scalar>(m: usize, n: usize, a: &mut [T], lda: usize) -> Vec<T> {
    let mut w = widen(a);
    let k = m.min(n);
    let mut taus = Vec::with_capacity(k);
    for i in 0..k {
        let alpha = w[i + i * lda];
        let below = i + i * lda + 1;
        let (beta, tau) = larfg(alpha, &mut w[below..below + (m - i - 1)]);
        w[i + i * lda] = beta;
        if i + 1 < n {
            // Hᴴ from the left: LAPACK passes conj(τ) to larf.
            apply(&mut w, lda, (i, i + 1), m - i, n - i - 1, i, tau.conj());
        }
        taus.push(tau.to());
    }
    narrow(&w, a);
    taus
}

/// `orgqr` / `ungqr`: the first `n` columns of `Q = H₁ … H_k` (`m × n`)
/// over the reflectors in `a`, with their scalars `tau`.
pub(super) fn orgqr<T: Scalar>(m: usize, n: usize, k: usize, a: &mut [T], lda: usize, tau: &[T]) {
    let mut w = widen(a);
    let tau = widen(tau);
    for j in k..n {
        for r in 0..m {
            w[r + j * lda] = if r == j { C::ONE } else { C::ZERO };
        }
    }
    for i in (0..k).rev() {
        if i + 1 < n {
            apply(&mut w, lda, (i, i + 1), m - i, n - i - 1, i, tau[i]);
        }
        for r in i + 1..m {
            w[r + i * lda] = w[r + i * lda].mul(C::ZERO.sub(tau[i]));
        }
        w[i + i * lda] = C::ONE.sub(tau[i]);
        for r in 0..i {
            w[r + i * lda] = C::ZERO;
        }
    }
    narrow(&w, a);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q_times_r_is_a_and_q_is_orthonormal() {
        // A 3 × 2 column-major matrix.
        let a0 = vec![3.0f64, 4.0, 0.0, 1.0, 2.0, 2.0];
        let mut a = a0.clone();
        let tau = geqrf(3, 2, &mut a, 3);
        assert!((a[0] + 5.0).abs() < 1e-14, "β = −sign(α)‖x‖ as LAPACK: {a:?}");
        let r = [a[0], 0.0, a[3], a[4]]; // R, 2 × 2 column-major
        let mut q = a.clone();
        orgqr(3, 2, 2, &mut q, 3, &tau);
        for j in 0..2 {
            for i in 0..3 {
                let qr: f64 = (0..2).map(|k| q[i + k * 3] * r[k + j * 2]).sum();
                assert!((qr - a0[i + j * 3]).abs() < 1e-14, "QR = A at ({i}, {j})");
            }
        }
        let dot: f64 = (0..3).map(|i| q[i] * q[i + 3]).sum();
        assert!(dot.abs() < 1e-14);
        // A zero column: τ = 0, H = I.
        let mut z = vec![0.0f64; 4];
        assert_eq!(geqrf(2, 2, &mut z, 2), [0.0, 0.0]);
    }
}
