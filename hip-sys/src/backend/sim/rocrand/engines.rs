//! The host layout of rocRAND's generators with many engines (XORWOW,
//! MRG32k3a): 131072 engines, engine `e` on subsequence `e`; the value at
//! stream position `p` is engine `p % 131072`'s draw `p / 131072`.

/// Engines of rocRAND 2.10's host XORWOW and MRG32k3a generators.
pub(super) const ENGINES: u64 = 131_072;

/// The values at stream positions `first..first + len`: `at(e, k)` is
/// engine `e` before its draw `k`, `next_engine` turns engine `e`'s state
/// into engine `e + 1`'s at the same draw, `draw` makes one value.
pub(super) fn interleaved<S: Clone>(
    first: u64,
    len: u64,
    at: impl Fn(u64, u64) -> S,
    next_engine: impl Fn(&S) -> S,
    mut draw: impl FnMut(&mut S) -> u32,
) -> Vec<u32> {
    let mut out = vec![0u32; len as usize];
    let mut previous: Option<(u64, u64, S)> = None;
    for k in 0..len.min(ENGINES) {
        let p = first + k;
        let (engine, step) = (p % ENGINES, p / ENGINES);
        let start = match &previous {
            Some((e, s, state)) if engine == e + 1 && step == *s => next_engine(state),
            _ => at(engine, step),
        };
        let mut state = start.clone();
        previous = Some((engine, step, start));
        let mut slot = k;
        while slot < len {
            out[slot as usize] = draw(&mut state);
            slot += ENGINES;
        }
    }
    out
}
