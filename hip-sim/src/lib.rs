//! The HIP simulator: a faithful, thread-safe software HIP runtime.
//!
//! It fills the same `HipApi` table (from `hip-abi`, the C ABI every
//! backend shares) as the real backends, so code above `hip-sys` cannot
//! tell it apart from HIP, except that it is **stricter**. It is the
//! backend of the project's tests and of any machine without a GPU
//! (`AMDGPU_BACKEND=sim`, or detection finding no GPU). It is a crate of
//! its own, with its FFT and matrix libraries: `hip-sys`'s `sim` feature
//! pulls it in as `hip_sys::sim` and the `sim` backend
//! ([`configure_from_env`], [`api`], [`PROVIDER`]); a build for GPUs only
//! leaves it out.
//!
//! # Configuration
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `AMDGPU_SIM_DEVICES` | number of devices (0 gives HIP's no-device behaviour) | 2 |
//! | `AMDGPU_SIM_MEMORY` | bytes of memory per device (`1GiB`, `512MB`, `4096`) | 1 GiB |
//! | `AMDGPU_SIM_TARGETS` | each device's AMD target, device 0 first: `gfx90a` (wavefronts of 64, architecture 9.0) or `gfx1030` (wavefronts of 32, 10.3); `hipDeviceAttributeWarpSize`, the architecture attributes, the device's name and compiled kernels' `warpSize` follow; devices past the list are gfx90a | `gfx90a` for every device |
//! | `AMDGPU_SIM_CORES` | how many host threads run a compiled kernel's blocks at once, 1 to 1024 (`1`: block after block) | the host's cores |
//! | `AMDGPU_SIM_WATCHDOG` | seconds a compiled kernel's launch may run (`0.5`, `60`) before it is stopped and reported, or `off` | 60 |
//! | `AMDGPU_SIM_RACECHECK` | `on`: compiled kernels are built with the shared-memory race check (two threads of a block touching one byte of shared memory between barriers, one writing, are a [`ViolationKind::SharedMemoryRace`]); slower kernels, as compute-sanitizer's racecheck | `off` |
//! | `AMDGPU_SIM_APU` | `on`: the devices are APUs sharing the host's memory, which `hipDeviceAttributeIntegrated` says where clr does (see "Per HIP version"); `AMDGPU_SIM_MEMORY` then stands for what the kernel driver reports as the GPU's local memory (the carve-out, or on newer kernels with a small one, the GTT limit), which is all `hipMemGetInfo` reports on a real APU | `off` |
//! | `AMDGPU_SIM_HIP_VERSION` | the HIP major version to behave as: `5`, `6` or `7` (see "Per HIP version" below; `hipRuntimeGetVersion` reports 5.7.0, 6.0.0 or 7.0.0) | 7 |
//! | `AMDGPU_SIM_ROCFFT_VERSION` | the rocFFT version modelled (`1.0.x`): before `1.0.25` (ROCm 6.0), out-of-place R2C transforms overwrite their input, as that rocFFT's may (C2R ones always do); an invalid value makes rocFFT fail to load, saying why | `1.0.27` (ROCm 6.1) |
//! | `AMDGPU_SIM_ROCSPARSE_VERSION` | the rocSPARSE simulated: `2` (2.x, ROCm 5: SpMV/SpMM stage auto exists) or `3` (3.x, ROCm 6 and 7: no auto stage); see [`RocsparseVersion`] | 3 |
//! | `AMDGPU_SIM_RACES` | `record` to record stream races as violations, `off` to skip the tracking (see "Stream races") | `record` |
//! | `AMDGPU_TRACE` | a path: record the stream timeline from the start and write it there as a Chrome trace when the process exits, with the HTML page beside it (`.html`); see "Annotations and the stream timeline" | unset |
//!
//! Host memory is taken only for bytes actually allocated, and lazily by
//! the operating system's zeroed pages.
//!
//! # What it models (HIP 5.7, 6.x and 7.x behaviour, `reference/hip_semantics.md`)
//!
//! - **Per-thread state**: a current device per thread, lazily device 0;
//!   `hipSetDevice` affects only the calling thread; a context stack;
//!   primary contexts 1:1 with devices, and `hipCtxSetCurrent` changes what
//!   `hipGetDevice` returns. With no devices, every call returns
//!   `hipErrorNoDevice` (and `hipGetDeviceCount` writes 0).
//! - **Last error, per HIP version**: with HIP 7 (the default) a failing
//!   call (other than `hipErrorNotReady`) sets the thread's last error and
//!   successful calls do not clear it, as on CUDA; with HIP 5 and 6 every
//!   call stores its status, success included. `hipGetLastError` returns
//!   it and resets it to `hipSuccess`; `hipPeekAtLastError` returns it.
//! - **Memory**: each device's pointers lie in their own address range, so
//!   a pointer names its device. `hipMalloc` on the current device, out of
//!   memory at capacity, `hipFree` of null is a no-op, unknown or
//!   double-freed pointers give `hipErrorInvalidValue`; `hipMalloc(0)` gives
//!   null. `hipMemcpy*` take the direction from the pointers (the kind is
//!   only validated); copies and fills are bounded by the size the caller
//!   asked for, not the rounded one (`hipErrorInvalidValue` past it), in
//!   pinned host memory too; `hipMemset*`, `hipMemGetInfo`.
//! - **What waits, as in clr 5.7 to 7.x.** `hipFree` synchronizes the
//!   allocation's device (all its streams, not other devices'), except that
//!   on HIP 7 memory of a stream-ordered pool goes back to its pool with no
//!   synchronization. `hipHostFree` synchronizes only the device that was
//!   current at `hipHostMalloc`. `hipMemcpy` between device memory of one
//!   device (also through `hipMemcpyPeer`) and `hipMemset`/`hipMemsetD32`
//!   of device memory from an allocation's base are enqueued on the null
//!   stream and return before they run; other `hipMemcpy`s, fills from an
//!   interior pointer and fills of pinned host memory wait.
//!   [`hold_stream`] lets tests see which calls wait.
//! - **Pinned host memory**: `hipHostMalloc` rejects Coherent with
//!   NonCoherent (and on HIP 7 Uncached with either), accepts unknown
//!   bits, gives null for 0 bytes (on HIP 5 after the flag check);
//!   `hipMemset` of it is allowed. `hipPointerGetAttributes` answers any
//!   address inside an allocation with that address as `devicePointer`
//!   (and `hostPointer` for pinned memory), the allocation's device and the
//!   `hipHostMalloc` flags; an unknown pointer is `hipErrorInvalidValue` on
//!   HIP 5, and on HIP 6 and 7 a success with device -2, null pointers and
//!   memory type 0 (HIP 6's `hipMemoryTypeUnregistered`; the table's types
//!   are HIP 5.7's, whose numbering the simulator keeps for registered
//!   memory).
//! - **Registered host memory** (`hipHostRegister`): null, 0 bytes or
//!   flags above 15 are `hipErrorInvalidValue`; bytes already pinned are
//!   `hipErrorHostMemoryAlreadyRegistered`; the memory is then pinned
//!   memory as above (bounded copies, race tracking) until
//!   `hipHostUnregister` of its base, which synchronizes the device current
//!   at registration (anything else is `hipErrorHostMemoryNotRegistered`);
//!   `hipHostFree` refuses it.
//! - **Stream capture and graphs** as clr does them, per version (the
//!   rule table is in `capture.rs`): work on a capturing stream becomes a
//!   graph node; streams join a capture through events; calls a capture
//!   forbids return clr's code (900, 901, 903, 904, 905, 906, 907, 908)
//!   and, from HIP 6, invalidate it; a launch replays the nodes through
//!   the race detector with their captured addresses;
//!   `hipGraphExecUpdate` refuses another shape (910), in clr's order:
//!   node types, then (from HIP 6) a copy node whose `hipMemcpyKind`
//!   changed, then dependencies, then a kernel of another function.
//! - **Graph memory** (`graph_memory.rs`): `hipMallocAsync` in a capture
//!   reserves an address and adds an allocation node, `hipFreeAsync` a
//!   free node (of graph memory only); launches map and unmap the memory,
//!   a repeat launch whose memory nothing freed is refused (unless
//!   instantiated with AutoFreeOnLaunch), a graph with memory nodes is
//!   instantiated once, and memory a launch left allocated outlives its
//!   graph until `hipFreeAsync` or `hipFree`. Each device's graph memory
//!   pool reserves whole 2 MiB blocks until `hipDeviceGraphMemTrim`, with
//!   the four `hipDeviceGetGraphMemAttribute` counters. Work on the memory
//!   while nothing is mapped is a reported use after free; new memory
//!   reads as all ones.
//! - **Host functions** (`hipLaunchHostFunc`): run on the stream's worker
//!   in stream order; the stream's later work waits for them.
//! - **Stream-ordered memory**: `hipMallocAsync` on the stream's device,
//!   `hipFreeAsync` returning the block to its pool in stream order, one
//!   default pool per device plus created pools, the release threshold
//!   (memory above it is released at the next synchronization), reserved
//!   and used counters with high-water marks, `hipMemPoolTrimTo`.
//! - **Streams** run their work in order on worker threads, so work is
//!   really asynchronous (`hipStreamQuery` reports `hipErrorNotReady`
//!   while busy). Streams are bound to the device current at creation.
//!   The null stream of a device is synchronizing (legacy semantics): it
//!   waits for the device's blocking streams, and they wait for it.
//!   `hipStreamPerThread` is each thread's own blocking stream per device
//!   (made on first use, normal priority), not the null stream;
//!   `hipStreamLegacy` is the null stream where the version knows it;
//!   destroying the null, per-thread or legacy stream is
//!   `hipErrorInvalidHandle`. Priorities are clr's High -1, Normal 0,
//!   Low 1 (`hipDeviceGetStreamPriorityRange` gives least 1, greatest -1),
//!   and requests are clamped to them; flags other than 0 and
//!   `hipStreamNonBlocking` are `hipErrorInvalidValue`, as is
//!   `hipStreamGetFlags` of the null stream.
//! - **Events** are bound to the device current at creation; recording on
//!   another device's stream is `hipErrorInvalidHandle`; elapsed time
//!   between two events of one device, `hipErrorInvalidHandle` when either
//!   was never recorded or has `hipEventDisableTiming`;
//!   `hipStreamWaitEvent` across devices. Creation flags are checked as
//!   clr does (known bits, at most one release/fence flag,
//!   `hipEventInterprocess` only with `hipEventDisableTiming`).
//! - **Kernels**: a sim code object is NUL-terminated text naming kernels of
//!   the simulator's built-in Rust kernels ([`KERNELS`], over
//!   [`KernelArgs`]), the stand-ins for a precompiled code object; see
//!   [`code_object`]. A program's own HIP source compiles instead (see
//!   "Your kernels, compiled for the CPU"). `hipModuleLoadData` loads it on the current device,
//!   `hipModuleLaunchKernel` runs the kernel over the grid on the stream's
//!   worker. A kernel that touches memory outside a live allocation raises
//!   a sticky `hipErrorIllegalAddress`, as ROCm 7 does after a GPU fault
//!   (earlier versions abort the process).
//!   Launch limits and their codes follow the version (below); the device
//!   reports clr's limits: grid 2147483647 × 65536 × 65536, 1024 threads a
//!   block (a product, not per dimension), 64 KiB of shared memory.
//! - **Peer access**: `hipDeviceCanAccessPeer` (every pair of distinct
//!   devices), `hipDeviceEnablePeerAccess` / `hipDeviceDisablePeerAccess`
//!   per (current device, peer); [`set_peer_reachable`] models a pair
//!   with no link (then clr's answers: 0, and `hipErrorInvalidDevice` to
//!   enable or disable). A kernel that touches another device's
//!   memory without it faults as above and is recorded as a
//!   [`ViolationKind::PeerAccess`] violation. Copies between devices need
//!   no peer access (HIP stages them).
//! - **Memory pools** start with the three reuse attributes at 1 (only
//!   bit 0 of a value set counts) and a release threshold of 0; the
//!   current counters are read-only, the high-water marks settable only to
//!   0, which resets them to 0. A completed free is reused by a stream clr
//!   deems safe for the block (the one that allocated it, and from HIP 7
//!   the one that freed it) and by any other only while
//!   `hipMemPoolReuseAllowOpportunistic` is 1; a synchronization adds no
//!   safe stream.
//! - **Virtual memory** (`hipMemAddressReserve`, `hipMemCreate`,
//!   `hipMemMap`, `hipMemSetAccess`, …): none on HIP 5 and 6, which the
//!   simulator models by clr 6.0 (the attribute is 0, a reservation is a
//!   null address, a mapping maps nothing); on HIP 7, clr 7.2's rules: the
//!   4 KiB page as granularity for both options, sizes of whole 2 KiB and
//!   pages, alignment never passed on (a reservation is aligned to the
//!   page and, on purpose, to nothing larger), a mapping with no access
//!   until `hipMemSetAccess` (whose size must equal the mappings' sizes
//!   summed in the order they were mapped: clr 7.2's check), unmaps of
//!   whole mappings only, map and unmap on the null stream of the
//!   device, waited for (an unmap is a free to the race detector: work
//!   of a non-blocking stream still using the memory races with it),
//!   physical memory charged to its device until released and unmapped,
//!   sharing by a descriptor passed by value. Chunks mapped one after
//!   another are one range; two mappings of one allocation are one
//!   memory. A kernel or copy touching mapped memory its device has no
//!   access to faults (`hipErrorIllegalAddress`) and is recorded as a
//!   [`ViolationKind::VirtualMemory`] violation, as is every call clr
//!   would crash on or answer success for having done nothing (a range
//!   outside every reservation, a mapping over a mapping, a stale handle).
//!   Host-located physical memory is `hipErrorNotSupported`.
//! - **Managed memory** (`hipMallocManaged`, `hipMemPrefetchAsync`,
//!   `hipMemAdvise`, `hipMemRangeGetAttribute`) as on a machine with
//!   heterogeneous memory management and no XNACK (`ManagedMemory` and
//!   `ConcurrentManagedAccess` 1, `PageableMemoryAccess` 0): page-aligned
//!   host memory at a real host address, which the host reads and writes
//!   directly and kernels and copies of every device reach with no peer
//!   access; clr's checks and codes (0 bytes or flags other than
//!   `hipMemAttachGlobal`/`Host`, ranges past the allocation's end, a
//!   device checked before the pointer for advice other than read-mostly,
//!   plain host memory that cannot be prefetched to a device); the last
//!   prefetch location (set when the stream gets there), preferred
//!   location, read-mostly, accessed-by and coherency mode remembered per
//!   allocation; `hipPointerGetAttributes` says managed; `hipFree` waits
//!   for its device.
//! - **Attributes and names**: `hipDeviceGetAttribute` answers only what
//!   clr's switch answers in the version (its default branch is
//!   `hipErrorInvalidValue`; 64, 86, 10001, 10003 and 10004, `Unused1..5`
//!   from HIP 6, never). `hipGetErrorName`/`String` know every code of
//!   clr's table and give `"hipErrorUnknown"`/`"unknown error"` for the
//!   rest, as clr does (also for 911, 912 and 914-916, which its table
//!   lacks); [`describe`] names those too.
//!
//! # Per HIP version
//!
//! Where clr's minors within a major differ, the simulator takes the
//! strictest (for HIP 6 mostly 6.0-6.2), so code that passes on it passes
//! on every minor.
//!
//! | | HIP 5 (5.7) | HIP 6 | HIP 7 |
//! |---|---|---|---|
//! | last error | every call's status | every call's status | failures only, kept until read |
//! | grid Y/Z accepted up to | 2147483647 | 2097151 | 65536 |
//! | zero grid or block | `InvalidValue` | `InvalidConfiguration` | `InvalidValue` |
//! | launch on an unknown stream | `InvalidValue` | `InvalidValue` | `ContextIsDestroyed` |
//! | launch on a stream of a non-current device | allowed (a violation) | allowed (a violation) | `InvalidResourceHandle` |
//! | `hipStreamLegacy` | unknown stream | unknown stream (added in 6.3) | the null stream |
//! | `hipMemcpyDeviceToDeviceNoCU` | `InvalidMemcpyDirection` | `InvalidMemcpyDirection` (added in 6.2) | accepted |
//! | setting `ReservedMemHigh` | `InvalidValue` (5.7.x/6.0.x fall-through) | `InvalidValue` | 0 resets it |
//! | `PciDomainID`, `StreamPrioritiesSupported`, `TotalGlobalMem` | `InvalidValue` | answered | answered |
//! | virtual memory (`VirtualMemoryManagementSupported`) | none (0) | none (0; 6.0) | clr 7.2's (1) |
//! | `Integrated` with `AMDGPU_SIM_APU=on` | never set (0) | never set (0; clr sets it from 6.2) | 1 |
//!
//! In every version a block of more than 1024 threads, more shared memory
//! than the device has, or `gridDim.x` above 2147483647 is
//! `hipErrorInvalidValue`, and `gridDim.x × blockDim.x` above `UINT32_MAX`
//! is `hipErrorInvalidConfiguration` (HIP 5.7's check; 7.x wraps silently,
//! which the simulator refuses rather than run a wrong grid).
//!
//! # Stricter than HIP, on purpose
//!
//! Every call that acts on an object of device D (a pointer, stream, event,
//! module, function or pool) while the calling thread's current device is
//! not D is recorded as a [`Violation`], even where real HIP tolerates it
//! (`hipFree`, `hipStreamDestroy`, `hipEventDestroy` on AMD). Tests assert
//! that [`violations()`] stays empty. A module function looked up on a
//! device other than the one the module was loaded on is also an error
//! (`hipErrorInvalidDevice`), where real HIP aborts the process.
//!
//! # Stream races
//!
//! The simulator records a [`ViolationKind::StreamRace`] when two
//! operations touch overlapping bytes, at least one writes them, and
//! nothing orders one before the other; or when an operation touches
//! memory that a free not ordered after it released (or that a free
//! ordered before it released: a use after free). [`Violation::race`]
//! names both operations (the functions that enqueued them), their
//! streams, what each did and the bytes both touched. Tracked memory is
//! device memory and pinned host memory (`hipHostMalloc`); pageable host
//! memory is the caller's and is not tracked.
//!
//! What the operations touch: copies read their source and write their
//! destination, fills write, kernels read and write the ranges their
//! built-in declares ([`KernelInfo::accesses`]), library calls read
//! their inputs and write their outputs and work buffers (rocFFT's input
//! too where it may overwrite it), and `hipFree`, `hipFreeAsync` and
//! `hipHostFree` free the whole allocation.
//!
//! What orders what (vector clocks, one component per stream and one for
//! the host):
//!
//! - **Stream order**: operations of one stream are ordered as enqueued.
//! - **Host order**: an operation is ordered after everything the host
//!   had synchronized with when it was enqueued, and after every free the
//!   host made before.
//! - **Events**: `hipEventRecord` captures what its stream's work so far
//!   is ordered after; `hipStreamWaitEvent` orders the stream's later work
//!   after that recording (not after later recordings of the event).
//! - **Host synchronization**: `hipStreamSynchronize`, a successful
//!   `hipStreamQuery`, `hipDeviceSynchronize` (every stream of the device,
//!   including destroyed streams whose work has run), `hipEventSynchronize`
//!   and a successful `hipEventQuery`, and every call that waits for its
//!   own work (`hipMemcpy` to or from host memory, fills from an interior
//!   pointer, `hipFree`'s and `hipHostFree`'s device synchronization) order
//!   the host after that work.
//! - **The legacy null stream**: its operations are ordered after the
//!   device's blocking streams' work enqueued before, and blocking
//!   streams' later operations after the null stream's; streams made with
//!   `hipStreamNonBlocking` are not ordered by it.
//! - **Pool reuse**: a block that a stream-ordered pool hands out again
//!   starts a new history (the pool reuses only frees that completed).
//!
//! Host threads share the host's clock: the simulator cannot see how they
//! synchronize with each other (joins, channels, locks), so a host
//! synchronization on one thread orders the work that any thread enqueues
//! afterwards. Races between two host threads that never synchronize with
//! each other are therefore missed, never invented.
//!
//! Everything is decided when work is enqueued, from the program's
//! synchronization, not from when the work happened to run, so a race is
//! reported on every run. Each access keeps an epoch per range, and an
//! access ordered after an older one it covers replaces it, so checking
//! costs little; at most 64 accesses are remembered per allocation.
//! `AMDGPU_SIM_RACES` says what to do with a race: `record` it (the
//! default), `fail` (record it and stop the process with the race on
//! stderr unless the thread [`expect_races`]; CI runs the whole suite so),
//! or `off` ([`race_check_enabled`]).
//!
//! # Your kernels, compiled for the CPU
//!
//! hipRTC compiles HIP source with the machine's C++ compiler
//! ([`cxx_compiler`]: `AMDGPU_SIM_CXX`, else `c++`, `g++` or `clang++` on
//! `PATH`) through a CPU flavour of `hip/hip_runtime.h`, into a code object
//! that `hipModuleLoadData` loads; `hipModuleGetFunction` finds its
//! `extern "C"` kernels by name and its templates by their name
//! expressions. Compiled objects are kept for the process, keyed by the
//! source, headers, options, prelude and compiler. With no compiler, the
//! compilation's log says what to install.
//!
//! - **Modelled**:
//!   - a grid of blocks run at once on the host's cores
//!     (`AMDGPU_SIM_CORES`), each block on one host thread, claimed in
//!     order (runs of consecutive blocks per host thread), so that of
//!     several faulting blocks the lowest is reported, as a launch of its
//!     blocks in order would meet it;
//!   - the threads of a block in lockstep at `__syncthreads` (and
//!     `_count`, `_and`, `_or`);
//!   - per wavefront of the device's width (64 for gfx90a, 32 for
//!     gfx1030; `AMDGPU_SIM_TARGETS`): `__shfl`, `__shfl_up`,
//!     `__shfl_down`, `__shfl_xor` (HIP's overloads for the arithmetic
//!     types, not a template), `__ballot`, `__ballot64`, `__any`, `__all`;
//!   - under HIP 7 (as from ROCm 6.2) `__activemask`, `__match_any`,
//!     `__match_all` and the `_sync` forms with 64-bit masks
//!     (`__shfl_sync` and kin, `__ballot_sync`, `__any_sync`,
//!     `__all_sync`, `__match_*_sync`), each mask's lanes meeting apart; a
//!     mask that is 0, does not name its lane, or names a lane that
//!     returns or waits elsewhere, and a shuffle reading outside it, fault;
//!   - static `__shared__` memory per block and dynamic (`extern
//!     __shared__`, `HIP_DYNAMIC_SHARED`);
//!   - cooperative groups' thread block (`hip/hip_cooperative_groups.h`,
//!     the same header hipRTC and NVRTC get);
//!   - half precision (`hip/hip_fp16.h`: `__half`, `__half2`, conversions
//!     rounded to nearest even, arithmetic correctly rounded, as a GPU's),
//!     and under HIP 6 and 7 bfloat16 (`hip/hip_bf16.h`:
//!     `__hip_bfloat16`, `__hip_bfloat162`, the same rounding);
//!   - atomics, `__threadfence*`, the math functions and fast intrinsics,
//!     the bit intrinsics, `printf` (to the process's stdout, at once),
//!     device `assert`, and `HIP_VERSION_MAJOR`/`_MINOR` of the HIP
//!     simulated.
//! - **Reported** (a [`ViolationKind::KernelFault`] naming kernel, block,
//!   thread, address and buffer, and a sticky error on the stream): an
//!   access outside the buffers a kernel's pointer arguments point into,
//!   to within 16 bytes of their ends (`hipErrorIllegalAddress`); a
//!   pointer into host memory that is not pinned; a block whose threads do
//!   not all reach the same barrier, or a warp whose lanes reach different
//!   intrinsics, and a launch that runs past the watchdog
//!   (`AMDGPU_SIM_WATCHDOG`: a block that waits for another block, say,
//!   with one core; the thread still running is named) —
//!   `hipErrorLaunchTimeOut`, where a GPU hangs; a failed
//!   `assert` (`hipErrorAssert`); a write through a pointer to `const`
//!   cast away (what a kernel is given only such pointers to is
//!   read-only to it, and need not be copied back). The race detector
//!   sees each pointer
//!   argument's memory, to its allocation's end: read through a pointer to
//!   `const`, else written.
//! - **Shared-memory races, with `AMDGPU_SIM_RACECHECK=on`** (a
//!   [`ViolationKind::SharedMemoryRace`] naming kernel, block, both
//!   threads, what each did, the `__shared__` variable by name or the
//!   dynamic shared memory, and the byte; the launch goes on, as
//!   compute-sanitizer's racecheck reports and goes on): the kernel is
//!   built with the compiler's thread-sanitizer instrumentation, whose
//!   calls the simulator answers itself (no sanitizer runtime), and each
//!   access to the block's shared memory is checked against the bytes'
//!   last writer and readers since the last `__syncthreads`. Lanes of one
//!   wavefront are ordered by a warp intrinsic they meet at; atomics never
//!   race with each other. Not seen: copies through the C library's
//!   `memcpy` (a copy the compiler makes a call), and an atomic against a
//!   plain access.
//! - **Not modelled, and refused or reported where they are used**:
//!   device pointers stored in memory (an array of pointers: the kernel
//!   sees device addresses, and touching one faults), pointers inside
//!   structures passed by value (the same), the older `hip_bfloat16`
//!   (`hip/hip_bfloat16.h`),
//!   grid-wide and multi-grid cooperative groups and tiled partitions,
//!   `__syncwarp`, inline GCN assembly, textures, dynamic
//!   parallelism. Compiled kernels run on x86-64 hosts.
//! - **What it costs**: a kernel's buffers are copied into mappings
//!   between guard pages for the launch and the written ones copied back;
//!   a buffer nothing wrote since a launch last staged it is taken back
//!   with no copy, so inputs read launch after launch are copied once.
//!   A block's threads run one after another on one stack until one
//!   waits; each thread that waits costs a switch of stacks at each
//!   barrier or warp intrinsic. On two cores, an elementwise kernel over
//!   2^24 floats takes about 1.6× its plain C++ loop, a 256-thread
//!   reduction with a barrier per step about 90× (`BENCHMARKS.md`).
//! - **More lenient than hipRTC** in one known way: an index
//!   (`threadIdx.x`) passed to `printf` uncast compiles here (and with
//!   NVRTC), where hipRTC refuses its index objects through `...`; the
//!   project compiles its own kernels with AMD's hipRTC in CI for that.
//!
//! # Not modelled
//!
//! Peer access in the simulated libraries (rocSPARSE, rocFFT and MIOpen
//! check their handle's device, not the peer state of the memory they
//! touch), `hipPointerSetAttribute` and its `SYNC_MEMOPS`,
//! `hipDeviceReset` beyond synchronizing, HIP calls made from inside a
//! host function (HIP forbids them; the simulator runs them), graphs
//! built node by node (`hipGraphAdd*Node`) rather than captured,
//! page migration (managed memory is one memory everywhere), textures, the `extra` launch argument
//! (`hipErrorNotSupported`), real GPU timing (events measure the
//! simulator's own host time), the minors within a HIP major (see above),
//! the reuse attributes other than opportunistic reuse, and the
//! renumbering of the newest headers (`hipErrorTbd` 1055).
//!
//! # Libraries
//!
//! rocBLAS, rocSPARSE, rocFFT, MIOpen, rocRAND, rocSOLVER and RCCL
//! ([`rocblas_api`], [`rocsparse_api`], [`rocfft_api`], [`miopen_api`],
//! [`rocrand_api`], [`rocsolver_api`], [`rccl_api`]) are computed on the
//! CPU over simulator memory, in stream order, with the same device checks:
//! handles and plans belong to the device current at creation, and calls
//! on them from another device are violations. Each library keeps its
//! objects in a registry of its own; [`live_library_objects`] counts them
//! over all.
//! rocBLAS checks its arguments as rocBLAS does (the shared rules) and
//! sizes its workspace, size queries included.
//! rocFFT is modelled down to what real rocFFT does to callers' data and
//! state: inputs it may overwrite are overwritten, single precision is
//! computed in single precision, and `rocfft_cleanup` invalidates the
//! plans it leaves behind (see [`rocfft_version`], [`set_rocfft_version`],
//! [`rocfft_setup_device`]).
//! rocSPARSE behaves as 3.x (ROCm 6 and 7) unless
//! `AMDGPU_SIM_ROCSPARSE_VERSION=2` or [`set_rocsparse_version`] says 2.x;
//! a CSR SpMV computed without its preprocess, which the real library
//! runs silently on a slower kernel, is recorded in
//! [`rocsparse_slow_paths`].
//! rocRAND ([`rocrand_api`]) is rocRAND 2.10's host API for Philox4x32-10,
//! XORWOW and MRG32k3a: their words and uniforms bit for bit, normals to a
//! few ulps, and Poisson numbers (MTGP32 is not modelled, and says so).
//! rocSOLVER ([`rocsolver_api`]) is rocSOLVER 3.21's LU, Cholesky, QR, the
//! symmetric eigensolver and the SVD on the CPU, one problem, strided
//! batches and pointer-array batches (read as the computation runs): its
//! argument rules, its workspace sizes through the rocBLAS handle (size
//! queries included), its `info` and pivots.
//! RCCL ([`rccl_api`]) runs each collective when every rank's stream has
//! reached it, and turns what hangs or computes garbage on a GPU into
//! errors: mismatched calls, ungrouped ranks of one thread, a rank that
//! never calls (after [`set_collective_timeout`]), an aborted peer, and a
//! device synchronize that a GPU would deadlock on (NCCL issue 48).
//!
//! # Annotations and the stream timeline
//!
//! The simulator's ROCTx records each thread's ranges and marks with
//! ROCTx's return values ([`profile_events`]). While a trace runs
//! ([`start_trace`]) it also records every operation queued on a stream,
//! with its device, stream and function and when it was queued, started
//! and ended ([`traced_ops`]); [`chrome_trace`] writes both as a Chrome
//! trace, which `chrome://tracing` and Perfetto open.
//!
//! # Introspection for tests
//!
//! [`violations()`], [`live_allocations`], [`call_count`] (and the per-thread
//! [`thread_call_count`]), [`inject_fault`], [`inject_sticky_fault`],
//! [`reset_faults`], [`hold_stream`]. Counters and faults are process-wide, while tests of
//! one binary run in parallel: a test that asserts exact counts, injects
//! faults or fills a device takes [`exclusive()`] first, and so should every
//! test of that binary that uses the simulator.

// The C entry points keep HIP's names.
#![allow(non_snake_case)]

// The C ABI every backend shares, under the names the simulator's modules
// use for it.
pub(crate) use hip_abi::{bindings, shared, sync, units, BackendError};

// The simulated machine and the rules it keeps (its parts are listed in
// its own table of contents): nothing there calls the entry points above.
mod machine;

// Operations over the machine, which the entry points share, and the
// timeline that records them (`trace`).
mod cpu;
mod entry;
mod kernels;
mod place;
mod submit;
mod targets;
mod trace;

// The C entry points, in the module vocabulary every backend shares
// (`hip`, `hiprtc`, `rocblas`, `rocsparse`, `rocfft`, `miopen`; `library`
// is what the four libraries share, `real` the two types they compute
// in), and the tables that hold them.
mod hip;
mod hiprtc;
mod library;
mod miopen;
mod provider;
mod rccl;
mod real;
mod rocblas;
mod rocfft;
mod rocrand;
mod rocsolver;
mod rocsparse;
mod rocsparse_mode;
mod roctx;
mod tables;

pub use crate::bindings::error_names::describe;
pub use kernels::{code_object, Arg, ArgAccess, DeviceValue, KernelArgs, KernelFn, KernelInfo, Param, KERNELS};
pub use library::live_library_objects;
pub use machine::addresses::MAX_DEVICES;
pub use machine::blocks::{forget_block, note_block};
pub use machine::calls::{call_count, thread_call_count};
pub use machine::config::{parse_devices, parse_memory, parse_targets, SimConfig, SimTarget};
pub use machine::exclusive::{exclusive, Exclusive};
pub use machine::faults::{inject_fault, inject_sticky_fault, reset_faults, Fault};
pub use machine::peers::set_peer_reachable;
pub use machine::races::{expect_races, race_check_enabled, ExpectRaces};
pub use machine::violations::{
    clear_violations, violations, AccessKind, KernelFault, RaceOp, SharedRace, StreamRace, Violation, ViolationKind,
};
pub use machine::{configured_devices, configured_memory, live_allocations, used_bytes};
pub use rccl::{live_communicators, set_collective_timeout, DEFAULT_COLLECTIVE_TIMEOUT};
pub use rocfft::{
    parse_version as parse_rocfft_version, rocfft_version, set_rocfft_version, setup_device as rocfft_setup_device,
    DEFAULT_VERSION as DEFAULT_ROCFFT_VERSION, WORK_BUFFER_SIZE as ROCFFT_WORK_BUFFER_SIZE,
};
pub use rocsparse::BUFFER_SIZE as ROCSPARSE_BUFFER_SIZE;
pub use rocsparse_mode::{
    clear_rocsparse_slow_paths, parse_rocsparse_version, rocsparse_analyses, rocsparse_slow_paths, rocsparse_version,
    set_rocsparse_version, RocsparseVersion, SlowPath,
};
pub use roctx::{clear_profile_events, profile_events, ProfileEvent, ProfileKind, MAX_PROFILE_EVENTS};
pub use submit::{hold_stream, StreamHold};
pub use tables::{
    api, compiler, cxx_compiler, hiprtc_api, miopen_api, rccl_api, rocblas_api, rocfft_api, rocrand_api, rocsolver_api,
    rocsparse_api,
};
pub use trace::{chrome_trace, html_timeline, start_trace, stop_trace, traced_ops, Flow, TracedOp, MAX_TRACED_OPS};

/// Start the simulator from the environment (see "Configuration"); a bad
/// variable is an error. With `AMDGPU_TRACE`, the stream timeline is
/// recorded from here on and written when the process exits.
///
/// # Errors
/// [`BackendError`] naming the variable that could not be read.
pub fn configure_from_env() -> Result<(), BackendError> {
    machine::configure_from_env()?;
    trace::from_env();
    Ok(())
}
pub use provider::PROVIDER;
