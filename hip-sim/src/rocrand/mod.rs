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
//! # XORWOW and MRG32k3a
//!
//! - **XORWOW** (also rocRAND's default type): rocRAND's seeding, and its
//!   host layout of 131072 engines on subsequences 2^67 draws apart
//!   (skip-ahead by GF(2) matrix powers), with the generate kernel's
//!   division of work (`engines`): each value's draws come from one
//!   engine, the unaligned head and the tail from the thread that would
//!   write the next vector, and every call starts `ceil(n / width)`
//!   engines on. With one draw a value that is one stream: position `p`
//!   is engine `p % 131072`'s draw `p / 131072`.
//! - **MRG32k3a** likewise, with rocRAND's seeding and its own partial
//!   reductions, seed 0 taken as 12345, subsequences 2^76 draws apart and
//!   jumps by modular powers of the components' matrices. Its conversions
//!   are its own: a word is `(v - 1)` stretched over 32 bits, a float
//!   `v / m1` rounded, a double `v / m1` (one draw each), and its
//!   Box-Muller takes two draws a pair in both precisions, the double one
//!   from the float uniforms widened, as rocRAND computes it.
//! - Both give every distribution bit for bit in their layout; the values
//!   of normals and log-normals agree to the ulp where the CPU's maths
//!   library does (the tests hold them to two).
//!
//! # Poisson
//!
//! `rocrand_generate_poisson` is bit for bit for all three generators
//! (`poisson`): rocRAND's alias table of the values down to probability
//! 1e-12, built on the host in its order of operations with the C
//! library's `exp`, `log` and `lgamma`, one word a value (MRG32k3a's draw
//! stretched over 32 bits first). A generator keeps the table of its last
//! `lambda`; a new one is device memory and a synchronous copy on
//! rocRAND, so it is refused inside a capture the thread may not allocate
//! in, as the state is. A `lambda` that is not positive is
//! `ROCRAND_STATUS_OUT_OF_RANGE`, as on rocRAND, and so are NaN, the
//! infinities and values of 2^31 or more, for which rocRAND's table code
//! is undefined.
//!
//! # What is not modelled
//!
//! - The other generators (MTGP32, MT19937, quasi-random ones) are
//!   `ROCRAND_STATUS_TYPE_ERROR` here, and logged.
//! - Output that is not simulator device memory of the full size is
//!   refused with `ROCRAND_STATUS_LAUNCH_FAILURE` (a GPU would fault in
//!   the kernel).
//! - So is Philox's output of double uniforms, normals and log-normals
//!   that does not start on 16 bytes: rocRAND 2.10's Philox kernel (and
//!   later ones, to date) gives the unaligned head to one thread, which
//!   takes more words for it than the others assume, and misplaces values
//!   silently. XORWOW's and MRG32k3a's kernels place such a head right,
//!   and the simulator computes it as they do.

mod engines;
mod generate;
mod generator;
mod mrg32k3a;
mod philox;
mod poisson;
mod table;
mod xorwow;

pub(crate) use generator::Generator;
pub(crate) use table::SIM_ROCRAND;

/// rocRAND's generators, where they are kept.
pub(crate) static OBJECTS: crate::library::Registry<Generator> = crate::library::Registry::new();
