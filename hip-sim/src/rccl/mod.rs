//! RCCL in the simulator: NCCL 2.13's collectives across the simulated
//! devices of one process, computed on the CPU and ordered on the
//! ranks' streams.
//!
//! # What is modelled
//!
//! - **Communicators**: `ncclCommInitAll` (one process, a device each),
//!   `ncclCommInitRank` by a unique id (one thread a rank, or one thread
//!   for all inside a group), and RCCL's `ncclCommInitRankMulti` (several
//!   ranks on one device, each with its own virtual id). Two ranks on one
//!   device otherwise are NCCL's "Duplicate GPU detected"
//!   (`ncclInvalidUsage`). Init outside a group returns once every rank
//!   joined, as NCCL's does; an id from another process is refused,
//!   since the simulator's devices live in one process.
//! - **Operations**: all-reduce, broadcast, reduce, all-gather,
//!   reduce-scatter, send and receive, in NCCL's ten types with sum,
//!   product, min, max, average and pre-multiplied sums (`elements`), in
//!   place and out of place (any other overlap of the two buffers is
//!   refused). Each rank's call is one task on its stream; the stream
//!   stops there until every rank's stream has reached the same call,
//!   then the outputs are written and every rank goes on (`meeting`).
//!   Buffers must be device memory of the communicator's device, of the
//!   full size, and the stream must be of that device.
//! - **Groups**: calls between `ncclGroupStart` and `ncclGroupEnd` are
//!   checked when made and posted at the end, each stream's parts as one
//!   task (so a send and a receive with one peer, or one thread driving
//!   every rank, complete as they do on a GPU). A call that fails inside
//!   a group makes the end fail and launch nothing, as NCCL does.
//! - **Errors instead of hangs**: where a GPU would hang, the simulator
//!   fails the call for every rank, records it as each communicator's
//!   asynchronous error (`ncclCommGetAsyncError`) and message
//!   (`ncclGetLastError`), and lets the streams go on:
//!   - calls that do not match (kind, count, type, operation or root):
//!     at once, when the last rank posts, `ncclInvalidUsage`;
//!   - one thread posting two ranks of one call outside a group (NCCL
//!     blocks in the first call): `ncclInvalidUsage`;
//!   - a rank that never makes the call, or whose stream never reaches it,
//!     after the collective timeout (`set_collective_timeout`,
//!     `AMDGPU_SIM_COLLECTIVE_TIMEOUT_MS`, 20 s by default):
//!     `ncclRemoteError`, naming the ranks;
//!   - a peer destroyed or aborted with the call outstanding: at once,
//!     `ncclRemoteError`.
//! - **The classic deadlock** (NCCL issue 48): any call that
//!   synchronizes a device (`hipDeviceSynchronize`, `hipFree` where it
//!   synchronizes, `hipHostFree`, rocBLAS's handle destroy, …) on a
//!   device where a collective has been posted but some rank has not made
//!   its call blocks the launches the peers need, and deadlocks on a GPU. The simulator records it as a
//!   [`ViolationKind::CollectiveDeadlock`](crate::ViolationKind)
//!   and waits on (the call ends by its timeout or its peers).
//! - `ncclCommDestroy` waits for the rank's outstanding calls, as NCCL
//!   does; `ncclCommAbort` fails them and returns. Both succeed on a null
//!   communicator, as NCCL's and RCCL's `init.cc` do.
//!
//! # Not modelled
//!
//! Collectives inside a stream capture are refused (`ncclInvalidUsage`);
//! NCCL captures them on a GPU. Float results are computed in rank order,
//! a GPU's ring or tree in another, so they agree to rounding.

mod calls;
mod comm;
mod elements;
mod group;
mod meeting;
mod table;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

pub use comm::live_communicators;
pub(crate) use table::SIM_RCCL;

/// The timeout's milliseconds; 0 until read from the environment.
static TIMEOUT_MS: AtomicU64 = AtomicU64::new(0);

/// The default collective timeout.
pub const DEFAULT_COLLECTIVE_TIMEOUT: Duration = Duration::from_secs(20);

/// How long a rank waits for its peers before the call fails.
pub(crate) fn timeout() -> Duration {
    static FROM_ENV: OnceLock<u64> = OnceLock::new();
    let set = TIMEOUT_MS.load(Ordering::Relaxed);
    if set != 0 {
        return Duration::from_millis(set);
    }
    Duration::from_millis(*FROM_ENV.get_or_init(|| {
        std::env::var("AMDGPU_SIM_COLLECTIVE_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|&ms| ms > 0)
            .unwrap_or(DEFAULT_COLLECTIVE_TIMEOUT.as_millis() as u64)
    }))
}

/// Set how long a rank of a simulated collective waits for its peers
/// (and an init for the other ranks) before the call fails with
/// `ncclRemoteError`; returns the previous timeout. It applies to waits
/// that start after the call, in the whole process.
pub fn set_collective_timeout(timeout_: Duration) -> Duration {
    let previous = timeout();
    TIMEOUT_MS.store(timeout_.as_millis().clamp(1, u64::MAX as u128) as u64, Ordering::Relaxed);
    previous
}
