//! Test data: a deterministic pseudo-random sequence in [-1, 1), the same
//! on every run and every machine. One generator for every test that
//! needs noise: the simulator's library tests (through `common`), the
//! nvidia tests (which cannot use `common`, made for the simulator) and
//! the workspace's integration tests, which include this file by path.

/// `n` values in [-1, 1) from `seed`.
pub fn noise(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}
