//! Named shared memory: what the simulator puts between processes for
//! IPC (an exported allocation's bytes, an exported event's state), as
//! clr puts an IPC event in a named file mapped by both processes. The
//! files are [`SharedFile`]s, named here after what they hold and the
//! process that made them.
//!
//! The exporter unlinks a file when the memory or event goes. A process
//! that exits with exports unlinks nothing; the next process to create a
//! file of the same kind removes the files of processes that are gone.

use crate::shared::ipc::sweep_orphans_once;
pub(crate) use crate::shared::shared_file::SharedFile;
use std::sync::atomic::{AtomicU64, Ordering};

/// A new zeroed file of `len` bytes for `kind` (`mem`, `event`), named
/// after it, this process and a counter. What processes that have exited
/// left of `kind` is removed at the first.
pub(crate) fn create(kind: &str, len: usize) -> std::io::Result<SharedFile> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    sweep_orphans_once(&format!("hip-sim-{kind}-"));
    let name = format!("hip-sim-{kind}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    SharedFile::create(&name, len)
}
