//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
//! 1, 2, 3", SC'11), as rocRAND's `rocrand_philox4x32_10.h` computes it:
//! a 128-bit counter and a 64-bit key, ten rounds, four 32-bit words a
//! block.

/// The round multipliers.
const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
/// The key's Weyl increments, added between rounds.
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// rocRAND's default seed for a device-side Philox engine
/// (`ROCRAND_PHILOX4x32_DEFAULT_SEED`); the host API's starts at 0.
#[cfg(test)]
pub(crate) const DEFAULT_SEED: u64 = 0xdead_beef_dead_beef;

fn round(c: [u32; 4], k: [u32; 2]) -> [u32; 4] {
    let p0 = u64::from(M0) * u64::from(c[0]);
    let p1 = u64::from(M1) * u64::from(c[2]);
    [(p1 >> 32) as u32 ^ c[1] ^ k[0], p1 as u32, (p0 >> 32) as u32 ^ c[3] ^ k[1], p0 as u32]
}

/// The four words of the block at `counter` under `key`.
pub(crate) fn block(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    for _ in 0..9 {
        c = round(c, k);
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    round(c, k)
}

/// The key of a 64-bit seed: its low word, then its high word.
pub(crate) fn key(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// A 128-bit counter as rocRAND's four words (`x` lowest).
pub(crate) fn counter(value: u128) -> [u32; 4] {
    [value as u32, (value >> 32) as u32, (value >> 64) as u32, (value >> 96) as u32]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's known-answer vectors for philox4x32-10 (`kat_vectors`).
    #[test]
    fn random123_known_answers() {
        assert_eq!(block([0; 4], [0; 2]), [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]);
        assert_eq!(block([u32::MAX; 4], [u32::MAX; 2]), [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]);
        assert_eq!(
            block([0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344], [0xa409_3822, 0x299f_31d0]),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn counters_and_keys_split_into_words_low_first() {
        assert_eq!(key(0x1122_3344_5566_7788), [0x5566_7788, 0x1122_3344]);
        assert_eq!(counter(1 << 64 | 5), [5, 0, 1, 0]);
    }
}
