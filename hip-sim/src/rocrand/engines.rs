//! The host layout of rocRAND's generators with many engines (XORWOW,
//! MRG32k3a), as rocRAND 2.10's `generate_kernel` lays work out.
//!
//! There are 131072 engines, engine `e` on subsequence `e`, and one
//! thread per engine. A generate of `n` values, whose distribution turns
//! `input` draws into `output` values, is `vec_n` vectors of `output`
//! values after an unaligned head: thread `t` uses engine
//! `(start + t) % 131072` and computes vectors `t`, `t + 131072`, ...; the
//! thread that would compute vector `vec_n` computes the head and then the
//! tail instead, one distribution each. Every engine keeps its own count of
//! draws, so a generate with several draws a value leaves engines at
//! different places, and `start` moves on by `ceil(n / output)` (rocRAND's
//! `touched_engines`, whatever the head and tail took).
//!
//! Seeding at an offset puts every engine `offset / 131072` draws on, and
//! the first `offset % 131072` one more, with `start` at `offset % 131072`:
//! for one draw a value that makes stream position `p` engine
//! `p % 131072`'s draw `p / 131072`.

/// Engines (and threads) of rocRAND 2.10's host XORWOW and MRG32k3a
/// generators: 512 blocks of 256.
pub(super) const ENGINES: u64 = 131_072;

/// One of rocRAND's many-engine generators: its state at a place, and a
/// draw.
pub(super) trait EngineState: Clone {
    /// Engine `engine` of `seed` before its draw `draw`.
    fn at(seed: u64, engine: u64, draw: u64) -> Self;
    /// Engine `e + 1` at the draw this one (engine `e`) is at.
    fn next_engine(&self) -> Self;
    /// One draw: the state moves on and the draw is returned.
    fn draw(&mut self) -> u32;
}

/// Where a generator's engines stand: rocRAND's `m_start_engine_id`, and
/// each engine's draws since its seeding.
#[derive(Clone, Debug)]
pub(super) struct Engines {
    start: u64,
    draws: Vec<u64>,
}

/// How a distribution consumes draws: `input` draws make `output` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Widths {
    pub input: usize,
    pub output: usize,
}

/// One thread of a launch that computes anything: its engine and the draw
/// that engine was at when the launch was enqueued.
#[derive(Clone, Copy, Debug)]
struct Thread {
    id: u64,
    engine: u64,
    first: u64,
}

/// One generate launch, fixed when it is enqueued and computed when the
/// work runs.
#[derive(Clone, Debug)]
pub(super) struct Launch {
    seed: u64,
    n: usize,
    head: usize,
    tail: usize,
    vec_n: u64,
    widths: Widths,
    threads: Vec<Thread>,
}

impl Engines {
    /// As `init_engines_kernel` leaves them for `offset`.
    pub fn at_offset(offset: u64) -> Self {
        let start = offset % ENGINES;
        let draws = (0..ENGINES).map(|e| offset / ENGINES + u64::from(e < start)).collect();
        Engines { start, draws }
    }

    /// Enqueue a generate of `n` values of `seed` into output whose first
    /// element is `misalignment` elements short of an `output`-value
    /// vector's alignment, and move the engines on past it.
    pub fn launch(&mut self, seed: u64, n: usize, misalignment: usize, widths: Widths) -> Launch {
        let head = n.min(misalignment);
        let tail = (n - head) % widths.output;
        let vec_n = ((n - head) / widths.output) as u64;
        // The thread that ends at vector `vec_n` writes the head and tail.
        let extra = (widths.output > 1 && (head > 0 || tail > 0)).then_some(vec_n % ENGINES);
        let busy = vec_n.min(ENGINES);
        let mut threads = Vec::with_capacity(busy as usize + 1);
        for id in (0..busy).chain(extra.filter(|&t| t >= busy)) {
            let engine = (id + self.start) % ENGINES;
            let vectors = if id < vec_n { (vec_n - id - 1) / ENGINES + 1 } else { 0 };
            let extras = match extra {
                Some(t) if t == id => u64::from(head > 0) + u64::from(tail > 0),
                _ => 0,
            };
            let first = self.draws[engine as usize];
            self.draws[engine as usize] += (vectors + extras) * widths.input as u64;
            threads.push(Thread { id, engine, first });
        }
        self.start = (self.start + n.div_ceil(widths.output) as u64) % ENGINES;
        Launch { seed, n, head, tail, vec_n, widths, threads }
    }
}

impl Launch {
    /// The launch's `n` values, `distribution` making `output` values of
    /// `input` draws of engine `E`.
    pub fn run<E: EngineState, T: Copy + Default>(&self, distribution: impl Fn(&[u32]) -> Vec<T>) -> Vec<T> {
        let Widths { input, output } = self.widths;
        let mut out = vec![T::default(); self.n];
        let mut input_words = vec![0u32; input];
        let mut previous: Option<(u64, u64, E)> = None;
        for thread in &self.threads {
            let start = match &previous {
                Some((engine, first, state)) if thread.engine == engine + 1 && thread.first >= *first => {
                    let mut state = state.next_engine();
                    for _ in *first..thread.first {
                        state.draw();
                    }
                    state
                }
                _ => E::at(self.seed, thread.engine, thread.first),
            };
            previous = Some((thread.engine, thread.first, start.clone()));
            let mut state = start;
            let mut next = |state: &mut E| {
                for word in input_words.iter_mut() {
                    *word = state.draw();
                }
                distribution(&input_words)
            };
            let mut index = thread.id;
            while index < self.vec_n {
                let at = self.head + index as usize * output;
                out[at..at + output].copy_from_slice(&next(&mut state)[..output]);
                index += ENGINES;
            }
            if output > 1 && index == self.vec_n {
                if self.head > 0 {
                    out[..self.head].copy_from_slice(&next(&mut state)[..self.head]);
                }
                if self.tail > 0 {
                    let at = self.n - self.tail;
                    out[at..].copy_from_slice(&next(&mut state)[..self.tail]);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy engine whose draws name the engine and the draw.
    #[derive(Clone)]
    struct Named(u64, u64);

    impl EngineState for Named {
        fn at(_: u64, engine: u64, draw: u64) -> Self {
            Named(engine, draw)
        }
        fn next_engine(&self) -> Self {
            Named(self.0 + 1, self.1)
        }
        fn draw(&mut self) -> u32 {
            self.1 += 1;
            (self.0 * 1000 + self.1 - 1) as u32
        }
    }

    const ONE: Widths = Widths { input: 1, output: 1 };
    const PAIR: Widths = Widths { input: 2, output: 2 };

    fn values(engines: &mut Engines, n: usize, misalignment: usize, widths: Widths) -> Vec<u32> {
        engines.launch(0, n, misalignment, widths).run::<Named, u32>(|w| w.to_vec())
    }

    #[test]
    fn one_draw_a_value_is_one_stream_across_calls_and_offsets() {
        let mut engines = Engines::at_offset(ENGINES - 2);
        // Positions 131070.. are engines 131070 and 131071's first draws,
        // then engine 0's second.
        assert_eq!(values(&mut engines, 3, 0, ONE), [131_070_000, 131_071_000, 1]);
        assert_eq!(values(&mut engines, 2, 0, ONE), [1001, 2001]);
    }

    #[test]
    fn pairs_take_two_draws_of_one_engine_and_the_head_and_tail_go_to_one_thread() {
        let mut engines = Engines::at_offset(0);
        // One element short of alignment: the head is thread 2's (it would
        // write vector 2), then the tail from the same engine.
        assert_eq!(values(&mut engines, 6, 1, PAIR), [2000, 0, 1, 1000, 1001, 2002]);
        // ceil(6 / 2) engines touched: the next call starts at engine 3.
        assert_eq!(values(&mut engines, 2, 0, PAIR), [3000, 3001]);
        // Engine 0 drew two, engine 2 four.
        assert_eq!(engines.draws[..4], [2, 2, 4, 2]);
    }
}
