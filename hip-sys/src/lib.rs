//! The HIP runtime's C API, reachable without ROCm at build time.
//!
//! `hip-sys` is the crate of amdgpu-rs that speaks C: the loader, the
//! backend selection and the amd and nvidia backends, over the C ABI of
//! `hip-abi` (re-exported here: [`bindings`], [`sync`], [`units`]), with
//! the simulator (`hip-sim`) as its `sim` backend.
//!
//! # Design choices
//!
//! - **Tables, not symbols.** Every library is a struct of function
//!   pointers ([`HipApi`] and its siblings) filled at run time, so building
//!   needs no ROCm or CUDA, one binary serves every backend, and a missing
//!   library is an error value, never a link failure.
//! - **One backend per process**, chosen once ([`backend()`]), each a
//!   cargo feature of its name (`amd`, `nvidia`, `sim`; all on by
//!   default), each in one folder under [`backend`](mod@backend) with one
//!   module vocabulary: `hip`, `hiprtc`, `rocblas`, `rocsparse`, `rocfft`,
//!   `rocrand`, `rocsolver`, `miopen`. A backend's `rocblas` is rocBLAS on that backend, whether it
//!   loads AMD's, maps it onto cuBLAS or computes it on the CPU.
//! - **Rules written once.** What every backend must check the same way
//!   (rocBLAS's argument rules, rocFFT's version facts, the staged SpMV, the
//!   portable kernel prelude) lives in one shared module that all of them
//!   call, so the backends cannot drift apart.
//! - **The simulator is an instrument**, at least as strict as HIP: it
//!   answers with clr's codes, in clr's order, per HIP version, so that
//!   what passes on it passes on a GPU.
//! - **Versions are read, not assumed.** Each library's version is read at
//!   load and its ABI differences are handled there (shims), so the crates
//!   above see one signature for every version.
//! - **The root lists what it re-exports**, with no glob: the HIP names the
//!   crates above use, the tables and the loaders; the whole C API is under
//!   [`bindings`].
//!
//! # Parts
//!
//!
//! - [`bindings`] (the `hip-abi` crate): the C types of HIP, rocBLAS,
//!   rocSPARSE, rocFFT, rocRAND, rocSOLVER and RCCL, generated from
//!   Debian's headers, and of MIOpen, written by hand; and one **function
//!   table** per library ([`HipApi`], [`rocblas::RocblasApi`],
//!   [`rocsparse::RocsparseApi`], [`rocfft::RocfftApi`],
//!   [`rocrand::RocrandApi`], [`rocsolver::RocsolverApi`],
//!   [`rccl::RcclApi`], [`miopen::MiopenApi`]): a struct of function
//!   pointers instead of link-time symbols, so building never needs ROCm
//!   and every backend fills the same struct.
//! - [`backend`](mod@backend): the process's backend, chosen once: `amd` (AMD's
//!   `libamdhip64.so`, loaded at run time), `nvidia` (HIP's NVIDIA mapping
//!   done in Rust over `libcudart` and `libcuda`, loaded at run time) or
//!   `sim` (the simulator below), each a cargo feature of that name (all on
//!   by default). Pick
//!   one with `AMDGPU_BACKEND=amd|nvidia|sim`; unset, the first that works
//!   wins, in that order. [`hip()`] returns the chosen table,
//!   [`backend()`] the chosen backend and [`selection()`] the backend or why
//!   none could be set up.
//! - [`libraries`]: the rocBLAS, rocSPARSE, rocFFT, MIOpen, rocRAND,
//!   rocSOLVER and RCCL tables of the process ([`rocblas()`],
//!   [`rocsparse()`], [`rocfft()`], [`miopen()`], [`rocrand()`],
//!   [`rocsolver()`], [`rccl()`]), loaded lazily
//!   for the backend, with the ABI differences between library versions
//!   handled at load ([`rocsparse_spmv_staged`]).
//! - [`compiler()`] and [`hiprtc()`]: the runtime compiler of the backend
//!   ([`hiprtc::HiprtcApi`]): AMD's hipRTC of the runtime's own
//!   installation, NVRTC behind it on nvidia, and on the simulator one
//!   that compiles HIP source for the CPU with the machine's C++ compiler
//!   (`sim::cxx_compiler`); [`compiler_of`] loads
//!   AMD's hipRTC or NVRTC on its own, with no GPU, for compiling for a
//!   named target; [`prelude()`] is the portable kernel prelude every
//!   compilation gets (see [`libraries::rtc`]).
//! - [`error_names`]: HIP's names and descriptions of its error codes, one
//!   table that every backend's messages use.
//! - [`sim`]: a faithful, thread-safe software HIP runtime, stricter than
//!   HIP about which device is current. It runs the project's tests on any
//!   machine and lets programs run without a GPU. It is the `sim` backend,
//!   the `hip-sim` crate, compiled in with the `sim` cargo feature, which is
//!   on by default.
//!
//! ```
//! # #[cfg(feature = "sim")] {
//! // With no GPU this selects the simulator (and says so once on stderr).
//! let api = hip_sys::hip().expect("a backend");
//! let mut count = 0;
//! // SAFETY: `count` is a valid out-pointer.
//! let status = unsafe { (api.hipGetDeviceCount)(&mut count) };
//! println!("{:?}: {status:?}, {count} devices", hip_sys::backend());
//! # }
//! ```
//!
//! Everything here is `unsafe` C; the safe API is in `hip-core` and above.

// The rules in `shared` and the loader serve several backends each; a build
// with only some backends (cargo features `amd`, `nvidia`, `sim`) leaves
// parts of them unused. The full build keeps dead code an error.
#![cfg_attr(not(all(feature = "amd", feature = "nvidia", feature = "sim")), allow(dead_code))]

pub mod backend;
pub mod libraries;

/// The C ABI: the `hip-abi` crate's types, tables and shared rules, and
/// its locks and byte sizes.
pub use hip_abi::{bindings, shared, sync, units};

#[cfg(feature = "sim")]
pub use backend::sim;
pub use backend::{
    backend, device_target_id, hip, last_error_is_sticky, selection, status_text, Backend, BackendError,
};
// The HIP names every crate above uses, by name (the rest of HIP's C API
// is in `bindings::hip`): no glob, so what the root offers is listed here.
pub use bindings::error_names;
pub use bindings::hip::{
    hipCtx_t, hipDeviceAttribute_t, hipError_t, hipEventBlockingSync, hipEventDefault, hipEventDisableTiming,
    hipEventInterprocess, hipEvent_t, hipFunction_t, hipGraphExecUpdateResult, hipGraphExec_t,
    hipGraphInstantiateFlags, hipGraphMemAttributeType, hipGraphNodeType, hipGraphNode_t, hipGraph_t,
    hipHostRegisterPortable, hipMemAllocationType, hipMemLocation, hipMemLocationType, hipMemPoolAttr, hipMemPoolProps,
    hipMemPool_t, hipMemcpyKind, hipMemoryType, hipModule_t, hipPointerAttribute_t, hipStreamCaptureMode,
    hipStreamCaptureStatus, hipStreamNonBlocking, hipStream_t, HipApi,
};
pub use bindings::hiprtc;
pub use bindings::newer::{
    hipEventDisableSystemFence, hipEventReleaseToDevice, hipEventReleaseToSystem, hipStreamLegacy, hipStreamPerThread,
};
pub use bindings::{dlpack, miopen, rccl, rocblas, rocfft, rocrand, rocsolver, rocsparse, roctx};
pub use libraries::rtc::{compiler, compiler_of, hiprtc, hiprtc_status_name, Compiler, CompilerKind};
pub use libraries::{
    available, miopen, rccl, rocblas, rocfft, rocfft_version, rocrand, rocsolver, rocsparse, rocsparse_spmv_staged,
    roctx, Library, RocfftVersion,
};
pub use shared::prelude::{prelude, surface_entry_at, surface_program, Header, Provided, SURFACE};
