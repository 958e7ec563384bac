//! rocBLAS through hip-libs against a CPU reference written here (naive
//! loops in f64). Tolerances: f32 results within 1e-5 × k relative to the
//! magnitude of the terms, f64 within 1e-12 × k; f16/bf16 GEMMs use small
//! integers, whose products and sums are exact in every type involved.
//! Where the backend lacks rocBLAS the tests say so and pass.

use amdgpu::blas::{self, Batch, Gemm, Math, Op};
use amdgpu::half::{bf16, f16};
use amdgpu::libs::{LibError, Library};
use amdgpu::prelude::*;
use hip_sys::{sim, Backend};
use std::time::Duration;

mod common;
use common::{have, noise, on_thread};

/// Complex numbers as `[re, im]` in f64, for the reference.
type C = [f64; 2];
fn cmul(a: C, b: C) -> C {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}
fn cadd(a: C, b: C) -> C {
    [a[0] + b[0], a[1] + b[1]]
}
fn conj(a: C) -> C {
    [a[0], -a[1]]
}

/// op(X)(i, j) of a column-major X with leading dimension ld.
fn at(x: &[C], ld: usize, op: Op, i: usize, j: usize) -> C {
    match op {
        Op::None => x[i + j * ld],
        Op::Transpose => x[j + i * ld],
        Op::ConjTranspose => conj(x[j + i * ld]),
    }
}

/// The reference GEMM on complex f64 (real data has zero imaginary parts).
fn reference(shape: &Gemm, ops: (Op, Op), alpha: C, a: &[C], b: &[C], beta: C, c: &[C]) -> Vec<C> {
    let mut out = c.to_vec();
    for j in 0..shape.n {
        for i in 0..shape.m {
            let mut sum = [0.0, 0.0];
            for l in 0..shape.k {
                sum = cadd(sum, cmul(at(a, shape.lda(), ops.0, i, l), at(b, shape.ldb(), ops.1, l, j)));
            }
            let old = c[i + j * shape.ldc()];
            out[i + j * shape.ldc()] = cadd(cmul(alpha, sum), cmul(beta, old));
        }
    }
    out
}

fn real(v: &[f64]) -> Vec<C> {
    v.iter().map(|x| [*x, 0.0]).collect()
}

fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance * (1.0 + want.abs())
}

const OPS: [Op; 3] = [Op::None, Op::Transpose, Op::ConjTranspose];

#[test]
fn real_gemm_matches_the_reference_for_every_transpose_and_padded_leading_dimensions() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let (m, n, k) = (7, 5, 9);
    for op_a in OPS {
        for op_b in OPS {
            let base = Gemm::new(m, n, k).op_a(op_a).op_b(op_b);
            let shape = base.leading_dims(base.lda() + 3, base.ldb() + 1, m + 2);
            let [la, lb, lc] = shape.lens();
            let (a, b, c) = (noise(la, 1), noise(lb, 2), noise(lc, 3));
            let (alpha, beta) = (1.25, -0.5);
            let want = reference(&shape, (op_a, op_b), [alpha, 0.0], &real(&a), &real(&b), [beta, 0.0], &real(&c));

            let da = DeviceArray::from_slice(&a).unwrap();
            let db = DeviceArray::from_slice(&b).unwrap();
            let mut dc = DeviceArray::from_slice(&c).unwrap();
            blas::gemm(&shape, alpha, &da, &db, beta, &mut dc).unwrap();
            for (idx, (got, want)) in dc.to_vec().unwrap().iter().zip(&want).enumerate() {
                assert!(close(*got, want[0], 1e-12 * k as f64), "f64 {op_a:?}{op_b:?} [{idx}]: {got} vs {want:?}");
            }

            let f = |v: &[f64]| v.iter().map(|x| *x as f32).collect::<Vec<f32>>();
            let da = DeviceArray::from_slice(&f(&a)).unwrap();
            let db = DeviceArray::from_slice(&f(&b)).unwrap();
            let mut dc = DeviceArray::from_slice(&f(&c)).unwrap();
            blas::gemm(&shape, alpha as f32, &da, &db, beta as f32, &mut dc).unwrap();
            for (idx, (got, want)) in dc.to_vec().unwrap().iter().zip(&want).enumerate() {
                assert!(
                    close(*got as f64, want[0], 1e-5 * k as f64),
                    "f32 {op_a:?}{op_b:?} [{idx}]: {got} vs {want:?}"
                );
            }
        }
    }
}

#[test]
fn complex_gemm_conjugates_only_for_the_conjugate_transpose() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let (m, n, k) = (4, 3, 6);
    for op_a in OPS {
        for op_b in OPS {
            let shape = Gemm::new(m, n, k).op_a(op_a).op_b(op_b);
            let [la, lb, lc] = shape.lens();
            let pairs = |len: usize, seed: u64| -> Vec<C> {
                let v = noise(2 * len, seed);
                v.chunks(2).map(|p| [p[0], p[1]]).collect()
            };
            let (a, b, c) = (pairs(la, 4), pairs(lb, 5), pairs(lc, 6));
            let (alpha, beta) = ([0.5, -1.0], [0.25, 0.75]);
            let want = reference(&shape, (op_a, op_b), alpha, &a, &b, beta, &c);
            let da = DeviceArray::from_slice(&a).unwrap();
            let db = DeviceArray::from_slice(&b).unwrap();
            let mut dc = DeviceArray::from_slice(&c).unwrap();
            blas::gemm(&shape, alpha, &da, &db, beta, &mut dc).unwrap();
            for (got, want) in dc.to_vec().unwrap().iter().zip(&want) {
                for part in 0..2 {
                    assert!(close(got[part], want[part], 1e-12 * k as f64), "{op_a:?}{op_b:?}: {got:?} vs {want:?}");
                }
            }
            let f = |v: &[C]| v.iter().map(|x| [x[0] as f32, x[1] as f32]).collect::<Vec<[f32; 2]>>();
            let da = DeviceArray::from_slice(&f(&a)).unwrap();
            let db = DeviceArray::from_slice(&f(&b)).unwrap();
            let mut dc = DeviceArray::from_slice(&f(&c)).unwrap();
            let alpha32 = [alpha[0] as f32, alpha[1] as f32];
            let beta32 = [beta[0] as f32, beta[1] as f32];
            blas::gemm(&shape, alpha32, &da, &db, beta32, &mut dc).unwrap();
            for (got, want) in dc.to_vec().unwrap().iter().zip(&want) {
                for part in 0..2 {
                    assert!(close(got[part] as f64, want[part], 1e-5 * k as f64), "{got:?} vs {want:?}");
                }
            }
        }
    }
}

/// Small integers: exact in f16, bf16 and their f32 sums.
fn ints(n: usize, seed: u64) -> Vec<f64> {
    noise(n, seed).iter().map(|x| (x * 4.0).round()).collect()
}

#[test]
fn half_and_bfloat16_gemms_compute_in_f32_exactly_on_small_integers() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let (m, n, k) = (16, 8, 12);
    let shape = Gemm::new(m, n, k).op_b(Op::Transpose);
    let [la, lb, lc] = shape.lens();
    let (a, b, c) = (ints(la, 7), ints(lb, 8), ints(lc, 9));
    let want = reference(&shape, (Op::None, Op::Transpose), [2.0, 0.0], &real(&a), &real(&b), [1.0, 0.0], &real(&c));
    let want: Vec<f64> = want.iter().map(|w| w[0]).collect();
    assert!(want.iter().all(|w| w.abs() < 256.0), "exact in bf16's 8 bits");

    let h = |v: &[f64]| v.iter().map(|x| f16::from_f64(*x)).collect::<Vec<f16>>();
    let (da, db) = (DeviceArray::from_slice(&h(&a)).unwrap(), DeviceArray::from_slice(&h(&b)).unwrap());
    let mut dc = DeviceArray::from_slice(&h(&c)).unwrap();
    match blas::gemm(&shape, 2.0, &da, &db, 1.0, &mut dc) {
        Ok(()) => assert_eq!(dc.to_vec().unwrap().iter().map(|x| x.to_f64()).collect::<Vec<_>>(), want),
        Err(e) => panic!("f16 GEMM: {e}"),
    }

    let bh = |v: &[f64]| v.iter().map(|x| bf16::from_f64(*x)).collect::<Vec<bf16>>();
    let (da, db) = (DeviceArray::from_slice(&bh(&a)).unwrap(), DeviceArray::from_slice(&bh(&b)).unwrap());
    let mut dc = DeviceArray::from_slice(&bh(&c)).unwrap();
    blas::gemm(&shape, 2.0, &da, &db, 1.0, &mut dc).unwrap();
    assert_eq!(dc.to_vec().unwrap().iter().map(|x| x.to_f64()).collect::<Vec<_>>(), want);
}

#[test]
fn tf32_rounds_the_inputs_or_says_it_cannot() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    // 1 + 2⁻¹² needs 12 mantissa bits: TF32 keeps 10, so it becomes 1.
    let (m, n, k) = (64, 64, 64);
    let a = vec![1.0f32 + 1.0 / 4096.0; m * k];
    let b = vec![1.0f32; k * n];
    let (da, db) = (DeviceArray::from_slice(&a).unwrap(), DeviceArray::from_slice(&b).unwrap());
    let mut full = DeviceArray::<f32>::zeros(m * n).unwrap();
    blas::gemm(&Gemm::new(m, n, k), 1.0, &da, &db, 0.0, &mut full).unwrap();
    let exact = k as f32 * (1.0 + 1.0 / 4096.0);
    assert!(full.to_vec().unwrap().iter().all(|v| *v == exact), "full f32 keeps the low bits");

    let mut tf32 = DeviceArray::<f32>::zeros(m * n).unwrap();
    match blas::gemm(&Gemm::new(m, n, k).math(Math::Tf32), 1.0, &da, &db, 0.0, &mut tf32) {
        Ok(()) => {
            let got = tf32.to_vec().unwrap();
            match amdgpu::backend() {
                // The simulator always rounds: the low bits are gone.
                Backend::Sim => assert!(got.iter().all(|v| *v == k as f32), "{:?}", &got[..4]),
                // cuBLAS may pick a full-precision kernel for a shape; either
                // answer is within TF32's error.
                _ => assert!(got.iter().all(|v| (v - exact).abs() <= exact * 1e-3), "{:?}", &got[..4]),
            }
        }
        Err(LibError::Unsupported { problem, .. }) => {
            assert_ne!(amdgpu::backend(), Backend::Sim, "the simulator has XF32");
            assert!(problem.contains("Math::Default"), "{problem}");
        }
        Err(e) => panic!("{e}"),
    }
    // The handle went back to full precision.
    blas::gemm(&Gemm::new(m, n, k), 1.0, &da, &db, 0.0, &mut full).unwrap();
    assert!(full.to_vec().unwrap().iter().all(|v| *v == exact), "full f32 after a TF32 call");
    let f64s = DeviceArray::<f64>::zeros(4).unwrap();
    let mut out = DeviceArray::<f64>::zeros(4).unwrap();
    let err = blas::gemm(&Gemm::new(2, 2, 2).math(Math::Tf32), 1.0, &f64s, &f64s, 0.0, &mut out).unwrap_err();
    assert!(err.to_string().contains("TF32 math applies to f32 GEMMs; this one is f64"), "{err}");
}

#[test]
fn strided_batches_reuse_a_broadcast_operand() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let (m, n, k, count) = (5, 4, 3, 3);
    let shape = Gemm::new(m, n, k);
    let [la, lb, lc] = shape.lens();
    let a = noise(la, 10); // one A for every batch (stride 0)
    let b = noise(lb * count, 11);
    let c = noise(lc * count, 12);
    let batch = Batch { stride_a: 0, ..Batch::packed(count, &shape) };
    let da = DeviceArray::from_slice(&a).unwrap();
    let db = DeviceArray::from_slice(&b).unwrap();
    let mut dc = DeviceArray::from_slice(&c).unwrap();
    blas::gemm_strided_batched(&shape, &batch, 1.0, &da, &db, 2.0, &mut dc).unwrap();
    let got = dc.to_vec().unwrap();
    for i in 0..count {
        let want = reference(
            &shape,
            (Op::None, Op::None),
            [1.0, 0.0],
            &real(&a),
            &real(&b[i * lb..(i + 1) * lb]),
            [2.0, 0.0],
            &real(&c[i * lc..(i + 1) * lc]),
        );
        for (g, w) in got[i * lc..(i + 1) * lc].iter().zip(&want) {
            assert!(close(*g, w[0], 1e-12 * k as f64), "batch {i}: {g} vs {w:?}");
        }
    }
    // bf16 batches through the `_ex` call.
    let bh = |v: &[f64]| v.iter().map(|x| bf16::from_f64((x * 4.0).round())).collect::<Vec<bf16>>();
    let (ha, hb, hc) = (bh(&a), bh(&b), bh(&c));
    let (da, db) = (DeviceArray::from_slice(&ha).unwrap(), DeviceArray::from_slice(&hb).unwrap());
    let mut dc = DeviceArray::from_slice(&hc).unwrap();
    blas::gemm_strided_batched(&shape, &batch, 1.0, &da, &db, 1.0, &mut dc).unwrap();
    let got = dc.to_vec().unwrap();
    let back = |v: &[bf16]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    for i in 0..count {
        let want = reference(
            &shape,
            (Op::None, Op::None),
            [1.0, 0.0],
            &real(&back(&ha)),
            &real(&back(&hb[i * lb..(i + 1) * lb])),
            [1.0, 0.0],
            &real(&back(&hc[i * lc..(i + 1) * lc])),
        );
        for (g, w) in got[i * lc..(i + 1) * lc].iter().zip(&want) {
            assert_eq!(g.to_f64(), w[0], "bf16 batch {i}");
        }
    }
}

#[test]
fn gemv_and_level_1_match_the_reference() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let (m, n, lda) = (6, 4, 8);
    let a = noise(lda * (n - 1) + m, 20);
    for op in [Op::None, Op::Transpose] {
        let (xl, yl) = if op == Op::None { (n, m) } else { (m, n) };
        let (x, y) = (noise(xl, 21), noise(yl, 22));
        let want: Vec<f64> = (0..yl)
            .map(|i| {
                let s: f64 = (0..xl).map(|j| if op == Op::None { a[i + j * lda] } else { a[j + i * lda] } * x[j]).sum();
                2.0 * s - y[i]
            })
            .collect();
        let (da, dx) = (DeviceArray::from_slice(&a).unwrap(), DeviceArray::from_slice(&x).unwrap());
        let mut dy = DeviceArray::from_slice(&y).unwrap();
        blas::gemv(op, m, n, 2.0, &da, lda, &dx, -1.0, &mut dy).unwrap();
        for (g, w) in dy.to_vec().unwrap().iter().zip(&want) {
            assert!(close(*g, *w, 1e-12), "{op:?}: {g} vs {w}");
        }
    }

    let (x, y) = (noise(1000, 23), noise(1000, 24));
    let (dx, mut dy) = (DeviceArray::from_slice(&x).unwrap(), DeviceArray::from_slice(&y).unwrap());
    let dot: f64 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
    assert!(close(blas::dot(&dx, &dy).unwrap(), dot, 1e-12));
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!(close(blas::nrm2(&dx).unwrap(), norm, 1e-12));
    blas::axpy(0.5, &dx, &mut dy).unwrap();
    for ((g, a), b) in dy.to_vec().unwrap().iter().zip(&x).zip(&y) {
        assert!(close(*g, 0.5 * a + b, 1e-14));
    }
    let mut dx2 = DeviceArray::from_slice(&x).unwrap();
    blas::scal(-3.0, &mut dx2).unwrap();
    assert!(dx2.to_vec().unwrap().iter().zip(&x).all(|(g, a)| *g == -3.0 * a));

    // Complex: dotu against dotc, and the norm of a complex vector.
    let cx: Vec<[f32; 2]> = vec![[1.0, 2.0], [3.0, -1.0]];
    let cy: Vec<[f32; 2]> = vec![[0.5, 1.0], [2.0, 2.0]];
    let (dcx, dcy) = (DeviceArray::from_slice(&cx).unwrap(), DeviceArray::from_slice(&cy).unwrap());
    // (1+2i)(0.5+i) + (3-i)(2+2i) = (-1.5+2i) + (8+4i)
    assert_eq!(blas::dot(&dcx, &dcy).unwrap(), [6.5, 6.0]);
    // (1-2i)(0.5+i) + (3+i)(2+2i) = (2.5+0i) + (4+8i)
    assert_eq!(blas::dotc(&dcx, &dcy).unwrap(), [6.5, 8.0]);
    assert!((blas::nrm2(&dcx).unwrap() - 15f32.sqrt()).abs() < 1e-6);
    // Empty vectors need no library call and give zero.
    let empty = DeviceArray::<f32>::zeros(0).unwrap();
    assert_eq!(blas::dot(&empty, &empty).unwrap(), 0.0);
    assert_eq!(blas::nrm2(&empty).unwrap(), 0.0);
}

#[test]
fn bad_shapes_and_lengths_are_refused_before_rocblas_with_the_values() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let four = DeviceArray::<f32>::zeros(4).unwrap();
    let mut out = DeviceArray::<f32>::zeros(4).unwrap();
    let message = |r: Result<(), LibError>| r.unwrap_err().to_string();
    let e = message(blas::gemm(&Gemm::new(2, 2, 2).leading_dims(1, 2, 2), 1.0, &four, &four, 0.0, &mut out));
    assert!(e.contains("lda = 1 is less than the 2 stored rows"), "{e}");
    let e = message(blas::gemm(&Gemm::new(2, 2, 3), 1.0, &four, &four, 0.0, &mut out));
    assert!(e.contains("A holds 4 elements; this 2×2×3 GEMM needs 6"), "{e}");
    let e = message(blas::gemm(&Gemm::new(2, 3, 2), 1.0, &four, &four, 0.0, &mut out));
    assert!(e.contains("B holds 4 elements"), "{e}");
    let e = message(blas::gemm(&Gemm::new(3_000_000_000, 1, 1), 1.0, &four, &four, 0.0, &mut out));
    assert!(e.contains("m = 3000000000 exceeds rocBLAS's 32-bit sizes"), "{e}");
    let shape = Gemm::new(2, 2, 2);
    let overlap = Batch { stride_c: 2, ..Batch::packed(2, &shape) };
    let e = message(blas::gemm_strided_batched(&shape, &overlap, 1.0, &four, &four, 0.0, &mut out));
    assert!(e.contains("stride_c = 2 is less than one C's 4 elements"), "{e}");
    let three = DeviceArray::<f32>::zeros(3).unwrap();
    let e = message(blas::axpy(1.0, &three, &mut out));
    assert!(e.contains("x has 3 elements and y 4"), "{e}");
    let e = blas::dot(&three, &four).unwrap_err().to_string();
    assert!(e.contains("x has 3 elements and y 4"), "{e}");
    let e = message(blas::gemv(Op::None, 2, 2, 1.0, &four, 2, &three, 0.0, &mut out));
    assert!(e.contains("needs x of 2 and y of 2 elements; got 3 and 4"), "{e}");
    let e = message(blas::gemv(Op::None, 4, 1, 1.0, &four, 3, &four, 0.0, &mut out));
    assert!(e.contains("lda = 3 is less than m = 4"), "{e}");
    // Nothing reached the library: the output is untouched and no handle was needed.
    assert_eq!(out.to_vec().unwrap(), [0.0; 4]);
}

#[test]
fn operands_on_another_device_are_refused_naming_them() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) || Device::count().unwrap() < 2 {
        eprintln!("skipped: needs two devices");
        return;
    }
    let (d0, d1) = (Device::new(0).unwrap(), Device::new(1).unwrap());
    let a = with_device(d1, || DeviceArray::<f32>::zeros(4)).unwrap();
    let b = with_device(d0, || DeviceArray::<f32>::zeros(4)).unwrap();
    let mut c = with_device(d0, || DeviceArray::<f32>::zeros(4)).unwrap();
    let err = blas::gemm(&Gemm::new(2, 2, 2), 1.0, &a, &b, 0.0, &mut c).unwrap_err();
    assert_eq!(common::mismatch(err.device_mismatch()), Some(("A", 0, 1)), "{err}");
    let err = blas::dot(&b, &a).unwrap_err();
    assert_eq!(common::mismatch(err.device_mismatch()), Some(("y", 0, 1)), "{err}");
}

#[test]
fn handles_serve_threads_on_both_devices_and_return_to_their_own_device() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) {
        return;
    }
    let devices = Device::all().unwrap();
    blas::clear_idle_handles();
    let before = blas::handle_stats();
    let mut joins = Vec::new();
    for t in 0..4 {
        let device = devices[t % devices.len()];
        let devices = devices.clone();
        joins.push(std::thread::spawn(move || {
            with_device(device, || {
                let a = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
                let mut c = DeviceArray::<f32>::zeros(4).unwrap();
                for _ in 0..3 {
                    blas::gemm(&Gemm::new(2, 2, 2), 1.0, &a, &a, 0.0, &mut c).unwrap();
                }
                // [[1,3],[2,4]]² = [[7,15],[10,22]]
                assert_eq!(c.to_vec().unwrap(), [7.0, 10.0, 15.0, 22.0]);
            });
            // A handle stays with its device: the other device gets its own.
            let other = devices[(t + 1) % devices.len()];
            with_device(other, || {
                let x = DeviceArray::from_slice(&[3.0f32, 4.0]).unwrap();
                assert_eq!(blas::nrm2(&x).unwrap(), 5.0);
            });
        }));
    }
    for j in joins {
        j.join().expect("worker");
    }
    let after = blas::handle_stats();
    let made = after.created - before.created;
    // At most one per (thread, device); fewer where a thread that exited
    // first handed its handle on.
    let pairs = 4 * devices.len().min(2);
    assert!((devices.len().min(2)..=pairs).contains(&made), "{made} handles for {pairs} (thread, device) pairs");
    // Every exiting thread's handles went to the idle lists (an earlier
    // test's thread may have added its own since the clear above).
    let idle: usize = after.idle.iter().map(|(_, n)| n).sum();
    assert!(idle >= made, "{made} handles made, {idle} idle: {after:?}");
    assert!(idle <= after.created - after.destroyed, "{after:?}");
    if amdgpu::backend() == Backend::Sim {
        assert!(sim::violations().is_empty(), "no call under a wrong device: {:?}", sim::violations());
    }
    // A handle made on device 1 serves a thread on device 1 again.
    if devices.len() > 1 {
        let devices = devices.clone();
        let reused = on_thread("reuse", move || {
            let before = blas::handle_stats().created;
            with_device(devices[1], || {
                let x = DeviceArray::from_slice(&[6.0f32, 8.0]).unwrap();
                assert_eq!(blas::nrm2(&x).unwrap(), 10.0);
            });
            blas::handle_stats().created - before
        });
        assert_eq!(reused, 0, "the idle handle of device 1 was reused");
    }
    blas::clear_idle_handles();
    let cleared = blas::handle_stats();
    assert!(cleared.idle.iter().all(|(_, n)| *n == 0), "{cleared:?}");
}

#[test]
fn a_handle_moving_between_streams_orders_its_workspace_on_the_gpu() {
    let _x = sim::exclusive();
    if !have(Library::Rocblas) || amdgpu::backend() != Backend::Sim {
        eprintln!("skipped: holds a stream still, which only the simulator can do");
        return;
    }
    let (s1, s2) = (Stream::new().unwrap(), Stream::new().unwrap());
    // Every operand on its own GEMM's stream: only the handle links the two.
    let a1 = DeviceArray::from_slice_on(&s1, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let a2 = DeviceArray::from_slice_on(&s2, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let mut c1 = DeviceArray::<f32>::zeros_on(&s1, 4).unwrap();
    let mut c2 = DeviceArray::<f32>::zeros_on(&s2, 4).unwrap();
    s1.synchronize().unwrap();
    s2.synchronize().unwrap();
    let hold = sim::hold_stream(s1.as_raw()).expect("hold s1");
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        drop(hold);
    });
    // Queued behind the hold on s1, with this thread's handle and its workspace.
    blas::gemm(&Gemm::new(2, 2, 2), 1.0, &a1, &a1, 0.0, &mut c1).unwrap();
    // The same handle on s2: its workspace must wait for the GEMM on s1.
    blas::gemm(&Gemm::new(2, 2, 2), 2.0, &a2, &a2, 0.0, &mut c2).unwrap();
    release.join().unwrap();
    assert_eq!(c1.to_vec().unwrap(), [7.0, 10.0, 15.0, 22.0]);
    assert_eq!(c2.to_vec().unwrap(), [14.0, 20.0, 30.0, 44.0]);
    let races: Vec<_> = sim::violations().into_iter().filter(|v| v.kind == sim::ViolationKind::StreamRace).collect();
    assert!(races.is_empty(), "the workspace was shared by two unordered streams: {races:?}");
}

#[test]
fn a_warm_call_asks_hip_nothing_about_devices() {
    // The thread's device is HIP's, so a warm library call neither asks
    // HIP for its device nor binds one (run_on, not on_device).
    let _x = sim::exclusive();
    if !have(Library::Rocblas) || hip_sys::backend() != Backend::Sim {
        return;
    }
    on_thread("blas-warm", || {
        let x = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0]).unwrap();
        let mut y = DeviceArray::from_slice(&[1.0f32, 1.0, 1.0]).unwrap();
        blas::axpy(2.0, &x, &mut y).unwrap(); // warm: the handle exists
        let asked = || sim::thread_call_count("hipGetDevice") + sim::thread_call_count("hipSetDevice");
        let before = asked();
        blas::axpy(2.0, &x, &mut y).unwrap();
        let stream = stream();
        blas::with_raw_handle(stream.device(), &stream, |_| ()).unwrap();
        assert_eq!(asked(), before, "a warm rocBLAS call asked HIP for or set its device");
        assert_eq!(y.to_vec().unwrap(), vec![5.0, 9.0, 13.0]);
    });
}
