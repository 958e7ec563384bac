//! One launch of a kernel compiled for the CPU.
//!
//! The device memory its pointer arguments point into is locked (in
//! address order, as copies lock) and staged: each buffer (a pool's block,
//! where a pool told the simulator of its blocks; else the allocation, or
//! for reserved addresses the run of mappings) has its bytes in a mapping
//! of their own between guard pages ([`staged`]), so an access past either
//! end faults there, and is reported with the buffer it missed. The kernel's
//! pointers are translated to the staged bytes; a pointer into host
//! memory that is not pinned is given an address that faults, and one
//! into no allocation keeps its device address, which faults too. After
//! the grid has run the bytes go back, and the buffers are unlocked.
//!
//! A fault ends the launch: [`ViolationKind::KernelFault`] names the
//! kernel, the block, the thread, the address and the buffer, and the
//! stream faults (a sticky error, as on a GPU).
//!
//! [`ViolationKind::KernelFault`]: crate::machine::violations::ViolationKind::KernelFault

use super::module::{Kernel, LaunchC};
use super::staged::{self, Staged};
use super::{cores, statics, watchdog};
use crate::bindings::hip::hipError_t;
use crate::kernels::Launch;
use crate::machine::blocks::{self, Cover};
use crate::machine::lock::lock;
use crate::machine::memory::{Allocation, Bytes};
use crate::machine::peers::peer_access_enabled;
use crate::machine::pinned::pinned_containing;
use crate::machine::races::Access;
use crate::machine::violations::{self, AccessKind, KernelFault, SharedRace};
use crate::machine::vmm;
use crate::place::{resolve, Place};
use std::ffi::{c_void, CStr};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Where pointers into unpinned host memory go: a range no process maps
/// (above the simulator's device addresses), one window per argument.
const POISON: usize = 0xffff_e000_0000_0000;
/// The window of one poisoned argument.
const WINDOW: usize = 1 << 40;

/// The dimensions of a launch.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    pub warp_size: u32,
    /// How long it may run (`AMDGPU_SIM_WATCHDOG`; none: unwatched).
    pub watchdog: Option<Duration>,
}

impl Dims {
    /// The place of `block` in the order a launch claims blocks (x first).
    fn linear(&self, block: [u32; 3]) -> u64 {
        let [x, y, z] = block.map(u64::from);
        (z * u64::from(self.grid[1]) + y) * u64::from(self.grid[0]) + x
    }
}

/// A buffer a launch reaches: an allocation's bytes from `start`, `len`
/// of them (all it was asked for; for reserved addresses, the run of
/// mappings the pointer is in).
struct Region {
    allocation: Arc<Allocation>,
    start: usize,
    len: usize,
    /// Whether a pointer to non-`const` reaches it (else its bytes need not
    /// go back).
    written: bool,
}

/// What `translate` reads: the staged buffers and the poisoned arguments.
struct Context {
    staged: Vec<Staged>,
    /// The host addresses given to poisoned arguments, by window.
    poisoned: Vec<usize>,
}

/// The launcher's `translate`: a device address as the host address of
/// its staged byte; anything else as prepared by [`run`].
unsafe extern "C" fn translate(context: *mut c_void, address: usize) -> *mut c_void {
    // SAFETY: `context` is the `Context` `run` passes for this launch.
    let context = unsafe { &*context.cast::<Context>() };
    if address == 0 {
        return std::ptr::null_mut();
    }
    // A buffer's byte first: the address one past a buffer's end may be
    // the next buffer's first byte.
    let byte = context.staged.iter().find_map(|s| s.host(address, false));
    if let Some(host) = byte.or_else(|| context.staged.iter().find_map(|s| s.host(address, true))) {
        return host.cast();
    }
    if let Some(window) = context.poisoned.iter().position(|&p| p == address) {
        return (POISON + window * WINDOW + WINDOW / 2) as *mut c_void;
    }
    address as *mut c_void
}

/// What a launch reaches, found when it is queued (its buffers are live
/// then; a buffer freed while the launch waits in the queue stays its
/// until the launch has run, as the pool keeps it).
pub struct Plan {
    regions: Vec<Region>,
    /// Pointers into host memory that is not pinned.
    poisoned: Vec<usize>,
}

/// The buffers `kernel`'s pointer arguments `args` point into, for a
/// launch on `device`; and the race detector's view of the launch: for
/// each pointer argument into device memory, from it to its buffer's end
/// (its pool block's, else its allocation's), read through a pointer to
/// `const`, else written (the kernel may touch any of it).
pub fn plan(kernel: &Kernel, args: &[Vec<u8>], device: usize) -> (Plan, Vec<Access>) {
    let mut regions: Vec<Region> = Vec::new();
    let mut poisoned = Vec::new();
    let mut accesses = Vec::new();
    for ((arg, &pointer), &read_only) in args.iter().zip(&kernel.pointers).zip(&kernel.reads_only) {
        let Ok(bytes) = <[u8; 8]>::try_from(arg.as_slice()) else { continue };
        let address = usize::from_ne_bytes(bytes);
        if !pointer || address == 0 {
            continue;
        }
        match resolve(address, 1) {
            Ok(Place::Device(allocation, offset)) => {
                let cover = blocks::cover(&allocation, address);
                let end = match cover {
                    Cover::Block(start, len) => Some(start - allocation.base + len),
                    Cover::Free => None,
                    Cover::Whole => Some(allocation.requested()),
                };
                let kind = if read_only { AccessKind::Read } else { AccessKind::Write };
                let place = Place::Device(allocation.clone(), offset);
                let access = end.and_then(|end| end.checked_sub(offset)).filter(|&len| len > 0);
                accesses.extend(access.and_then(|len| place.access(len, kind)));
                let region = match cover {
                    // A pool's buffer: exactly its bytes.
                    Cover::Block(start, len) => Some((start - allocation.base, len)),
                    // A block the pool holds free: nothing (it faults).
                    Cover::Free => None,
                    Cover::Whole if allocation.virtual_range => vmm::writable_run(allocation.base, offset, device),
                    Cover::Whole => Some((0, allocation.requested())),
                };
                let reachable =
                    allocation.managed || allocation.virtual_range || peer_access_enabled(device, allocation.device);
                let Some((start, len)) = region.filter(|_| reachable) else { continue };
                match regions.iter_mut().find(|r| Arc::ptr_eq(&r.allocation, &allocation) && r.start == start) {
                    Some(known) => known.written |= !read_only,
                    None => regions.push(Region { allocation, start, len, written: !read_only }),
                }
            }
            Ok(Place::Host(host)) if pinned_containing(host).is_none() => poisoned.push(host),
            _ => {}
        }
    }
    // Locked in address order, as copies lock two allocations; once each.
    regions.sort_by_key(|r| (r.allocation.base, r.start));
    (Plan { regions, poisoned }, accesses)
}

/// Run `kernel` over `dims` with the argument bytes `args` (one entry per
/// parameter) on the buffers of `plan`, as part of `launch`.
///
/// The grid's blocks run on up to `cores` host threads at once.
pub fn run(
    kernel: &Kernel,
    args: &[Vec<u8>],
    dims: Dims,
    cores: usize,
    launch: &Launch,
    plan: &Plan,
) -> Result<(), hipError_t> {
    let (regions, poisoned) = (&plan.regions, plan.poisoned.clone());
    let mut locked: Vec<Arc<Allocation>> = Vec::new();
    for r in regions {
        if !locked.iter().any(|a| Arc::ptr_eq(a, &r.allocation)) {
            locked.push(r.allocation.clone());
        }
    }
    let mut guards: Vec<MutexGuard<'_, Bytes>> = locked.iter().map(|a| lock(&a.data)).collect();
    let guard_of = |r: &Region| locked.iter().position(|a| Arc::ptr_eq(a, &r.allocation)).unwrap_or(0);
    let mut staged = Vec::with_capacity(regions.len());
    for r in regions {
        let bytes = &guards[guard_of(r)];
        let end = (r.start + r.len).min(bytes.len());
        staged.push(staged::stage(&r.allocation, r.start, &bytes[r.start.min(end)..end], bytes.writes(), r.written)?);
    }
    let mut context = Context { staged, poisoned };
    let (outcome, race) = run_grid(kernel, args, dims, cores, &mut context);
    for (staged, r) in context.staged.iter().zip(regions).filter(|(_, r)| r.written) {
        let guard = &mut guards[guard_of(r)];
        staged.write_back(&mut guard[r.start..r.start + staged.len]);
    }
    // Each staged buffer now holds its bytes as they are after every write
    // back, unless another of the launch's buffers overlaps it (and may
    // have written its bytes since it was staged).
    for (i, (staged, r)) in context.staged.iter_mut().zip(regions).enumerate() {
        let overlaps = regions.iter().enumerate().any(|(j, o)| {
            j != i
                && Arc::ptr_eq(&o.allocation, &r.allocation)
                && o.start < r.start + r.len
                && r.start < o.start + o.len
        });
        if let (false, Some(writes)) = (overlaps, guards[guard_of(r)].writes()) {
            staged.holds(&r.allocation, r.start, writes);
        }
    }
    drop(guards);
    if let Some(race) = race {
        violations::record_shared_race(launch.function, launch.thread.to_string(), launch.device, race);
    }
    let (kind, block, thread, what, address) = match outcome {
        Outcome::Done => return Ok(()),
        Outcome::Fault(config) => {
            let (what, address) = describe(&config, &context, dims.watchdog);
            (config.fault, config.fault_block, config.fault_thread, what, address)
        }
        Outcome::Stopped(block) => {
            let what = format!(
                "the launch ran past the simulator's watchdog ({}), and its blocks from this one on were not run",
                watchdog_limit(dims.watchdog)
            );
            (WATCHDOG, block, [0; 3], what, 0)
        }
    };
    let fault = KernelFault { kernel: kernel.name.clone(), block, thread, address, what };
    violations::record_kernel_fault(launch.function, launch.thread.to_string(), launch.device, fault);
    Err(match kind {
        1 => hipError_t::hipErrorIllegalAddress,
        2 | WATCHDOG => hipError_t::hipErrorLaunchTimeOut,
        4 => hipError_t::hipErrorAssert,
        _ => hipError_t::hipErrorLaunchFailure,
    })
}

/// launch.h's `kWatchdog`.
const WATCHDOG: u32 = 6;

/// How a grid's run ended.
enum Outcome {
    /// Every block ran to its end.
    Done,
    /// A block faulted: the lowest such block's launcher config.
    Fault(Box<LaunchC>),
    /// The watchdog stopped the launch with no thread in the kernel's
    /// code; the first block not run.
    Stopped([u32; 3]),
}

/// Run the grid's blocks on up to `cores` host threads, each with a
/// launcher config of its own, under the watchdog: how it ended, and the
/// first shared-memory race found (with the race check).
fn run_grid(
    kernel: &Kernel,
    args: &[Vec<u8>],
    dims: Dims,
    cores: usize,
    context: &mut Context,
) -> (Outcome, Option<SharedRace>) {
    let blocks = dims.grid.iter().map(|&n| u64::from(n)).product::<u64>();
    let next_block = AtomicU64::new(0);
    let first_fault = Arc::new(AtomicU64::new(u64::MAX));
    let context_address: *mut c_void = (context as *mut Context).cast();
    let parts = usize::try_from(blocks).unwrap_or(usize::MAX).min(cores).max(1);
    // Runs of consecutive blocks per host thread, so that each streams
    // through memory of its own; short enough that every host thread
    // gets about four.
    let block_run = (blocks / (parts as u64 * 4)).clamp(1, 64) as u32;
    let fresh = || LaunchC {
        grid: dims.grid,
        block: dims.block,
        dynamic_shared: dims.dynamic_shared,
        warp_size: dims.warp_size,
        translate,
        context: context_address,
        next_block: &next_block,
        first_fault: Arc::as_ptr(&first_fault),
        fault: 0,
        fault_block: [0; 3],
        fault_thread: [0; 3],
        fault_address: 0,
        message: [0; 512],
        races: 0,
        race_block: [0; 3],
        race_threads: [0; 6],
        race_kinds: [0; 2],
        race_dynamic: 0,
        race_offset: 0,
        block_run,
        not_run: u64::MAX,
    };
    let configs: Vec<Mutex<LaunchC>> = (0..parts).map(|_| Mutex::new(fresh())).collect();
    let watch = watchdog::watch(dims.watchdog, &first_fault);
    cores::on_cores(parts, cores, &|part| {
        let _running = watch.enter();
        let mut config = lock(&configs[part]);
        let mut pointers: Vec<*mut c_void> = args.iter().map(|a| a.as_ptr().cast_mut().cast()).collect();
        // SAFETY: the launcher of this kernel, given a config of its
        // layout and one pointer per parameter to bytes of the parameter's
        // size; the memory its pointers reach is staged (or faults), and
        // the staged buffers, the context and the shared counters outlive
        // every part of the launch. The parts share only the counters
        // (atomics) and the context (read only). A part that fails says
        // why in its config's `fault`, which is all that is read of it.
        unsafe { (kernel.launch)(&mut *config, pointers.as_mut_ptr()) };
    });
    let parts: Vec<LaunchC> = configs.into_iter().map(|c| c.into_inner().unwrap_or_else(|p| p.into_inner())).collect();
    let race = shared_race(kernel, &parts, dims);
    // Each part says where it stopped, having run every block it claimed
    // before (a part that never ran claimed none): the first block not
    // run is the lowest of those.
    let first = parts.iter().map(|c| c.not_run).min().unwrap_or(u64::MAX);
    // The fault of the lowest block (the one a launch in order meets).
    let faulted = parts.into_iter().filter(|c| c.fault != 0).min_by_key(|c| dims.linear(c.fault_block));
    let outcome = match faulted {
        Some(config) => Outcome::Fault(Box::new(config)),
        None if watch.expired() && first < blocks => {
            let (gx, gy) = (u64::from(dims.grid[0]), u64::from(dims.grid[1]));
            Outcome::Stopped([(first % gx) as u32, (first / gx % gy) as u32, (first / (gx * gy)) as u32])
        }
        None => Outcome::Done,
    };
    (outcome, race)
}

/// The first shared-memory race the launch's parts found (the lowest
/// block's), with the count of all of them.
fn shared_race(kernel: &Kernel, parts: &[LaunchC], dims: Dims) -> Option<SharedRace> {
    let count = parts.iter().map(|c| u64::from(c.races)).sum::<u64>();
    let first = parts.iter().filter(|c| c.races > 0).min_by_key(|c| dims.linear(c.race_block))?;
    let kind = |wrote: u32| if wrote != 0 { AccessKind::Write } else { AccessKind::Read };
    let t = first.race_threads;
    let (memory, offset) = if first.race_dynamic != 0 {
        ("dynamic shared memory".to_owned(), first.race_offset)
    } else {
        statics::name(&kernel.statics, first.race_offset)
            .unwrap_or_else(|| ("static shared memory".to_owned(), first.race_offset))
    };
    Some(SharedRace {
        kernel: kernel.name.clone(),
        block: first.race_block,
        first: ([t[0], t[1], t[2]], kind(first.race_kinds[0])),
        second: ([t[3], t[4], t[5]], kind(first.race_kinds[1])),
        memory,
        offset: usize::try_from(offset).unwrap_or(usize::MAX),
        count,
    })
}

/// The watchdog's limit, in words.
fn watchdog_limit(limit: Option<Duration>) -> String {
    match limit {
        Some(limit) => format!("AMDGPU_SIM_WATCHDOG, {} s", limit.as_secs_f64()),
        None => "AMDGPU_SIM_WATCHDOG".to_owned(),
    }
}

/// The fault's words, and the device (or host) address it touched.
fn describe(config: &LaunchC, context: &Context, watchdog: Option<Duration>) -> (String, usize) {
    // SAFETY: the launcher writes a NUL-terminated message (zeroed first).
    let message = unsafe { CStr::from_ptr(config.message.as_ptr()) }.to_string_lossy().into_owned();
    let at = config.fault_address;
    if config.fault == WATCHDOG {
        let what = format!(
            "the kernel ran past the simulator's watchdog ({}) and this thread was still running: a loop that \
             waits for another block, or for a value no thread writes, hangs a GPU",
            watchdog_limit(watchdog)
        );
        return (what, 0);
    }
    if config.fault != 1 {
        return (message, 0);
    }
    for s in &context.staged {
        if let Some(offset) = s.offset_of(at) {
            let address = s.base.wrapping_add_signed(offset);
            if offset >= 0 && (offset as usize) < s.len {
                return (
                    format!(
                        "a write to the {}-byte buffer at {:#x}, which the kernel was given only pointers to const \
                         for (its bytes are read-only to it)",
                        s.len, s.base
                    ),
                    address,
                );
            }
            let side = if offset < 0 { "before the start" } else { "past the end" };
            return (
                format!("an access {side} of the {}-byte buffer at {:#x} (the kernel's argument)", s.len, s.base),
                address,
            );
        }
    }
    if let Ok(Place::Device(allocation, _)) = resolve(at, 1) {
        // A pointer the kernel read from memory, not one of its arguments,
        // holds a device address: it lands here.
        let stored = "; a device pointer read from memory or from a structure passed by value lands here too: the \
                      simulator gives a kernel only the buffers its pointer arguments point into, at addresses of \
                      its own (pointers stored in memory are not modelled)";
        let what = match blocks::cover(&allocation, at) {
            Cover::Free => {
                "an access to memory its pool holds free: a buffer freed already, or never handed out".to_owned()
            }
            Cover::Block(..) => {
                format!("an access to a buffer the kernel was not given (no pointer argument points into it){stored}")
            }
            Cover::Whole => format!(
                "an access to an allocation the kernel was not given (no pointer argument points into it){stored}"
            ),
        };
        return (what, at);
    }
    if at >= POISON && at - POISON < context.poisoned.len() * WINDOW {
        let window = (at - POISON) / WINDOW;
        let host = context.poisoned[window].wrapping_add((at - POISON - window * WINDOW).wrapping_sub(WINDOW / 2));
        return ("an access to host memory that is not pinned: a GPU cannot reach it".to_owned(), host);
    }
    (message, at)
}
