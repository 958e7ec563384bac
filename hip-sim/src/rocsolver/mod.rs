//! rocSOLVER in the simulator: LU (`getrf`, `getrs`), Cholesky (`potrf`,
//! `potrs`), QR, the eigensolver and the SVD in single, double and both
//! complex precisions, computed on the CPU in the operand's precision, as
//! rocSOLVER 3.21 (ROCm 5.5) defines their results.
//!
//! - **Arguments** are checked with rocSOLVER's rules and order
//!   (`rocsolver_rules`, shared with the nvidia mapping): a null handle,
//!   then enums (`invalid_value`), sizes (`invalid_size`), then, unless a
//!   size query is underway, pointers (`invalid_pointer`). An empty
//!   factorization sets `info` to 0 on the stream; an empty solve returns.
//! - **Workspace** is the rocBLAS handle's, sized as rocSOLVER 3.21 sizes
//!   it (see `workspace`): during a device memory size query a call only
//!   collects its need (`size_increased` / `size_unchanged`); otherwise a
//!   user workspace smaller than the need is `memory_error` before
//!   anything runs, `info` untouched; a handle that manages its own grows
//!   it, as rocBLAS does. The computation writes the workspace on the
//!   handle's stream, so the race detector sees two streams sharing it.
//! - **Results**: `getrf` pivots on the first largest `|re| + |im|`,
//!   reports the first exactly-zero pivot in `info` (1-based) and goes on;
//!   `potrf` reports the first leading minor that is not positive definite
//!   and goes on as rocSOLVER does (the failed diagonal kept, zeros below
//!   it). The algorithms are unblocked, so values agree with rocSOLVER's
//!   blocked ones to rounding, not bit for bit. `getrs` checks no pivot,
//!   as rocSOLVER does; one outside `1..=n` faults the stream as an
//!   illegal address, where rocSOLVER's row swaps would access out of
//!   bounds.
//! - **Eigensolver** (`syevd`, `heevd`): eigenvalues ascending, vectors
//!   orthonormal with unspecified signs, computed by Jacobi in double
//!   precision; without vectors A's contents are destroyed (NaNs here,
//!   rocSOLVER's Householder vectors there); E's first `n − 1` entries are
//!   scratch. Its workspace is rocSOLVER 3.21's nine pieces (ROCm 6 moved
//!   divide and conquer down to order 16, slightly larger there).
//! - **SVD** (`gesvd`): singular values descending, vectors orthonormal
//!   with unspecified signs, by one-sided Jacobi in double precision; all,
//!   thin, over A or none per side, both over A refused. A's contents are
//!   destroyed unless vectors overwrite it (NaNs here); E's `k − 1` entries
//!   are scratch, zero on success; `info` counts what did not converge.
//!   An empty problem returns with `info` not written, as rocSOLVER's.
//!   Its workspace is rocSOLVER 3.21's, thin path (`m ≥ 1.6 n` or the
//!   reverse) and out-of-place copies included.
//! - **Strided batches** (`getrf`, `getrs`, `potrf`, `potrs`, `geqrf`
//!   `_strided_batched`): rocSOLVER's checks with the count (negative is
//!   `invalid_size`; an empty batch reads no `info`), then each problem
//!   computed as the single call computes it, at its strides, `info` one
//!   int per problem. rocSOLVER checks no stride; the simulator refuses a
//!   negative one, and a written operand whose problems overlap
//!   (`invalid_size`, as its rocBLAS refuses overlapping GEMM outputs),
//!   where a GPU would compute them in parallel into the same memory.
//!   Their workspace follows rocSOLVER's batched tables (see `workspace`).
//! - **Pointer-array batches** (`getrf`, `getrs`, `potrf`, `potrs`, `geqrf`,
//!   `syevd`/`heevd`, `gesvd` `_batched`): A (and the solves' B) are
//!   device arrays of one address per problem; the other operands are
//!   strided.
//!   The call checks the array (`invalid_pointer` unless it is device
//!   memory of `count` pointers) and the strided operands; the addresses
//!   are read when the computation runs, as rocSOLVER's kernels read them,
//!   so an array that a copy queued before the call fills serves, and the
//!   problems' memory is checked for races then with the call's ordering
//!   (see `problems` and `races::Deferred`). A null or dangling address
//!   faults the stream as an illegal address; two problems of a written
//!   operand sharing memory fault it as a launch failure (a GPU would
//!   compute both into it in parallel). Their workspace follows rocSOLVER's
//!   `BATCHED` sizes (see `workspace`). Inside a stream capture, the
//!   problems' memory of a replay is not race-checked (the array's is).
//! - **Memory** outside simulator device memory of the extent the sizes
//!   imply is `invalid_pointer` (a GPU would fault in the kernel). `info`
//!   and the pivots stay on the device: reading them is the caller's copy.

mod calls;
mod eigen;
mod factor;
mod problems;
mod qr;
mod scalar;
mod svd;
mod table;
mod wide;
mod workspace;

pub(crate) use table::SIM_ROCSOLVER;
