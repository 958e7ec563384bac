//! The one place hip-core reaches the C table: one thin function per HIP
//! call the crate makes, grouped by subject, and `on_device`.
//!
//! [`on_device`] is what every `Drop` and explicit free uses: it binds a
//! device for one call and restores HIP's previous device, without reading,
//! creating or changing the per-thread state ([`crate::ThreadState`]). That is
//! rule 1 of the design: a drop can run on any thread, in the middle of
//! any other work, and must leave that thread exactly as it found it.
//!
//! Every `hipSetDevice` of the crate goes through one function, which keeps a
//! record of HIP's current device on the thread. [`run_on`], for the hot
//! calls made outside drops (launches, event records, library calls),
//! trusts that record and makes no HIP call when it already names the
//! device; [`on_device`] asks HIP every time, so a drop is right even
//! after foreign code moved HIP's device without restoring it.
//!
//! # The wrappers
//!
//! Each HIP call of the crate is made by one function here, in a module
//! per subject (`stream::create`, `event::record`, `module::launch`,
//! `device::attribute`, ...). A wrapper takes Rust types (a `Device`, raw
//! handles, slices), gets the table, makes the one `unsafe` call, turns
//! the status into a `Result` with [`check`](crate::check) under the
//! call's own name (`hipStreamCreateWithPriority`), and returns the
//! out-values. Where the call is sound only if the caller upholds
//! something (a handle is live, pointers are valid), the wrapper is an
//! `unsafe fn` whose `# Safety` says what; where every argument is checked
//! or a plain value, it is a plain `fn`.
//!
//! The wrapper binds the device, never its caller. A wrapper whose call
//! acts on HIP's current device takes that device first and binds it for
//! the call: with [`run_on`] for the hot calls, which drops never make
//! (`event::record`, `stream::wait_event`, `module::launch`, and the
//! queued copies and fills of [`mem`]), with
//! [`on_device`] for every other one (destroys and frees, creation,
//! synchronizing, queries). Calls that name their device by ordinal
//! (`device::name`, `context::primary`, `peer::can_access`) or need none
//! (`stream::priority`, `runtime::version`, the last error) bind nothing.
//! The one caller that binds itself is a compilation: its hipRTC calls
//! (`rtc`, which binds nothing) run under one `on_device` of the program's
//! device.
//!
//! # One door to HIP
//!
//! This module is the workspace's one door to the HIP runtime: hip-pool,
//! hip-libs and the facade call HIP through these wrappers and nowhere
//! else (a test of the workspace holds every `(api.hip…)(…)` call to the
//! `raw` modules). Each wrapper's first line names its C call, which is
//! also its `doc(alias)`, and each module links HIP's reference for its
//! subject. What stays private is what only hip-core may do: the
//! thread's binding record (`bind`, `expect`), the last error (read
//! only through [`forget_expected_failure`]) and hipRTC (`rtc`, behind
//! [`Program`](crate::Program)). HIP's name and description of a status
//! (`hipGetErrorName`, `hipGetErrorString`), which every wrapper's error
//! is made of, come from `hip_sys::status_text`: no C call of the crate is
//! made outside this module.

mod current;
mod table;

pub mod context;
pub mod device;
pub mod event;
pub mod graph;
pub mod host;
pub mod ipc;
pub(crate) mod last_error;
pub mod managed;
pub mod mem;
pub mod module;
pub mod peer;
pub mod pool;
pub mod profile;
pub(crate) mod rtc;
pub mod runtime;
pub mod stream;
pub mod vmm;

pub(crate) use current::{bind, bound, expect, ready};
pub use current::{hip_current_device, on_device, run_on};
pub use last_error::forget_expected_failure;
pub use table::api;
