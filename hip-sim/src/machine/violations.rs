//! The strictness log: calls on an object of one device made while the
//! calling thread's current device was another, kernels touching a peer's
//! memory without peer access, and stream races (which the race detector,
//! `races.rs`, finds and records here).

use super::lock::lock;
use super::thread::current_device;
use std::sync::Mutex;
use std::time::Instant;

/// What a [`Violation`] broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViolationKind {
    /// A call on an object of one device while another was current (real
    /// HIP often tolerates it; the simulator records it).
    Context,
    /// A kernel running on one device touched another device's memory
    /// without `hipDeviceEnablePeerAccess` (a GPU fault in real HIP).
    PeerAccess,
    /// Two operations on streams with no order between them touched
    /// overlapping memory and at least one wrote it, or an operation
    /// touched memory that a free not ordered before it (or ordered before
    /// it: a use after free) released. [`Violation::race`] says which.
    StreamRace,
    /// An executable graph was destroyed while a launch of it was still
    /// queued: clr before 6.2 frees it at once, under the queued work (a
    /// use after free in the runtime); 6.2 defers the free to the next
    /// synchronization, later versions to the launch's completion.
    GraphExecInUse,
    /// A call that synchronizes a device (`hipDeviceSynchronize`, a
    /// synchronizing `hipFree`, …) where a collective was posted but some
    /// rank of it had not made its call: the
    /// synchronization holds back the launches the peers need, and a GPU
    /// deadlocks (NCCL issue 48).
    CollectiveDeadlock,
    /// A virtual-memory call that clr would crash on, or answer success
    /// for having done nothing (an address no reservation holds, a
    /// mapping over another, a stale handle), or a kernel touching mapped
    /// memory its device was given no access to (a GPU page fault).
    /// [`Violation::detail`] says which.
    VirtualMemory,
    /// A kernel compiled for the CPU faulted its launch: an access outside
    /// the device memory it may reach, a barrier or warp intrinsic that
    /// not every thread reached, a failed device `assert`.
    /// [`Violation::kernel`] says which kernel, where and what.
    KernelFault,
    /// Two threads of a block of a kernel compiled for the CPU touched the
    /// same byte of shared memory with no barrier between them, one
    /// writing (found with `AMDGPU_SIM_RACECHECK=on`; the launch goes on,
    /// as on a GPU). [`Violation::shared_race`] says where.
    SharedMemoryRace,
}

/// Where and how a kernel's launch faulted ([`ViolationKind::KernelFault`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelFault {
    /// The kernel, by the name it was launched by.
    pub kernel: String,
    /// The block (x, y, z) of the faulting thread.
    pub block: [u32; 3],
    /// The thread (x, y, z) within its block.
    pub thread: [u32; 3],
    /// The address touched, for an access fault (0 otherwise).
    pub address: usize,
    /// What happened, in words.
    pub what: String,
}

impl std::fmt::Display for KernelFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(f, "kernel `{}`, block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz}): {}", self.kernel, self.what)?;
        if self.address != 0 {
            write!(f, " (address {:#x})", self.address)?;
        }
        Ok(())
    }
}

/// One violation: a context violation, a peer access or a stream race; see
/// [`ViolationKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// What was broken.
    pub kind: ViolationKind,
    /// The HIP function called.
    pub function: &'static str,
    /// The device the object belongs to.
    pub object_device: usize,
    /// The calling thread's current device at the call; for
    /// [`ViolationKind::PeerAccess`], the device the kernel ran on.
    pub current_device: usize,
    /// The calling thread, by name or id (for a stream race, the thread
    /// that enqueued the second operation).
    pub thread: String,
    /// For [`ViolationKind::StreamRace`]: both operations, their streams
    /// and the bytes; `None` for the other kinds.
    pub race: Option<StreamRace>,
    /// For [`ViolationKind::VirtualMemory`]: what was wrong and what clr
    /// does with it; `None` for the other kinds.
    pub detail: Option<&'static str>,
    /// For [`ViolationKind::KernelFault`]: the kernel and what it did;
    /// `None` for the other kinds.
    pub kernel: Option<KernelFault>,
    /// For [`ViolationKind::SharedMemoryRace`]: the kernel, the block,
    /// the two threads and the byte; `None` for the other kinds.
    pub shared_race: Option<SharedRace>,
}

impl Violation {
    /// A violation of `kind` with none of the details a kind adds (`race`,
    /// `detail`, `kernel`, `shared_race`): each recorder sets its own.
    pub(crate) fn of(
        kind: ViolationKind,
        function: &'static str,
        object_device: usize,
        current_device: usize,
        thread: String,
    ) -> Violation {
        Violation {
            kind,
            function,
            object_device,
            current_device,
            thread,
            race: None,
            detail: None,
            kernel: None,
            shared_race: None,
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(race) = &self.race {
            return write!(f, "{race} (enqueued by thread {})", self.thread);
        }
        if self.kind == ViolationKind::PeerAccess {
            return write!(
                f,
                "a kernel launched by {} from thread {} on device {} touched memory of device {} without peer access \
                 (call hipDeviceEnablePeerAccess({}, 0) on device {} first)",
                self.function,
                self.thread,
                self.current_device,
                self.object_device,
                self.object_device,
                self.current_device
            );
        }
        if self.kind == ViolationKind::CollectiveDeadlock {
            return write!(
                f,
                "thread {} called {} on device {} while a collective posted there waited for ranks that had not \
                 made their call: on a GPU this deadlocks (the synchronization holds back the peers' launches); \
                 post every rank's call first (one group), or free after the collective",
                self.thread, self.function, self.object_device
            );
        }
        if let Some(race) = &self.shared_race {
            return write!(
                f,
                "{} from thread {} on device {}: {race}",
                self.function, self.thread, self.current_device
            );
        }
        if let Some(fault) = &self.kernel {
            return write!(
                f,
                "{} from thread {} on device {}: {fault}",
                self.function, self.thread, self.current_device
            );
        }
        if let (ViolationKind::VirtualMemory, Some(detail)) = (self.kind, self.detail) {
            return write!(
                f,
                "{} from thread {} on device {}: {detail}",
                self.function, self.thread, self.current_device
            );
        }
        if self.kind == ViolationKind::GraphExecInUse {
            return write!(
                f,
                "thread {} destroyed an executable graph of device {} with a launch of it still queued \
                 (HIP before 6.2 frees it under the queued work; wait for the launch first)",
                self.thread, self.object_device
            );
        }
        write!(
            f,
            "{} on an object of device {} while thread {} was on device {}",
            self.function, self.object_device, self.thread, self.current_device
        )
    }
}

/// How an operation touches memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// Reads the bytes.
    Read,
    /// Writes the bytes (a read-modify-write counts as a write).
    Write,
    /// Frees them (`hipFree`, `hipFreeAsync`, `hipHostFree`).
    Free,
    /// Maps memory behind them (a graph's allocation node, at launch):
    /// what was ordered before no longer matters, what was not races.
    Allocate,
}

impl AccessKind {
    fn word(self) -> &'static str {
        match self {
            AccessKind::Read => "reads",
            AccessKind::Write => "writes",
            AccessKind::Free => "frees",
            AccessKind::Allocate => "maps",
        }
    }
}

/// Where two threads of a block raced on shared memory
/// ([`ViolationKind::SharedMemoryRace`]): the first such race of a launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedRace {
    /// The kernel, by the name it was launched by.
    pub kernel: String,
    /// The block (x, y, z).
    pub block: [u32; 3],
    /// The thread (x, y, z) whose access the simulator ran first, and
    /// what it did ([`AccessKind::Read`] or [`AccessKind::Write`]); on a
    /// GPU either may come first.
    pub first: ([u32; 3], AccessKind),
    /// The thread whose access met the first's, and what it did.
    pub second: ([u32; 3], AccessKind),
    /// The memory: a static `__shared__` variable by name, or
    /// `"dynamic shared memory"`.
    pub memory: String,
    /// The byte's offset in it.
    pub offset: usize,
    /// How many accesses of the launch met another thread's this way.
    pub count: u64,
}

impl std::fmt::Display for SharedRace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [bx, by, bz] = self.block;
        let ([ax, ay, az], a) = self.first;
        let ([cx, cy, cz], c) = self.second;
        write!(
            f,
            "kernel `{}`, block ({bx}, {by}, {bz}): thread ({cx}, {cy}, {cz}) {} byte {} of {}, which thread ({ax}, \
             {ay}, {az}) {} with no __syncthreads between them: a race on a GPU, where either may come first",
            self.kernel,
            c.word(),
            self.offset,
            self.memory,
            if a == AccessKind::Write { "wrote" } else { "read" },
        )?;
        if self.count > 1 {
            write!(f, " ({} such accesses in the launch; the first is shown)", self.count)?;
        }
        Ok(())
    }
}

/// One side of a [`StreamRace`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaceOp {
    /// The HIP or library function that enqueued the operation.
    pub function: &'static str,
    /// The stream it ran on (`"host"` for a free by the host).
    pub stream: String,
    /// What it did to the bytes.
    pub access: AccessKind,
}

/// The details of a [`ViolationKind::StreamRace`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamRace {
    /// The operation enqueued first.
    pub first: RaceOp,
    /// The operation enqueued second, which found the conflict.
    pub second: RaceOp,
    /// The first byte both touch.
    pub address: usize,
    /// How many bytes both touch.
    pub len: usize,
    /// The memory: `"device N memory"` or `"pinned host memory"`, and the
    /// allocation's base address.
    pub memory: String,
    /// The second operation is ordered after the first, which freed the
    /// memory: a use after free rather than an unordered pair.
    pub after_free: bool,
}

impl std::fmt::Display for StreamRace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (a, b) = (&self.first, &self.second);
        write!(
            f,
            "stream race on bytes {:#x}..{:#x} ({} bytes of {}): {} on {} {} them and {} on {} {} them, ",
            self.address,
            self.address + self.len,
            self.len,
            self.memory,
            a.function,
            a.stream,
            a.access.word(),
            b.function,
            b.stream,
            b.access.word()
        )?;
        if self.after_free {
            write!(f, "after the free (a use after free)")
        } else {
            write!(f, "with no order between them (no stream order, event wait, or host synchronization in between)")
        }
    }
}

/// Every violation recorded, with when (for the timeline).
static LOG: Mutex<Vec<(Violation, Instant)>> = Mutex::new(Vec::new());

/// Record `violation` now.
fn push(violation: Violation) {
    lock(&LOG).push((violation, Instant::now()));
}

/// The violations recorded at or after `since`, with their times.
pub(crate) fn violations_since(since: Instant) -> Vec<(Violation, Instant)> {
    lock(&LOG).iter().filter(|(_, at)| *at >= since).cloned().collect()
}

/// Every violation recorded so far in this process.
pub fn violations() -> Vec<Violation> {
    lock(&LOG).iter().map(|(v, _)| v.clone()).collect()
}

/// Forget the recorded violations (tests holding
/// [`exclusive`](crate::exclusive()) may start from a clean log).
pub fn clear_violations() {
    lock(&LOG).clear();
}

/// Record a violation if the calling thread is not on `object_device`.
pub(crate) fn check(function: &'static str, object_device: usize) {
    let current = current_device();
    if current != object_device {
        let name = thread_name();
        log::debug!("hip simulator: context violation: {function} on device {object_device} from device {current}");
        push(Violation::of(ViolationKind::Context, function, object_device, current, name));
    }
}

/// The name of the calling thread, as violations record it.
pub(crate) fn thread_name() -> String {
    let thread = std::thread::current();
    thread.name().map_or_else(|| format!("{:?}", thread.id()), str::to_string)
}

/// Record that a kernel `function` launched from `thread` ran on `device`
/// and touched memory of `memory_device` without peer access.
pub(crate) fn record_peer_access(function: &'static str, thread: String, device: usize, memory_device: usize) {
    log::debug!("hip simulator: {function} on device {device} touched device {memory_device} without peer access");
    push(Violation::of(ViolationKind::PeerAccess, function, memory_device, device, thread));
}

/// Record that `function`, called from `thread` on `device`, broke a
/// virtual-memory rule: `detail`.
pub(crate) fn record_virtual_memory(function: &'static str, thread: String, device: usize, detail: &'static str) {
    log::error!("hip simulator: {function} on device {device}: {detail}");
    push(Violation {
        detail: Some(detail),
        ..Violation::of(ViolationKind::VirtualMemory, function, device, device, thread)
    });
}

/// Record that a kernel launched by `function` from `thread` on `device`
/// faulted: `fault`.
pub(crate) fn record_kernel_fault(function: &'static str, thread: String, device: usize, fault: KernelFault) {
    log::error!("hip simulator: {function} on device {device}: {fault}");
    push(Violation {
        kernel: Some(fault),
        ..Violation::of(ViolationKind::KernelFault, function, device, device, thread)
    });
}

/// Record that a kernel launched by `function` from `thread` on `device`
/// raced on shared memory: `race`.
pub(crate) fn record_shared_race(function: &'static str, thread: String, device: usize, race: SharedRace) {
    log::error!("hip simulator: {function} on device {device}: {race}");
    push(Violation {
        shared_race: Some(race),
        ..Violation::of(ViolationKind::SharedMemoryRace, function, device, device, thread)
    });
}

/// Record a violation found elsewhere (the race detector).
pub(crate) fn record(violation: Violation) {
    push(violation);
}

/// Record that `function` synchronized `device` while a collective there
/// waited for peers that had not made their call.
pub(crate) fn record_collective_deadlock(function: &'static str, device: usize) {
    log::error!("hip simulator: {function} on device {device} while a collective waits for its peers' calls");
    push(Violation::of(ViolationKind::CollectiveDeadlock, function, device, current_device(), thread_name()));
}
