//! MIOpen's forward algorithms as families of cuDNN's, and what the search
//! picked in each family for each problem.
//!
//! MIOpen names five ways to compute a forward convolution; cuDNN has
//! eight algorithms, two of them variants of another (FFT over tiles of
//! the image, Winograd with the transforms as separate kernels). Each
//! MIOpen algorithm stands for a family of cuDNN algorithms that compute
//! the same thing the same way. The search times every cuDNN algorithm and
//! reports each family once, at its fastest member, which it keeps with
//! the convolution descriptor for that problem; forward runs that member.
//!
//! One cuDNN search times each algorithm once, and its ranking is noisy:
//! on an H200, for a ResNet-50 3 × 3 layer, FFT over tiles (~170 µs) and
//! non-fused Winograd (~185 µs) swapped places in 3 of 36 searches, and the
//! first search in a process ran every algorithm ~1.5 times slower on a
//! GPU not yet at its clocks. So the search runs cuDNN's [`SEARCHES`]
//! times and ranks each algorithm by its fastest time.

use std::ffi::c_int;
use std::sync::{Mutex, PoisonError};

use crate::miopen::miopenConvFwdAlgorithm_t;

/// `cudnnConvolutionFwdAlgo_t` (`cudnn_cnn.h`, the same numbers in cuDNN 8 and 9).
mod cudnn {
    use std::ffi::c_int;

    pub(super) const IMPLICIT_GEMM: c_int = 0;
    pub(super) const IMPLICIT_PRECOMP_GEMM: c_int = 1;
    pub(super) const GEMM: c_int = 2;
    pub(super) const FFT: c_int = 4;
    pub(super) const FFT_TILING: c_int = 5;
    pub(super) const WINOGRAD: c_int = 6;
    pub(super) const WINOGRAD_NONFUSED: c_int = 7;
}

/// How many algorithms cuDNN's forward search can report.
pub(super) const CUDNN_ALGORITHMS: usize = 8;

/// Each MIOpen algorithm and its cuDNN family, in the order forward tries
/// them where no search picked one. cuDNN's `DIRECT` (3) has no kernels
/// and belongs to none; MIOpen's direct solvers compute what cuDNN's
/// implicit GEMM does.
const FAMILIES: [(miopenConvFwdAlgorithm_t, &[c_int]); 5] = [
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoGEMM, &[cudnn::GEMM]),
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoDirect, &[cudnn::IMPLICIT_GEMM]),
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoFFT, &[cudnn::FFT_TILING, cudnn::FFT]),
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoWinograd, &[cudnn::WINOGRAD, cudnn::WINOGRAD_NONFUSED]),
    (miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoImplicitGEMM, &[cudnn::IMPLICIT_PRECOMP_GEMM]),
];

/// The cuDNN algorithms of a MIOpen algorithm; `None` for a number MIOpen
/// does not define.
pub(super) fn members(algorithm: miopenConvFwdAlgorithm_t) -> Option<&'static [c_int]> {
    FAMILIES.iter().find(|(m, _)| *m == algorithm).map(|(_, members)| *members)
}

/// The MIOpen algorithm a cuDNN algorithm computes, if any.
pub(super) fn family(cudnn_algorithm: c_int) -> Option<miopenConvFwdAlgorithm_t> {
    FAMILIES.iter().find(|(_, members)| members.contains(&cudnn_algorithm)).map(|(m, _)| *m)
}

/// Every cuDNN algorithm of every family.
pub(super) fn all_members() -> impl Iterator<Item = c_int> {
    FAMILIES.iter().flat_map(|(_, members)| members.iter().copied())
}

/// How many times the search runs cuDNN's.
pub(super) const SEARCHES: usize = 3;

/// One algorithm's time and workspace, as a search measured them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Timing {
    /// The cuDNN algorithm.
    pub(super) algorithm: c_int,
    /// Milliseconds.
    pub(super) time: f32,
    /// Workspace bytes.
    pub(super) memory: usize,
}

/// Each algorithm's fastest time over several searches.
#[derive(Debug, Default)]
pub(super) struct Timings(Vec<Timing>);

impl Timings {
    /// Count one search's measurement of an algorithm.
    pub(super) fn add(&mut self, timing: Timing) {
        match self.0.iter_mut().find(|t| t.algorithm == timing.algorithm) {
            Some(kept) if timing.time < kept.time => kept.time = timing.time,
            Some(_) => {}
            None => self.0.push(timing),
        }
    }

    /// Every algorithm measured, fastest first.
    pub(super) fn fastest_first(mut self) -> Vec<Timing> {
        self.0.sort_by(|a, b| a.time.total_cmp(&b.time));
        self.0
    }
}

/// A problem: the input, filter and output shapes (N, C, H, W each).
pub(super) type Problem = [[c_int; 4]; 3];

/// What the search picked, per problem and MIOpen algorithm. A pick is a
/// matter of speed only: every member of a family computes the same
/// result, so a stale or missing pick is never wrong.
#[derive(Debug, Default)]
pub(super) struct Picks(Mutex<Vec<(Problem, miopenConvFwdAlgorithm_t, c_int)>>);

impl Picks {
    /// Keep `cudnn_algorithm` as the pick for `algorithm` on `problem`,
    /// replacing an earlier one.
    pub(super) fn record(&self, problem: Problem, algorithm: miopenConvFwdAlgorithm_t, cudnn_algorithm: c_int) {
        let mut picks = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match picks.iter_mut().find(|(p, a, _)| *p == problem && *a == algorithm) {
            Some(pick) => pick.2 = cudnn_algorithm,
            None => picks.push((problem, algorithm, cudnn_algorithm)),
        }
    }

    /// The pick for `algorithm` on `problem`, if the search made one.
    pub(super) fn get(&self, problem: &Problem, algorithm: miopenConvFwdAlgorithm_t) -> Option<c_int> {
        let picks = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        picks.iter().find(|(p, a, _)| p == problem && *a == algorithm).map(|(_, _, c)| *c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cudnn_algorithm_belongs_to_at_most_one_family() {
        for (algorithm, members) in FAMILIES {
            for &member in members {
                assert_eq!(family(member), Some(algorithm));
            }
            assert_eq!(self::members(algorithm), Some(members));
        }
        assert_eq!(family(3), None, "cuDNN's DIRECT has no kernels");
        let mut every: Vec<c_int> = all_members().collect();
        every.sort_unstable();
        assert_eq!(every, [0, 1, 2, 4, 5, 6, 7]);
    }

    #[test]
    fn each_algorithm_is_ranked_by_its_fastest_time() {
        let mut timings = Timings::default();
        let t = |algorithm, time| Timing { algorithm, time, memory: 16 };
        // A first, cold search that ranks non-fused Winograd first; two more
        // that rank FFT over tiles first.
        for search in [
            [t(7, 1.80), t(5, 1.85), t(1, 3.0)],
            [t(5, 1.70), t(7, 1.90), t(1, 3.1)],
            [t(5, 1.72), t(7, 1.84), t(1, 2.9)],
        ] {
            for timing in search {
                timings.add(timing);
            }
        }
        assert_eq!(timings.fastest_first(), [t(5, 1.70), t(7, 1.80), t(1, 2.9)]);
    }

    #[test]
    fn a_pick_is_per_problem_and_algorithm_and_replaced_by_a_new_search() {
        let picks = Picks::default();
        let (a, b) = ([[1, 2, 3, 4], [5, 2, 3, 3], [1, 5, 1, 2]], [[2, 2, 3, 4], [5, 2, 3, 3], [2, 5, 1, 2]]);
        let fft = miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoFFT;
        let winograd = miopenConvFwdAlgorithm_t::miopenConvolutionFwdAlgoWinograd;
        picks.record(a, fft, cudnn::FFT_TILING);
        picks.record(b, fft, cudnn::FFT);
        assert_eq!(picks.get(&a, fft), Some(cudnn::FFT_TILING));
        assert_eq!(picks.get(&b, fft), Some(cudnn::FFT));
        assert_eq!(picks.get(&a, winograd), None);
        picks.record(a, fft, cudnn::FFT);
        assert_eq!(picks.get(&a, fft), Some(cudnn::FFT));
    }
}
