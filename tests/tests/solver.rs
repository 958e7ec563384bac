//! rocSOLVER through hip-libs, on every backend that has it (the
//! simulator's CPU model, AMD's library, cuSOLVER behind the same table):
//! LU and Cholesky factorizations and solves against CPU references in
//! every precision, with stated tolerances; singular and indefinite
//! matrices reported through `info`, read only when asked; bad shapes,
//! pivots and devices refused before any library call; handles on many
//! threads and devices; the workspace grown from the pool, and captures.
//! QR, the eigensolver and the SVD against their defining identities.

use amdgpu::blas::Op;
use amdgpu::libs::{Breakdown, LibError, Library};
use amdgpu::prelude::*;
use amdgpu::runtime::CaptureMode;
use amdgpu::solver::{self, Batch, Pivots, Shape, SingularVectors, Triangle, Vectors};
use hip_sys::sim;

mod common;
use common::linalg::{apply, cmul, general, hpd, relative_residual, Elem};
use common::{have, noise, on_thread};

/// Factor a random A of order `n` (leading dimension `n + 3`), solve for
/// three right-hand sides with each op, and check `op(A) x = b`.
fn lu_round_trip<T: Elem>(n: usize) {
    let (lda, nrhs, ldb) = (n + 3, 3, n + 1);
    let a_host: Vec<T> = general(n, lda, 7);
    let a_shape = Shape::square(n).with_ld(lda);
    let mut a = DeviceArray::from_slice(&a_host).unwrap();
    let mut pivots = Pivots::new(n, a.stream()).unwrap();
    let info = solver::getrf(&a_shape, &mut a, &mut pivots).unwrap();
    let pivots_host = pivots.to_vec().unwrap();
    assert!(pivots_host.iter().all(|&p| p >= 1 && p as usize <= n), "1-based pivots in range: {pivots_host:?}");
    for op in [Op::None, Op::Transpose, Op::ConjTranspose] {
        let (re, im) = (noise(ldb * nrhs, 11), noise(ldb * nrhs, 12));
        let b_host: Vec<T> = (0..ldb * nrhs).map(|e| T::from_c(re[e], if T::COMPLEX { im[e] } else { 0.0 })).collect();
        let mut b = DeviceArray::from_slice(&b_host).unwrap();
        solver::getrs(op, &a_shape, &a, &pivots, &Shape::new(n, nrhs).with_ld(ldb), &mut b).unwrap();
        let x = b.to_vec().unwrap();
        for c in 0..nrhs {
            let col = |v: &[T]| v[c * ldb..c * ldb + n].to_vec();
            let residual = relative_residual(&apply(op, n, &a_host, lda, &col(&x)), &col(&b_host));
            assert!(residual < T::TOLERANCE, "{} n={n} {op:?} column {c}: residual {residual:e}", T::NAME);
            // The padding between columns is not touched.
            if c + 1 < nrhs {
                assert_eq!(x[c * ldb + n].to_c(), b_host[c * ldb + n].to_c(), "the row past n");
            }
        }
    }
    info.check().unwrap();
}

#[test]
fn lu_solves_in_every_precision_and_op() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    for n in [1, 5, 33, 100] {
        lu_round_trip::<f32>(n);
        lu_round_trip::<f64>(n);
        lu_round_trip::<[f32; 2]>(n);
        lu_round_trip::<[f64; 2]>(n);
    }
    assert_eq!(common::stream_races().len(), 0);
}

fn cholesky_round_trip<T: Elem>(n: usize, triangle: Triangle) {
    let a_host: Vec<T> = hpd(n, 3);
    let shape = Shape::square(n);
    let mut a = DeviceArray::from_slice(&a_host).unwrap();
    let info = solver::potrf(triangle, &shape, &mut a).unwrap();
    let factor = a.to_vec().unwrap();
    // The other triangle is not touched.
    for j in 0..n {
        for i in 0..n {
            let other = if triangle == Triangle::Lower { i < j } else { i > j };
            if other {
                assert_eq!(factor[i + j * n].to_c(), a_host[i + j * n].to_c(), "({i}, {j}) outside the triangle");
            }
        }
    }
    let b_host: Vec<T> = noise(n * 2, 5).into_iter().map(|v| T::from_c(v, if T::COMPLEX { -v } else { 0.0 })).collect();
    let mut b = DeviceArray::from_slice(&b_host).unwrap();
    solver::potrs(triangle, &shape, &a, &Shape::new(n, 2), &mut b).unwrap();
    let x = b.to_vec().unwrap();
    for c in 0..2 {
        let col = |v: &[T]| v[c * n..(c + 1) * n].to_vec();
        let residual = relative_residual(&apply(Op::None, n, &a_host, n, &col(&x)), &col(&b_host));
        assert!(residual < T::TOLERANCE, "{} n={n} {triangle:?}: residual {residual:e}", T::NAME);
    }
    info.check().unwrap();
}

#[test]
fn cholesky_solves_in_every_precision_and_triangle() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    for n in [1, 4, 50, 130] {
        for triangle in [Triangle::Lower, Triangle::Upper] {
            cholesky_round_trip::<f32>(n, triangle);
            cholesky_round_trip::<f64>(n, triangle);
            cholesky_round_trip::<[f32; 2]>(n, triangle);
            cholesky_round_trip::<[f64; 2]>(n, triangle);
        }
    }
}

/// A random Hermitian matrix of order `n` (from seed `seed`): the full
/// matrix, and as stored, its `triangle` with garbage in the other.
fn hermitian<T: Elem>(n: usize, seed: u64, triangle: Triangle) -> (Vec<(f64, f64)>, Vec<T>) {
    let m: Vec<T> = general(n, n, seed);
    // (M + Mᴴ) / 2, and garbage outside the triangle.
    let full: Vec<(f64, f64)> = (0..n * n)
        .map(|e| {
            let (i, j) = (e % n, e / n);
            let (x, y) = (m[i + j * n].to_c(), m[j + i * n].to_c());
            if i == j {
                (x.0, 0.0)
            } else {
                ((x.0 + y.0) / 2.0, (x.1 - y.1) / 2.0)
            }
        })
        .collect();
    let stored: Vec<T> = (0..n * n)
        .map(|e| {
            let (i, j) = (e % n, e / n);
            let inside = if triangle == Triangle::Lower { i >= j } else { i <= j };
            if inside {
                T::from_c(full[e].0, full[e].1)
            } else {
                T::from_c(1e30, -1e30)
            }
        })
        .collect();
    (full, stored)
}

/// `A v = λ v` for each pair of the `n × n` Hermitian `full`, ascending
/// values, orthonormal vectors (column-major with leading dimension `ldv`).
fn check_eigenpairs<T: Elem>(full: &[(f64, f64)], lambda: &[f64], v: &[(f64, f64)], n: usize, ldv: usize, what: &str) {
    assert!(lambda.windows(2).all(|w| w[0] <= w[1]), "{what} ascending: {lambda:?}");
    let scale = lambda.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for j in 0..n {
        for i in 0..n {
            // (A v_j)_i − λ_j v_ij
            let mut r = (0.0, 0.0);
            for k in 0..n {
                let p = cmul(full[i + k * n], v[k + j * ldv]);
                r = (r.0 + p.0, r.1 + p.1);
            }
            let (dr, di) = (r.0 - lambda[j] * v[i + j * ldv].0, r.1 - lambda[j] * v[i + j * ldv].1);
            assert!(dr.hypot(di) < T::TOLERANCE * 10.0 * scale, "{what} n={n} residual at ({i}, {j})");
        }
        for l in 0..n {
            // (Vᴴ V)_{lj}
            let mut g = (0.0, 0.0);
            for k in 0..n {
                let (x, y) = (v[k + l * ldv], v[k + j * ldv]);
                let p = cmul((x.0, -x.1), y);
                g = (g.0 + p.0, g.1 + p.1);
            }
            let want = if l == j { 1.0 } else { 0.0 };
            assert!((g.0 - want).hypot(g.1) < T::TOLERANCE * 10.0, "{what} n={n} orthonormal ({l}, {j})");
        }
    }
}

/// The eigenvalues and vectors of a random Hermitian matrix of order `n`
/// from its `triangle` (the other holds garbage): `A v = λ v` for each
/// pair, ascending values, orthonormal vectors, and the same values
/// without vectors.
fn eigen_round_trip<T: Elem>(n: usize, triangle: Triangle) {
    let (full, stored) = hermitian::<T>(n, 21, triangle);
    let shape = Shape::square(n);
    let mut a = DeviceArray::from_slice(&stored).unwrap();
    let mut values = DeviceArray::<T::Real>::zeros(n).unwrap();
    let info = solver::syevd(Vectors::Compute, triangle, &shape, &mut a, &mut values).unwrap();
    info.check().unwrap();
    let lambda: Vec<f64> = values.to_vec().unwrap().into_iter().map(Into::into).collect();
    let v: Vec<(f64, f64)> = a.to_vec().unwrap().into_iter().map(T::to_c).collect();
    check_eigenpairs::<T>(&full, &lambda, &v, n, n, T::NAME);
    let scale = lambda.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let mut b = DeviceArray::from_slice(&stored).unwrap();
    let mut only = DeviceArray::<T::Real>::zeros(n).unwrap();
    solver::syevd(Vectors::Skip, triangle, &shape, &mut b, &mut only).unwrap().check().unwrap();
    for (x, y) in only.to_vec().unwrap().into_iter().map(Into::into).zip(&lambda) {
        let x: f64 = x;
        assert!((x - y).abs() < T::TOLERANCE * 10.0 * scale, "{} n={n}: {x} and {y} without vectors", T::NAME);
    }
}

#[test]
fn the_eigensolver_finds_spectra_and_orthonormal_vectors_in_every_precision() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    for n in [1, 4, 30] {
        for triangle in [Triangle::Lower, Triangle::Upper] {
            eigen_round_trip::<f32>(n, triangle);
            eigen_round_trip::<f64>(n, triangle);
            eigen_round_trip::<[f32; 2]>(n, triangle);
            eigen_round_trip::<[f64; 2]>(n, triangle);
        }
    }
    // A known spectrum: [[2, 1], [1, 2]] has 1 and 3.
    let mut a = DeviceArray::from_slice(&[2.0f64, 1.0, 1.0, 2.0]).unwrap();
    let mut values = DeviceArray::<f64>::zeros(2).unwrap();
    solver::heevd(Vectors::Skip, Triangle::Upper, &Shape::square(2), &mut a, &mut values).unwrap().check().unwrap();
    let got = values.to_vec().unwrap();
    assert!((got[0] - 1.0).abs() < 1e-14 && (got[1] - 3.0).abs() < 1e-14, "{got:?}");
    // Without vectors A's contents are destroyed (the simulator makes that
    // visible: NaNs where rocSOLVER leaves its Householder vectors).
    if common::on_sim() {
        let mut b = DeviceArray::from_slice(&[2.0f64, 1.0, 1.0, 2.0]).unwrap();
        solver::syevd(Vectors::Skip, Triangle::Lower, &Shape::square(2), &mut b, &mut values).unwrap().check().unwrap();
        assert!(b.to_vec().unwrap().iter().all(|x| x.is_nan()), "A is not to be read after Vectors::Skip");
    }
    // Too few eigenvalues: refused first.
    let mut one = DeviceArray::<f64>::zeros(1).unwrap();
    let error = solver::syevd(Vectors::Skip, Triangle::Lower, &Shape::square(2), &mut a, &mut one).unwrap_err();
    assert!(matches!(error, LibError::InvalidInput { .. }) && error.to_string().contains("hold 1"), "{error}");
}

/// QR of a random `m × n` A (leading dimension `m + 2`): `Q R = A` with
/// Q's orthonormal columns from `orgqr`, R upper triangular.
fn qr_round_trip<T: Elem>(m: usize, n: usize) {
    let lda = m + 2;
    let (re, im) = (noise(lda * n, 31), noise(lda * n, 32));
    let a_host: Vec<T> = (0..lda * n).map(|e| T::from_c(re[e], if T::COMPLEX { im[e] } else { 0.0 })).collect();
    let shape = Shape::new(m, n).with_ld(lda);
    let k = m.min(n);
    let mut a = DeviceArray::from_slice(&a_host).unwrap();
    let mut tau = DeviceArray::<T>::zeros(k.max(1)).unwrap();
    solver::geqrf(&shape, &mut a, &mut tau).unwrap();
    let factored: Vec<(f64, f64)> = a.to_vec().unwrap().into_iter().map(T::to_c).collect();
    // Q's first k columns, from the first k columns of the factors.
    let qshape = Shape::new(m, k).with_ld(lda);
    solver::orgqr(&qshape, k, &mut a, &tau).unwrap();
    let q: Vec<(f64, f64)> = a.to_vec().unwrap().into_iter().map(T::to_c).collect();
    for j in 0..n {
        for i in 0..m {
            let mut s = (0.0, 0.0);
            for l in 0..=j.min(k - 1) {
                let p = cmul(q[i + l * lda], factored[l + j * lda]);
                s = (s.0 + p.0, s.1 + p.1);
            }
            let want = a_host[i + j * lda].to_c();
            assert!((s.0 - want.0).hypot(s.1 - want.1) < T::TOLERANCE * 10.0, "{} {m}x{n}: QR at ({i}, {j})", T::NAME);
        }
    }
    for l in 0..k {
        for j in 0..k {
            let g = (0..m).fold((0.0, 0.0), |g, r| {
                let (x, y) = (q[r + l * lda], q[r + j * lda]);
                let p = cmul((x.0, -x.1), y);
                (g.0 + p.0, g.1 + p.1)
            });
            let want = if l == j { 1.0 } else { 0.0 };
            assert!((g.0 - want).hypot(g.1) < T::TOLERANCE * 10.0, "{} {m}x{n}: QᴴQ at ({l}, {j})", T::NAME);
        }
    }
}

#[test]
fn qr_factors_and_builds_orthonormal_q_in_every_precision() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    for (m, n) in [(1, 1), (5, 3), (3, 5), (40, 40), (60, 20)] {
        qr_round_trip::<f32>(m, n);
        qr_round_trip::<f64>(m, n);
        qr_round_trip::<[f32; 2]>(m, n);
        qr_round_trip::<[f64; 2]>(m, n);
    }
    // orgqr's shape rules, checked first.
    let mut a = DeviceArray::<f64>::zeros(12).unwrap();
    let tau = DeviceArray::<f64>::zeros(4).unwrap();
    let error = solver::ungqr(&Shape::new(3, 4), 2, &mut a, &tau).unwrap_err();
    assert!(matches!(error, LibError::InvalidInput { .. }) && error.to_string().contains("n ≤ m"), "{error}");
    let mut short = DeviceArray::<f64>::zeros(1).unwrap();
    let error = solver::geqrf(&Shape::new(4, 3), &mut a, &mut short).unwrap_err();
    assert!(error.to_string().contains("tau holds 1"), "{error}");
}

/// Which vectors an SVD round trip asks for on each side.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    All,
    Thin,
    OverA,
    Skip,
}

/// The SVD of a random `m × n` A (leading dimension `m + 1`, U's and Vᴴ's
/// two more than their rows) with `left` and `right` vectors: Σ
/// descending and non-negative; the vectors orthonormal, and with both
/// sides `A = U Σ Vᴴ`. Returns Σ.
fn svd_round_trip<T: Elem>(m: usize, n: usize, left: Side, right: Side) -> Vec<f64> {
    let (lda, k) = (m + 1, m.min(n));
    let (re, im) = (noise(lda * n, 41), noise(lda * n, 42));
    let a_host: Vec<T> = (0..lda * n).map(|e| T::from_c(re[e], if T::COMPLEX { im[e] } else { 0.0 })).collect();
    let mut a = DeviceArray::from_slice(&a_host).unwrap();
    let mut sigma = DeviceArray::<T::Real>::zeros(k).unwrap();
    let u_shape = Shape::new(m, if left == Side::All { m } else { k }).with_ld(m + 2);
    let v_rows = if right == Side::All { n } else { k };
    let v_shape = Shape::new(v_rows, n).with_ld(v_rows + 2);
    let mut u = DeviceArray::<T>::zeros(u_shape.len().max(1)).unwrap();
    let mut vt = DeviceArray::<T>::zeros(v_shape.len().max(1)).unwrap();
    fn side<T: Elem>(side: Side, shape: Shape, data: &mut DeviceArray<T>) -> SingularVectors<'_, T> {
        match side {
            Side::All => SingularVectors::All(shape, data),
            Side::Thin => SingularVectors::Thin(shape, data),
            Side::OverA => SingularVectors::OverA,
            Side::Skip => SingularVectors::Skip,
        }
    }
    let info = solver::gesvd(
        &Shape::new(m, n).with_ld(lda),
        &mut a,
        &mut sigma,
        side(left, u_shape, &mut u),
        side(right, v_shape, &mut vt),
    )
    .unwrap();
    info.check().unwrap();
    let what = format!("{} {m}×{n} {left:?}/{right:?}", T::NAME);
    let s: Vec<f64> = sigma.to_vec().unwrap().into_iter().map(Into::into).collect();
    assert!(s.windows(2).all(|w| w[0] >= w[1]) && s.iter().all(|&x| x >= 0.0), "{what}: Σ = {s:?}");
    let a_after: Vec<(f64, f64)> = a.to_vec().unwrap().into_iter().map(T::to_c).collect();
    // U's columns (ld, count) and Vᴴ's rows (ld, count), where they are.
    let u_host: Vec<(f64, f64)> = u.to_vec().unwrap().into_iter().map(T::to_c).collect();
    let v_host: Vec<(f64, f64)> = vt.to_vec().unwrap().into_iter().map(T::to_c).collect();
    let (u_of, u_ld, u_cols) = match left {
        Side::OverA => (&a_after, lda, k),
        _ => (&u_host, m + 2, u_shape.cols),
    };
    let (v_of, v_ld, v_count) = match right {
        Side::OverA => (&a_after, lda, k),
        _ => (&v_host, v_rows + 2, v_rows),
    };
    let tolerance = T::TOLERANCE * 10.0;
    let gram = |count: usize, len: usize, at: &dyn Fn(usize, usize) -> (f64, f64)| {
        for p in 0..count {
            for q in 0..count {
                let g = (0..len).fold((0.0, 0.0), |g, r| {
                    let (x, y) = (at(r, p), at(r, q));
                    let z = cmul((x.0, -x.1), y);
                    (g.0 + z.0, g.1 + z.1)
                });
                let want = if p == q { 1.0 } else { 0.0 };
                assert!((g.0 - want).hypot(g.1) < tolerance, "{what}: not orthonormal at ({p}, {q}): {g:?}");
            }
        }
    };
    if left != Side::Skip {
        gram(u_cols, m, &|r, c| u_of[r + c * u_ld]);
    }
    if right != Side::Skip {
        // Vᴴ's rows are orthonormal: conjugate them to use columns' Gram.
        gram(v_count, n, &|r, c| {
            let x = v_of[c + r * v_ld];
            (x.0, -x.1)
        });
    }
    if left != Side::Skip && right != Side::Skip {
        let scale = s.first().copied().unwrap_or(1.0).max(1.0);
        for j in 0..n {
            for i in 0..m {
                let x = (0..k).fold((0.0, 0.0), |x, l| {
                    let z = cmul(u_of[i + l * u_ld], v_of[l + j * v_ld]);
                    (x.0 + s[l] * z.0, x.1 + s[l] * z.1)
                });
                let want = a_host[i + j * lda].to_c();
                assert!((x.0 - want.0).hypot(x.1 - want.1) < tolerance * scale, "{what}: U Σ Vᴴ at ({i}, {j})");
            }
        }
    }
    s
}

#[test]
fn the_svd_reconstructs_a_with_orthonormal_vectors_in_every_precision_and_shape() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    use Side::{All, OverA, Skip, Thin};
    fn each<T: Elem>(m: usize, n: usize) {
        let reference = svd_round_trip::<T>(m, n, All, All);
        for (left, right) in [(Thin, Thin), (OverA, Thin), (Thin, OverA), (All, Skip), (Skip, Skip)] {
            let s = svd_round_trip::<T>(m, n, left, right);
            for (x, y) in s.iter().zip(&reference) {
                assert!((x - y).abs() < T::TOLERANCE * 10.0 * reference[0].max(1.0), "{m}×{n} {left:?}/{right:?}");
            }
        }
    }
    // Square, tall and wide; thin enough for rocSOLVER's QR-first path
    // (m ≥ 1.6 n) or not.
    for (m, n) in [(1, 1), (1, 4), (4, 1), (5, 3), (3, 5), (8, 5), (5, 8), (30, 30), (40, 12), (12, 40)] {
        each::<f32>(m, n);
        each::<f64>(m, n);
        each::<[f32; 2]>(m, n);
        each::<[f64; 2]>(m, n);
    }
    // Known values: [[3, 0], [4, 5]] has σ = (3√5, √5).
    let mut a = DeviceArray::from_slice(&[3.0f64, 4.0, 0.0, 5.0]).unwrap();
    let mut s = DeviceArray::<f64>::zeros(2).unwrap();
    let shape = Shape::square(2);
    solver::gesvd(&shape, &mut a, &mut s, SingularVectors::Skip, SingularVectors::Skip).unwrap().check().unwrap();
    let got = s.to_vec().unwrap();
    let want = [3.0 * 5f64.sqrt(), 5f64.sqrt()];
    assert!((got[0] - want[0]).abs() < 1e-13 && (got[1] - want[1]).abs() < 1e-13, "{got:?}");
    // A rank-one matrix: the second value is 0, and U stays orthonormal.
    svd_round_trip::<f64>(2, 2, All, All);
    let mut r1 = DeviceArray::from_slice(&[1.0f64, 2.0, 2.0, 4.0]).unwrap();
    let mut u = DeviceArray::<f64>::zeros(4).unwrap();
    let info = solver::gesvd(&shape, &mut r1, &mut s, SingularVectors::All(shape, &mut u), SingularVectors::Skip);
    info.unwrap().check().unwrap();
    let (got, u) = (s.to_vec().unwrap(), u.to_vec().unwrap());
    assert!((got[0] - 5.0).abs() < 1e-13 && got[1].abs() < 1e-13, "{got:?}");
    assert!((u[0] * u[2] + u[1] * u[3]).abs() < 1e-13 && (u[2].hypot(u[3]) - 1.0).abs() < 1e-13, "{u:?}");
    // A's contents are destroyed unless vectors overwrite it (the
    // simulator makes that visible with NaNs).
    if common::on_sim() {
        let mut b = DeviceArray::from_slice(&[3.0f64, 4.0, 0.0, 5.0]).unwrap();
        solver::gesvd(&shape, &mut b, &mut s, SingularVectors::Skip, SingularVectors::Skip).unwrap().check().unwrap();
        assert!(b.to_vec().unwrap().iter().all(|x| x.is_nan()), "A is not to be read after gesvd");
    }
}

#[test]
fn the_svd_refuses_bad_shapes_before_any_call_and_an_empty_one_succeeds() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    let invalid = |result: amdgpu::libs::Result<solver::Info>, needle: &str| {
        let error = result.expect_err(needle);
        assert!(matches!(error, LibError::InvalidInput { .. }), "{error:?}");
        assert!(error.to_string().contains(needle), "{error} should say {needle:?}");
    };
    let shape = Shape::new(4, 3);
    let mut a = DeviceArray::<f64>::zeros(12).unwrap();
    let mut s = DeviceArray::<f64>::zeros(3).unwrap();
    let mut u = DeviceArray::<f64>::zeros(16).unwrap();
    let (over, skip) = (|| SingularVectors::<f64>::OverA, || SingularVectors::<f64>::Skip);
    invalid(solver::gesvd(&shape, &mut a, &mut s, over(), over()), "both sides");
    let wrong = SingularVectors::All(Shape::new(4, 3), &mut u);
    invalid(solver::gesvd(&shape, &mut a, &mut s, wrong, skip()), "U is 4×3; these vectors of A make it 4×4");
    let wrong = SingularVectors::Thin(Shape::new(4, 3), &mut u);
    invalid(solver::gesvd(&shape, &mut a, &mut s, skip(), wrong), "Vᴴ is 4×3; these vectors of A make it 3×3");
    let short = SingularVectors::All(Shape::square(4).with_ld(5), &mut u);
    invalid(solver::gesvd(&shape, &mut a, &mut s, short, skip()), "U holds 16 elements");
    let mut two = DeviceArray::<f64>::zeros(2).unwrap();
    invalid(solver::gesvd(&shape, &mut a, &mut two, skip(), skip()), "min(m, n) = 3");
    invalid(solver::gesvd(&Shape::new(4, 4), &mut a, &mut s, skip(), skip()), "A holds 12 elements");
    // An empty A: nothing to compute, and an info that says so.
    let mut none = DeviceArray::<f64>::zeros(1).unwrap();
    let info = solver::gesvd(&Shape::new(0, 3), &mut none, &mut s, skip(), skip()).unwrap();
    assert_eq!(info.value().unwrap(), 0);
}

#[test]
fn pivots_are_lapacks_first_largest() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    // Column-major; the largest |a| of column 1 is in row 3, then the
    // Schur complement's largest of column 2 is in (original) row 1.
    let mut a = DeviceArray::from_slice(&[1.0f64, 2.0, -4.0, 3.0, 1.0, 1.0, 2.0, 5.0, 1.0]).unwrap();
    let mut pivots = Pivots::new(3, a.stream()).unwrap();
    solver::getrf(&Shape::square(3), &mut a, &mut pivots).unwrap().check().unwrap();
    assert_eq!(pivots.to_vec().unwrap(), [3, 3, 3]);
    let lu = a.to_vec().unwrap();
    // L's first column, over the pivot −4, with both swaps applied to
    // whole rows as LAPACK does: original row 1 (1/−4), then row 2 (2/−4).
    assert!((lu[1] + 0.25).abs() < 1e-15 && (lu[2] + 0.5).abs() < 1e-15, "{lu:?}");
    // A wide matrix: min(m, n) pivots.
    let mut wide = DeviceArray::from_slice(&[0.0f32, 1.0, 1.0, 0.0, 2.0, 3.0]).unwrap();
    let mut two = Pivots::new(2, wide.stream()).unwrap();
    solver::getrf(&Shape::new(2, 3), &mut wide, &mut two).unwrap().check().unwrap();
    assert_eq!(two.to_vec().unwrap(), [2, 2]);
}

#[test]
fn singular_and_indefinite_matrices_are_reported_through_info() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    // The second column is twice the first, and every step of the
    // elimination is exact (pivot 2, multiplier 1/2): U(2, 2) = 0 on every
    // backend, fused multiply-adds or not.
    let mut a = DeviceArray::from_slice(&[1.0f64, 2.0, 2.0, 4.0]).unwrap();
    let mut pivots = Pivots::new(2, a.stream()).unwrap();
    let info = solver::getrf(&Shape::square(2), &mut a, &mut pivots).unwrap();
    assert_eq!(info.value().unwrap(), 2);
    let error = info.check().unwrap_err();
    assert!(
        matches!(error, LibError::Breakdown { operation: "getrf", breakdown: Breakdown::ZeroPivot { column: 2 } }),
        "{error:?}"
    );
    assert!(error.to_string().contains("singular") && error.to_string().contains("U(2, 2)"), "{error}");
    // A zero column first: info 1, and the factorization still completes.
    let mut zero_first = DeviceArray::from_slice(&[0.0f32, 0.0, 1.0, 2.0]).unwrap();
    assert_eq!(solver::getrf(&Shape::square(2), &mut zero_first, &mut pivots).unwrap().value().unwrap(), 1);
    // Symmetric with eigenvalues 3 and −1: the minor of order 2 fails.
    for triangle in [Triangle::Lower, Triangle::Upper] {
        let mut s = DeviceArray::from_slice(&[1.0f64, 2.0, 2.0, 1.0]).unwrap();
        let info = solver::potrf(triangle, &Shape::square(2), &mut s).unwrap();
        let error = info.check().unwrap_err();
        assert!(
            matches!(error, LibError::Breakdown { breakdown: Breakdown::NotPositiveDefinite { order: 2 }, .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("not positive definite"), "{error}");
        assert_eq!(s.to_vec().unwrap()[0], 1.0, "the valid first column of the factor");
    }
    // Negative on the diagonal at once: order 1.
    let mut negative = DeviceArray::from_slice(&[-1.0f32]).unwrap();
    assert_eq!(solver::potrf(Triangle::Lower, &Shape::square(1), &mut negative).unwrap().value().unwrap(), 1);
    // Empty matrices succeed, info 0.
    let mut empty = DeviceArray::<f64>::zeros(0).unwrap();
    solver::getrf(&Shape::new(0, 3), &mut empty, &mut pivots).unwrap().check().unwrap();
    solver::potrf(Triangle::Upper, &Shape::square(0), &mut empty).unwrap().check().unwrap();
}

#[test]
fn bad_shapes_pivots_and_devices_are_refused_before_any_call() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    let invalid = |result: amdgpu::libs::Result<()>, needle: &str| {
        let error = result.expect_err(needle);
        assert!(matches!(error, LibError::InvalidInput { .. }), "{error:?}");
        assert!(error.to_string().contains(needle), "{error} should say {needle:?}");
    };
    let mut a = DeviceArray::<f64>::zeros(16).unwrap();
    let mut b = DeviceArray::<f64>::zeros(8).unwrap();
    let mut pivots = Pivots::new(4, a.stream()).unwrap();
    invalid(solver::getrf(&Shape::square(4).with_ld(3), &mut a, &mut pivots).map(drop), "leading dimension 3");
    invalid(solver::getrf(&Shape::square(5), &mut a, &mut pivots).map(drop), "holds 16 elements");
    let mut few = Pivots::new(2, a.stream()).unwrap();
    invalid(solver::getrf(&Shape::square(4), &mut a, &mut few).map(drop), "2 pivots are too few");
    invalid(solver::getrs(Op::None, &Shape::square(4), &a, &pivots, &Shape::new(4, 2), &mut b), "not written");
    invalid(solver::potrf(Triangle::Lower, &Shape::new(4, 2), &mut a).map(drop), "must be square");
    invalid(solver::potrs(Triangle::Lower, &Shape::square(4), &a, &Shape::new(3, 2), &mut b), "B has 3 rows");
    let huge = Shape::square(1 << 31);
    invalid(solver::potrf(Triangle::Lower, &huge, &mut a).map(drop), "32-bit");
    // Pivots of a larger matrix would swap rows outside a smaller one.
    let mut big = DeviceArray::<f64>::zeros(25).unwrap();
    big.copy_from_slice(&general::<f64>(5, 5, 1)).unwrap();
    let mut five = Pivots::new(5, big.stream()).unwrap();
    solver::getrf(&Shape::square(5), &mut big, &mut five).unwrap().check().unwrap();
    invalid(solver::getrs(Op::None, &Shape::square(4), &a, &five, &Shape::new(4, 2), &mut b), "5 rows");
    // Operands on another device.
    if Device::count().unwrap() >= 2 {
        let other = Stream::new_on(Device::new(1).unwrap()).unwrap();
        let mut elsewhere = Pivots::new(4, &other).unwrap();
        let error = solver::getrf(&Shape::square(4), &mut a, &mut elsewhere).unwrap_err();
        assert_eq!(common::mismatch(error.device_mismatch()), Some(("the pivots", 0, 1)), "{error}");
        let a1 = DeviceArray::<f64>::zeros_on(&other, 16).unwrap();
        let error = solver::potrs(Triangle::Lower, &Shape::square(4), &a1, &Shape::new(4, 2), &mut b).unwrap_err();
        assert_eq!(common::mismatch(error.device_mismatch()), Some(("A", 0, 1)), "{error}");
    }
}

#[test]
fn threads_and_devices_each_solve_with_their_own_handles() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    let devices = Device::count().unwrap().min(4);
    let workers: Vec<_> = (0..4)
        .map(|t| {
            std::thread::Builder::new()
                .name(format!("solver-{t}"))
                .spawn(move || {
                    let device = Device::new(t % devices).unwrap();
                    let stream = Stream::new_on(device).unwrap();
                    let n = 24 + t;
                    let a_host: Vec<f64> = hpd(n, t as u64);
                    let b_host = noise(n, 40 + t as u64);
                    for _ in 0..3 {
                        let mut a = DeviceArray::zeros_on(&stream, n * n).unwrap();
                        a.copy_from_slice(&a_host).unwrap();
                        let mut b = DeviceArray::zeros_on(&stream, n).unwrap();
                        b.copy_from_slice(&b_host).unwrap();
                        let info = solver::potrf(Triangle::Upper, &Shape::square(n), &mut a).unwrap();
                        solver::potrs(Triangle::Upper, &Shape::square(n), &a, &Shape::new(n, 1), &mut b).unwrap();
                        info.check().unwrap();
                        let x = b.to_vec().unwrap();
                        let residual = relative_residual(&apply(Op::None, n, &a_host, n, &x), &b_host);
                        assert!(residual < 1e-11, "thread {t} on {device:?}: {residual:e}");
                    }
                })
                .unwrap()
        })
        .collect();
    for worker in workers {
        worker.join().expect("a solver thread panicked");
    }
    for t in 0..4 {
        assert_eq!(common::violations_of(&format!("solver-{t}")).len(), 0, "every call under its handle's device");
    }
    assert_eq!(common::stream_races().len(), 0);
}

#[test]
fn a_factorization_on_one_stream_and_its_solve_on_another_are_ordered() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    let (s1, s2) = (Stream::new().unwrap(), Stream::new().unwrap());
    let n = 40;
    let a_host: Vec<f64> = general(n, n, 9);
    let mut a = DeviceArray::zeros_on(&s1, n * n).unwrap();
    a.copy_from_slice(&a_host).unwrap();
    let mut pivots = Pivots::new(n, &s1).unwrap();
    let info = solver::getrf(&Shape::square(n), &mut a, &mut pivots).unwrap();
    let b_host = noise(n, 2);
    let mut b = DeviceArray::zeros_on(&s2, n).unwrap();
    b.copy_from_slice(&b_host).unwrap();
    solver::getrs(Op::None, &Shape::square(n), &a, &pivots, &Shape::new(n, 1), &mut b).unwrap();
    drop((a, pivots));
    let x = b.to_vec().unwrap();
    let residual = relative_residual(&apply(Op::None, n, &a_host, n, &x), &b_host);
    assert!(residual < 1e-11, "{residual:e}");
    info.check().unwrap();
    assert_eq!(common::stream_races().len(), 0, "the operand protocol orders s1's factors before s2's solve");
}

#[test]
fn factorizations_capture_once_the_workspace_is_large_enough() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    on_thread("solver-capture", || {
        let stream = Stream::new().unwrap();
        let n = 30;
        let a_host: Vec<f64> = hpd(n, 8);
        let mut a = DeviceArray::zeros_on(&stream, n * n).unwrap();
        // Eager first: the handle (and, on nvidia, its cuSOLVER handle) exist.
        a.copy_from_slice(&a_host).unwrap();
        solver::potrf(Triangle::Lower, &Shape::square(n), &mut a).unwrap().check().unwrap();
        let eager = a.to_vec().unwrap();
        a.copy_from_slice(&a_host).unwrap();
        let (graph, info) = stream
            .capture(CaptureMode::ThreadLocal, |_| solver::potrf(Triangle::Lower, &Shape::square(n), &mut a))
            .unwrap();
        let exec = graph.instantiate().unwrap();
        exec.launch(&stream).unwrap();
        assert_eq!(a.to_vec().unwrap(), eager, "a replay factors as the eager call did");
        info.check().unwrap();
        // A replay on the factor itself: its diagonal is no longer A's.
        exec.launch(&stream).unwrap();
        assert_ne!(a.to_vec().unwrap(), eager);
        // A strided batch captures the same way: three problems, eager first.
        let shape = Shape::square(n);
        let batch = Batch::packed(3, &shape);
        let three = [a_host.clone(), hpd(n, 9), hpd(n, 10)].concat();
        let mut a = DeviceArray::from_slice_on(&stream, &three).unwrap();
        solver::potrf_strided_batched(Triangle::Upper, &shape, &batch, &mut a).unwrap().check().unwrap();
        let eager = a.to_vec().unwrap();
        a.copy_from_slice(&three).unwrap();
        let (graph, info) = stream
            .capture(CaptureMode::ThreadLocal, |_| {
                solver::potrf_strided_batched(Triangle::Upper, &shape, &batch, &mut a)
            })
            .unwrap();
        graph.instantiate().unwrap().launch(&stream).unwrap();
        assert_eq!(a.to_vec().unwrap(), eager, "a replayed batch factors as the eager call did");
        assert_eq!(info.values().unwrap(), vec![0; 3]);
        // A batch of eigenproblems, and a wide SVD (on nvidia, transposes
        // around cuSOLVER's call), capture the same way.
        a.copy_from_slice(&three).unwrap();
        let mut w = DeviceArray::<f64>::zeros_on(&stream, 3 * n).unwrap();
        let eigen = |a: &mut DeviceArray<f64>, w: &mut DeviceArray<f64>| {
            solver::syevd_strided_batched(Vectors::Compute, Triangle::Lower, &shape, &batch, a, w)
        };
        eigen(&mut a, &mut w).unwrap().check().unwrap();
        let (eager_vectors, eager_values) = (a.to_vec().unwrap(), w.to_vec().unwrap());
        a.copy_from_slice(&three).unwrap();
        let captured = stream.capture(CaptureMode::ThreadLocal, |_| eigen(&mut a, &mut w));
        if amdgpu::backend() == amdgpu::Backend::Nvidia {
            // cuSOLVER's syevd synchronizes: refused before any call.
            let error = captured.expect_err("cuSOLVER's syevd does not capture");
            assert!(error.to_string().contains("cannot be captured"), "{error}");
        } else {
            let (graph, info) = captured.unwrap();
            graph.instantiate().unwrap().launch(&stream).unwrap();
            assert_eq!(w.to_vec().unwrap(), eager_values, "replayed eigenvalues");
            assert_eq!(a.to_vec().unwrap(), eager_vectors, "replayed eigenvectors");
            assert_eq!(info.values().unwrap(), vec![0; 3]);
        }
        let (m, cols) = (7, 12);
        let wide = Shape::new(m, cols);
        let host: Vec<f64> = noise(m * cols, 5);
        let mut a = DeviceArray::from_slice_on(&stream, &host).unwrap();
        let mut sigma = DeviceArray::<f64>::zeros_on(&stream, m).unwrap();
        let mut vt = DeviceArray::<f64>::zeros_on(&stream, m * cols).unwrap();
        let svd = |a: &mut DeviceArray<f64>, sigma: &mut DeviceArray<f64>, vt: &mut DeviceArray<f64>| {
            let right = SingularVectors::Thin(Shape::new(m, cols), vt);
            solver::gesvd(&wide, a, sigma, SingularVectors::OverA, right)
        };
        svd(&mut a, &mut sigma, &mut vt).unwrap().check().unwrap();
        let eager = (a.to_vec().unwrap(), sigma.to_vec().unwrap(), vt.to_vec().unwrap());
        a.copy_from_slice(&host).unwrap();
        let captured = stream.capture(CaptureMode::ThreadLocal, |_| svd(&mut a, &mut sigma, &mut vt));
        if amdgpu::backend() == amdgpu::Backend::Nvidia {
            // cuSOLVER's gesvd synchronizes: refused before any call.
            let error = captured.expect_err("cuSOLVER's gesvd does not capture");
            assert!(error.to_string().contains("cannot be captured"), "{error}");
            return;
        }
        let (graph, info) = captured.unwrap();
        graph.instantiate().unwrap().launch(&stream).unwrap();
        let replayed = (a.to_vec().unwrap(), sigma.to_vec().unwrap(), vt.to_vec().unwrap());
        assert_eq!(replayed.1, eager.1, "replayed singular values");
        assert_eq!(replayed.2, eager.2, "replayed Vᴴ");
        assert_eq!(replayed.0[..m * m], eager.0[..m * m], "replayed U over A");
        info.check().unwrap();
    });
}

/// `count` problems of `one` elements each, `stride` apart, from `make(i)`;
/// the padding between them holds a marker, 7.
fn batch_of<T: Elem>(count: usize, one: usize, stride: usize, make: impl Fn(usize) -> Vec<T>) -> Vec<T> {
    let mut all = vec![T::from_c(7.0, 0.0); stride * (count - 1) + one];
    for i in 0..count {
        all[i * stride..i * stride + one].copy_from_slice(&make(i)[..one]);
    }
    all
}

/// A strided batch of LU problems (leading dimension above the rows, a gap
/// between problems), each factored and solved as its own: residuals per
/// problem, the padding between problems untouched, and one
/// factorization's factors shared by many right-hand sides (`stride_a` 0).
fn lu_batch_round_trip<T: Elem>(n: usize, count: usize) {
    let (lda, nrhs) = (n + 1, 2);
    let a_shape = Shape::square(n).with_ld(lda);
    let b_shape = Shape::new(n, nrhs);
    let batch = Batch { count, stride_a: a_shape.len() + 3, stride_b: b_shape.len() + 2 };
    // Each problem's rows turned by i + 1 from a diagonally dominant
    // matrix: well conditioned, and partial pivoting must swap rows, each
    // problem differently, so pivots that go with other factors show.
    let a_host = batch_of::<T>(count, a_shape.len(), batch.stride_a, |i| {
        let a: Vec<T> = general(n, lda, 40 + i as u64);
        (0..lda * n).map(|e| if e % lda < n { a[(e % lda + i + 1) % n + e / lda * lda] } else { a[e] }).collect()
    });
    let b_host = batch_of::<T>(count, b_shape.len(), batch.stride_b, |i| {
        noise(n * nrhs, 90 + i as u64)
            .into_iter()
            .map(|v| T::from_c(v, if T::COMPLEX { v / 2.0 } else { 0.0 }))
            .collect()
    });
    let mut a = DeviceArray::from_slice(&a_host).unwrap();
    let mut pivots = Pivots::batched(n, count, a.stream()).unwrap();
    let info = solver::getrf_strided_batched(&a_shape, &batch, &mut a, &mut pivots).unwrap();
    assert_eq!(info.values().unwrap(), vec![0; count], "{} every problem factored", T::NAME);
    info.check().unwrap();
    let all_pivots = pivots.to_vec().unwrap();
    assert!(all_pivots.iter().all(|&p| p >= 1 && p as usize <= n), "pivots in range");
    if n > 2 && count > 1 {
        assert_ne!(all_pivots[..n], all_pivots[n..2 * n], "{} n={n}: problems pivot differently", T::NAME);
    }
    let factors = a.to_vec().unwrap();
    for op in [Op::None, Op::ConjTranspose] {
        let mut b = DeviceArray::from_slice(&b_host).unwrap();
        solver::getrs_strided_batched(op, &a_shape, &a, &pivots, &b_shape, &batch, &mut b).unwrap();
        let x = b.to_vec().unwrap();
        for i in 0..count {
            let (at_a, at_b) = (i * batch.stride_a, i * batch.stride_b);
            let a_i = &a_host[at_a..at_a + a_shape.len()];
            for c in 0..nrhs {
                let col = |v: &[T]| v[at_b + c * n..at_b + (c + 1) * n].to_vec();
                let residual = relative_residual(&apply(op, n, a_i, lda, &col(&x)), &col(&b_host));
                assert!(residual < T::TOLERANCE, "{} n={n} {op:?} problem {i} column {c}: {residual:e}", T::NAME);
            }
            if i + 1 < count {
                let gap = at_b + b_shape.len()..(i + 1) * batch.stride_b;
                assert!(x[gap].iter().all(|v| v.to_c() == (7.0, 0.0)), "B's padding after problem {i}");
                let gap = at_a + a_shape.len()..(i + 1) * batch.stride_a;
                assert!(factors[gap].iter().all(|v| v.to_c() == (7.0, 0.0)), "A's padding after problem {i}");
            }
        }
    }
    // One factorization, every right-hand side: stride_a 0 reads problem 0's factors.
    let shared = Batch { stride_a: 0, ..batch };
    let mut b = DeviceArray::from_slice(&b_host).unwrap();
    solver::getrs_strided_batched(Op::None, &a_shape, &a, &pivots, &b_shape, &shared, &mut b).unwrap();
    let x = b.to_vec().unwrap();
    for i in 0..count {
        let at_b = i * batch.stride_b;
        let col = |v: &[T]| v[at_b..at_b + n].to_vec();
        let residual = relative_residual(&apply(Op::None, n, &a_host[..a_shape.len()], lda, &col(&x)), &col(&b_host));
        assert!(residual < T::TOLERANCE, "{} shared factors, problem {i}: {residual:e}", T::NAME);
    }
}

/// A strided batch of Cholesky problems in one triangle, each solved as
/// its own.
fn cholesky_batch_round_trip<T: Elem>(n: usize, count: usize, triangle: Triangle) {
    let a_shape = Shape::square(n);
    let b_shape = Shape::new(n, 1);
    let batch = Batch::packed(count, &a_shape).with_b(&b_shape);
    let a_host = batch_of::<T>(count, n * n, n * n, |i| hpd(n, 60 + i as u64));
    let b_host: Vec<T> = noise(n * count, 8).into_iter().map(|v| T::from_c(v, 0.0)).collect();
    let mut a = DeviceArray::from_slice(&a_host).unwrap();
    solver::potrf_strided_batched(triangle, &a_shape, &batch, &mut a).unwrap().check().unwrap();
    let mut b = DeviceArray::from_slice(&b_host).unwrap();
    solver::potrs_strided_batched(triangle, &a_shape, &a, &b_shape, &batch, &mut b).unwrap();
    let x = b.to_vec().unwrap();
    for i in 0..count {
        let a_i = &a_host[i * n * n..(i + 1) * n * n];
        let residual =
            relative_residual(&apply(Op::None, n, a_i, n, &x[i * n..(i + 1) * n]), &b_host[i * n..(i + 1) * n]);
        assert!(residual < T::TOLERANCE, "{} n={n} {triangle:?} problem {i}: {residual:e}", T::NAME);
    }
}

/// A strided batch of QR factorizations equals the single calls' results
/// problem by problem, to rounding (Householder QR with LAPACK's signs is
/// unique).
fn qr_batch_matches_single_calls<T: Elem>(m: usize, n: usize, count: usize) {
    let shape = Shape::new(m, n);
    let k = m.min(n);
    let batch = Batch::packed(count, &shape);
    let one = |i: usize| -> Vec<T> {
        let (re, im) = (noise(m * n, 70 + i as u64), noise(m * n, 80 + i as u64));
        (0..m * n).map(|e| T::from_c(re[e], if T::COMPLEX { im[e] } else { 0.0 })).collect()
    };
    let mut a = DeviceArray::from_slice(&batch_of::<T>(count, m * n, m * n, one)).unwrap();
    let mut tau = DeviceArray::<T>::zeros(k * count).unwrap();
    solver::geqrf_strided_batched(&shape, &batch, &mut a, &mut tau).unwrap();
    let (factors, scalars) = (a.to_vec().unwrap(), tau.to_vec().unwrap());
    for i in 0..count {
        let mut single = DeviceArray::from_slice(&one(i)).unwrap();
        let mut single_tau = DeviceArray::<T>::zeros(k).unwrap();
        solver::geqrf(&shape, &mut single, &mut single_tau).unwrap();
        let close = |x: (f64, f64), y: (f64, f64)| (x.0 - y.0).hypot(x.1 - y.1) < T::TOLERANCE * 100.0;
        for (e, v) in single.to_vec().unwrap().into_iter().enumerate() {
            assert!(close(factors[i * m * n + e].to_c(), v.to_c()), "{} {m}x{n} problem {i}, element {e}", T::NAME);
        }
        for (e, v) in single_tau.to_vec().unwrap().into_iter().enumerate() {
            assert!(close(scalars[i * k + e].to_c(), v.to_c()), "{} {m}x{n} problem {i}, tau {e}", T::NAME);
        }
    }
}

/// A strided batch of Hermitian eigenproblems (leading dimension above
/// the order, a gap between problems): each problem's pairs check as the
/// single call's do, its eigenvalues equal the single call's, the padding
/// between problems is untouched, and without vectors the values agree.
fn eigen_batch_round_trip<T: Elem>(n: usize, count: usize, triangle: Triangle) {
    let lda = n + 1;
    let shape = Shape::square(n).with_ld(lda);
    let batch = Batch { count, stride_a: shape.len() + 3, stride_b: 0 };
    let problems: Vec<_> = (0..count).map(|i| hermitian::<T>(n, 30 + i as u64, triangle)).collect();
    let padded = |stored: &[T]| -> Vec<T> {
        (0..lda * n).map(|e| if e % lda < n { stored[e % lda + e / lda * n] } else { T::from_c(7.0, 0.0) }).collect()
    };
    let a_host = batch_of::<T>(count, shape.len(), batch.stride_a, |i| padded(&problems[i].1));
    let mut a = DeviceArray::from_slice(&a_host).unwrap();
    let mut values = DeviceArray::<T::Real>::zeros(n * count).unwrap();
    let info = solver::syevd_strided_batched(Vectors::Compute, triangle, &shape, &batch, &mut a, &mut values).unwrap();
    assert_eq!(info.values().unwrap(), vec![0; count], "{} every problem converged", T::NAME);
    let lambda: Vec<f64> = values.to_vec().unwrap().into_iter().map(Into::into).collect();
    let v: Vec<(f64, f64)> = a.to_vec().unwrap().into_iter().map(T::to_c).collect();
    for (i, (full, stored)) in problems.iter().enumerate() {
        let at = i * batch.stride_a;
        let what = format!("{} {triangle:?} problem {i} of {count}", T::NAME);
        check_eigenpairs::<T>(full, &lambda[i * n..(i + 1) * n], &v[at..at + shape.len()], n, lda, &what);
        let mut single = DeviceArray::from_slice(stored).unwrap();
        let mut single_values = DeviceArray::<T::Real>::zeros(n).unwrap();
        solver::syevd(Vectors::Skip, triangle, &Shape::square(n), &mut single, &mut single_values)
            .unwrap()
            .check()
            .unwrap();
        let scale = lambda[i * n..(i + 1) * n].iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (k, x) in single_values.to_vec().unwrap().into_iter().map(Into::<f64>::into).enumerate() {
            let y = lambda[i * n + k];
            assert!((x - y).abs() < T::TOLERANCE * 10.0 * scale, "{what}: value {k} {y}, single {x}");
        }
        for r in 0..n - 1 {
            assert_eq!(v[at + r * lda + n], (7.0, 0.0), "{what}: A's padding below column {r}");
        }
        if i + 1 < count {
            let gap = at + shape.len()..(i + 1) * batch.stride_a;
            assert!(v[gap].iter().all(|&x| x == (7.0, 0.0)), "{what}: the gap after it");
        }
    }
    let mut b = DeviceArray::from_slice(&a_host).unwrap();
    let mut only = DeviceArray::<T::Real>::zeros(n * count).unwrap();
    solver::heevd_strided_batched(Vectors::Skip, triangle, &shape, &batch, &mut b, &mut only).unwrap().check().unwrap();
    let scale = lambda.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for (x, y) in only.to_vec().unwrap().into_iter().map(Into::<f64>::into).zip(&lambda) {
        assert!((x - y).abs() < T::TOLERANCE * 10.0 * scale, "{} batch without vectors: {x} and {y}", T::NAME);
    }
}

/// A strided batch of SVDs (A with a gap between problems, U and Vᴴ
/// packed): each problem's singular values equal the single call's, U Σ
/// Vᴴ gives back its A where both sides have matrices, and A's gaps are
/// untouched.
fn svd_batch_round_trip<T: Elem>(m: usize, n: usize, count: usize, left: Side, right: Side) {
    let (lda, k) = (m + 1, m.min(n));
    let shape = Shape::new(m, n).with_ld(lda);
    let batch = Batch { count, stride_a: shape.len() + 2, stride_b: 0 };
    let one = |i: usize| -> Vec<T> {
        let (re, im) = (noise(shape.len(), 140 + i as u64), noise(shape.len(), 150 + i as u64));
        (0..shape.len()).map(|e| T::from_c(re[e], if T::COMPLEX { im[e] } else { 0.0 })).collect()
    };
    let a_host = batch_of::<T>(count, shape.len(), batch.stride_a, one);
    let mut a = DeviceArray::from_slice(&a_host).unwrap();
    let mut sigma = DeviceArray::<T::Real>::zeros(k * count).unwrap();
    let u_shape = Shape::new(m, if left == Side::All { m } else { k }).with_ld(m + 2);
    let v_rows = if right == Side::All { n } else { k };
    let v_shape = Shape::new(v_rows, n).with_ld(v_rows + 2);
    let mut u = DeviceArray::<T>::zeros((u_shape.len() * count).max(1)).unwrap();
    let mut vt = DeviceArray::<T>::zeros((v_shape.len() * count).max(1)).unwrap();
    fn side<T: Elem>(side: Side, shape: Shape, data: &mut DeviceArray<T>) -> SingularVectors<'_, T> {
        match side {
            Side::All => SingularVectors::All(shape, data),
            Side::Thin => SingularVectors::Thin(shape, data),
            Side::OverA => SingularVectors::OverA,
            Side::Skip => SingularVectors::Skip,
        }
    }
    let info = solver::gesvd_strided_batched(
        &shape,
        &batch,
        &mut a,
        &mut sigma,
        side(left, u_shape, &mut u),
        side(right, v_shape, &mut vt),
    )
    .unwrap();
    assert_eq!(info.values().unwrap(), vec![0; count], "{} every problem converged", T::NAME);
    let s: Vec<f64> = sigma.to_vec().unwrap().into_iter().map(Into::into).collect();
    let a_after: Vec<(f64, f64)> = a.to_vec().unwrap().into_iter().map(T::to_c).collect();
    let u_host: Vec<(f64, f64)> = u.to_vec().unwrap().into_iter().map(T::to_c).collect();
    let v_host: Vec<(f64, f64)> = vt.to_vec().unwrap().into_iter().map(T::to_c).collect();
    let tolerance = T::TOLERANCE * 10.0;
    for i in 0..count {
        let what = format!("{} {m}×{n} {left:?}/{right:?} problem {i} of {count}", T::NAME);
        let (at, s_i) = (i * batch.stride_a, &s[i * k..(i + 1) * k]);
        let mut single = DeviceArray::from_slice(&one(i)).unwrap();
        let mut single_sigma = DeviceArray::<T::Real>::zeros(k).unwrap();
        solver::gesvd(&shape, &mut single, &mut single_sigma, SingularVectors::Skip, SingularVectors::Skip)
            .unwrap()
            .check()
            .unwrap();
        let scale = s_i.first().copied().unwrap_or(1.0).max(1.0);
        for (x, y) in single_sigma.to_vec().unwrap().into_iter().map(Into::<f64>::into).zip(s_i) {
            assert!((x - y).abs() < tolerance * scale, "{what}: σ {y}, single {x}");
        }
        if i + 1 < count {
            assert!(
                a_after[at + shape.len()..(i + 1) * batch.stride_a].iter().all(|&x| x == (7.0, 0.0)),
                "{what}: gap"
            );
        }
        if matches!(left, Side::All | Side::Thin) && matches!(right, Side::All | Side::Thin) {
            let (u_at, v_at) = (i * u_shape.len(), i * v_shape.len());
            for j in 0..n {
                for r in 0..m {
                    let x = (0..k).fold((0.0, 0.0), |x, l| {
                        let z = cmul(u_host[u_at + r + l * (m + 2)], v_host[v_at + l + j * (v_rows + 2)]);
                        (x.0 + s_i[l] * z.0, x.1 + s_i[l] * z.1)
                    });
                    let want = a_host[at + r + j * lda].to_c();
                    assert!((x.0 - want.0).hypot(x.1 - want.1) < tolerance * scale, "{what}: U Σ Vᴴ at ({r}, {j})");
                }
            }
        }
    }
}

#[test]
fn strided_batches_factor_and_solve_every_problem_in_every_precision() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    // A batch of one, and batches of several: on nvidia one call per
    // problem, and one batched launch.
    for (n, count) in [(6, 1), (1, 3), (6, 5), (40, 4)] {
        lu_batch_round_trip::<f32>(n, count);
        lu_batch_round_trip::<f64>(n, count);
        lu_batch_round_trip::<[f32; 2]>(n, count);
        lu_batch_round_trip::<[f64; 2]>(n, count);
        for triangle in [Triangle::Lower, Triangle::Upper] {
            cholesky_batch_round_trip::<f32>(n, count, triangle);
            cholesky_batch_round_trip::<f64>(n, count, triangle);
            cholesky_batch_round_trip::<[f32; 2]>(n, count, triangle);
            cholesky_batch_round_trip::<[f64; 2]>(n, count, triangle);
        }
    }
    for (n, count) in [(5, 1), (1, 3), (9, 4)] {
        for triangle in [Triangle::Lower, Triangle::Upper] {
            eigen_batch_round_trip::<f32>(n, count, triangle);
            eigen_batch_round_trip::<f64>(n, count, triangle);
            eigen_batch_round_trip::<[f32; 2]>(n, count, triangle);
            eigen_batch_round_trip::<[f64; 2]>(n, count, triangle);
        }
    }
    {
        use Side::{All, OverA, Skip, Thin};
        for (m, n, count, left, right) in [
            (5, 3, 3, Thin, Thin),
            (3, 5, 2, All, All),
            (6, 6, 2, OverA, Thin),
            (9, 4, 3, All, OverA),
            (4, 2, 1, Skip, Skip),
        ] {
            svd_batch_round_trip::<f32>(m, n, count, left, right);
            svd_batch_round_trip::<f64>(m, n, count, left, right);
            svd_batch_round_trip::<[f32; 2]>(m, n, count, left, right);
            svd_batch_round_trip::<[f64; 2]>(m, n, count, left, right);
        }
    }
    for (m, n) in [(5, 3), (3, 5), (12, 12)] {
        qr_batch_matches_single_calls::<f32>(m, n, 3);
        qr_batch_matches_single_calls::<f64>(m, n, 3);
        qr_batch_matches_single_calls::<[f32; 2]>(m, n, 3);
        qr_batch_matches_single_calls::<[f64; 2]>(m, n, 3);
    }
    assert_eq!(common::stream_races().len(), 0);
}

#[test]
fn a_batch_reports_each_problems_breakdown_and_names_the_first() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    // Problems 0 and 2 factor; 1 is singular (U(2, 2) = 0 exactly), 3 has a
    // zero first column.
    let problems = [[4.0f64, 1.0, 1.0, 3.0], [1.0, 2.0, 2.0, 4.0], [2.0, 0.0, 0.0, 2.0], [0.0, 0.0, 1.0, 2.0]];
    let shape = Shape::square(2);
    let batch = Batch::packed(4, &shape);
    let mut a = DeviceArray::from_slice(&problems.concat()).unwrap();
    let mut pivots = Pivots::batched(2, 4, a.stream()).unwrap();
    let info = solver::getrf_strided_batched(&shape, &batch, &mut a, &mut pivots).unwrap();
    assert_eq!(info.len(), 4);
    assert_eq!(info.values().unwrap(), vec![0, 2, 0, 1]);
    let breakdowns = info.breakdowns().unwrap();
    assert_eq!(breakdowns[1], Some(Breakdown::ZeroPivot { column: 2 }));
    assert_eq!((breakdowns[0], breakdowns[2]), (None, None));
    let error = info.check().unwrap_err();
    assert!(
        matches!(
            error,
            LibError::BatchBreakdown {
                operation: "getrf_strided_batched",
                problem: 1,
                failed: 2,
                count: 4,
                breakdown: Breakdown::ZeroPivot { column: 2 }
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("problem 1 of 4") && error.to_string().contains("2 failed"), "{error}");
    let single = info.value().unwrap_err();
    assert!(single.to_string().contains("values()"), "{single}");
    // Cholesky: problem 1 of 2 is indefinite (eigenvalues 3 and −1).
    let mut s = DeviceArray::from_slice(&[2.0f32, 1.0, 1.0, 2.0, 1.0, 2.0, 2.0, 1.0]).unwrap();
    let info = solver::potrf_strided_batched(Triangle::Lower, &shape, &Batch::packed(2, &shape), &mut s).unwrap();
    assert_eq!(info.values().unwrap(), vec![0, 2]);
    let error = info.check().unwrap_err();
    assert!(
        matches!(
            error,
            LibError::BatchBreakdown {
                problem: 1,
                failed: 1,
                breakdown: Breakdown::NotPositiveDefinite { order: 2 },
                ..
            }
        ),
        "{error:?}"
    );
    // A batch of one reports as a batch; an empty batch succeeds, with no value.
    let mut one = DeviceArray::from_slice(&problems[1]).unwrap();
    let info = solver::getrf_strided_batched(&shape, &Batch::packed(1, &shape), &mut one, &mut pivots).unwrap();
    assert!(matches!(info.check(), Err(LibError::BatchBreakdown { problem: 0, count: 1, .. })));
    let mut empty = DeviceArray::<f64>::zeros(4).unwrap();
    let info = solver::getrf_strided_batched(&shape, &Batch::packed(0, &shape), &mut empty, &mut pivots).unwrap();
    assert!(info.is_empty());
    info.check().unwrap();
    let info = solver::potrf_strided_batched(Triangle::Upper, &Shape::square(0), &Batch::packed(3, &shape), &mut empty);
    assert_eq!(info.unwrap().values().unwrap(), vec![0; 3], "empty matrices: info 0 for each problem");
}

#[test]
fn bad_batches_are_refused_before_any_call() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    let invalid = |result: amdgpu::libs::Result<()>, needle: &str| {
        let error = result.expect_err(needle);
        assert!(matches!(error, LibError::InvalidInput { .. }), "{error:?}");
        assert!(error.to_string().contains(needle), "{error} should say {needle:?}");
    };
    let shape = Shape::square(4);
    let mut a = DeviceArray::<f64>::zeros(16 * 3).unwrap();
    let mut b = DeviceArray::<f64>::zeros(8 * 3).unwrap();
    let mut pivots = Pivots::batched(4, 3, a.stream()).unwrap();
    let overlapping = Batch { count: 3, stride_a: 8, stride_b: 8 };
    invalid(solver::getrf_strided_batched(&shape, &overlapping, &mut a, &mut pivots).map(drop), "would overlap");
    invalid(solver::potrf_strided_batched(Triangle::Lower, &shape, &overlapping, &mut a).map(drop), "would overlap");
    let mut tau = DeviceArray::<f64>::zeros(12).unwrap();
    invalid(solver::geqrf_strided_batched(&shape, &overlapping, &mut a, &mut tau), "would overlap");
    let four = Batch::packed(4, &shape);
    invalid(solver::getrf_strided_batched(&shape, &four, &mut a, &mut pivots).map(drop), "holds 48 elements");
    let three = Batch::packed(3, &shape).with_b(&Shape::new(4, 2));
    let mut few = Pivots::batched(4, 2, a.stream()).unwrap();
    invalid(solver::getrf_strided_batched(&shape, &three, &mut a, &mut few).map(drop), "hold 2 problems");
    let mut short_tau = DeviceArray::<f64>::zeros(11).unwrap();
    invalid(solver::geqrf_strided_batched(&shape, &three, &mut a, &mut short_tau), "tau holds 11");
    invalid(
        solver::getrs_strided_batched(Op::None, &shape, &a, &pivots, &Shape::new(4, 2), &three, &mut b),
        "not written",
    );
    let solves_overlap = Batch { stride_b: 4, ..three };
    solver::getrf_strided_batched(&shape, &Batch::packed(2, &shape), &mut a, &mut pivots).unwrap().check().ok();
    invalid(
        solver::getrs_strided_batched(Op::None, &shape, &a, &pivots, &Shape::new(4, 2), &three, &mut b),
        "2 factored problems",
    );
    invalid(
        solver::potrs_strided_batched(Triangle::Lower, &shape, &a, &Shape::new(4, 2), &solves_overlap, &mut b),
        "stride_b = 4",
    );
    // A batch's pivots are refused where one problem's are taken.
    invalid(solver::getrf(&shape, &mut a, &mut pivots).map(drop), "batch of 3");
    // The eigensolver: A's problems apart, enough eigenvalues, square.
    let mut w = DeviceArray::<f64>::zeros(12).unwrap();
    let eigen = |batch: &Batch, a: &mut DeviceArray<f64>, w: &mut DeviceArray<f64>| {
        solver::syevd_strided_batched(Vectors::Compute, Triangle::Lower, &shape, batch, a, w).map(drop)
    };
    invalid(eigen(&overlapping, &mut a, &mut w), "would overlap");
    let mut short_w = DeviceArray::<f64>::zeros(11).unwrap();
    invalid(eigen(&Batch::packed(3, &shape), &mut a, &mut short_w), "the eigenvalues holds 11");
    let wide = Shape::new(4, 3);
    invalid(
        solver::syevd_strided_batched(Vectors::Skip, Triangle::Lower, &wide, &Batch::packed(3, &wide), &mut a, &mut w)
            .map(drop),
        "square",
    );
    // rocSOLVER's 32-bit sizing of 2·n²·count: refused before any call.
    let big = Shape::square(1024);
    let huge = Batch { count: 1025, stride_a: 0, stride_b: 0 };
    let error = solver::syevd_strided_batched(Vectors::Compute, Triangle::Lower, &big, &huge, &mut a, &mut w)
        .expect_err("overflows rocSOLVER's sizing");
    assert!(error.to_string().contains("make batches of at most 1023"), "{error}");
    // The SVD: enough singular values, U holding every problem's.
    let svd = |a: &mut DeviceArray<f64>, s: &mut DeviceArray<f64>, u: &mut DeviceArray<f64>| {
        let left = SingularVectors::Thin(Shape::new(4, 4), u);
        solver::gesvd_strided_batched(&shape, &Batch::packed(3, &shape), a, s, left, SingularVectors::Skip).map(drop)
    };
    let mut u = DeviceArray::<f64>::zeros(16 * 3).unwrap();
    invalid(svd(&mut a, &mut short_w, &mut u), "the singular values holds 11");
    let mut short_u = DeviceArray::<f64>::zeros(16 * 3 - 1).unwrap();
    invalid(svd(&mut a, &mut w, &mut short_u), "U holds 47 elements; 3 packed 4×4 matrices");
    let over = solver::gesvd_strided_batched(
        &shape,
        &Batch::packed(3, &shape),
        &mut a,
        &mut w,
        SingularVectors::OverA,
        SingularVectors::OverA,
    );
    invalid(over.map(drop), "both sides");
    // An empty batch succeeds and has no values to read.
    let info = solver::syevd_strided_batched(
        Vectors::Compute,
        Triangle::Upper,
        &shape,
        &Batch::packed(0, &shape),
        &mut a,
        &mut w,
    )
    .expect("an empty batch");
    assert_eq!(info.values().unwrap(), Vec::<i32>::new());
}
