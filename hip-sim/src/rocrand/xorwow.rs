//! XORWOW (Marsaglia, "Xorshift RNGs", 2003), as rocRAND's
//! `rocrand_xorwow.h` seeds and steps it, laid out as rocRAND 2.10's host
//! generator does (see `engines`; subsequences are 2^67 draws apart).
//!
//! Skipping ahead is the step's linear map on the five xorshift words (a
//! 160 × 160 matrix over GF(2)) raised to a power, by squaring; the Weyl
//! counter `d` only adds 362437 a draw.

use super::engines::EngineState;
use std::sync::OnceLock;
/// log2 of the draws between subsequences.
const SUBSEQUENCE_LOG2: usize = 67;
/// The Weyl increment.
const WEYL: u32 = 362_437;

/// The five xorshift words and the Weyl counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct State {
    x: [u32; 5],
    d: u32,
}

fn seeded(seed: u64) -> State {
    let mut x: [u32; 5] = [123_456_789, 362_436_069, 521_288_629, 88_675_123, 5_783_321];
    let s0 = seed as u32 ^ 0x2c7f_967f;
    let s1 = (seed >> 32) as u32 ^ 0xa036_97cb;
    let t0 = 1_228_688_033u32.wrapping_mul(s0);
    let t1 = 2_073_658_381u32.wrapping_mul(s1);
    x[0] = x[0].wrapping_add(t0);
    x[1] ^= t0;
    x[2] = x[2].wrapping_add(t1);
    x[3] ^= t1;
    x[4] = x[4].wrapping_add(t0);
    State { x, d: 6_615_241u32.wrapping_add(t1).wrapping_add(t0) }
}

/// The xorshift part of one step (linear over GF(2)).
fn shift(x: [u32; 5]) -> [u32; 5] {
    let t = x[0] ^ (x[0] >> 2);
    [x[1], x[2], x[3], x[4], (x[4] ^ (x[4] << 4)) ^ (t ^ (t << 1))]
}

/// One draw: the state moves on and the word is returned.
fn next(state: &mut State) -> u32 {
    state.x = shift(state.x);
    state.d = state.d.wrapping_add(WEYL);
    state.d.wrapping_add(state.x[4])
}

/// A 160 × 160 matrix over GF(2), by columns: column `i` is the image of
/// the state with only bit `i` set.
#[derive(Clone)]
struct Matrix(Vec<[u32; 5]>);

impl Matrix {
    fn apply(&self, v: [u32; 5]) -> [u32; 5] {
        let mut out = [0u32; 5];
        for (i, column) in self.0.iter().enumerate() {
            if v[i / 32] >> (i % 32) & 1 == 1 {
                for (o, c) in out.iter_mut().zip(column) {
                    *o ^= c;
                }
            }
        }
        out
    }

    fn square(&self) -> Matrix {
        Matrix(self.0.iter().map(|&column| self.apply(column)).collect())
    }
}

/// The step's matrix raised to 2^j, j < 128 (any `u128` of draws).
fn powers() -> &'static [Matrix] {
    static POWERS: OnceLock<Vec<Matrix>> = OnceLock::new();
    POWERS.get_or_init(|| {
        let unit = |i: usize| {
            let mut v = [0u32; 5];
            v[i / 32] = 1 << (i % 32);
            v
        };
        let mut m = Matrix((0..160).map(|i| shift(unit(i))).collect());
        let mut out = Vec::with_capacity(128);
        for _ in 0..128 {
            let next = m.square();
            out.push(std::mem::replace(&mut m, next));
        }
        out
    })
}

/// `x` after `draws` steps.
fn skip(mut x: [u32; 5], draws: u128) -> [u32; 5] {
    for (j, m) in powers().iter().enumerate() {
        if draws >> j & 1 == 1 {
            x = m.apply(x);
        }
    }
    x
}

impl EngineState for State {
    fn at(seed: u64, engine: u64, draw: u64) -> Self {
        let start = seeded(seed);
        State {
            x: skip(start.x, (u128::from(engine) << SUBSEQUENCE_LOG2) + u128::from(draw)),
            d: start.d.wrapping_add((draw as u32).wrapping_mul(WEYL)),
        }
    }

    // Engine e + 1 is engine e 2^67 draws on (powers of one matrix
    // commute); the Weyl counter depends on the draw only.
    fn next_engine(&self) -> Self {
        State { x: powers()[SUBSEQUENCE_LOG2].apply(self.x), d: self.d }
    }

    fn draw(&mut self) -> u32 {
        next(self)
    }
}

#[cfg(test)]
mod tests {
    use super::super::engines::{Engines, Widths};
    use super::*;

    /// The host API's words at stream positions `first..first + len`.
    fn words(seed: u64, first: u64, len: usize) -> Vec<u32> {
        let one = Widths { input: 1, output: 1 };
        Engines::at_offset(first).launch(seed, len, 0, one).run::<State, u32>(|w| w.to_vec())
    }

    /// rocRAND 5.7 on the CPU: engine 0 of seed 0 alone, and the host
    /// API's first words (engines 0, 1, 2, 3).
    #[test]
    fn rocrand_5_7s_words() {
        let mut engine = seeded(0);
        assert_eq!([next(&mut engine), next(&mut engine), next(&mut engine)], [0x62d407df, 0x25c6a450, 0xa7994a36]);
        assert_eq!(words(0, 0, 4), [0x62d407df, 0xa567c184, 0x3f139bca, 0xed708045]);
    }

    #[test]
    fn skipping_is_stepping() {
        let mut state = seeded(99);
        for _ in 0..1000 {
            next(&mut state);
        }
        assert_eq!(skip(seeded(99).x, 1000), state.x);
    }

    #[test]
    fn a_run_is_the_same_split_anywhere() {
        let whole = words(5, 131_070, 6);
        assert_eq!([words(5, 131_070, 2), words(5, 131_072, 4)].concat(), whole);
        // Position 131072 is engine 0's second draw.
        let mut engine = seeded(5);
        next(&mut engine);
        assert_eq!(whole[2], next(&mut engine));
    }
}
