//! The singular value decomposition (`gesvd`): one-sided Jacobi
//! (Hestenes) on the columns of A, or of Aᴴ when A is wide, computed in
//! double precision whatever the operand's and rounded to it at the end.
//! rocSOLVER's result: `A = U Σ Vᴴ` with the singular values descending;
//! the vectors' signs (phases) are not specified by rocSOLVER and are not
//! normalized here. Vectors a zero singular value leaves free, and the
//! columns of a full U (or V) beyond `min(m, n)`, complete an orthonormal
//! basis.

use super::wide::C;

/// The most sweeps before giving up (`info` > 0); one-sided Jacobi
/// converges quadratically, in well under 20 sweeps for any shape tested.
const SWEEPS: usize = 60;

/// An SVD: `sigma` (descending, `min(m, n)`), `u` (`m × cols_u`, tight),
/// `vh` (Vᴴ: `rows_v × n`, leading dimension `rows_v`) and `info`.
pub(super) struct Svd {
    pub sigma: Vec<f64>,
    pub u: Vec<C>,
    pub vh: Vec<C>,
    pub info: i32,
}

/// The SVD of the `m × n` matrix `a` (tight, column-major), with `full_u`
/// all `m` left vectors (else `min(m, n)`) and `full_v` all `n` right ones.
pub(super) fn gesvd(m: usize, n: usize, a: &[C], full_u: bool, full_v: bool) -> Svd {
    if m >= n {
        let (sigma, u, v, info) = tall(m, n, a.to_vec(), full_u);
        // Vᴴ from V (n × n): row j is column j conjugated.
        let k = n;
        let rows = if full_v { n } else { k };
        let mut vh = vec![C::ZERO; rows * n];
        for j in 0..rows {
            for i in 0..n {
                vh[j + i * rows] = v[i + j * n].conj();
            }
        }
        Svd { sigma, u, vh, info }
    } else {
        // Aᴴ = U' Σ V'ᴴ, so A = V' Σ U'ᴴ: U is V' (m × m) and Vᴴ is U'ᴴ.
        let mut t = vec![C::ZERO; n * m];
        for j in 0..n {
            for i in 0..m {
                t[j + i * n] = a[i + j * m].conj();
            }
        }
        let (sigma, u_t, v_t, info) = tall(n, m, t, full_v);
        let cols = if full_v { n } else { m };
        let mut vh = vec![C::ZERO; cols * n];
        for j in 0..cols {
            for i in 0..n {
                vh[j + i * cols] = u_t[i + j * n].conj();
            }
        }
        Svd { sigma, u: v_t, vh, info }
    }
}

/// One-sided Jacobi on `m × n` (`m ≥ n`): Σ, U (`m × n`, or `m × m` with
/// `full_u`), V (`n × n`) and `info`.
fn tall(m: usize, n: usize, mut w: Vec<C>, full_u: bool) -> (Vec<f64>, Vec<C>, Vec<C>, i32) {
    let mut v: Vec<C> = (0..n * n).map(|e| if e % (n + 1) == 0 { C::ONE } else { C::ZERO }).collect();
    let dot = |w: &[C], p: usize, q: usize| (0..m).fold(C::ZERO, |s, i| s.add(w[i + p * m].conj().mul(w[i + q * m])));
    let tolerance = f64::EPSILON;
    let mut unconverged = 0;
    for _ in 0..SWEEPS {
        unconverged = 0;
        for p in 0..n {
            for q in p + 1..n {
                let (alpha, beta, gamma) = (dot(&w, p, p).0, dot(&w, q, q).0, dot(&w, p, q));
                let g = gamma.abs();
                if g == 0.0 || g <= tolerance * (alpha * beta).sqrt() {
                    continue;
                }
                unconverged += 1;
                // Column q turned by e^{-iφ} (γ = g e^{iφ}) makes the pair's
                // product real; then a real rotation zeroes it.
                let phase = C(gamma.0 / g, -gamma.1 / g);
                let zeta = (beta - alpha) / (2.0 * g);
                let t = if zeta == 0.0 { 1.0 } else { zeta.signum() / (zeta.abs() + (zeta * zeta + 1.0).sqrt()) };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = c * t;
                for (x, rows) in [(&mut w, m), (&mut v, n)] {
                    for i in 0..rows {
                        let (xp, xq) = (x[i + p * rows], x[i + q * rows].mul(phase));
                        x[i + p * rows] = xp.scale(c).sub(xq.scale(s));
                        x[i + q * rows] = xp.scale(s).add(xq.scale(c));
                    }
                }
            }
        }
        if unconverged == 0 {
            break;
        }
    }
    let info = if unconverged == 0 { 0 } else { unconverged.min(n.saturating_sub(1)).max(1) as i32 };
    let norms: Vec<f64> = (0..n).map(|j| dot(&w, j, j).0.sqrt()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| norms[y].total_cmp(&norms[x]));
    let sigma: Vec<f64> = order.iter().map(|&j| norms[j]).collect();
    let cols = if full_u { m } else { n };
    let mut u = vec![C::ZERO; m * cols];
    let mut vs = vec![C::ZERO; n * n];
    let floor = sigma.first().copied().unwrap_or(0.0) * f64::EPSILON * m as f64;
    let mut free = Vec::new();
    for (jj, &j) in order.iter().enumerate() {
        vs[jj * n..(jj + 1) * n].copy_from_slice(&v[j * n..(j + 1) * n]);
        if norms[j] > floor && norms[j] > 0.0 {
            for i in 0..m {
                u[i + jj * m] = w[i + j * m].scale(1.0 / norms[j]);
            }
        } else {
            free.push(jj);
        }
    }
    free.extend(n..cols);
    complete(&mut u, m, &free);
    (sigma, u, vs, info)
}

/// Fill the columns `free` of the `m × _` matrix `u` with unit vectors
/// orthogonal to every other column and to each other: of the standard
/// basis vectors, the one farthest from the span each time, orthogonalized
/// twice (classical Gram-Schmidt, repeated).
fn complete(u: &mut [C], m: usize, free: &[usize]) {
    let mut taken: Vec<usize> = (0..u.len() / m.max(1)).filter(|j| !free.contains(j)).collect();
    for &j in free {
        let mut best = (0.0, vec![C::ZERO; m]);
        for e in 0..m {
            let mut x: Vec<C> = (0..m).map(|i| if i == e { C::ONE } else { C::ZERO }).collect();
            for _ in 0..2 {
                for &t in &taken {
                    let d = (0..m).fold(C::ZERO, |s, i| s.add(u[i + t * m].conj().mul(x[i])));
                    for (i, xi) in x.iter_mut().enumerate() {
                        *xi = xi.sub(u[i + t * m].mul(d));
                    }
                }
            }
            let norm = x.iter().map(|c| c.norm2()).sum::<f64>().sqrt();
            if norm > best.0 {
                best = (norm, x);
            }
        }
        for (i, x) in best.1.iter().enumerate() {
            u[i + j * m] = x.scale(1.0 / best.0);
        }
        taken.push(j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `‖A − U Σ Vᴴ‖` over the entries, and the largest deviation of UᴴU
    /// and VᴴV from the identity.
    fn residuals(m: usize, n: usize, a: &[C], s: &Svd, cols_u: usize, rows_v: usize) -> (f64, f64) {
        let k = m.min(n);
        let mut worst = 0.0f64;
        for j in 0..n {
            for i in 0..m {
                let x = (0..k).fold(C::ZERO, |t, l| t.add(s.u[i + l * m].scale(s.sigma[l]).mul(s.vh[l + j * rows_v])));
                worst = worst.max(x.sub(a[i + j * m]).abs());
            }
        }
        let mut orth = 0.0f64;
        for p in 0..cols_u {
            for q in 0..cols_u {
                let d = (0..m).fold(C::ZERO, |t, i| t.add(s.u[i + p * m].conj().mul(s.u[i + q * m])));
                orth = orth.max(d.sub(if p == q { C::ONE } else { C::ZERO }).abs());
            }
        }
        for p in 0..rows_v {
            for q in 0..rows_v {
                let d = (0..n).fold(C::ZERO, |t, i| t.add(s.vh[p + i * rows_v].mul(s.vh[q + i * rows_v].conj())));
                orth = orth.max(d.sub(if p == q { C::ONE } else { C::ZERO }).abs());
            }
        }
        (worst, orth)
    }

    #[test]
    fn jacobi_reconstructs_tall_wide_complex_and_rank_deficient_matrices() {
        let entry = |i: usize, j: usize| C(((i * 7 + j * 3) % 5) as f64 - 2.0, ((i + 2 * j) % 3) as f64 - 1.0);
        for (m, n) in [(5, 3), (3, 5), (4, 4), (6, 1), (1, 6)] {
            let a: Vec<C> = (0..m * n).map(|e| entry(e % m, e / m)).collect();
            let s = gesvd(m, n, &a, true, true);
            assert_eq!(s.info, 0);
            assert!(s.sigma.windows(2).all(|w| w[0] >= w[1]), "descending: {:?}", s.sigma);
            let (err, orth) = residuals(m, n, &a, &s, m, n);
            assert!(err < 1e-12 && orth < 1e-12, "{m}×{n}: residual {err}, orthogonality {orth}");
        }
        // Rank 1, real: [1 2; 2 4; 3 6] has σ = (√70, 0); U and V stay orthonormal.
        let a = [1.0, 2.0, 3.0, 2.0, 4.0, 6.0].map(|x| C(x, 0.0));
        let s = gesvd(3, 2, &a, true, true);
        assert!((s.sigma[0] - 70f64.sqrt()).abs() < 1e-13 && s.sigma[1].abs() < 1e-13, "{:?}", s.sigma);
        let (err, orth) = residuals(3, 2, &a, &s, 3, 2);
        assert!(err < 1e-12 && orth < 1e-12, "residual {err}, orthogonality {orth}");
        // The zero matrix: σ = 0, vectors a basis.
        let s = gesvd(2, 2, &[C::ZERO; 4], true, true);
        assert_eq!(s.sigma, [0.0, 0.0]);
        assert!(residuals(2, 2, &[C::ZERO; 4], &s, 2, 2).1 < 1e-15);
    }
}
