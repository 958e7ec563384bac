//! MRG32k3a (L'Ecuyer, "Good parameters and implementations for combined
//! multiple recursive random number generators", 1999), as rocRAND's
//! `rocrand_mrg32k3a.h` seeds and steps it, laid out as rocRAND 2.10's
//! host generator does (see `engines`; subsequences are 2^76 draws
//! apart).
//!
//! The seeding's modular products are rocRAND's own partial reductions
//! (one fold for `m1`, two for `m2`, wrapping 64-bit products), copied as
//! they compute, not true modular arithmetic: they decide the state. The
//! skips are true modular matrix powers.

use super::engines::EngineState;
use std::sync::OnceLock;

const M1: u64 = 4_294_967_087;
const M2: u64 = 4_294_944_443;
const M1C: u64 = 209;
const M2C: u64 = 22_853;
const A12: u64 = 1_403_580;
const A13N: u64 = 810_728;
const A21: u64 = 527_612;
const A23N: u64 = 1_370_589;
/// rocRAND's `ROCRAND_MRG32K3A_DEFAULT_SEED`, used for seed 0.
const DEFAULT_SEED: u64 = 12_345;
/// log2 of the draws between subsequences.
const SUBSEQUENCE_LOG2: usize = 76;
/// `ROCRAND_MRG32K3A_UINT_NORM` and `_NORM_DOUBLE`, as rocRAND writes them.
const UINT_NORM: f64 = 1.000_000_048_661_607;
#[allow(clippy::excessive_precision)] // rocRAND's literal, digit for digit
const NORM_DOUBLE: f64 = 2.328_306_549_837_828_8e-10;

fn fold(p: u64, c: u64) -> u64 {
    c.wrapping_mul(p >> 32).wrapping_add(p & 0xffff_ffff)
}

fn mod_m1(p: u64) -> u64 {
    let p = fold(p, M1C);
    if p >= M1 {
        p - M1
    } else {
        p
    }
}

fn mod_m2(p: u64) -> u64 {
    let p = fold(fold(p, M2C), M2C);
    if p >= M2 {
        p - M2
    } else {
        p
    }
}

/// rocRAND's `mod_mul_m*(i, j)`, with its wrapping and its one reduction.
fn mod_mul(i: u32, j: u64, reduce: fn(u64) -> u64, m: u64) -> u32 {
    let hi = u64::from(i / 131_072);
    let lo = u64::from(i) - hi * 131_072;
    let t1 = reduce(hi.wrapping_mul(j)).wrapping_mul(131_072);
    let t2 = reduce(lo.wrapping_mul(j));
    let mut r = reduce(t1.wrapping_add(t2)) as i64;
    if r < 0 {
        r += m as i64;
    }
    r as u32
}

/// The two components' three words each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct State {
    g1: [u32; 3],
    g2: [u32; 3],
}

fn seeded(seed: u64) -> State {
    let seed = if seed == 0 { DEFAULT_SEED } else { seed };
    let x = seed as u32 ^ 0x5555_5555;
    let y = ((seed >> 32) ^ 0xAAAA_AAAA) as u32;
    let m1 = |i| mod_mul(i, seed, mod_m1, M1);
    let m2 = |i| mod_mul(i, seed, mod_m2, M2);
    State { g1: [m1(x), m1(y), m1(x)], g2: [m2(y), m2(x), m2(y)] }
}

/// One draw, in [1, m1].
fn next(s: &mut State) -> u32 {
    let p1 = mod_m1(A12 * u64::from(s.g1[1]) + A13N * ((M1 - u64::from(s.g1[0])) & 0xffff_ffff)) as u32;
    s.g1 = [s.g1[1], s.g1[2], p1];
    let p2 = mod_m2(A21 * u64::from(s.g2[2]) + A23N * ((M2 - u64::from(s.g2[0])) & 0xffff_ffff)) as u32;
    s.g2 = [s.g2[1], s.g2[2], p2];
    p1.wrapping_sub(p2).wrapping_add(if p1 <= p2 { M1 as u32 } else { 0 })
}

/// A 3 × 3 matrix modulo `m`, row-major, applied to a component's words.
type Matrix = [[u64; 3]; 3];

fn mul(a: &Matrix, b: &Matrix, m: u64) -> Matrix {
    let mut out = [[0u64; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            let sum: u128 = (0..3).map(|k| u128::from(a[i][k]) * u128::from(b[k][j])).sum();
            *cell = (sum % u128::from(m)) as u64;
        }
    }
    out
}

fn apply(a: &Matrix, s: [u32; 3], m: u64) -> [u32; 3] {
    let row = |i: usize| {
        let sum: u128 = (0..3).map(|k| u128::from(a[i][k]) * u128::from(s[k])).sum();
        (sum % u128::from(m)) as u32
    };
    [row(0), row(1), row(2)]
}

/// Each component's step matrix raised to 2^j, j < 128.
fn powers() -> &'static [(Matrix, Matrix)] {
    static POWERS: OnceLock<Vec<(Matrix, Matrix)>> = OnceLock::new();
    POWERS.get_or_init(|| {
        let mut a1: Matrix = [[0, 1, 0], [0, 0, 1], [M1 - A13N, A12, 0]];
        let mut a2: Matrix = [[0, 1, 0], [0, 0, 1], [M2 - A23N, 0, A21]];
        let mut out = Vec::with_capacity(128);
        for _ in 0..128 {
            out.push((a1, a2));
            a1 = mul(&a1, &a1, M1);
            a2 = mul(&a2, &a2, M2);
        }
        out
    })
}

fn skip(mut s: State, draws: u128) -> State {
    for (j, (a1, a2)) in powers().iter().enumerate() {
        if draws >> j & 1 == 1 {
            s = State { g1: apply(a1, s.g1, M1), g2: apply(a2, s.g2, M2) };
        }
    }
    s
}

impl EngineState for State {
    fn at(seed: u64, engine: u64, draw: u64) -> Self {
        skip(seeded(seed), (u128::from(engine) << SUBSEQUENCE_LOG2) + u128::from(draw))
    }

    fn next_engine(&self) -> Self {
        let (a1, a2) = &powers()[SUBSEQUENCE_LOG2];
        State { g1: apply(a1, self.g1, M1), g2: apply(a2, self.g2, M2) }
    }

    /// One draw, in [1, m1].
    fn draw(&mut self) -> u32 {
        next(self)
    }
}

/// `rocrand_generate`'s word of a draw: the draw stretched over 32 bits.
pub(crate) fn word(v: u32) -> u32 {
    (f64::from(v - 1) * UINT_NORM) as u32
}

/// `rocrand_generate_uniform`'s float of a draw, in (0, 1].
pub(crate) fn uniform(v: u32) -> f32 {
    (f64::from(v) * NORM_DOUBLE) as f32
}

/// `rocrand_generate_uniform_double`'s double of a draw, in (0, 1].
pub(crate) fn uniform_double(v: u32) -> f64 {
    f64::from(v) * NORM_DOUBLE
}

#[cfg(test)]
mod tests {
    use super::super::engines::{Engines, Widths};
    use super::*;

    /// The host API's draws at stream positions `first..first + len`.
    fn draws(seed: u64, first: u64, len: usize) -> Vec<u32> {
        let one = Widths { input: 1, output: 1 };
        Engines::at_offset(first).launch(seed, len, 0, one).run::<State, u32>(|w| w.to_vec())
    }

    /// rocRAND 5.7 on the CPU: engine 0 of seed 12345, the host API's first
    /// words and floats for the default seed (engines 0 to 3).
    #[test]
    fn rocrand_5_7s_values() {
        let mut engine = seeded(12_345);
        let first: Vec<u32> = (0..4).map(|_| next(&mut engine)).collect();
        assert_eq!(first, [3_078_005_992, 631_176_402, 2_684_665_388, 3_616_026_351]);
        let host: Vec<u32> = draws(0, 0, 4).into_iter().map(word).collect();
        assert_eq!(host, [0xb776a57c, 0x21e73d49, 0x11630f0a, 0xa0901886]);
        let floats: Vec<f32> = draws(0, 0, 3).into_iter().map(uniform).collect();
        for (f, expected) in floats.iter().zip([0.716_654_122_f64, 0.132_434_681, 0.067_917_764_2].map(|x| x as f32)) {
            assert!((f - expected).abs() <= f32::EPSILON * expected, "{f} against {expected}");
        }
    }

    /// rocRAND's precomputed jump matrices (`rocrand_mrg32k3a_precomputed.h`)
    /// start with these: the step's and 2^76 steps' first rows.
    #[test]
    fn the_powers_are_rocrands_tables() {
        assert_eq!(powers()[0].0[2], [4_294_156_359, 1_403_580, 0]);
        assert_eq!(powers()[0].1[2], [4_293_573_854, 0, 527_612]);
        assert_eq!(powers()[76].0[0], [82_758_667, 1_871_391_091, 4_127_413_238]);
        assert_eq!(powers()[76].1[0], [1_511_326_704, 3_759_209_742, 1_610_795_712]);
    }

    #[test]
    fn skipping_is_stepping() {
        let mut s = seeded(7);
        for _ in 0..500 {
            next(&mut s);
        }
        assert_eq!(skip(seeded(7), 500), s);
    }
}
