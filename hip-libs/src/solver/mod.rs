//! rocSOLVER: LU with partial pivoting ([`getrf`], [`getrs`]), Cholesky
//! ([`potrf`], [`potrs`]), QR ([`geqrf`], [`orgqr`] also named [`ungqr`]),
//! the symmetric / Hermitian eigensolver ([`syevd`], also named
//! [`heevd`]) and the singular value decomposition ([`gesvd`]) of dense
//! column-major matrices, in `f32`, `f64` and complex (`[re, im]`)
//! precision; all but `orgqr` also of strided batches of one shape
//! (`*_strided_batched`, with a [`Batch`]), and of batches of separate
//! matrices (`*_batched`, with a [`MatrixBatch`]).
//!
//! Matrices are column-major, as in LAPACK: element (i, j) of a matrix
//! with leading dimension `ld` is at `i + j * ld`; a [`Shape`] gives rows,
//! columns and `ld`. Every size, leading dimension and length is checked
//! before rocSOLVER is called, and an error names the value; operands must
//! be on one device; the work runs on the stream of the matrix that is
//! written (A for a factorization, B for a solve), and operands of other
//! streams are ordered on the GPU and kept from reuse until it is done.
//!
//! # `info` stays on the device
//!
//! A factorization returns an [`Info`]: rocSOLVER's `info`, still in device
//! memory, so a chain of factorizations and solves queues without a
//! synchronization per call. [`Info::check`] (or [`Info::value`]) reads it
//! when the caller asks, after the factorization ran, and reports a
//! singular or non-positive-definite matrix as
//! [`LibError::Breakdown`](crate::LibError::Breakdown). Pivots live in
//! [`Pivots`], which only [`getrf`] writes, so [`getrs`] never meets a
//! pivot out of range (rocSOLVER checks none: its row swaps would read and
//! write out of bounds).
//!
//! # Workspace and handles
//!
//! rocSOLVER takes its workspace from the rocBLAS handle it is given: the
//! calls here use this thread's rocBLAS handle of the device (the one
//! [`blas`](crate::blas) uses), ask how much each call needs with a device
//! memory size query, and grow the handle's workspace from the pool when
//! a call needs more. Nothing is allocated per call but
//! a factorization's `info`, 4 bytes a problem (and the eigensolver's `n`
//! reals of tridiagonal scratch, the SVD's `min(m, n) − 1` of bidiagonal
//! scratch), from the pool.
//!
//! # Capture
//!
//! Factorizations and solves capture. Inside `Stream::capture` each call
//! runs with a workspace of the capture's own, from its private pool, as
//! large as the call's size query asks (see [`blas`](crate::blas)'s
//! capture notes): no warm-up call is needed to grow the handle's, and a
//! graph shares its workspace with no other. (Growing the handle's own
//! workspace for a stream outside the capture, while this thread captures,
//! is refused with
//! [`HipError::CaptureUnderway`](hip_core::HipError::CaptureUnderway).)
//! Reading an [`Info`] waits for the stream, so it is refused inside a
//! capture. On the nvidia backend a handle's first solver call also makes
//! its cuSOLVER handle, and a device's first strided batch of small
//! matrices loads the kernel that writes NVIDIA's pointer arrays; neither
//! can happen inside a capture, so there one solver call (and one strided
//! batch) before capturing is needed.
//! The eigensolver and the SVD do not capture on the nvidia backend at
//! all: cuSOLVER's `syevd` and `gesvd` synchronize with the host, so
//! [`syevd`], [`gesvd`] and their strided batches are refused inside a
//! capture there (they capture on AMD and in the simulator).
//!
//! # Strided batches
//!
//! `getrf`, `getrs`, `potrf`, `potrs`, `geqrf`, `syevd` and `gesvd` also
//! take a strided batch ([`Batch`]): one call for many problems of one shape,
//! one [`Info`] value per problem, pivots from [`Pivots::batched`]. On AMD
//! they are rocSOLVER's `*_strided_batched`; on the nvidia backend, a
//! batch runs as one cuBLAS/cuSOLVER batched launch (LU, Cholesky,
//! Cholesky solves of one right-hand side, QR) where that is faster than
//! one cuSOLVER call per problem (many small matrices), and as one call
//! per problem otherwise (always for the eigensolver and the SVD).
//!
//! # Batches of separate matrices
//!
//! [`getrf_batched`], [`getrs_batched`], [`potrf_batched`],
//! [`potrs_batched`], [`geqrf_batched`], [`syevd_batched`] (also named
//! [`heevd_batched`]) and [`gesvd_batched`] take a [`MatrixBatch`]: matrices
//! of one shape, each anywhere in the device's memory (separate arrays,
//! slices), with the device array of their addresses that rocSOLVER's
//! `*_batched` functions read. Making the batch writes that array once and
//! waits for the first matrix's stream; the calls then queue without
//! waiting and capture. The batch borrows the matrices, so none can be
//! dropped or written elsewhere while the array names it. On the nvidia
//! backend they run as NVIDIA's batched launch on that array where the
//! shape allows one (square LU with its pivots packed, Cholesky, its solve
//! of one right-hand side, QR) and it is faster or a capture is underway;
//! otherwise, and always for the eigensolver and the SVD, the array is
//! read back (a wait for the stream, refused inside a capture) and
//! cuSOLVER solves one problem at a time. The eigenvalues, singular values
//! and singular vectors of a batch of separate matrices are packed, as a
//! strided batch's are; only the matrices themselves are separate.
//!
//! On the nvidia backend rocSOLVER is mapped onto cuSOLVER's dense API; in
//! the simulator it is computed on the CPU in the operands' precision,
//! with rocSOLVER 3.21's rules and workspace sizes.

mod batch;
mod capture;
mod cholesky;
mod eigen;
mod info;
mod lu;
mod matrices;
mod qr;
mod raw;
mod shape;
mod svd;

pub use batch::{
    geqrf_strided_batched, getrf_strided_batched, getrs_strided_batched, potrf_strided_batched, potrs_strided_batched,
    syevd_strided_batched, syevd_strided_batched as heevd_strided_batched, Batch,
};
pub use cholesky::{potrf, potrs, Triangle};
pub use eigen::{syevd, syevd as heevd, Vectors};
pub use info::{Info, Pivots};
pub use lu::{getrf, getrs};
pub use matrices::{
    geqrf_batched, getrf_batched, getrs_batched, potrf_batched, potrs_batched, syevd_batched,
    syevd_batched as heevd_batched, MatrixBatch,
};
pub use qr::{geqrf, orgqr, orgqr as ungqr};
pub use raw::SolverScalar;
pub use shape::Shape;
pub use svd::{gesvd, gesvd_batched, gesvd_strided_batched, SingularVectors};
