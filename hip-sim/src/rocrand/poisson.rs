//! Poisson numbers as rocRAND 2.10's host API makes them, for every
//! generator and every `lambda`: a discrete distribution over the values
//! whose probability is at least 1e-12, drawn by Walker's alias method
//! from one 32-bit word a value (no normal approximation for a large
//! `lambda` on this path: the table grows).
//!
//! The table is built on the host in double precision, in rocRAND's order
//! of operations (`poisson.hpp`, `discrete.hpp`): the probabilities
//! outward from `floor(lambda)` until one falls below 1e-12, normalised by
//! their sequential sum, then Vose's stacks. Its probabilities depend on
//! the host's `exp`, `log` and `lgamma`; the simulator calls the same C
//! library functions rocRAND's host code does.

/// rocRAND's `p_epsilon`: probabilities below it end the table.
const EPSILON: f64 = 1e-12;

/// A Poisson distribution's alias table.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Table {
    /// The value of the table's first entry.
    offset: u32,
    probability: Vec<f64>,
    alias: Vec<u32>,
}

extern "C" {
    /// The C library's `lgamma`, which rocRAND's host code calls.
    fn lgamma(x: f64) -> f64;
}

fn ln_gamma(x: f64) -> f64 {
    // SAFETY: a pure function of a double (it sets the C library's
    // `signgam`, which nothing here reads).
    unsafe { lgamma(x) }
}

impl Table {
    /// The table for `lambda`, which must be positive and below 2^31
    /// (rocRAND casts `floor(lambda)` to an `int`).
    pub fn new(lambda: f64) -> Table {
        let capacity = 2 * (16.0 * (2.0 + lambda.sqrt())) as usize;
        let half = capacity / 2;
        let left = lambda.floor() as i64 - half as i64;
        let log_lambda = lambda.ln();
        let probability_of = |i: usize| {
            let x = (left + i as i64) as f64;
            (x * log_lambda - ln_gamma(x + 1.0) - lambda).exp()
        };
        let mut p = vec![0.0f64; capacity];
        let mut lo = 0;
        for i in (0..=half).rev() {
            let pp = probability_of(i);
            if pp < EPSILON {
                lo = i + 1;
                break;
            }
            p[i] = pp;
        }
        let mut hi = capacity - 1;
        for (i, slot) in p.iter_mut().enumerate().skip(half + 1) {
            let pp = probability_of(i);
            if pp < EPSILON {
                hi = i - 1;
                break;
            }
            *slot = pp;
        }
        let mut p = p[lo..=hi].to_vec();
        let sum: f64 = p.iter().sum();
        for v in &mut p {
            *v /= sum;
        }
        let (probability, alias) = alias_table(p);
        Table { offset: (left + lo as i64) as u32, probability, alias }
    }

    /// The value of one word (`discrete_alias`): its high bits pick an
    /// entry, the fraction below them decides between the entry and its
    /// alias.
    pub fn value(&self, word: u32) -> u32 {
        let scaled = self.probability.len() as u64 * u64::from(word);
        let i = (scaled >> 32) as usize;
        let fraction = f64::from(scaled as u32) * 2f64.powi(-32);
        let entry = if fraction < self.probability[i] { i as u32 } else { self.alias[i] };
        self.offset.wrapping_add(entry)
    }
}

/// Vose's alias table of normalised probabilities `p`, with rocRAND's
/// stacks (last in, first out) and arithmetic.
fn alias_table(mut p: Vec<f64>) -> (Vec<f64>, Vec<u32>) {
    let size = p.len();
    let average = 1.0 / size as f64;
    let mut probability = vec![0.0f64; size];
    let mut alias = vec![0u32; size];
    let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..size).partition(|&i| p[i] < average);
    while let (Some(&less), Some(&more)) = (small.last(), large.last()) {
        small.pop();
        large.pop();
        probability[less] = p[less] * size as f64;
        alias[less] = more as u32;
        p[more] = (p[more] + p[less]) - average;
        if p[more] >= average {
            large.push(more);
        } else {
            small.push(more);
        }
    }
    for i in small.into_iter().chain(large) {
        probability[i] = 1.0;
    }
    (probability, alias)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rocRAND 5.7's own table code, run on the CPU: each table's size and
    /// first value.
    #[test]
    fn tables_span_rocrands_values() {
        for (lambda, size, offset) in
            [(0.5, 12, 0), (10.0, 40, 0), (100.0, 139, 39), (4000.0, 849, 3583), (1e6, 12587, 993_713)]
        {
            let table = Table::new(lambda);
            assert_eq!((table.probability.len(), table.offset), (size, offset), "lambda {lambda}");
        }
    }

    /// rocRAND 5.7's `discrete_alias` of chosen words, lambda 3.7.
    #[test]
    fn words_become_rocrands_values() {
        let table = Table::new(3.7);
        let words = [0u32, 1, 0x1234_5678, 0x8000_0000, 0xdead_beef, u32::MAX, 0x6627_e8d5, 0xe169_c58d];
        let values: Vec<u32> = words.iter().map(|&w| table.value(w)).collect();
        assert_eq!(values, [0, 0, 1, 2, 5, 7, 2, 5]);
    }

    #[test]
    fn the_table_is_a_distribution() {
        let table = Table::new(20.0);
        // Every entry's own share plus what others alias to it: the mass
        // of each value, which must be the Poisson probability.
        let n = table.probability.len() as f64;
        let mut mass = vec![0.0; table.probability.len()];
        for (i, (&p, &a)) in table.probability.iter().zip(&table.alias).enumerate() {
            mass[i] += p / n;
            mass[a as usize] += (1.0 - p) / n;
        }
        let total: f64 = mass.iter().sum();
        assert!((total - 1.0).abs() < 1e-12);
        let k = 20usize - table.offset as usize;
        let expected = (20f64.ln() * 20.0 - ln_gamma(21.0) - 20.0).exp();
        assert!((mass[k] - expected).abs() < 1e-12, "P(20) {} against {expected}", mass[k]);
    }
}
