//! A property test of stream-ordered memory against a model: two threads
//! run random operations (uploads, SpMV products, kernel fills, copies,
//! stream changes, drops, reads) on arrays spread over three streams. The
//! simulator runs each stream on its own worker thread, so an order the
//! runtime forgets shows as a value that differs from the model. Every
//! array holds one value in all its elements (the matrix is the identity
//! and scales are powers of two, so every result is exact).

use amdgpu::libs::{sparse, Library};
use amdgpu::prelude::*;
use amdgpu::Function;
use hip_core::LaunchConfig;
use hip_sys::sim;
use proptest::prelude::*;
use std::sync::Arc;

mod common;

const N: usize = 8192;
const STREAMS: usize = 3;

#[derive(Debug, Clone)]
enum Op {
    New { stream: usize, value: u8 },
    Spmv { x: usize, y: usize, double: bool },
    Fill { a: usize, stream: usize, value: u8 },
    Copy { dst: usize, src: usize },
    SetStream { a: usize, stream: usize },
    Drop { a: usize },
    Check { a: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..STREAMS, 0u8..8).prop_map(|(stream, value)| Op::New { stream, value }),
        5 => (any::<usize>(), any::<usize>(), any::<bool>()).prop_map(|(x, y, double)| Op::Spmv { x, y, double }),
        3 => (any::<usize>(), 0..STREAMS, 0u8..8).prop_map(|(a, stream, value)| Op::Fill { a, stream, value }),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(dst, src)| Op::Copy { dst, src }),
        2 => (any::<usize>(), 0..STREAMS).prop_map(|(a, stream)| Op::SetStream { a, stream }),
        3 => any::<usize>().prop_map(|a| Op::Drop { a }),
        2 => any::<usize>().prop_map(|a| Op::Check { a }),
    ]
}

struct Shared {
    streams: Vec<Stream>,
    matrix: sparse::CsrMatrix<f32>,
    fill: Function,
}

fn check(array: &DeviceArray<f32>, want: f32, what: &str) {
    let got = array.to_vec().unwrap();
    let wrong = got.iter().filter(|v| **v != want).count();
    assert_eq!(wrong, 0, "{what}: {wrong} of {N} elements differ from {want} (first {})", got[0]);
}

/// One worker: runs `ops`, checking reads against the model.
fn run(shared: &Shared, ops: Vec<Op>) {
    let mut arrays: Vec<(DeviceArray<f32>, f32)> = Vec::new();
    for op in ops {
        let len = arrays.len();
        match op {
            Op::New { stream, value } => {
                let v = f32::from(value);
                arrays.push((DeviceArray::from_slice_on(&shared.streams[stream], &[v; N]).unwrap(), v));
            }
            Op::Spmv { x, y, double } if len >= 2 && x % len != y % len => {
                let (x, y) = (x % len, y % len);
                let alpha = if double { 2.0 } else { 1.0 };
                // Split borrows: x is read, y written.
                let (xs, ys) = if x < y {
                    let (l, r) = arrays.split_at_mut(y);
                    (&l[x], &mut r[0])
                } else {
                    let (l, r) = arrays.split_at_mut(x);
                    (&r[0], &mut l[y])
                };
                sparse::spmv(alpha, &shared.matrix, &xs.0, 0.0, &mut ys.0).unwrap();
                ys.1 = alpha * xs.1;
            }
            Op::Fill { a, stream, value } if len > 0 => {
                let (array, model) = &mut arrays[a % len];
                let (v, s) = (f32::from(value), &shared.streams[stream]);
                let buffer = array.buffer();
                buffer.prepare_write(s).unwrap();
                let (ptr, n) = (buffer.as_ptr(), N as u32);
                // SAFETY: fill_f32(float*, float, uint32_t) over the array's N floats.
                unsafe { shared.fill.launch(LaunchConfig::for_elements(N, 256), s, &[&ptr, &v, &n]) }.unwrap();
                buffer.record_write(s).unwrap();
                *model = v;
            }
            Op::Copy { dst, src } if len >= 2 && dst % len != src % len => {
                let (d, s) = (dst % len, src % len);
                let value = arrays[s].1;
                let (l, r) = arrays.split_at_mut(d.max(s));
                let (dst, src) = if d < s { (&mut l[d], &r[0]) } else { (&mut r[0], &l[s]) };
                dst.0.copy_from(&src.0).unwrap();
                dst.1 = value;
            }
            Op::SetStream { a, stream } if len > 0 => {
                arrays[a % len].0.set_stream(&shared.streams[stream]).unwrap();
            }
            Op::Drop { a } if len > 0 => drop(arrays.swap_remove(a % len)),
            Op::Check { a } if len > 0 => {
                let (array, model) = &arrays[a % len];
                check(array, *model, "a read");
            }
            _ => {}
        }
    }
    for (array, model) in &arrays {
        check(array, *model, "at the end");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn stream_ordered_memory_matches_its_model(ops in prop::collection::vec(prop::collection::vec(op(), 1..40), 2)) {
        let _x = sim::exclusive();
        if !amdgpu::libs::available(Library::Rocsparse) {
            eprintln!("skipped: rocSPARSE is not available on the {} backend", amdgpu::backend());
            return Ok(());
        }
        let Some(module) = common::test_module(device()) else { return Ok(()) };
        sim::clear_violations();
        let streams: Vec<Stream> = (0..STREAMS).map(|_| Stream::new().unwrap()).collect();
        let row_ptr: Vec<i32> = (0..=N as i32).collect();
        let col_ind: Vec<i32> = (0..N as i32).collect();
        let matrix = sparse::CsrMatrix::from_host(&streams[0], N, N, &row_ptr, &col_ind, &[1.0f32; N]).unwrap();
        let shared = Arc::new(Shared { streams, matrix, fill: module.function("fill_f32").unwrap() });
        let workers: Vec<_> = ops
            .into_iter()
            .map(|ops| {
                let shared = shared.clone();
                std::thread::spawn(move || run(&shared, ops))
            })
            .collect();
        for w in workers {
            w.join().expect("a worker found a value that differs from the model");
        }
        let violations = sim::violations();
        prop_assert!(violations.is_empty(), "context violations: {:?}", violations);
    }
}
