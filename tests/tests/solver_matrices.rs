//! rocSOLVER's pointer-array batches through hip-libs ([`MatrixBatch`] and
//! the `*_batched` calls), on every backend that has rocSOLVER: separate
//! matrices, anywhere, factored and solved as their own problems in every
//! precision; each problem's breakdown through `info`; bad batches refused
//! before any call; matrices of other streams ordered and kept from reuse;
//! a captured batch replaying as its eager call.

use amdgpu::blas::Op;
use amdgpu::libs::{Breakdown, LibError, Library};
use amdgpu::prelude::*;
use amdgpu::runtime::CaptureMode;
use amdgpu::solver::{self, Batch, MatrixBatch, Pivots, Shape, SingularVectors, SolverScalar, Triangle, Vectors};
use hip_sys::sim;

mod common;
use common::linalg::{apply, general, hpd, relative_residual, Elem};
use common::{have, noise};

/// `count` matrices of `len` elements from `make(i)`, each in an array of
/// its own with `i` elements more: the batch's addresses are not one
/// stride apart.
fn separate<T: Elem>(count: usize, len: usize, make: impl Fn(usize) -> Vec<T>) -> Vec<DeviceArray<T>> {
    (0..count)
        .map(|i| {
            let mut values = make(i);
            values.truncate(len);
            values.extend(std::iter::repeat_n(T::from_c(7.0, 0.0), i));
            DeviceArray::from_slice(&values).unwrap()
        })
        .collect()
}

fn rhs<T: Elem>(len: usize, seed: u64) -> Vec<T> {
    noise(len, seed).into_iter().map(|v| T::from_c(v, if T::COMPLEX { v / 2.0 } else { 0.0 })).collect()
}

/// LU of `count` separate `n × n` matrices (leading dimension `n + 1`),
/// each solved for two right-hand sides with each op: residuals per
/// problem, pivots per problem, and nothing past each matrix written.
fn lu_round_trip<T: Elem>(n: usize, count: usize) {
    let lda = n + 1;
    let (a_shape, b_shape) = (Shape::square(n).with_ld(lda), Shape::new(n, 2));
    // Each problem's rows turned by i + 1: partial pivoting swaps rows,
    // each problem differently.
    let make = |i: usize| -> Vec<T> {
        let a: Vec<T> = general(n, lda, 140 + i as u64);
        (0..lda * n).map(|e| if e % lda < n { a[(e % lda + i + 1) % n + e / lda * lda] } else { a[e] }).collect()
    };
    let mut a = separate::<T>(count, a_shape.len(), make);
    let mut pivots = Pivots::batched(n, count, a[0].stream()).unwrap();
    let mut factors = MatrixBatch::new(&a_shape, &mut a).unwrap();
    assert_eq!(factors.len(), count);
    let info = solver::getrf_batched(&mut factors, &mut pivots).unwrap();
    assert_eq!(info.values().unwrap(), vec![0; count], "{} n={n}: every problem factored", T::NAME);
    let all_pivots = pivots.to_vec().unwrap();
    assert!(all_pivots.iter().all(|&p| p >= 1 && p as usize <= n), "pivots in range");
    if n > 2 && count > 1 {
        assert_ne!(all_pivots[..n], all_pivots[n..2 * n], "{} n={n}: problems pivot differently", T::NAME);
    }
    for op in [Op::None, Op::ConjTranspose] {
        let b_host: Vec<Vec<T>> = (0..count).map(|i| rhs(b_shape.len(), 90 + i as u64)).collect();
        let mut b = separate::<T>(count, b_shape.len(), |i| b_host[i].clone());
        {
            let mut solutions = MatrixBatch::new(&b_shape, &mut b).unwrap();
            solver::getrs_batched(op, &factors, &pivots, &mut solutions).unwrap();
        }
        for (i, b) in b.iter().enumerate() {
            let x = b.to_vec().unwrap();
            for c in 0..2 {
                let col = |v: &[T]| v[c * n..(c + 1) * n].to_vec();
                let residual = relative_residual(&apply(op, n, &make(i), lda, &col(&x)), &col(&b_host[i]));
                assert!(residual < T::TOLERANCE, "{} n={n} {op:?} problem {i} column {c}: {residual:e}", T::NAME);
            }
            assert!(x[b_shape.len()..].iter().all(|v| v.to_c() == (7.0, 0.0)), "past B {i}");
        }
    }
    drop(factors);
    for (i, a) in a.iter().enumerate() {
        let values = a.to_vec().unwrap();
        assert!(values[a_shape.len()..].iter().all(|v| v.to_c() == (7.0, 0.0)), "past A {i}");
    }
}

/// LU of separate `m × n` matrices, not square (on nvidia: no batched
/// call, so the array is read back and cuSOLVER factors each): each
/// problem as the single call factors it.
fn lu_matches_single_calls<T: Elem>(m: usize, n: usize, count: usize) {
    let shape = Shape::new(m, n);
    let make = |i: usize| -> Vec<T> { rhs(m * n, 30 + i as u64) };
    let mut a = separate::<T>(count, m * n, make);
    let k = m.min(n);
    let mut pivots = Pivots::batched(k, count, a[0].stream()).unwrap();
    solver::getrf_batched(&mut MatrixBatch::new(&shape, &mut a).unwrap(), &mut pivots).unwrap().check().unwrap();
    let all_pivots = pivots.to_vec().unwrap();
    for (i, a) in a.iter().enumerate() {
        let mut single = DeviceArray::from_slice(&make(i)).unwrap();
        let mut single_pivots = Pivots::new(k, single.stream()).unwrap();
        solver::getrf(&shape, &mut single, &mut single_pivots).unwrap().check().unwrap();
        assert_eq!(all_pivots[i * k..(i + 1) * k], single_pivots.to_vec().unwrap()[..], "problem {i}'s pivots");
        let close = |x: (f64, f64), y: (f64, f64)| (x.0 - y.0).hypot(x.1 - y.1) < T::TOLERANCE * 100.0;
        for (e, (got, want)) in a.to_vec().unwrap().into_iter().zip(single.to_vec().unwrap()).enumerate() {
            assert!(close(got.to_c(), want.to_c()), "{} {m}x{n} problem {i}, element {e}", T::NAME);
        }
    }
}

/// Cholesky of separate matrices in one triangle, solved for `nrhs`
/// right-hand sides (on nvidia, one is cuSOLVER's batched solve, more is
/// one solve per problem).
fn cholesky_round_trip<T: Elem>(n: usize, count: usize, nrhs: usize, triangle: Triangle) {
    let (a_shape, b_shape) = (Shape::square(n), Shape::new(n, nrhs));
    let mut a = separate::<T>(count, n * n, |i| hpd(n, 160 + i as u64));
    let mut factors = MatrixBatch::new(&a_shape, &mut a).unwrap();
    solver::potrf_batched(triangle, &mut factors).unwrap().check().unwrap();
    let b_host: Vec<Vec<T>> = (0..count).map(|i| rhs(n * nrhs, 70 + i as u64)).collect();
    let mut b = separate::<T>(count, n * nrhs, |i| b_host[i].clone());
    solver::potrs_batched(triangle, &factors, &mut MatrixBatch::new(&b_shape, &mut b).unwrap()).unwrap();
    for (i, b) in b.iter().enumerate() {
        let x = b.to_vec().unwrap();
        for c in 0..nrhs {
            let col = |v: &[T]| v[c * n..(c + 1) * n].to_vec();
            let residual =
                relative_residual(&apply(Op::None, n, &hpd::<T>(n, 160 + i as u64), n, &col(&x)), &col(&b_host[i]));
            assert!(residual < T::TOLERANCE, "{} n={n} {triangle:?} problem {i} column {c}: {residual:e}", T::NAME);
        }
    }
}

/// QR of separate matrices equals the single calls' results, problem by
/// problem.
fn qr_matches_single_calls<T: Elem>(m: usize, n: usize, count: usize) {
    let shape = Shape::new(m, n);
    let k = m.min(n);
    let make = |i: usize| -> Vec<T> { rhs(m * n, 50 + i as u64) };
    let mut a = separate::<T>(count, m * n, make);
    let mut tau = DeviceArray::<T>::zeros(k * count).unwrap();
    solver::geqrf_batched(&mut MatrixBatch::new(&shape, &mut a).unwrap(), &mut tau).unwrap();
    let scalars = tau.to_vec().unwrap();
    for (i, a) in a.iter().enumerate() {
        let mut single = DeviceArray::from_slice(&make(i)).unwrap();
        let mut single_tau = DeviceArray::<T>::zeros(k).unwrap();
        solver::geqrf(&shape, &mut single, &mut single_tau).unwrap();
        let close = |x: (f64, f64), y: (f64, f64)| (x.0 - y.0).hypot(x.1 - y.1) < T::TOLERANCE * 100.0;
        for (e, (got, want)) in a.to_vec().unwrap().into_iter().zip(single.to_vec().unwrap()).enumerate() {
            assert!(close(got.to_c(), want.to_c()), "{} {m}x{n} problem {i}, element {e}", T::NAME);
        }
        for (e, want) in single_tau.to_vec().unwrap().into_iter().enumerate() {
            assert!(close(scalars[i * k + e].to_c(), want.to_c()), "{} {m}x{n} problem {i}, tau {e}", T::NAME);
        }
    }
}

/// Whether two results agree to `T`'s tolerance (scaled), element by element.
fn agree<T: Elem>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (e, (x, y)) in got.iter().zip(want).enumerate() {
        let (x, y) = (x.to_c(), y.to_c());
        let scale = y.0.hypot(y.1).max(1.0);
        assert!((x.0 - y.0).hypot(x.1 - y.1) <= T::TOLERANCE * 100.0 * scale, "{what}, element {e}: {x:?} {y:?}");
    }
}

/// The eigensolver over separate Hermitian matrices gives what the strided
/// batch gives over the same matrices packed, problem by problem:
/// eigenvalues, and (with vectors) the vectors over each matrix.
fn eigen_matches_strided<T: Elem>(n: usize, count: usize, vectors: Vectors) {
    let shape = Shape::square(n);
    let make = |i: usize| -> Vec<T> { hpd(n, 200 + i as u64) };
    let mut packed = DeviceArray::from_slice(&(0..count).flat_map(make).collect::<Vec<T>>()).unwrap();
    let mut packed_values = DeviceArray::<T::Real>::zeros(n * count).unwrap();
    let batch = Batch::packed(count, &shape);
    let info = solver::syevd_strided_batched(vectors, Triangle::Lower, &shape, &batch, &mut packed, &mut packed_values);
    info.unwrap().check().unwrap();
    let mut a = separate::<T>(count, n * n, make);
    let mut values = DeviceArray::<T::Real>::zeros(n * count).unwrap();
    let info =
        solver::heevd_batched(vectors, Triangle::Lower, &mut MatrixBatch::new(&shape, &mut a).unwrap(), &mut values);
    assert_eq!(info.unwrap().values().unwrap(), vec![0; count]);
    let real = |v: Vec<T::Real>| -> Vec<T> { v.into_iter().map(|x| T::from_c(x.into(), 0.0)).collect() };
    let what = format!("{} n={n} {vectors:?}", T::NAME);
    agree(&real(values.to_vec().unwrap()), &real(packed_values.to_vec().unwrap()), &format!("{what}: eigenvalues"));
    if vectors == Vectors::Compute {
        let packed = packed.to_vec().unwrap();
        for (i, a) in a.iter().enumerate() {
            let got = a.to_vec().unwrap();
            agree(&got[..n * n], &packed[i * n * n..(i + 1) * n * n], &format!("{what}: problem {i}'s vectors"));
        }
    }
}

/// The SVD over separate matrices gives what the strided batch gives over
/// the same matrices packed: singular values, thin U and Vᴴ.
fn svd_matches_strided<T: Elem>(m: usize, n: usize, count: usize) {
    let (shape, k) = (Shape::new(m, n), m.min(n));
    let make = |i: usize| -> Vec<T> { rhs(m * n, 300 + i as u64) };
    let (u_shape, v_shape) = (Shape::new(m, k), Shape::new(k, n));
    type Call<'c, T> =
        &'c mut dyn FnMut(&mut DeviceArray<<T as SolverScalar>::Real>, SingularVectors<'_, T>, SingularVectors<'_, T>);
    let run = |a: Call<'_, T>| {
        let mut sigma = DeviceArray::<T::Real>::zeros(k * count).unwrap();
        let mut u = DeviceArray::<T>::zeros(u_shape.len() * count).unwrap();
        let mut vt = DeviceArray::<T>::zeros(v_shape.len() * count).unwrap();
        a(&mut sigma, SingularVectors::Thin(u_shape, &mut u), SingularVectors::Thin(v_shape, &mut vt));
        let sigma: Vec<T> = sigma.to_vec().unwrap().into_iter().map(|x| T::from_c(x.into(), 0.0)).collect();
        (sigma, u.to_vec().unwrap(), vt.to_vec().unwrap())
    };
    let mut packed = DeviceArray::from_slice(&(0..count).flat_map(make).collect::<Vec<T>>()).unwrap();
    let want = run(&mut |sigma, left, right| {
        let batch = Batch::packed(count, &shape);
        let info = solver::gesvd_strided_batched(&shape, &batch, &mut packed, sigma, left, right).unwrap();
        info.check().unwrap();
    });
    let mut a = separate::<T>(count, m * n, make);
    let got = run(&mut |sigma, left, right| {
        let mut batch = MatrixBatch::new(&shape, &mut a).unwrap();
        let info = solver::gesvd_batched(&mut batch, sigma, left, right).unwrap();
        assert_eq!(info.values().unwrap(), vec![0; count]);
    });
    let what = format!("{} {m}x{n} ×{count}", T::NAME);
    agree(&got.0, &want.0, &format!("{what}: singular values"));
    agree(&got.1, &want.1, &format!("{what}: U"));
    agree(&got.2, &want.2, &format!("{what}: Vᴴ"));
}

#[test]
fn pointer_array_eigensolver_and_svd_batches_match_the_strided_ones() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    for (n, count) in [(5, 3), (1, 2), (9, 1)] {
        for vectors in [Vectors::Compute, Vectors::Skip] {
            eigen_matches_strided::<f32>(n, count, vectors);
            eigen_matches_strided::<f64>(n, count, vectors);
            eigen_matches_strided::<[f32; 2]>(n, count, vectors);
            eigen_matches_strided::<[f64; 2]>(n, count, vectors);
        }
    }
    for (m, n, count) in [(6, 4, 3), (4, 6, 2), (5, 5, 1)] {
        svd_matches_strided::<f32>(m, n, count);
        svd_matches_strided::<f64>(m, n, count);
        svd_matches_strided::<[f32; 2]>(m, n, count);
        svd_matches_strided::<[f64; 2]>(m, n, count);
    }
    assert_eq!(common::stream_races().len(), 0);
}

#[test]
fn pointer_array_batches_factor_and_solve_every_problem_in_every_precision() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    // One problem, and several: on nvidia one call per problem below the
    // batched calls' counts, one batched launch from them.
    for (n, count) in [(6, 1), (1, 3), (6, 5), (40, 4)] {
        lu_round_trip::<f32>(n, count);
        lu_round_trip::<f64>(n, count);
        lu_round_trip::<[f32; 2]>(n, count);
        lu_round_trip::<[f64; 2]>(n, count);
        for (triangle, nrhs) in [(Triangle::Lower, 1), (Triangle::Upper, 3)] {
            cholesky_round_trip::<f32>(n, count, nrhs, triangle);
            cholesky_round_trip::<f64>(n, count, nrhs, triangle);
            cholesky_round_trip::<[f32; 2]>(n, count, nrhs, triangle);
            cholesky_round_trip::<[f64; 2]>(n, count, nrhs, triangle);
        }
    }
    for (m, n, count) in [(7, 4, 3), (4, 7, 2)] {
        lu_matches_single_calls::<f32>(m, n, count);
        lu_matches_single_calls::<f64>(m, n, count);
        lu_matches_single_calls::<[f32; 2]>(m, n, count);
        lu_matches_single_calls::<[f64; 2]>(m, n, count);
    }
    for (m, n, count) in [(5, 3, 4), (3, 5, 2), (12, 12, 3)] {
        qr_matches_single_calls::<f32>(m, n, count);
        qr_matches_single_calls::<f64>(m, n, count);
        qr_matches_single_calls::<[f32; 2]>(m, n, count);
        qr_matches_single_calls::<[f64; 2]>(m, n, count);
    }
    assert_eq!(common::stream_races().len(), 0);
}

#[test]
fn each_problems_breakdown_is_reported_and_the_first_named() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    // Problem 1 is singular (U(2, 2) = 0 exactly), 2 has a zero first column.
    let problems = [[4.0f64, 1.0, 1.0, 3.0], [1.0, 2.0, 2.0, 4.0], [0.0, 0.0, 1.0, 2.0]];
    let mut a: Vec<DeviceArray<f64>> = problems.iter().map(|p| DeviceArray::from_slice(p).unwrap()).collect();
    let mut pivots = Pivots::batched(2, 3, a[0].stream()).unwrap();
    let info = solver::getrf_batched(&mut MatrixBatch::new(&Shape::square(2), &mut a).unwrap(), &mut pivots).unwrap();
    assert_eq!(info.values().unwrap(), vec![0, 2, 1]);
    let error = info.check().unwrap_err();
    assert!(
        matches!(
            error,
            LibError::BatchBreakdown {
                operation: "getrf_batched",
                problem: 1,
                failed: 2,
                count: 3,
                breakdown: Breakdown::ZeroPivot { column: 2 }
            }
        ),
        "{error:?}"
    );
    // Cholesky: problem 0 of 2 is indefinite (eigenvalues 3 and −1).
    let mut s: Vec<DeviceArray<f32>> =
        [[1.0f32, 2.0, 2.0, 1.0], [2.0, 1.0, 1.0, 2.0]].iter().map(|p| DeviceArray::from_slice(p).unwrap()).collect();
    let info =
        solver::potrf_batched(Triangle::Lower, &mut MatrixBatch::new(&Shape::square(2), &mut s).unwrap()).unwrap();
    assert_eq!(info.values().unwrap(), vec![2, 0]);
    let error = info.check().unwrap_err();
    let named = matches!(
        error,
        LibError::BatchBreakdown { problem: 0, failed: 1, breakdown: Breakdown::NotPositiveDefinite { order: 2 }, .. }
    );
    assert!(named, "{error:?}");
}

#[test]
fn bad_batches_are_refused_before_any_call() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    let invalid = |result: amdgpu::libs::Result<()>, says: &str| {
        let error = result.expect_err(says);
        assert!(matches!(error, LibError::InvalidInput { .. }) && error.to_string().contains(says), "{says}: {error}");
    };
    let shape = Shape::square(4);
    let mut none: Vec<DeviceArray<f64>> = Vec::new();
    invalid(MatrixBatch::new(&shape, &mut none).map(drop), "no matrices");
    let mut short = vec![DeviceArray::<f64>::zeros(16).unwrap(), DeviceArray::zeros(15).unwrap()];
    invalid(MatrixBatch::new(&shape, &mut short).map(drop), "matrix 1 holds 15 elements");
    invalid(MatrixBatch::new(&Shape::square(4).with_ld(3), &mut short).map(drop), "leading dimension");
    let mut a: Vec<DeviceArray<f64>> = (0..3).map(|i| DeviceArray::from_slice(&hpd::<f64>(4, i)).unwrap()).collect();
    let mut b: Vec<DeviceArray<f64>> = (0..3).map(|_| DeviceArray::zeros(4).unwrap()).collect();
    let mut two: Vec<DeviceArray<f64>> = (0..2).map(|_| DeviceArray::zeros(4).unwrap()).collect();
    let mut wide: Vec<DeviceArray<f64>> = (0..3).map(|_| DeviceArray::zeros(12).unwrap()).collect();
    let mut tau = DeviceArray::<f64>::zeros(11).unwrap();
    let mut factors = MatrixBatch::new(&shape, &mut a).unwrap();
    let mut few = Pivots::batched(4, 2, factors.stream()).unwrap();
    invalid(solver::getrf_batched(&mut factors, &mut few).map(drop), "hold 2 problems");
    invalid(solver::geqrf_batched(&mut factors, &mut tau), "tau holds 11");
    let mut pivots = Pivots::batched(4, 3, factors.stream()).unwrap();
    let mut rhs = MatrixBatch::new(&Shape::new(4, 1), &mut b).unwrap();
    invalid(solver::getrs_batched(Op::None, &factors, &pivots, &mut rhs), "not written by a getrf");
    solver::getrf_batched(&mut factors, &mut pivots).unwrap().check().unwrap();
    let mut two = MatrixBatch::new(&Shape::new(4, 1), &mut two).unwrap();
    invalid(solver::getrs_batched(Op::None, &factors, &pivots, &mut two), "A's batch holds 3 matrices and B's 2");
    invalid(solver::potrs_batched(Triangle::Lower, &factors, &mut two), "A's batch holds 3 matrices and B's 2");
    solver::getrs_batched(Op::None, &factors, &pivots, &mut rhs).expect("batches of one length solve");
    let mut wide = MatrixBatch::new(&Shape::new(3, 4), &mut wide).unwrap();
    invalid(solver::potrf_batched(Triangle::Lower, &mut wide).map(drop), "square");
    // A matrix on another device.
    match Device::new(1) {
        Ok(other) => {
            let stream = Stream::new_on(other).unwrap();
            let mut mixed = vec![DeviceArray::<f64>::zeros(16).unwrap(), DeviceArray::zeros_on(&stream, 16).unwrap()];
            let error = MatrixBatch::new(&shape, &mut mixed).unwrap_err();
            assert!(error.to_string().contains("device"), "{error}");
        }
        Err(_) => eprintln!("skipped: a batch across two devices, on a machine with one"),
    }
}

#[test]
fn matrices_of_other_streams_are_ordered_and_kept_until_the_call_is_done() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) || !common::on_sim() {
        return;
    }
    let (s1, s2) = (Stream::new().unwrap(), Stream::new().unwrap());
    let n = 8;
    // A first call makes this thread's handle and its workspace (which
    // may synchronize the device, ordering everything before it).
    let mut warm = vec![DeviceArray::from_slice_on(&s1, &hpd::<f64>(n, 0)).unwrap()];
    solver::potrf_batched(Triangle::Lower, &mut MatrixBatch::new(&Shape::square(n), &mut warm).unwrap())
        .unwrap()
        .check()
        .unwrap();
    // Problem 1's matrix is written on s2 just before the call on s1: the
    // call is ordered after the copy (the race detector sees the order,
    // not the timing; a GPU reading the zeros would see a matrix that is
    // not positive definite from its first column).
    let source = DeviceArray::from_slice_on(&s2, &hpd::<f64>(n, 2)).unwrap();
    let mut a =
        vec![DeviceArray::from_slice_on(&s1, &hpd::<f64>(n, 1)).unwrap(), DeviceArray::zeros_on(&s2, n * n).unwrap()];
    // On a third stream, which no memory of the call has been used on.
    let s3 = Stream::new().unwrap();
    a[1].copy_from_async(&source, &s3).unwrap();
    let info = {
        let mut batch = MatrixBatch::new(&Shape::square(n), &mut a).unwrap();
        solver::potrf_batched(Triangle::Lower, &mut batch).unwrap()
    };
    assert_eq!(info.values().unwrap(), vec![0, 0], "problem 1 factored after its copy");
    // Held, the call queued: dropping every matrix and making new ones on
    // s2 must not hand their memory out under the call (new memory that
    // reuses it waits for the call on the GPU; without the call's uses
    // recorded, s2 would write it under the call, a race).
    let mut again = vec![
        DeviceArray::from_slice_on(&s1, &hpd::<f64>(n, 3)).unwrap(),
        DeviceArray::from_slice_on(&s2, &hpd::<f64>(n, 4)).unwrap(),
    ];
    let mut batch = MatrixBatch::new(&Shape::square(n), &mut again).unwrap();
    let hold = sim::hold_stream(s1.as_raw()).unwrap();
    let info = solver::potrf_batched(Triangle::Lower, &mut batch).unwrap();
    drop(batch);
    drop(again);
    // The new arrays' fills wait for the held call: release it meanwhile.
    let released = common::release_later(hold);
    let fresh: Vec<DeviceArray<f64>> =
        (0..4).map(|i| DeviceArray::from_slice_on(&s2, &hpd::<f64>(n, 5 + i)).unwrap()).collect();
    released.join().unwrap();
    drop(fresh);
    info.check().unwrap();
    assert_eq!(common::stream_races().len(), 0, "{:?}", common::stream_races());
}

#[test]
fn a_captured_batch_replays_as_its_eager_call() {
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    common::on_thread("matrices-capture", || {
        let stream = Stream::new().unwrap();
        let n = 6;
        let hosts: Vec<Vec<f64>> = (0..3).map(|i| general(n, n, 20 + i)).collect();
        let mut a: Vec<DeviceArray<f64>> =
            hosts.iter().map(|h| DeviceArray::from_slice_on(&stream, h).unwrap()).collect();
        let mut pivots = Pivots::batched(n, 3, &stream).unwrap();
        // Eager first: the handle (and, on nvidia, its cuSOLVER handle) exist.
        solver::getrf_batched(&mut MatrixBatch::new(&Shape::square(n), &mut a).unwrap(), &mut pivots)
            .unwrap()
            .check()
            .unwrap();
        let eager: Vec<Vec<f64>> = a.iter().map(|a| a.to_vec().unwrap()).collect();
        for (a, h) in a.iter_mut().zip(&hosts) {
            a.copy_from_slice(h).unwrap();
        }
        let (graph, info) = {
            let mut batch = MatrixBatch::new(&Shape::square(n), &mut a).unwrap();
            stream.capture(CaptureMode::ThreadLocal, |_| solver::getrf_batched(&mut batch, &mut pivots)).unwrap()
        };
        // The batch is gone; the graph keeps its address array.
        let exec = graph.instantiate().unwrap();
        for replay in 0..2 {
            for (a, h) in a.iter_mut().zip(&hosts) {
                a.copy_from_slice(h).unwrap();
            }
            exec.launch(&stream).unwrap();
            let replayed: Vec<Vec<f64>> = a.iter().map(|a| a.to_vec().unwrap()).collect();
            assert_eq!(replayed, eager, "replay {replay} factors as the eager call did");
            assert_eq!(info.values().unwrap(), vec![0; 3]);
        }
        // A wide LU has no NVIDIA batched call: on nvidia its array would be
        // read back, so it is refused inside a capture before any call.
        let mut wide: Vec<DeviceArray<f64>> =
            (0..2).map(|i| DeviceArray::from_slice_on(&stream, &rhs::<f64>(12, i)).unwrap()).collect();
        let mut wide_pivots = Pivots::batched(3, 2, &stream).unwrap();
        let mut batch = MatrixBatch::new(&Shape::new(3, 4), &mut wide).unwrap();
        let captured =
            stream.capture(CaptureMode::ThreadLocal, |_| solver::getrf_batched(&mut batch, &mut wide_pivots));
        if amdgpu::backend() == amdgpu::Backend::Nvidia {
            let error = captured.expect_err("a wide LU's array would be read back");
            assert!(error.to_string().contains("cannot be captured"), "{error}");
        } else {
            let (graph, info) = captured.unwrap();
            graph.instantiate().unwrap().launch(&stream).unwrap();
            assert_eq!(info.values().unwrap(), vec![0, 0]);
        }
    });
    assert_eq!(common::stream_races().len(), 0);
}
