//! The safe HIP runtime layer of amdgpu-rs.
//!
//! `hip-core` turns the raw table of `hip-sys` into devices, contexts,
//! streams and events, and keeps each thread's GPU state. It obeys the
//! project's four rules:
//!
//! 1. **A drop never touches thread state.** [`Stream`], [`Event`] and [`Module`]
//!    record their device when made; their `Drop` runs under that device
//!    through [`raw::on_device`], which restores HIP's previous device and
//!    never reads or creates a [`ThreadState`]. Errors are logged, never
//!    panicked.
//! 2. **Scoped switches always restore**: [`with_device`], [`with_context`],
//!    [`with_stream`], [`with_priority`], on return and on panic, also on a
//!    fresh thread; async tasks keep theirs across threads with
//!    [`on_device_async`].
//! 3. **The process default device is explicit**: [`set_device`] affects
//!    the calling thread only; new threads start on [`default_device()`],
//!    which only [`set_default_device`] (or `AMDGPU_DEFAULT_DEVICE`)
//!    changes.
//! 4. **Device-specific work takes the device as an argument**:
//!    [`Device::synchronize`], [`Device::mem_info`], [`Stream::new_on`].
//!    [`Device::memory`] adds whether it is an APU, and the host memory an
//!    APU's GPU can use ([`MemoryInfo`]).
//!
//! It also compiles kernels at run time: [`Program`] (hipRTC, NVRTC on
//! nvidia) and the [`KernelCache`], in memory and optionally on disk;
//! [`LaunchLimits`] says what a device accepts in one launch.
//!
//! [`profile`] puts the program's own named ranges and marks on a
//! profiler's timeline (ROCTx on AMD, the simulator's timeline).
//!
//! Stream capture is a scope ([`Stream::capture`]) that records work into
//! a [`Graph`], replayed by a [`GraphExec`]; [`capture`] lists the captures
//! underway for the layers above, which must not break them.
//!
//! Errors are [`HipError`]s; a stream, an event or any other operand on
//! another device than the operation's is a [`DeviceMismatch`], the one
//! such error of every crate above too.
//!
//! ```
//! use hip_core::{device, with_device, Device};
//!
//! let count = Device::count()?;
//! if count >= 2 {
//!     let second = Device::new(1)?;
//!     with_device(second, || assert_eq!(device(), second));
//! }
//! assert_eq!(device(), hip_core::default_device());
//! # Ok::<(), hip_core::HipError>(())
//! ```

// Plain types and errors: no HIP call but HIP's name for a status.
mod error;
mod mismatch;
mod ordinal;

// The thin layer over the C table: one function per HIP call, and the
// device binding (`on_device`, `run_on`).
pub mod raw;

// Resources and device-wide work: each takes its device as an argument and
// never reads the thread state.
mod backoff;
mod cache;
pub mod capture;
mod code_object;
mod context;
mod device;
mod event;
mod graph;
mod limits;
mod memory_info;
mod module;
mod peer;
pub mod profile;
mod program;
mod replay_order;
mod shared;
mod stream;
mod stream_copy;
mod target;
mod underway;
mod wait;

// The thread state, and what reads it.
mod ambient;
mod future;
mod state;

// The drop audit (the `tls-audit` feature).
pub mod audit;

pub use ambient::context;
pub use cache::{CacheOrigin, CacheStats, KernelCache};
pub use capture::CaptureMode;
pub use code_object::{code_kind, CodeKind};
pub use context::Context;
pub use error::{check, CompileError, GraphUpdateRefusal, HipError, Result};
pub use event::{Event, IpcEventHandle};
pub use future::{on_device_async, on_stream_async, OnDevice};
pub use graph::{Graph, GraphExec};
pub use limits::LaunchLimits;
pub use memory_info::{HostShared, MemoryInfo};
pub use mismatch::DeviceMismatch;
pub use module::{Function, KernelArg, LaunchConfig, Module};
pub use ordinal::Device;
pub use program::{runtime_version, Code, Program};
pub use state::{
    default_device, device, idle_streams, peek_last_error, prepare_state, priority, set_default_device, set_device,
    set_stream, stream, take_last_error, thread_state_exists, with_context, with_device, with_priority, with_stream,
    ThreadState,
};
pub use stream::Stream;
pub use stream_copy::{copy_after, copy_device_after, upload_after};
pub use target::{AmdTarget, NvidiaTarget, Target, TargetError};
pub use wait::{EventWait, StreamSync};
