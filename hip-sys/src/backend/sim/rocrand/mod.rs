//! rocRAND in the simulator: the Philox4x32-10, XORWOW and MRG32k3a
//! generators of the host API, computed on the CPU as rocRAND 2.10 (ROCm 5.7) computes
//! them, queued on the generator's stream.
//!
//! # What is bit for bit, and what is not
//!
//! - **The stream of words.** Philox's block function is rocRAND's (it
//!   passes Random123's known-answer vectors). The host API's output is
//!   one sequential stream whatever the GPU's grid: with `P` the words
//!   consumed so far (from the seed and the offset, which counts words),
//!   `rocrand_generate`'s element `j` is word `(P + j) % 4` of block
//!   `(P + j) / 4`. `rocrand_set_seed` and `rocrand_set_offset` restart the
//!   stream at the offset.
//! - **Uniforms** are exact: a float is `(float)v * 2^-32 + 2^-32` (the
//!   product is exact, so fused or not makes no difference), in (0, 1]; a
//!   double takes two words, `a | (b >> 11) << 32`, times 2^-53 plus 2^-53.
//! - **Normals and log-normals** follow rocRAND's Box-Muller exactly in
//!   which words feed which output (float: two words give two outputs,
//!   `sin` for the even one, `cos` for the odd; double: four words give
//!   two, with `sinpi`/`cospi`), and in how far the stream advances (two
//!   words per pair of floats, four per pair of doubles; an odd count
//!   computes the last pair and drops its second value). The values agree
//!   only to a few ulps: the GPU's `__sincosf` is a hardware approximation
//!   and its `log` is not correctly rounded, while the simulator uses the
//!   CPU's `sin`, `cos` and `ln`.
//!
//! # State and captures
//!
//! A generator's state is made by `rocrand_initialize_generator` or by the
//! first generate after it was made or its seed or offset changed. Inside
//! a capture in which the thread may not allocate, that is refused with
//! `ROCRAND_STATUS_ALLOCATION_FAILED` (and invalidates the capture, as the
//! allocation does): cuRAND allocates its state then, and fails so on a
//! GPU. rocRAND's Philox makes its state on the host, so this is stricter
//! than rocRAND, on purpose.
//!
//! # XORWOW and MRG32k3a, and what is not modelled
//!
//! - **XORWOW** (also rocRAND's default type) is bit for bit in its words
//!   and float uniforms: rocRAND's seeding, and its host layout of 131072
//!   engines on subsequences 2^67 draws apart, position `p` drawn by
//!   engine `p % 131072` as its draw `p / 131072` (skip-ahead by GF(2)
//!   matrix powers). Its doubles, normals and log-normals, whose engines
//!   draw several words an element, are `ROCRAND_STATUS_INTERNAL_ERROR`;
//!   so are MRG32k3a's.
//! - **MRG32k3a** likewise, in words (`(v - 1)` stretched over 32 bits, as
//!   rocRAND's `rocrand_generate` gives them) and float uniforms
//!   (`v / m1`): rocRAND's seeding with its own partial reductions, seed 0
//!   taken as 12345, the same engine layout with subsequences 2^76 draws
//!   apart, and jumps by modular powers of the components' matrices.
//! - The other generators (MTGP32, MT19937, quasi-random ones) are
//!   `ROCRAND_STATUS_TYPE_ERROR` here, and `rocrand_generate_poisson` is
//!   `ROCRAND_STATUS_INTERNAL_ERROR`; each is logged.
//! - Output that is not simulator device memory of the full size is
//!   refused with `ROCRAND_STATUS_LAUNCH_FAILURE` (a GPU would fault in
//!   the kernel).
//! - So is output of double uniforms, normals and log-normals that does
//!   not start on 16 bytes: rocRAND 2.10's kernels (and later ones, to
//!   date) give the unaligned head to one thread, which takes more words
//!   for it than the others assume, and misplace values silently.

mod engines;
mod generate;
mod generator;
mod mrg32k3a;
mod philox;
mod table;
mod xorwow;

pub(crate) use generator::Generator;
pub(crate) use philox::{block as philox_block, counter as philox_counter};
pub(crate) use table::SIM_ROCRAND;
