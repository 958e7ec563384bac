//! [`GrowthWaits`]: whether an expandable pool's growth on a busy stream
//! waits for the stream, trading the overlap of host and GPU for memory.

/// Whether a growth of an [`Expandable`](crate::Strategy::Expandable)
/// pool on a busy stream waits for the stream's queued work
/// ([`Pool::set_growth_waits`](crate::Pool::set_growth_waits)).
///
/// A growth first moves free chunks of its stream's segment to where it
/// grows, instead of mapping new memory, but only chunks whose work is
/// known finished: unmapping memory queued work still uses would be a use
/// after free. With the stream idle, that is every free chunk. With it
/// busy and no wait, only the chunks freed before an event recorded by
/// an earlier growth, found done; in a workload whose requests grow
/// step by step on a stream that is never idle (sequence lengths that
/// grow, each step's work queued behind the last) few are, and the pool
/// reserves more than it would have: on the fragmentation benchmark at
/// four times its sizes, on an H100, 1.15 to 1.30 times the memory handed
/// out instead of 1.04 (`BENCHMARKS.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GrowthWaits {
    /// Where the wait costs nothing (the default). On AMD's runtime (and
    /// the simulator, which models it) `hipMemMap` and `hipMemUnmap` run
    /// on the null stream and wait for every blocking stream of the
    /// device: a growth, which always maps, waits for a blocking
    /// stream's work anyway, so it waits for it first and moves every free
    /// chunk. A stream other code made
    /// ([`hip_core::Stream::is_foreign`]) may be
    /// non-blocking, which the mapping does not wait for: its growth does
    /// not wait either. On NVIDIA `cuMemMap` waits for no stream: no
    /// growth waits.
    #[default]
    WhereFree = 0,
    /// Always: the memory a growth would map beside queued work comes
    /// first, and the host waits at each growth for its stream's work.
    Always = 1,
    /// Never: a busy stream's growth moves only the chunks known finished
    /// without a wait.
    Never = 2,
}
