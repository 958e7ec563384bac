//! # amdgpu: a Rust runtime for AMD GPUs through HIP
//!
//! Devices, streams, events, kernels, pooled device memory and the ROCm
//! libraries, with per-thread GPU state that stays correct on multi-GPU
//! machines: drops may happen on any thread, and threads switch devices.
//!
//! ```
//! use amdgpu::prelude::*;
//!
//! let x = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0])?;
//! assert_eq!(x.to_vec()?, [1.0, 2.0, 3.0]);
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Backends
//!
//! One backend serves the whole process, chosen on the first GPU call:
//! `amd` (AMD's `libamdhip64.so`, loaded at run time: building never needs
//! ROCm), `nvidia` (HIP's NVIDIA mapping, done in Rust over the CUDA
//! libraries) or `sim` (a built-in, thread-safe software HIP, stricter than
//! HIP about which device is current). `AMDGPU_BACKEND=amd|nvidia|sim`
//! picks one; unset, the first that works wins in that order, with a
//! notice on stderr when it falls back to the simulator. [`backend()`] says
//! which one runs, [`functional()`] whether it has a device.
//!
//! # Devices and the thread's state
//!
//! A [`Device`] is an ordinal. Each thread has a current device
//! ([`device()`]), a stream per device ([`stream()`]) and a stream
//! priority. [`set_device`] changes the calling thread only.
//!
//! ```
//! # use amdgpu::prelude::*;
//! let first = Device::new(0)?;
//! set_device(first)?;
//! assert_eq!(device(), first);
//! assert_eq!(stream().device(), first);
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Scoped switches
//!
//! [`with_device`], [`with_stream`], [`with_context`] and
//! [`with_priority`] run a closure with a device or stream installed and
//! restore the previous one on return and on panic, also on a thread that
//! never used the GPU before.
//!
//! ```
//! # use amdgpu::prelude::*;
//! let last = *Device::all()?.last().expect("a device");
//! let sum = with_device(last, || {
//!     assert_eq!(device(), last);
//!     DeviceArray::from_slice(&[1u32, 2, 3])?.to_vec().map(|v| v.iter().sum::<u32>())
//! })?;
//! assert_eq!(sum, 6);
//! assert_eq!(device(), default_device());
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # The default device
//!
//! New threads start on [`default_device()`]: device 0, or
//! `AMDGPU_DEFAULT_DEVICE` read at start. Only [`set_default_device`]
//! changes it; a thread calling [`set_device`] never does.
//!
//! # What a drop does, and why
//!
//! Every resource (an array's memory, a stream, an event, a module, a
//! library handle, an FFT plan) records its device when it is made. When it
//! is dropped, on whatever thread, its HIP calls run under that device and
//! the thread's HIP device is restored; the thread's own GPU state is never
//! read, created or changed, no HIP error is drained, and nothing panics.
//! An array's memory goes back to its device's pool with no HIP call at
//! all. This is what makes it safe to hand arrays to other threads:
//!
//! ```
//! # use amdgpu::prelude::*;
//! let array = DeviceArray::from_slice(&[0u8; 1024])?;
//! std::thread::spawn(move || drop(array)).join().unwrap();
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Streams and events
//!
//! A [`Stream`] runs work in order on one device; clones share it.
//! [`Event`]s mark points in a stream, order work across streams
//! ([`Stream::wait`]) and time it ([`Event::elapsed_since`]). Recording an
//! event on another device's stream is a typed error naming both devices.
//!
//! # Memory used on several streams
//!
//! Every array has its own stream ([`DeviceArray::stream`]); work on it
//! is ordered by the stream. The library operations run on their output's
//! stream, so their inputs may belong to other streams. What you get:
//!
//! - **Free** (no HIP call beyond the work): everything on one stream, and
//!   dropping an array at any time, on any thread.
//! - **One GPU wait** (`hipEventRecord` + `hipStreamWaitEvent`, never a
//!   host synchronize): an operand whose own stream is not the
//!   operation's waits for the work queued on its own stream; a later use
//!   that conflicts with a recorded use on another stream (a write after a
//!   read, anything after a write) waits for that use's event.
//! - **One event recorded** after each use on a stream other than the
//!   operand's own: it keeps the memory from being reused too early. If
//!   the array is dropped while that use is still queued, the block goes
//!   back to the pool with the event, and its next owner's stream waits
//!   for it on the GPU before using the memory.
//! - [`DeviceArray::set_stream`] orders the old stream's queued work
//!   before the new stream's later work, on the GPU.
//!
//! Kernels launched through the unsafe [`Function::launch`] declare their
//! operands themselves, with the arrays' [`pool::Buffer`]s, through the
//! operand protocol every safe operation uses ([`pool::enqueue`]): each is
//! prepared before the launch and recorded after, on the launch's stream,
//! also when the launch fails.
//!
//! ```
//! # use amdgpu::prelude::*;
//! use amdgpu::pool::Access;
//!
//! let x = DeviceArray::from_slice(&[1.0f32; 256])?; // on this thread's stream
//! let other = Stream::new()?;
//! amdgpu::pool::enqueue(&other, [(x.buffer(), Access::Read)], || {
//!     // ... launch a kernel on `other` that reads `x` ...
//!     Ok::<(), amdgpu::Error>(())
//! })?;
//! drop(x); // its block is not reused before that kernel is done
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Host memory and asynchronous copies
//!
//! [`DeviceArray::from_slice`], [`DeviceArray::copy_from_slice`],
//! [`DeviceArray::to_vec`] and the other copies from and to ordinary
//! (pageable) Rust memory are **synchronous**: they return once the copy
//! is done, so they never overlap other work. For copies that do, put the
//! host side in a [`HostBuffer`] (page-locked memory, `hipHostMalloc`, or
//! a `Vec` pinned in place with [`HostBuffer::register`]) and use
//! [`DeviceArray::copy_from_host_async`] / [`DeviceArray::copy_to_host_async`]
//! (or the same on views: [`DeviceArray::slice_mut`], [`DeviceArray::slice`],
//! [`HostBuffer::slice`], [`HostBuffer::slice_mut`]), and
//! [`DeviceArray::copy_from_async`] within a device or between devices.
//! Each takes the stream to run on and returns once the copy is enqueued.
//!
//! **Why this is safe.** The host buffer, not a guard, carries the copy:
//! each copy records an event on the buffer, host access
//! ([`HostBuffer::as_slice`], [`HostBuffer::as_mut_slice`]) waits for the
//! copies it conflicts with, and dropping the buffer waits for all of
//! them before the memory is released. A guard that borrowed the buffer
//! until it was waited on would be unsound: `std::mem::forget(guard)`
//! ends the borrow without waiting (the reason scoped threads take a
//! closure), and a guard cannot describe a pipeline of copies into
//! disjoint parts of one buffer on several streams. With the events on
//! the buffer there is nothing to forget, copies need no lifetimes, and
//! misuse is either a compile error (writing a buffer that a view borrows)
//! or a wait, never a race. Host access itself is a guard that reads as a
//! slice ([`HostRef`], [`HostRefMut`]): not to order copies (those need a
//! borrow of the buffer), but because a graph replay copies without one;
//! while a view lives, a replay that would write the buffer under it (or
//! read it under a write view) is refused, and a forgotten view keeps
//! refusing them, never races. Copies on two streams touching overlapping
//! parts of one host buffer are ordered on the GPU. The device side
//! follows the stream rules below ([`pool::Buffer::prepare`] / `record`).
//!
//! ```
//! # use amdgpu::prelude::*;
//! let (copies, compute) = (Stream::new()?, Stream::new()?);
//! let input = HostBuffer::from_slice(&vec![1.0f32; 1 << 16])?;
//! let mut output = HostBuffer::<f32>::zeroed(1 << 16)?;
//! let mut x = DeviceArray::<f32>::zeros(1 << 16)?;
//! x.slice_mut(..1024)?.copy_from_host_async(input.slice(..1024)?, &copies)?;
//! x.slice_mut(1024..)?.copy_from_host_async(input.slice(1024..)?, &compute)?;
//! x.copy_to_host_async(&mut output, &compute)?; // after both, on the GPU
//! assert!(output.as_slice()?.iter().all(|v| *v == 1.0)); // waits
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! **Copies in a scope.** [`copy_scope`] takes the closure that a guard
//! cannot: the copies made through its [`CopyScope`] borrow their host
//! memory until the scope returns, and it returns only after its stream
//! has drained (on a panic too). Host code cannot touch that memory in
//! the meantime (a compile error), so these copies record no events: a
//! small copy costs about what the raw `hipMemcpyAsync` does, where an
//! event-tracked one costs an event record more. Use it for batches of
//! copies waited for together; use the event-tracked copies when host
//! buffers must stay usable while other copies are pending.
//!
//! ```
//! # use amdgpu::prelude::*;
//! let stream = Stream::new()?;
//! let chunks: Vec<HostBuffer<f32>> = (0..4).map(|i| HostBuffer::from_slice(&[i as f32; 256])).collect::<Result<_, _>>()?;
//! let mut x = DeviceArray::<f32>::zeros(1024)?;
//! amdgpu::copy_scope(&stream, |scope| {
//!     for (i, chunk) in chunks.iter().enumerate() {
//!         scope.to_device(x.slice_mut(i * 256..(i + 1) * 256)?, chunk)?;
//!     }
//!     Ok(())
//! })?; // the copies are done here
//! assert_eq!(x.to_vec()?[768], 3.0);
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! Between devices a copy is `hipMemcpyPeerAsync`, after enabling peer
//! access where the hardware has it ([`Device::can_access_peer`],
//! [`Device::enable_peer_access`], idempotent); without it the runtime
//! stages the copy. The stream may belong to either device.
//!
//! # Waiting from async code
//!
//! [`Stream::synchronize_async`] and [`Event::wait_async`] are futures
//! that complete when the GPU work is done without blocking the
//! executor's thread: the stream's wait is woken by a host function the
//! stream runs (`hipLaunchHostFunc`), the event's wait queries with a
//! backoff timer between queries. Their HIP calls run under the stream's
//! or event's device, so any executor thread may poll them. Events also
//! time work: [`Stream::record_event`], then [`Event::elapsed`].
//! # Kernels: runtime compilation and checked launches
//!
//! [`Program`] compiles HIP source at run time (hipRTC on AMD, NVRTC on
//! NVIDIA); a compile error carries the compiler's log. Every compilation
//! gets the portable prelude by name ([`sys::prelude`]:
//! `hip/hip_runtime.h` and friends), so one source builds with AMD's
//! hipRTC 5.x to 7.x and with NVRTC. [`Program::compile_for`] compiles for
//! a named [`Target`] (`gfx90a`, `gfx942:sramecc+:xnack-`, `sm_90`) with no
//! GPU, and [`Code::kind`] says what came out; `amdgpu-info compile` does
//! the same from the command line.
//! [`Program::build`] goes through the process's [`KernelCache`], in
//! memory and, with `AMDGPU_KERNEL_CACHE=<dir>`, on disk across processes.
//! On the simulator, HIP source is compiled for the CPU by the machine's
//! C++ compiler (`g++` or `clang++`, or `AMDGPU_SIM_CXX`) and its kernels
//! run with GPU semantics (barriers, shared memory, warp intrinsics at 64
//! lanes), an access outside their buffers, a divergent barrier or a
//! failed `assert` reported by kernel, block and thread; with no compiler
//! its error says what to install, and its built-in kernels load by name
//! (`sys::sim::code_object`).
//!
//! A [`Kernel`] declares a kernel's parameter types once, unsafely; its
//! launches are safe: each array argument is checked for its device and
//! length and its use declared on the launch stream, with no allocation.
//! [`LaunchConfig::linear`] sizes 1-D launches within the device's
//! [`LaunchLimits`]. See [`kernel`].
//!
//! # Memory pools, limits and reclaim
//!
//! Device memory comes from a caching pool per device ([`pool`]). Freed
//! blocks are reused in tens of nanoseconds; [`pool::reclaim`] gives a
//! device's unused memory back, an idle-cleanup thread does it for idle
//! devices, and running out of memory first synchronizes, reclaims and runs
//! registered hooks. `AMDGPU_POOL=cached|async|none` picks the strategy;
//! `AMDGPU_HARD_MEMORY_LIMIT` / `AMDGPU_SOFT_MEMORY_LIMIT` (`"8GiB"`,
//! `"50%"`) bound it.
//!
//! ```
//! # use amdgpu::prelude::*;
//! let d = device();
//! drop(DeviceArray::<f64>::zeros(1 << 16)?);
//! println!("{}", amdgpu::pool::stats(d));
//! let released = amdgpu::pool::reclaim(d)?;
//! # let _ = released;
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Libraries
//!
//! rocBLAS ([`blas`]), rocSPARSE, rocFFT, MIOpen, rocRAND ([`rand`]) and
//! rocSOLVER ([`solver`]) are reached through [`libs`], with one handle per
//! thread and device and plans cached per device; see that crate's
//! documentation. On the `nvidia` backend they run over cuBLAS, cuSPARSE,
//! cuFFT, cuDNN, cuRAND and cuSOLVER; on the simulator, on the CPU.
//!
//! # Dense linear algebra
//!
//! [`blas::gemm`] multiplies column-major matrices (f32, f64, complex
//! `[re, im]` pairs, and [`half::f16`] / [`half::bf16`] with f32 compute);
//! [`blas::gemm_strided_batched`], [`blas::gemv`], [`blas::axpy`],
//! [`blas::scal`], [`blas::dot`] and [`blas::nrm2`] complete it. Sizes,
//! leading dimensions and lengths are checked first, with errors that name
//! the value; the work runs on the output's stream.
//!
//! ```
//! use amdgpu::prelude::*;
//! use amdgpu::blas::{self, Gemm, Op};
//!
//! // C = Aᵀ B: A is stored 3 × 2 (so Aᵀ is 2 × 3), B is 3 × 2.
//! let a = DeviceArray::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//! let b = DeviceArray::from_slice(&[1.0f32, 0.0, 1.0, 0.0, 1.0, 0.0])?;
//! let mut c = DeviceArray::<f32>::zeros(4)?;
//! blas::gemm(&Gemm::new(2, 2, 3).op_a(Op::Transpose), 1.0, &a, &b, 0.0, &mut c)?;
//! assert_eq!(c.to_vec()?, [4.0, 10.0, 2.0, 5.0]);
//! assert_eq!(blas::dot(&a, &a)?, 91.0);
//!
//! // A wrong length is an error before any library call.
//! let short = DeviceArray::<f32>::zeros(3)?;
//! let err = blas::gemm(&Gemm::new(2, 2, 3), 1.0, &short, &b, 0.0, &mut c).unwrap_err();
//! assert!(err.to_string().contains("A holds 3 elements"));
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Solving linear systems
//!
//! [`solver::getrf`] factors a matrix as `P A = L U` in place and
//! [`solver::getrs`] solves with the factors; [`solver::potrf`] and
//! [`solver::potrs`] do the same for Cholesky. A factorization's `info`
//! stays on the device until [`solver::Info::check`] reads it, so a chain
//! of calls queues without waiting; a singular or indefinite matrix is an
//! [`libs::Breakdown`] then. Pivots live in [`solver::Pivots`], which only
//! `getrf` writes. [`solver::geqrf`] and [`solver::orgqr`] give QR,
//! [`solver::syevd`] the eigenvalues and vectors of a symmetric or
//! Hermitian matrix, and [`solver::gesvd`] the singular value
//! decomposition, its vectors all, thin, over A or none per side
//! ([`solver::SingularVectors`]). Many problems of one shape factor in one
//! call as a strided batch ([`solver::Batch`]:
//! [`solver::getrf_strided_batched`], and likewise `getrs`, `potrf`,
//! `potrs` and `geqrf`), with one `info` value per problem.
//!
//! ```
//! use amdgpu::prelude::*;
//! use amdgpu::blas::Op;
//! use amdgpu::solver::{self, Pivots, Shape};
//! # if !amdgpu::libs::available(amdgpu::libs::Library::Rocsolver) { return Ok(()); }
//! // A x = b with A = [[2, 1], [4, 3]] (column-major) and b = [3, 7].
//! let mut a = DeviceArray::from_slice(&[2.0f64, 4.0, 1.0, 3.0])?;
//! let mut b = DeviceArray::from_slice(&[3.0f64, 7.0])?;
//! let mut pivots = Pivots::new(2, a.stream())?;
//! let info = solver::getrf(&Shape::square(2), &mut a, &mut pivots)?;
//! solver::getrs(Op::None, &Shape::square(2), &a, &pivots, &Shape::new(2, 1), &mut b)?;
//! info.check()?;
//! let x = b.to_vec()?;
//! assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12);
//!
//! // A singular matrix is reported through its info, when asked.
//! let mut singular = DeviceArray::from_slice(&[1.0f64, 2.0, 2.0, 4.0])?;
//! let info = solver::getrf(&Shape::square(2), &mut singular, &mut pivots)?;
//! assert!(info.check().unwrap_err().to_string().contains("singular"));
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Random numbers
//!
//! [`rand`] fills device arrays with rocRAND's numbers on the array's
//! stream: [`rand::uniform`] in (0, 1], [`rand::normal`],
//! [`rand::log_normal`] (f32, f64), Poisson counts ([`rand::poisson`]) and
//! raw words ([`rand::bits`]). Each thread has one generator per device,
//! Philox4x32-10 unless [`rand::set_engine`] chose XORWOW or MRG32k3a,
//! starting at seed 0; [`rand::set_seed`] and [`rand::set_offset`] restart
//! its stream, and successive fills continue it. On AMD and the simulator the numbers are
//! rocRAND's own; on the `nvidia` backend they are cuRAND's, which differ.
//! For numbers that are the same bits on every backend, use the project's
//! own counter-based [`rand::Philox`] (words and uniforms):
//!
//! ```
//! use amdgpu::prelude::*;
//! # if amdgpu::backend() == amdgpu::Backend::Sim && amdgpu::sys::sim::cxx_compiler().is_err() {
//! #     return Ok(()); // the simulator compiles the kernels with the machine's C++ compiler: none here
//! # }
//! let mut rng = amdgpu::rand::Philox::new(7);
//! let mut x = DeviceArray::<f64>::zeros(4)?;
//! rng.uniform(&mut x)?; // words 0 to 7 of seed 7's stream, on any GPU
//! assert!(x.to_vec()?.iter().all(|v| (0.0..1.0).contains(v)));
//! assert_eq!(rng.position(), 8);
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! ```
//! use amdgpu::prelude::*;
//! # if !amdgpu::libs::available(amdgpu::libs::Library::Rocrand) { return Ok(()); }
//! amdgpu::rand::set_seed(amdgpu::device(), 42)?;
//! let mut x = DeviceArray::<f32>::zeros(1000)?;
//! amdgpu::rand::normal(&mut x, 0.0, 1.0)?;
//! let mean = x.to_vec()?.iter().sum::<f32>() / 1000.0;
//! assert!(mean.abs() < 0.2);
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Collectives
//!
//! [`collective`] drives RCCL (NCCL on the `nvidia` backend; the
//! simulator's own collectives across its devices): a
//! [`collective::Communicator`] is one rank on one device, made for every
//! device of the process with [`collective::Communicator::init_all`], or
//! one rank per process (or thread) with
//! [`collective::Communicator::init_rank`] and a
//! [`collective::UniqueId`] handed over by file or environment. All-reduce,
//! broadcast, reduce, all-gather, reduce-scatter, send and receive, and
//! the exchanges NCCL composes of grouped sends and receives (all-to-all
//! in equal or uneven parts, gather, scatter), run on the output's stream
//! and declare their buffers' uses, like every other operation. The
//! reductions take a [`collective::ReduceOp`] or a
//! [`collective::Reduction::PreMulSum`], each rank's elements times its
//! own scalar. One thread driving several ranks puts their calls in one
//! [`collective::group`]. [`collective::Communicator::synchronize`] waits
//! with a timeout and aborts instead of hanging on a peer that never
//! comes; dropping a communicator with work queued aborts it. NCCL allows
//! one rank per GPU; RCCL several, through its raw `ncclCommInitRankMulti`.
//!
//! ```
//! use amdgpu::collective::{group, Communicator, ReduceOp};
//! use amdgpu::prelude::*;
//! use std::time::Duration;
//! # if !amdgpu::libs::available(amdgpu::libs::Library::Rccl) { return Ok(()); }
//! let devices = Device::all()?;
//! let comms = Communicator::init_all(&devices)?;
//! let mut grads = devices
//!     .iter()
//!     .map(|&d| with_device(d, || DeviceArray::from_slice(&[1.0f32; 256])))
//!     .collect::<Result<Vec<_>, _>>()?;
//! group(|g| {
//!     for (comm, grad) in comms.iter().zip(grads.iter_mut()) {
//!         g.all_reduce_in_place(comm, grad, ReduceOp::Sum)?;
//!     }
//!     Ok(())
//! })?;
//! for (comm, grad) in comms.iter().zip(&grads) {
//!     comm.synchronize(grad.stream(), Duration::from_secs(60))?;
//!     assert_eq!(grad.to_vec()?, vec![devices.len() as f32; 256]);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//!
//! Every fallible call returns [`Error`], or an error of a lower layer
//! (HIP's, the pool's, the libraries', the backend loader's) that converts
//! into it with `?`: a function returning [`Result`] needs no error type of
//! its own. [`Error::is_unavailable`] tells a library that is not here from
//! one that failed. An operand or a stream on another device than the
//! operation's is a [`DeviceMismatch`] in every layer, naming the operand
//! and both devices; [`Error::device_mismatch`] finds it.
//!
//! ```
//! # use amdgpu::prelude::*;
//! if Device::count()? >= 2 {
//!     let (d0, d1) = (Device::new(0)?, Device::new(1)?);
//!     let mut x = DeviceArray::<f32>::zeros_on(&Stream::new_on(d0)?, 4)?;
//!     let error = x.set_stream(&Stream::new_on(d1)?).unwrap_err();
//!     let mismatch = error.device_mismatch().expect("a device mismatch");
//!     assert_eq!((mismatch.what, mismatch.expected, mismatch.found), ("the stream", d0, d1));
//! }
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Sharing arrays with other frameworks (DLPack)
//!
//! [`DeviceArray::into_dlpack`] hands an array to PyTorch, CuPy, JAX or
//! any DLPack consumer with no copy, with the array API's stream
//! handshake (the consumer's stream waits for the array's work on the
//! GPU) and the memory kept until the consumer's deleter runs;
//! [`DeviceArray::from_dlpack`] takes their tensors as arrays, the
//! element type, device and layout checked and the read-only flag kept;
//! see [`dlpack`].
//!
//! # Sharing arrays with other processes (IPC)
//!
//! [`DeviceArray::ipc_handle`] gives bytes another process opens the
//! array by with [`DeviceArray::open_ipc`], over the same memory: the
//! opener's stream waits for the exporter's queued work on the GPU, and
//! the exporter's memory is kept until no living process has it open;
//! see [`ipc`].
//!
//! # Profiler ranges and marks
//!
//! [`profile::range`] names a region of the calling thread on a
//! profiler's timeline until its guard drops (ranges nest), and
//! [`profile::mark`] an instant: on AMD through ROCTx, which rocprofv3
//! shows (`rocprofv3 --marker-trace`); on NVIDIA through NVTX, which
//! Nsight Systems and Nsight Compute show; on the simulator in its
//! timeline. Without an annotation library or a profiler attached they
//! cost one atomic load. With the `tracing` feature,
//! `profile::RangeLayer` makes every `tracing` span a range (so
//! `#[instrument]`ed functions show on the profiler's timeline), and the
//! runtime's launches, graph replays, captures, copies and the pool's
//! trips to the driver are spans and events of their own. On the
//! simulator, `sys::sim::start_trace` records what ran on which stream,
//! written as a Chrome trace or an HTML page (`cargo run --example
//! timeline`).
//!
//! ```
//! # use amdgpu::prelude::*;
//! let _step = amdgpu::profile::range("step");
//! let x = DeviceArray::from_slice(&[1.0f32, 2.0])?;
//! amdgpu::profile::mark("uploaded");
//! # drop(x);
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! # Graphs: capture once, replay at the cost of one call
//!
//! [`Stream::capture`] records the work a closure enqueues on a stream (and
//! on streams it joins through events) into a [`Graph`] instead of running
//! it; [`Graph::instantiate`] makes a [`GraphExec`], and
//! [`GraphExec::launch`] replays all of it on any stream of the device with
//! one call (on the H200, a 128-kernel step costs 2.5 µs of host time
//! replayed against 630 µs launched kernel by kernel: `BENCHMARKS.md`).
//! The capture is a scope, as [`copy_scope`] is: it begins and ends on the
//! calling thread, and a closure that fails or panics still ends it and
//! discards its graph.
//!
//! Everything in this crate that uses memory works inside a capture:
//! kernels, device copies, asynchronous copies of pinned host memory, the
//! libraries' calls. A graph keeps a hold on every array and host buffer
//! its work uses: each replay is ordered after their other uses and before
//! later ones (host access waits for the replays that copy the buffer), as
//! any operation is, and their memory is not reused or freed while the
//! graph or an exec made of it lives, even if they are dropped; it keeps
//! the modules of its kernels loaded too. A replay never copies under a
//! host view: with [`HostBuffer::as_slice`]'s guard alive, a launch whose
//! graph writes the buffer is refused with
//! [`HipError::HostBorrowed`](runtime::HipError::HostBorrowed) (drop the
//! view, then launch; the view after the launch waits for its copy).
//! Arrays allocated inside the capture come from
//! its private pool (blocks freed in the capture are reused in its order),
//! and so do the libraries' workspaces, the rocBLAS handle's included: no
//! two graphs share one, so graphs replay at once on different streams.
//! Graphs captured into one shared pool ([`pool::GraphPool`]) share blocks
//! instead, so their launches take one order: a launch on another stream
//! than the last one's waits for it on the GPU.
//! What a capture cannot do is refused with
//! [`HipError::CaptureUnderway`](runtime::HipError::CaptureUnderway) before
//! anything is queued, never a broken capture: waiting for a stream
//! (`to_vec`, `fill`, `copy_from`, `synchronize`, [`copy_scope`]), a blocking
//! copy or device synchronize while any capture runs, a host wait for an
//! event, and what a library must allocate and synchronize to make (a
//! handle, an FFT plan, a sparse matrix's analysis, a MIOpen algorithm
//! search), and a graph launch onto a stream that captures: run the step
//! once before capturing, and those exist. Where a capture of another
//! thread (in the Global mode) forbids a wait, the refusal says so;
//! [`copy_scope`] waits for such a capture to end instead, as its contract
//! is to return only once its copies are done.
//!
//! ```
//! # use amdgpu::prelude::*;
//! use amdgpu::CaptureMode;
//! # if !amdgpu::libs::available(amdgpu::libs::Library::Rocblas) { return Ok(()); }
//! let stream = Stream::new()?;
//! let a = DeviceArray::from_slice_on(&stream, &[1.0f64; 4])?;
//! let mut c = DeviceArray::<f64>::zeros_on(&stream, 4)?;
//! let shape = amdgpu::blas::Gemm::new(2, 2, 2);
//! amdgpu::blas::gemm(&shape, 1.0, &a, &a, 0.0, &mut c)?; // once, eagerly
//! let (graph, ()) = stream.capture(CaptureMode::Global, |_| amdgpu::blas::gemm(&shape, 1.0, &a, &a, 1.0, &mut c))?;
//! let exec = graph.instantiate()?;
//! for _ in 0..3 {
//!     exec.launch(&stream)?; // c += a · a
//! }
//! assert_eq!(c.to_vec()?, vec![8.0; 4]);
//! # Ok::<(), amdgpu::Error>(())
//! ```
//!
//! `examples/train_step.rs` captures a GEMM, a softmax, a kernel and an
//! FFT and replays them for new inputs.
//!
//! # Async tasks
//!
//! A future polled on different threads keeps its device with
//! [`on_device_async`] (or its stream with [`on_stream_async`]); GPU work
//! is awaited with [`Stream::synchronize_async`] and [`Event::wait_async`].
//!
//! # Environment variables
//!
//! | variable | meaning |
//! |---|---|
//! | `AMDGPU_BACKEND` | `amd`, `nvidia` or `sim`; unset: detect |
//! | `ROCM_PATH` | where ROCm is installed (for the `amd` backend) |
//! | `AMDGPU_DEFAULT_DEVICE` | the device new threads start on |
//! | `AMDGPU_POOL` | `cached` (default), `async` or `none` |
//! | `AMDGPU_HARD_MEMORY_LIMIT`, `AMDGPU_SOFT_MEMORY_LIMIT` | pool limits |
//! | `AMDGPU_POOL_CLEANUP_SECS` | the idle cleanup's tick (default 60) |
//! | `AMDGPU_KERNEL_CACHE` | a directory for compiled kernels across processes (off by default) |
//! | `AMDGPU_SIM_DEVICES`, `AMDGPU_SIM_MEMORY` | the simulator's devices and memory |
//! | `AMDGPU_BLAS_WORKSPACE` | each rocBLAS handle's workspace from the pool (default `32MiB`) |
//! | `AMDGPU_SIM_ROCFFT_VERSION` | the rocFFT version the simulator models (default `1.0.27`) |
//! | `AMDGPU_TRACE` | on the simulator, a path: the stream timeline is recorded and written there as a Chrome trace at exit, with an HTML page beside it |
//! | `AMDGPU_MEMORY_HISTORY` | `1`: record the pool's memory history from the first pool on ([`pool::history`]); a path: record it and write it there at exit (`.html`, `.pickle`, else JSON Lines for `amdgpu-info memory`) |
//!
//! # The layers
//!
//! Each layer stays usable on its own: [`sys`] (the C tables and backends),
//! [`runtime`] (devices, streams, thread state), [`pool`] (memory), [`libs`]
//! (libraries).

mod array;
mod copy;
mod copy_scope;
pub mod dlpack;
mod error;
mod host;
pub mod ipc;
pub mod kernel;
pub mod managed;
pub mod prelude;
mod slice_mut;

pub use array::{DeviceArray, DeviceCopy, DeviceSlice};
pub use copy_scope::{copy_scope, CopyScope};
pub use error::{Error, Result};
pub use hip_core::profile;
pub use hip_core::DeviceMismatch;
pub use hip_core::Stream;
pub use hip_core::{
    code_kind, runtime_version, AmdTarget, CacheOrigin, CacheStats, Code, CodeKind, CompileError, KernelCache,
    LaunchLimits, NvidiaTarget, Program, Target, TargetError,
};
pub use hip_core::{
    context, default_device, device, on_device_async, on_stream_async, priority, set_default_device, set_device,
    set_stream, stream, with_context, with_device, with_priority, with_stream, Context, Device, Event, Function,
    HostShared, LaunchConfig, MemoryInfo, Module,
};
pub use hip_core::{CaptureMode, Graph, GraphExec, GraphUpdateRefusal};
pub use hip_core::{EventWait, StreamSync};
pub use hip_sys::Backend;
pub use host::{HostBuffer, HostRef, HostRefMut, HostSlice, HostSliceMut};
pub use kernel::Kernel;
pub use managed::ManagedArray;
pub(crate) use slice_mut::bounds;
pub use slice_mut::DeviceSliceMut;

/// The crate whose `Pod` derive makes a type a [`DeviceCopy`] (re-exported
/// so that its version is ours).
pub use bytemuck;
/// The `f16` and `bf16` element types (the `half` crate).
pub use half;
/// Devices, streams, events, modules and per-thread state (`hip-core`).
pub use hip_core as runtime;
/// rocBLAS, rocSPARSE, rocFFT, MIOpen, rocRAND, rocSOLVER and RCCL (`hip-libs`).
pub use hip_libs as libs;
/// rocBLAS: GEMM, GEMV and the level 1 functions (`hip_libs::blas`).
pub use hip_libs::blas;
/// RCCL (NCCL on nvidia): communicators and collectives across GPUs
/// (`hip_libs::collective`; see the crate docs' section on collectives).
pub use hip_libs::collective;
/// rocRAND: uniform, normal, log-normal and Poisson fills and raw bits
/// of device arrays, and a portable Philox (`hip_libs::rand`).
pub use hip_libs::rand;
/// rocSOLVER: LU, Cholesky and QR, the symmetric eigensolver and the SVD,
/// also over batches (see the crate docs' section on solving).
pub use hip_libs::solver;
/// Pooled device memory (`hip-pool`): `reclaim(device)`, `stats(device)`, limits.
pub use hip_pool as pool;
/// The C API tables and backends (`hip-sys`).
pub use hip_sys as sys;

/// The backend serving this process.
pub fn backend() -> Backend {
    hip_sys::backend()
}

/// Whether the backend loaded and has at least one device.
pub fn functional() -> bool {
    hip_sys::hip().is_ok() && Device::count().is_ok_and(|n| n > 0)
}
