//! The factorizations and solves themselves, on column-major matrices in
//! host memory, as rocSOLVER 3.21 defines their results: unblocked,
//! right-looking, in the operand's precision.

#![allow(clippy::too_many_arguments)]

use super::scalar::Scalar;

/// LU with partial pivoting of the `m × n` matrix `a` (leading dimension
/// `lda`), in place: the unit lower factor below the diagonal, U on and
/// above it. Returns the 1-based pivots (`min(m, n)` of them) and `info`:
/// the first exactly-zero pivot, 1-based, or 0. The factorization goes on
/// past a zero pivot, as rocSOLVER's does. The pivot of a column is its
/// first entry of largest `|re| + |im|` (LAPACK's `iamax`).
pub(super) fn getrf<T: Scalar>(m: usize, n: usize, a: &mut [T], lda: usize) -> (Vec<i32>, i32) {
    let k = m.min(n);
    let mut ipiv = Vec::with_capacity(k);
    let mut info = 0;
    for j in 0..k {
        let mut p = j;
        for i in j + 1..m {
            if a[i + j * lda].abs1() > a[p + j * lda].abs1() {
                p = i;
            }
        }
        ipiv.push(p as i32 + 1);
        let pivot = a[p + j * lda];
        if pivot == T::zero() {
            if info == 0 {
                info = j as i32 + 1;
            }
            // The column below is zero too: nothing to swap, scale or update.
            continue;
        }
        if p != j {
            for c in 0..n {
                a.swap(j + c * lda, p + c * lda);
            }
        }
        let inverse = T::one().div(pivot);
        for i in j + 1..m {
            a[i + j * lda] = a[i + j * lda].mul(inverse);
        }
        for c in j + 1..n {
            let u = a[j + c * lda];
            if u == T::zero() {
                continue;
            }
            for i in j + 1..m {
                a[i + c * lda] = a[i + c * lda].sub(a[i + j * lda].mul(u));
            }
        }
    }
    (ipiv, info)
}

/// The op of `getrs`: none, transpose or conjugate transpose.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    None,
    Transpose,
    ConjTranspose,
}

/// Solve `op(A) X = B` with the factors and pivots of [`getrf`] (`n × n`
/// in `a`), overwriting the `n × nrhs` B (leading dimension `ldb`).
/// rocSOLVER does not check the pivots, and its row swaps index B with
/// them: a pivot outside `1..=n` is `Err` with its position, before
/// anything is written (a GPU would read and write out of bounds).
pub(super) fn getrs<T: Scalar>(
    op: Op,
    n: usize,
    nrhs: usize,
    a: &[T],
    lda: usize,
    ipiv: &[i32],
    b: &mut [T],
    ldb: usize,
) -> Result<(), usize> {
    if let Some(bad) = ipiv[..n].iter().position(|&p| p < 1 || p as usize > n) {
        return Err(bad);
    }
    let at = |i: usize, j: usize| -> T {
        match op {
            Op::None => a[i + j * lda],
            Op::Transpose => a[j + i * lda],
            Op::ConjTranspose => a[j + i * lda].conj(),
        }
    };
    let swap = |b: &mut [T], k: usize| {
        let p = ipiv[k] as usize;
        if p - 1 != k {
            for c in 0..nrhs {
                b.swap(k + c * ldb, p - 1 + c * ldb);
            }
        }
    };
    if op == Op::None {
        (0..n).for_each(|k| swap(b, k));
        // L y = P b (unit lower), then U x = y.
        for c in 0..nrhs {
            for i in 0..n {
                let mut s = b[i + c * ldb];
                for k in 0..i {
                    s = s.sub(at(i, k).mul(b[k + c * ldb]));
                }
                b[i + c * ldb] = s;
            }
            for i in (0..n).rev() {
                let mut s = b[i + c * ldb];
                for k in i + 1..n {
                    s = s.sub(at(i, k).mul(b[k + c * ldb]));
                }
                b[i + c * ldb] = s.div(at(i, i));
            }
        }
    } else {
        // op(A) = op(U) op(L) Pᵀ: op(U) y = b (lower), op(L) z = y (unit
        // upper), then the swaps backwards.
        for c in 0..nrhs {
            for i in 0..n {
                let mut s = b[i + c * ldb];
                for k in 0..i {
                    s = s.sub(at(i, k).mul(b[k + c * ldb]));
                }
                b[i + c * ldb] = s.div(at(i, i));
            }
            for i in (0..n).rev() {
                let mut s = b[i + c * ldb];
                for k in i + 1..n {
                    s = s.sub(at(i, k).mul(b[k + c * ldb]));
                }
                b[i + c * ldb] = s;
            }
        }
        (0..n).rev().for_each(|k| swap(b, k));
    }
    Ok(())
}

/// Cholesky factorization of the Hermitian positive definite `n × n`
/// matrix in the `upper` or lower triangle of `a`, in place (`A = UᴴU` or
/// `LLᴴ`); the other triangle is not touched. Returns `info`: the order of
/// the first leading minor that is not positive definite, or 0.
///
/// As rocSOLVER 3.21 does, a column whose diagonal `t = a_jj − Σ|l_jk|²`
/// is not positive (`t <= 0`; a NaN is not caught) keeps `t` on the
/// diagonal, gets zeros below it (a scale factor of 0), and the
/// factorization goes on; only the first such column is reported. LAPACK
/// stops there instead, so past `info` the contents are rocSOLVER's, not
/// LAPACK's.
pub(super) fn potrf<T: Scalar>(upper: bool, n: usize, a: &mut [T], lda: usize) -> i32 {
    // Entry (i, j) of the lower factor L (for upper, Lᴴ = U: element (j, i) conjugated).
    let idx = |i: usize, j: usize| if upper { j + i * lda } else { i + j * lda };
    let get = |a: &[T], i: usize, j: usize| if upper { a[idx(i, j)].conj() } else { a[idx(i, j)] };
    let put = |a: &mut [T], i: usize, j: usize, v: T| a[idx(i, j)] = if upper { v.conj() } else { v };
    let mut info = 0;
    for j in 0..n {
        let mut t = T::real(a[j + j * lda].re());
        for k in 0..j {
            let l = get(a, j, k);
            t = t.sub(l.mul(l.conj()));
        }
        let scale = if t.re() <= 0.0 {
            if info == 0 {
                info = j as i32 + 1;
            }
            a[j + j * lda] = t;
            T::zero()
        } else {
            let d = t.sqrt_re();
            a[j + j * lda] = d;
            T::one().div(d)
        };
        for i in j + 1..n {
            let mut s = get(a, i, j);
            for k in 0..j {
                s = s.sub(get(a, i, k).mul(get(a, j, k).conj()));
            }
            put(a, i, j, s.mul(scale));
        }
    }
    info
}

/// Solve `A X = B` with the Cholesky factor of [`potrf`] in the `upper`
/// or lower triangle of `a`, overwriting the `n × nrhs` B.
pub(super) fn potrs<T: Scalar>(upper: bool, n: usize, nrhs: usize, a: &[T], lda: usize, b: &mut [T], ldb: usize) {
    // L (lower) or Uᴴ (upper), as a lower-triangular accessor.
    let l = |i: usize, j: usize| if upper { a[j + i * lda].conj() } else { a[i + j * lda] };
    for c in 0..nrhs {
        // L y = b.
        for i in 0..n {
            let mut s = b[i + c * ldb];
            for k in 0..i {
                s = s.sub(l(i, k).mul(b[k + c * ldb]));
            }
            b[i + c * ldb] = s.div(l(i, i));
        }
        // Lᴴ x = y.
        for i in (0..n).rev() {
            let mut s = b[i + c * ldb];
            for k in i + 1..n {
                s = s.sub(l(k, i).conj().mul(b[k + c * ldb]));
            }
            b[i + c * ldb] = s.div(l(i, i).conj());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul(n: usize, a: &[f64], x: &[f64]) -> Vec<f64> {
        (0..n).map(|i| (0..n).map(|k| a[i + k * n] * x[k]).sum()).collect()
    }

    #[test]
    fn lu_solves_and_pivots_as_lapack() {
        // Column-major 3 × 3 with a zero first pivot candidate.
        let a0 = vec![0.0, 2.0, 1.0, 1.0, 1.0, 3.0, 2.0, 0.0, 1.0];
        let mut a = a0.clone();
        let (ipiv, info) = getrf(3, 3, &mut a, 3);
        assert_eq!(info, 0);
        assert_eq!(ipiv[0], 2, "the largest |a_i0| is row 2 (1-based)");
        let x = [1.0, -2.0, 0.5];
        for op in [Op::None, Op::Transpose] {
            let a_op: Vec<f64> =
                if op == Op::None { a0.clone() } else { (0..9).map(|e| a0[(e / 3) + (e % 3) * 3]).collect() };
            let mut b = matmul(3, &a_op, &x);
            getrs(op, 3, 1, &a, 3, &ipiv, &mut b, 3).expect("pivots in range");
            for (got, want) in b.iter().zip(x) {
                assert!((got - want).abs() < 1e-12, "{b:?}");
            }
        }
        let mut b = vec![1.0; 3];
        assert_eq!(getrs(Op::None, 3, 1, &a, 3, &[1, 4, 3], &mut b, 3), Err(1), "a pivot past n");
        assert_eq!(b, [1.0; 3], "nothing written");
        let mut singular = vec![1.0, 2.0, 2.0, 4.0];
        assert_eq!(getrf(2, 2, &mut singular, 2).1, 2, "the second pivot is zero");
    }

    #[test]
    fn cholesky_solves_and_reports_the_failing_minor() {
        let a0 = vec![4.0, 2.0, 2.0, 3.0];
        for upper in [false, true] {
            let mut a = a0.clone();
            assert_eq!(potrf(upper, 2, &mut a, 2), 0);
            let mut b = matmul(2, &a0, &[1.0, 2.0]);
            potrs(upper, 2, 1, &a, 2, &mut b, 2);
            assert!((b[0] - 1.0).abs() < 1e-12 && (b[1] - 2.0).abs() < 1e-12, "{b:?}");
        }
        let mut indefinite = vec![1.0, 2.0, 2.0, 1.0];
        assert_eq!(potrf(false, 2, &mut indefinite, 2), 2);
        assert_eq!(indefinite[3], -3.0, "t stays on the diagonal");
        let mut complex = vec![[2.0f64, 0.0], [0.0, 1.0], [0.0, -1.0], [2.0, 0.0]];
        assert_eq!(potrf(false, 2, &mut complex, 2), 0, "a Hermitian positive definite matrix");
    }
}
