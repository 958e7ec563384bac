//! Collectives across GPUs: RCCL (NCCL on nvidia), with the same
//! device and stream discipline as the libraries.
//!
//! - [`Communicator`]: one rank on one device.
//!   [`Communicator::init_all`] makes every rank of this process's
//!   devices at once; [`Communicator::init_rank`] joins one rank by a
//!   [`UniqueId`], for one process (or thread) a rank, across machines
//!   with NCCL's own bootstrap.
//! - Its operations: all-reduce, broadcast, reduce, all-gather,
//!   reduce-scatter, send and receive, in place and out of place, over
//!   the [`CollectiveElement`] types with the [`ReduceOp`]s or a
//!   [`Reduction::PreMulSum`] of each rank's scalar; all-to-all (equal
//!   or uneven parts), gather and scatter, made of grouped sends and
//!   receives as NCCL's guide makes them. Each runs on
//!   its output's stream and declares its buffers' uses, so memory is
//!   never reused while a collective may touch it.
//! - [`group`]: NCCL's group calls as a closure scope, for one thread
//!   driving every rank and for paired sends and receives.
//! - Errors on the device surface through [`Communicator::check`] and
//!   [`Communicator::synchronize`], which waits with a timeout and aborts
//!   instead of hanging; dropping a communicator with work queued aborts
//!   it too.
//!
//! # Backends
//! On amd, RCCL (`librccl.so` of the HIP runtime's installation); on
//! nvidia, NCCL (`libnccl.so.2`, or `AMDGPU_NCCL_PATH`), which allows one
//! rank per GPU; on the simulator, collectives across its devices in this
//! process, which turn a mismatch, a missing rank or a dead peer into an
//! error instead of a hang.
//!
//! # Examples
//! All-reduce across every device of the machine, one thread driving
//! them all:
//! ```
//! use hip_libs::collective::{group, Communicator, ReduceOp};
//! # fn sum_everywhere(arrays: &mut [impl hip_libs::DeviceDataMut<f32>]) -> hip_libs::Result<()> {
//! let devices = hip_core::Device::all()?;
//! let comms = Communicator::init_all(&devices)?;
//! group(|g| {
//!     for (comm, array) in comms.iter().zip(arrays.iter_mut()) {
//!         g.all_reduce_in_place(comm, array, ReduceOp::Sum)?;
//!     }
//!     Ok(())
//! })?;
//! # Ok(()) }
//! ```

mod book;
mod communicator;
mod element;
mod exchange;
mod group;
mod id;
mod part;
mod raw;

pub use communicator::Communicator;
pub use element::{CollectiveElement, ReduceOp, Reduction};
pub use group::{group, Group};
pub use id::UniqueId;
