//! How much of the rocBLAS handle's device memory each call asks for, as
//! rocSOLVER 3.21 (ROCm 5.5) sizes it (its `rocsolver_*_getMemorySize`, and
//! rocBLAS's trsm workspace that those include): the sum of its pieces,
//! each rounded up to 64 bytes as rocBLAS rounds them.
//!
//! `getrf`, `getrs`, `potrf`, `potrs` and `geqrf` also size their
//! strided-batched forms ([`Batch::Strided`]). rocSOLVER sizes those by its
//! batched block-size tables (`GETRF_BATCH_*`, `TRSM_BATCH_*`), even for a
//! batch of one; most pieces are per problem and grow with the count, and
//! so does rocBLAS's trsm workspace (strided, so without pointer arrays),
//! all but its trtri scratch; a batch of none asks for nothing.
//!
//! The pointer-array forms ([`Batch::Pointers`], `_batched`) share those
//! sizes but for what rocSOLVER's `BATCHED` flag adds: rocSOLVER hands
//! that flag, not the strided one, to rocBLAS's trsm, which then asks for
//! two arrays of one pointer per problem (`x_temp_arr`, `invA_arr`)
//! wherever it allocates and picks substitution by its batched table (the
//! same as rocSOLVER's `TRSM_BATCH_*`); `geqrf`'s blocked path adds
//! larft's pointer array, doubled, and its unblocked path's larf asks for
//! a pointer per problem in its work; `syevd` and `gesvd` add `workArr`, two
//! pointers a problem, and `gesvd`'s work holds at least larf's pointer
//! (labrd's two where gebrd is blocked) a problem.
//!
//! `getrs` and `potrs` follow rocSOLVER's trsm tables exactly
//! (`TRSM_BLKSIZES_*` for one problem, `TRSM_BATCH_BLKSIZES_*` for a
//! strided batch, roclapack_trsm_specialized_kernels.hpp): where a table
//! gives a block size, rocSOLVER's own blocked trsm serves and needs no
//! workspace; where it gives 0 (every order over 480, and for one problem
//! some right-hand-side counts from order 177 up), rocBLAS's trsm is sized.
//!
//! Simplifications, each on the side of asking for more memory:
//! - a `getrf` that its block-size table leaves unblocked (`min(m, n)` ≤ 64
//!   for one problem; in batches the 0s of `GETRF_BATCH_BLKSIZES_*`: ≤ 40,
//!   43–46 and 50–52 real, ≤ 23 and 29–30 complex) needs nothing when
//!   square (rocSOLVER runs a special kernel there) and its getf2's
//!   scalars, pivot values and indices in any other shape (rocSOLVER
//!   spares them for many of those too);
//! - an element's size says real or complex, but for 8 bytes (a double or
//!   a float complex): where the real and complex tables of getrf
//!   (batched) and trsm (batched or not) differ, the one that asks for
//!   more is taken (for trsm, batched or not, that is always the real
//!   table, whose 0s cover the complex one's);
//! - rocBLAS gives a skinny left solve (not transposed, order over 8192 and
//!   over 4 times the columns) its special kernel when the regular one
//!   would need more than 128 MiB (x, invA and trtri scratch together); here
//!   it keeps the regular (larger) one whenever the `order × columns` block
//!   of the whole batch alone fits 128 MiB (rocBLAS's limit taken at that
//!   default, not from `ROCBLAS_INTERNAL_TRSM_REG_KERNEL_MEM_LIMIT`).

use crate::rocblas::DEVICE_MEMORY_GRANULE;
use crate::shared::rocsolver_rules::Svect;

/// One problem, or a strided batch of `count` of them (rocSOLVER's batched paths, with their own block-size tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Batch {
    /// The plain function's one problem.
    One,
    /// A `_strided_batched` function's `batch_count` problems.
    Strided(usize),
    /// A `_batched` function's `batch_count` problems, at the addresses of
    /// a device pointer array.
    Pointers(usize),
}

impl Batch {
    /// The `batch_count` rocSOLVER is given: 1 for one problem.
    fn count(self) -> usize {
        match self {
            Batch::One => 1,
            Batch::Strided(count) | Batch::Pointers(count) => count,
        }
    }
}

/// The sum of `pieces`, each rounded up as rocBLAS rounds
/// (`rocblas_set_optimal_device_memory_size`).
fn total(pieces: &[usize]) -> usize {
    pieces.iter().map(|p| p.div_ceil(DEVICE_MEMORY_GRANULE) * DEVICE_MEMORY_GRANULE).sum()
}

/// Whether `pick` holds for every type an `elem`-byte element may be, told
/// whether that type is complex: 4 bytes are a float, 16 a double complex,
/// 8 a double or a float complex.
fn every_type(elem: usize, pick: impl Fn(bool) -> bool) -> bool {
    (elem > 8 || pick(false)) && (elem < 8 || pick(true))
}

/// rocSOLVER's `get_index`: the first of `bounds` that `dim` does not
/// exceed, or one past the last.
fn interval(bounds: &[usize], dim: usize) -> usize {
    bounds.iter().position(|&b| dim <= b).unwrap_or(bounds.len())
}

/// rocBLAS's trsm workspace (`rocblas_internal_trsm_workspace_size`,
/// `ROCBLAS_TRSM_NB` 128) for a left-side solve of an `mm × mm` triangle
/// against `n` columns, for `count` problems of `batch`: the pieces
/// (`x_temp`, `x_temp_arr`, `invA`, `invA_arr`). One int per problem for
/// one column (trsv); none for the small kernels, nor for substitution (up
/// to 32 columns in batches of 16 or more, or 33 to 128 columns, on
/// triangles its table serves: the non-batched one up to 480 and 340 rows
/// for real and complex alike, the batched one as `TRSM_BATCH_*`).
/// `x_temp` holds the larger of the batch's `mm × n` blocks (`128 × n` for
/// the `special` kernel) and trtri's scratch of one problem; `invA` the
/// batch's `128 × mm` inverses. rocSOLVER gives rocBLAS its pointer-array
/// flag (not the strided one): only a pointer-array batch reads rocBLAS's
/// batched table and asks for the two pointer arrays, one pointer per
/// problem each.
fn rocblas_trsm(mm: usize, n: usize, elem: usize, special: bool, count: usize, batch: Batch) -> [usize; 4] {
    const NB: usize = 128;
    if n == 1 {
        return [4 * count, 0, 0, 0];
    }
    let pointers = matches!(batch, Batch::Pointers(_));
    let substitution = ((n <= 32 && count >= 16 && mm <= 480) || (n > 32 && n <= 128 && mm <= 340))
        && (!pointers || every_type(elem, |complex| trsm_batch_table(complex).own(mm, n)));
    if mm <= 32 || (mm <= 64 && n <= 64) || substitution {
        return [0; 4];
    }
    let trtri = ((mm / NB) * 4096 * elem).max(4096 * elem);
    let rows = if special { NB } else { mm };
    let array = if pointers { std::mem::size_of::<usize>() * count } else { 0 };
    [(rows * n * elem * count).max(trtri), array, NB * mm * elem * count, array]
}

/// Whether a strided-batched `getrf` of `dim = min(m, n)` is one unblocked
/// getf2: its outer block size (`GETRF_BATCH_INTERVALS_*`,
/// `GETRF_BATCH_BLKSIZES_*`, ideal_sizes.hpp) is 0, for a `complex` type or
/// a real one.
fn getrf_batch_unblocked(dim: usize, complex: bool) -> bool {
    let (bounds, sizes): (&[usize], &[usize]) = if complex {
        (&[23, 28, 30, 32, 40, 48, 56, 64, 768, 1024], &[0, 16, 0, 1, 24, 16, 24, 16, 48, 64, 160])
    } else {
        (&[40, 42, 46, 49, 52, 58, 112, 800, 1024], &[0, 32, 0, 16, 0, 32, 1, 32, 64, 160])
    };
    sizes[interval(bounds, dim)] == 0
}

/// `getrf` of an `m × n` matrix of `elem`-byte elements, for `batch`.
///
/// Unblocked (order ≤ 64 for one problem, else where every type the
/// element may be has a batched block size of 0): nothing when square,
/// else getf2's scalars (3), a pivot value and an index per problem.
/// Blocked: those, `iinfo` (an int per problem), `iipiv` (`m` ints per
/// problem) and rocBLAS's trsm for the panel's update.
pub(super) fn getrf(m: usize, n: usize, elem: usize, batch: Batch) -> usize {
    let (dim, count) = (m.min(n), batch.count());
    if dim == 0 || count == 0 {
        return 0;
    }
    let unblocked = match batch {
        Batch::One => dim <= 64,
        Batch::Strided(_) | Batch::Pointers(_) => every_type(elem, |complex| getrf_batch_unblocked(dim, complex)),
    };
    if unblocked && m == n {
        return 0;
    }
    let scalars = [3 * elem, elem * count, 4 * count];
    if unblocked {
        return total(&scalars);
    }
    // The blocked path: the panel's trsm is sized for at most 512 rows,
    // one more when that is a multiple of 128 (never the special kernel).
    let k = dim.min(512);
    let mm = if k % 128 == 0 { k + 1 } else { k };
    let [work1, work2, work3, work4] = rocblas_trsm(mm, n, elem, false, count, batch);
    total(&[scalars[0], scalars[1], scalars[2], 4 * count, 4 * m * count, work1, work2, work3, work4])
}

/// Where one of rocSOLVER's trsm tables (roclapack_trsm_specialized_kernels.hpp)
/// picks rocBLAS's trsm: the bounds of its rows (orders) and columns
/// (right-hand-side counts), as `get_index` reads them, and each row's
/// first column of 0 (one past the last: none). Every row of the four
/// tables is nonzero (rocSOLVER's own blocked trsm) up to that column and
/// 0 from there.
struct TrsmTable {
    rows: &'static [usize],
    columns: &'static [usize],
    first_zero: &'static [usize],
}

impl TrsmTable {
    /// Whether an order-`n` left solve against `nrhs` columns is
    /// rocSOLVER's own (a nonzero block size), which needs no workspace.
    fn own(&self, n: usize, nrhs: usize) -> bool {
        interval(self.columns, nrhs) < self.first_zero[interval(self.rows, n)]
    }
}

/// `TRSM_BLKSIZES_REAL`, one problem: all 0 over order 480; nonzero for
/// every count up to order 176; 0 over 7680 columns to order 240, over 960
/// to 288, over 768 to 352 and over 448 to 480.
const TRSM_REAL: TrsmTable = TrsmTable {
    rows: &[40, 56, 80, 112, 144, 176, 208, 240, 288, 352, 480],
    columns: &[448, 768, 960, 1152, 1408, 1920, 2304, 2816, 3840, 4096, 4736, 4992, 5888, 7680, 9728],
    first_zero: &[16, 16, 16, 16, 16, 16, 14, 14, 3, 2, 1, 0],
};

/// `TRSM_BLKSIZES_COMPLEX`, one problem: all 0 over order 480; nonzero for
/// every count up to order 240; 0 over 7680 columns to 480.
const TRSM_COMPLEX: TrsmTable = TrsmTable {
    rows: &[40, 56, 80, 112, 144, 208, 240, 288, 480],
    columns: &[704, 960, 1344, 1920, 2304, 2816, 3200, 3840, 4864, 5888, 7680],
    first_zero: &[12, 12, 12, 12, 12, 12, 12, 11, 11, 0],
};

/// `TRSM_BATCH_BLKSIZES_REAL`.
const TRSM_BATCH_REAL: TrsmTable = TrsmTable {
    rows: &[20, 28, 40, 80, 112, 176, 208, 288, 352, 480],
    columns: &[6, 10, 12, 22, 28, 30, 36, 42, 46, 50, 60, 96, 432, 928, 960, 1472],
    first_zero: &[4, 7, 9, 17, 17, 17, 17, 17, 17, 16, 14],
};

/// `TRSM_BATCH_BLKSIZES_COMPLEX`: no 0 at all.
const TRSM_BATCH_COMPLEX: TrsmTable = TrsmTable {
    rows: &[20, 28, 40, 56, 80, 112, 144, 176, 480],
    columns: &[4, 12, 16, 28, 32, 40, 48, 50, 60, 72, 88, 176, 232, 400, 464],
    first_zero: &[16; 10],
};

/// The batched trsm table of a `complex` type or a real one: rocSOLVER's
/// `TRSM_BATCH_BLKSIZES_*`, which rocBLAS's own batched table repeats entry
/// for entry.
fn trsm_batch_table(complex: bool) -> &'static TrsmTable {
    if complex {
        &TRSM_BATCH_COMPLEX
    } else {
        &TRSM_BATCH_REAL
    }
}

/// rocBLAS's trsm pieces for `getrs`'s and `potrs`'s triangular solves of
/// order `n` against `nrhs` columns, with `transposed` or not: none where
/// rocSOLVER's own trsm serves every type the element may be (by
/// `TRSM_REAL`/`TRSM_COMPLEX` for one problem, `TRSM_BATCH_*` for a
/// strided batch; rocSOLVER's `rocsolver_trsm_mem`).
fn solve_trsm(n: usize, nrhs: usize, elem: usize, transposed: bool, batch: Batch) -> [usize; 4] {
    let table = |complex: bool| match (batch, complex) {
        (Batch::One, false) => &TRSM_REAL,
        (Batch::One, true) => &TRSM_COMPLEX,
        (Batch::Strided(_) | Batch::Pointers(_), _) => trsm_batch_table(complex),
    };
    if every_type(elem, |complex| table(complex).own(n, nrhs)) {
        return [0; 4];
    }
    let count = batch.count();
    let skinny = !transposed && n > 4 * nrhs && n > 8192 && n * nrhs * elem * count <= 128 << 20;
    let special = n % 128 == 0 && n > 64 && nrhs > 64 && !skinny;
    rocblas_trsm(n, nrhs, elem, special, count, batch)
}

/// `getrs` of order `n` with `nrhs` right-hand sides, for `batch`: its
/// triangular solves' rocBLAS trsm pieces, if any.
pub(super) fn getrs(n: usize, nrhs: usize, elem: usize, transposed: bool, batch: Batch) -> usize {
    if n == 0 || nrhs == 0 || batch.count() == 0 {
        return 0;
    }
    total(&solve_trsm(n, nrhs, elem, transposed, batch))
}

/// `potrf` of order `n`, for `batch`: its scalars (3), the dot products'
/// work (2 elements per problem) and the pivots (one per problem); the
/// blocked path (order over 128) adds `iinfo` (an int per problem), and
/// its trsm, of 64 rows, is always rocSOLVER's own (its batched table
/// too has no 0 in that row).
pub(super) fn potrf(n: usize, elem: usize, batch: Batch) -> usize {
    let count = batch.count();
    if n == 0 || count == 0 {
        return 0;
    }
    // `ROCBLAS_DOT_NB` is 512: two partial sums for every order the
    // unblocked kernel sees (at most 128).
    let work = 2 * elem * count;
    if n <= 128 {
        total(&[3 * elem, work, elem * count])
    } else {
        total(&[3 * elem, work, elem * count, 4 * count])
    }
}

/// `potrs` of order `n`, for `batch`: the larger of the two triangular
/// solves' pieces.
pub(super) fn potrs(n: usize, nrhs: usize, elem: usize, batch: Batch) -> usize {
    if n == 0 || nrhs == 0 || batch.count() == 0 {
        return 0;
    }
    let left = solve_trsm(n, nrhs, elem, false, batch);
    let right = solve_trsm(n, nrhs, elem, true, batch);
    total(&std::array::from_fn::<usize, 4, _>(|i| left[i].max(right[i])))
}

/// `syevd` / `heevd` of order `n` (elements of `elem` bytes, their real
/// type of `real`), with or without eigenvectors: rocSOLVER 3.21's nine
/// pieces, from the tridiagonal reduction (`sytd2`/`sytrd`, rocBLAS's
/// symv), the tridiagonal solver (`sterf` without vectors; with them
/// `steqr` below order 32, divide and conquer from 32) and the back
/// transformation (`ormtr`, blocked above order 64). A strided batch
/// asks for every piece but the scalars once per problem (rocSOLVER's
/// sizes take no other account of the count).
pub(super) fn syevd(n: usize, elem: usize, real: usize, vectors: bool, batch: Batch) -> usize {
    let c = batch.count();
    if n <= 1 || c == 0 {
        return 0;
    }
    let (s, r, complex) = (elem, real, elem != real);
    let divide = vectors && n >= 32;
    let blocked = n > 64;
    let symv = s * n * n.div_ceil(64);
    let work1 = if vectors {
        let solver = if divide { (2 * n * r).max(if complex { n * n * r } else { 0 }) } else { 2 * n * r };
        let back = if blocked { 64 * s } else { n * s };
        symv.max(solver).max(back)
    } else {
        // sterf's stack.
        symv.max(256)
    };
    let work2 = if vectors {
        let back = if blocked { 64 * n * s } else { s };
        s.max(if divide { n * n * r } else { 0 }).max(back)
    } else {
        s
    };
    let work3 =
        if vectors { (if divide { 2 * n * n * r } else { 0 }).max(if blocked { 64 * 64 * s } else { 0 }) } else { 0 };
    let tmpz = if divide { 2 * n * r } else { 0 };
    let splits = if divide { 4 * (3 * n + 2) } else { 0 };
    let tmptau_w = (s * n * n).max(if blocked { 32 * n * s } else { s });
    let per_problem = [work1, work2, work3, tmpz, splits, tmptau_w, s * n];
    let mut pieces = vec![3 * s];
    pieces.extend(per_problem.iter().map(|p| p * c));
    if let Batch::Pointers(_) = batch {
        // `workArr`: two pointers a problem.
        pieces.push(2 * std::mem::size_of::<usize>() * c);
    }
    total(&pieces)
}

/// Whether rocSOLVER 3.21 can size this eigensolver call: with vectors
/// from order 32 (divide and conquer) its `stedc` computes `2·n²·count`
/// in a 32-bit `rocblas_int` before scaling it to bytes, which overflows
/// past `i32::MAX` (undefined behaviour in C; an absurd size in practice).
pub(super) fn syevd_sizes_fit(n: usize, vectors: bool, batch: Batch) -> bool {
    !vectors || n < 32 || 2 * (n as u128) * (n as u128) * (batch.count() as u128) <= i32::MAX as u128
}

/// larfg's dot-product workspace for a column of `x` entries
/// (`ROCBLAS_DOT_NB` 512).
fn larfg(x: usize, elem: usize) -> usize {
    (if x > 2 { (x - 2) / 512 + 2 } else { 1 }) * elem
}

/// `geqrf` of an `m × n` matrix, for `batch`: unblocked (`geqr2`) unless
/// both exceed 128, else in panels of 64 (`larft`, `larfb`). Strided
/// batches need no pointer arrays, and every piece of `geqrf_parts` is per
/// problem: the scalars alone are shared.
pub(super) fn geqrf(m: usize, n: usize, elem: usize, batch: Batch) -> usize {
    let count = batch.count();
    if m == 0 || n == 0 || count == 0 {
        return 0;
    }
    let [mut work, norms, diag] = geqrf_parts(m, n, elem);
    let mut arrays = 0;
    if let Batch::Pointers(_) = batch {
        let pointer = std::mem::size_of::<usize>();
        if m <= 128 || n <= 128 {
            // geqr2's larf takes a pointer per problem, in the larger of
            // its work and larfg's.
            work = work.max(pointer);
        } else {
            // larft's pointer per problem, doubled for pointer arrays.
            arrays = 2 * pointer * count;
        }
    }
    total(&[3 * elem, work * count, norms * count, diag * count, arrays])
}

/// `orgqr` / `ungqr` of `m × n` from `k` reflectors: unblocked (`org2r`)
/// for `k` up to 128, else in panels of 64.
pub(super) fn orgqr(m: usize, n: usize, k: usize, elem: usize) -> usize {
    let [work, tmptr, trfact] = orgqr_parts(m, n, k, elem);
    total(&[3 * elem, work, tmptr, trfact])
}

/// `gebrd` of `m × n`: (`work`, `Abyx_norms`, `X`, `Y`); its scalars are
/// always `3 * elem`. Unblocked (`gebd2`) unless both exceed 64; blocked,
/// `labrd` in panels of 64 and `gebd2` on what is left.
fn gebrd_parts(m: usize, n: usize, elem: usize) -> [usize; 4] {
    let big = m.max(n);
    if m <= 64 || n <= 64 {
        return [larfg(big, elem), big * elem, 0, 0];
    }
    let d = (m / 64).min(n / 64);
    let (mr, nr) = (m - 64 * d, n - 64 * d);
    let rest = if mr > 0 && nr > 0 { mr.max(nr) * elem } else { 0 };
    [larfg(big, elem), rest.max(elem), 64 * m * elem, 64 * n * elem]
}

/// `geqrf` of `m × n`: (`work`, `Abyx_norms_trfact`, `diag_tmptr`); `gelqf`
/// of `m × n` has those of `n × m`. [`geqrf`] is `total` of these (each
/// times the batch's count) and the scalars.
fn geqrf_parts(m: usize, n: usize, elem: usize) -> [usize; 3] {
    if m <= 128 || n <= 128 {
        [larfg(m, elem), n * elem, elem]
    } else {
        [larfg(m, elem).max(64 * elem), 64 * 64 * elem, elem.max((n - 64) * 64 * elem)]
    }
}

/// `orgqr` / `ungqr` of `m × n` from `k` reflectors: (`work`,
/// `Abyx_tmptr`, `trfact`); [`orgqr`] is `total` of these and the scalars.
fn orgqr_parts(m: usize, n: usize, k: usize, elem: usize) -> [usize; 3] {
    if m == 0 || n == 0 {
        [0; 3]
    } else if k <= 128 {
        [0, n * elem, 0]
    } else {
        [64 * elem, (n * elem).max(n.saturating_sub(64) * 64 * elem), 64 * 64 * elem]
    }
}

/// `orglq` / `unglq`, likewise; its blocked larfb is sized as a left-side
/// one, `n × 64` (not `(m - 64) × 64`).
fn orglq_parts(m: usize, n: usize, k: usize, elem: usize) -> [usize; 3] {
    if m == 0 || n == 0 {
        [0; 3]
    } else if k <= 128 {
        [0, m * elem, 0]
    } else {
        [64 * elem, (m * elem).max(if m > 64 { n * 64 * elem } else { 0 }), 64 * 64 * elem]
    }
}

/// `orgbr` / `ungbr` (`column`-wise: Q, else Pᴴ) of `m × n` from `k`:
/// orgqr (orglq) when `m ≥ k` (`n > k`), else that of order `m - 1`
/// (`n - 1`) and a triangle of `(d - 1)·d/2` elements in `work`.
fn orgbr_parts(column: bool, m: usize, n: usize, k: usize, elem: usize) -> [usize; 3] {
    let shifted = |d: usize, f: fn(usize, usize, usize, usize) -> [usize; 3]| {
        let [w, a, t] = f(d - 1, d - 1, d - 1, elem);
        [w.max((d - 1) * d / 2 * elem), a, t]
    };
    match (m == 0 || n == 0, column) {
        (true, _) => [0; 3],
        (false, true) if m >= k => orgqr_parts(m, n, k, elem),
        (false, true) => shifted(m, orgqr_parts),
        (false, false) if n > k => orglq_parts(m, n, k, elem),
        (false, false) => shifted(n, orglq_parts),
    }
}

/// `gesvd` of `m × n` (elements of `elem` bytes, their real type of
/// `real`), with `left` (U) and `right` (Vᴴ) vectors, `in_place` for
/// `rocblas_inplace`: rocSOLVER 3.21's pieces (scalars, work, Abyx,
/// X/trfact, Y/diag/tmptr, tau, copies T and C), each a max over parts.
/// Overwrite on both sides is refused before sizing; don't ask.
///
/// Thin (`m ≥ 1.6·n` or `n ≥ 1.6·m`, compared in f64 as rocSOLVER's
/// `THIN_SVD_SWITCH` is): geqrf (`m ≥ n`, else gelqf) of `m × n`, gebrd
/// of `k × k`, bdsqr, orgbr `k × k` for the other side's vectors and
/// orgqr/orglq for the lead side's (`max(m, n)` square for `All`); out of
/// place also orgbr `k × k` for the lead side and a `k × k` copy, plus an
/// `m × n` one unless the other side is S/A and the lead not O (even
/// for N/N); in place ormbr of `m × n` instead, and the `k × k` copy
/// only for lead O, other N. Otherwise gebrd of `m × n`, orgbr per side
/// and bdsqr, and `in_place` changes nothing. bdsqr's `2·k` per side
/// asked for are reals. A strided batch asks for every piece but the
/// scalars once per problem.
#[allow(clippy::too_many_arguments)]
pub(super) fn gesvd(
    m: usize,
    n: usize,
    elem: usize,
    real: usize,
    left: Svect,
    right: Svect,
    in_place: bool,
    batch: Batch,
) -> usize {
    let c = batch.count();
    if m == 0 || n == 0 || c == 0 {
        return 0;
    }
    let e = elem;
    let (k, kk, row) = (m.min(n), m.max(n), m >= n);
    let (lead, other) = if row { (left, right) } else { (right, left) };
    let thin = m as f64 >= 1.6 * n as f64 || n as f64 >= 1.6 * m as f64;
    let fast = thin && !in_place;
    let (mut w, mut a, mut x, mut y) = ([0; 6], [0; 5], [0; 6], [0; 3]);
    let tau = 2 * e * k;
    let copy_t = if fast || (thin && lead == Svect::Overwrite && other == Svect::None) { k * k * e } else { 0 };
    let copy_c = if fast && (other == Svect::None || other == Svect::Overwrite || lead == Svect::Overwrite) {
        m * n * e
    } else {
        0
    };
    let (bm, bn) = if thin { (k, k) } else { (m, n) };
    [w[0], a[0], x[0], y[0]] = gebrd_parts(bm, bn, e);
    // bdsqr: two k-vectors of reals for V, two for U.
    let sides = (left != Svect::None) as usize + (right != Svect::None) as usize;
    w[1] = 2 * sides * k * real;
    if thin {
        // geqrf (m ≥ n) or gelqf; one shape serves both by transposition.
        [w[2], x[1], y[1]] = if row { geqrf_parts(m, n, e) } else { geqrf_parts(n, m, e) };
        if !fast && lead != Svect::None {
            // ormbr → ormqr (right side) or ormlq (left), both sized by max(m, n).
            [a[1], y[2], x[2]] = if k > 64 { [64 * e, kk * 64 * e, 64 * 64 * e] } else { [kk * e, e, 0] };
        }
        if other != Svect::None {
            [w[3], a[2], x[3]] = orgbr_parts(!row, k, k, k, e);
        }
        if fast && lead != Svect::None {
            [w[4], a[3], x[4]] = orgbr_parts(row, k, k, k, e);
        }
        if lead != Svect::None {
            let (mm, nn) = if lead == Svect::All { (kk, kk) } else { (m, n) };
            let f = if row { orgqr_parts } else { orglq_parts };
            [w[5], a[4], x[5]] = f(mm, nn, k, e);
        }
    } else {
        match left {
            Svect::Singular | Svect::All => {
                let mn = if row && left == Svect::Singular { n } else { m };
                [w[3], a[2], x[3]] = orgbr_parts(true, m, mn, n, e);
            }
            Svect::Overwrite => [w[3], a[2], x[3]] = orgbr_parts(true, m, k, n, e),
            Svect::None => {}
        }
        match right {
            Svect::Singular | Svect::All => {
                let mn = if !row && right == Svect::Singular { m } else { n };
                [w[4], a[3], x[4]] = orgbr_parts(false, mn, n, m, e);
            }
            Svect::Overwrite => [w[4], a[3], x[4]] = orgbr_parts(false, k, n, m, e),
            Svect::None => {}
        }
    }
    let max = |p: &[usize]| p.iter().copied().max().unwrap_or(0);
    let pointers = matches!(batch, Batch::Pointers(_));
    let mut work = max(&w);
    if pointers {
        // The pointer arrays folded into the work: larf's one pointer a
        // problem, labrd's two when gebrd is blocked.
        let pointer = std::mem::size_of::<usize>();
        work = work.max(if bm > 64 && bn > 64 { 2 * pointer } else { pointer });
    }
    let per_problem = [work, max(&a), max(&x), max(&y), tau, copy_t, copy_c];
    let mut pieces = vec![3 * e];
    pieces.extend(per_problem.iter().map(|p| p * c));
    if pointers {
        // `workArr`: two pointers a problem (the fast path's gemms).
        pieces.push(2 * std::mem::size_of::<usize>() * c);
    }
    total(&pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getrf_asks_what_rocsolver_3_21_asks() {
        let getrf = |m, n, elem| getrf(m, n, elem, Batch::One);
        // Square totals from rocSOLVER 3.21's sizes: float, double, double complex.
        assert_eq!([getrf(64, 64, 4), getrf(64, 64, 8)], [0, 0]);
        assert_eq!([getrf(256, 256, 4), getrf(256, 256, 8), getrf(256, 256, 16)], [396_032, 790_784, 1_580_288]);
        assert_eq!([getrf(1024, 1024, 4), getrf(1024, 1024, 8)], [2_368_256, 4_732_160]);
        assert_eq!(getrf(1024, 1024, 16), 9_459_968);
        assert_eq!([getrf(8192, 8192, 4), getrf(8192, 8192, 8)], [17_105_664, 34_178_304]);
        assert_eq!(getrf(8192, 8192, 16), 68_323_584);
    }

    #[test]
    fn strided_getrf_asks_what_rocsolver_3_21_asks() {
        let b = |m, n, elem, count| getrf(m, n, elem, Batch::Strided(count));
        // 30: block size 0 in the real table (≤ 40) and the complex one
        // (29–30), so the square getf2 kernel, nothing.
        assert_eq!(b(30, 30, 8, 3), 0);
        // 26: 0 for a float; blocked for a double complex (24–28 → 16), and
        // for 8 bytes as one may be a float complex: 3 scalars, 3 pivot
        // values, 3 indices, 3 iinfo (64 each) and 26·3 iipiv ints (312 →
        // 320); the trsm's 26 rows are rocBLAS's small kernel.
        assert_eq!([b(26, 26, 4, 3), b(26, 26, 8, 3), b(26, 26, 16, 3)], [0, 576, 576]);
        // 42 is blocked for a float (41–42 → 32): 4·64 + 42·4·3 = 504 → 512;
        // 45 is not (43–46 → 0), but as a float complex it is (41–48 → 16):
        // 4·64 + 45·4·3 = 540 → 576.
        assert_eq!([b(42, 42, 4, 3), b(45, 45, 4, 3), b(45, 45, 8, 3)], [768, 0, 832]);
        // 60: one problem is unblocked and square (nothing), but a batch of
        // one is blocked (59–112 → 1, the whole order): 4·64 + 240 → 256.
        assert_eq!([getrf(60, 60, 4, Batch::One), b(60, 60, 4, 1)], [0, 512]);
        // Not square and unblocked: the scalars 12 → 64, 100 pivot values
        // and 100 indices (400 → 448 each).
        assert_eq!(b(10, 40, 4, 100), 960);
        // 100 double: blocked; the trsm of 100 rows, 100 columns is
        // substitution; 24 → 64, 800 → 832, 400 → 448 twice, 40_000 iipiv.
        assert_eq!(b(100, 100, 8, 100), 41_792);
        // 1024 double ×3: trsm of 513 rows: x 513·1024·8·3 = 12_607_488 (over
        // trtri's 4·4096·8), invA 128·513·8·3 = 1_575_936; 4·64 + 12_288 iipiv.
        assert_eq!(b(1024, 1024, 8, 3), 14_195_968);
        // A batch of one at 1024 is blocked too: what one problem asks.
        assert_eq!(b(1024, 1024, 4, 1), getrf(1024, 1024, 4, Batch::One));
        // 2000 × 1500 double complex ×100: 48 → 64, 1_600, 400 → 448 twice,
        // iipiv 800_000, x 513·1500·16·100 = 1_231_200_000, invA 105_062_400.
        assert_eq!(b(2000, 1500, 16, 100), 1_337_064_960);
    }

    #[test]
    fn the_eigensolver_asks_what_rocsolver_3_21_asks() {
        let d = |n| syevd(n, 8, 8, true, Batch::One);
        assert_eq!([d(1), d(2), d(4), d(30), d(64)], [0, 320, 384, 8_128, 134_528]);
        assert_eq!([d(100), d(256), d(1024)], [325_312, 2_114_688, 33_722_496]);
        assert_eq!(d(4096), 539_115_648);
        assert_eq!(syevd(100, 8, 8, false, Batch::One), 82_560, "without vectors");
        assert_eq!([syevd(30, 16, 8, true, Batch::One), syevd(100, 16, 8, true, Batch::One)], [15_552, 506_880]);
        assert_eq!([syevd(30, 16, 8, false, Batch::One), syevd(100, 16, 8, false, Batch::One)], [15_552, 164_928]);
        // A strided batch: every piece times the count but the scalars.
        assert_eq!(syevd(100, 8, 8, true, Batch::Strided(3)), 975_744);
        assert_eq!(syevd(30, 8, 8, true, Batch::Strided(2)), 16_000);
        assert_eq!(syevd(100, 8, 8, false, Batch::Strided(4)), 329_728);
        assert_eq!(syevd(100, 16, 8, true, Batch::Strided(2)), 1_013_696);
        assert_eq!(syevd(100, 8, 8, true, Batch::Strided(1)), syevd(100, 8, 8, true, Batch::One));
        assert_eq!(syevd(100, 8, 8, true, Batch::Strided(0)), 0);
    }

    #[test]
    fn qr_asks_what_rocsolver_3_21_asks() {
        let geqrf = |m, n, elem| geqrf(m, n, elem, Batch::One);
        let d = |m, n| geqrf(m, n, 8);
        assert_eq!([d(4, 4), d(30, 30), d(100, 100), d(256, 256), d(50, 20)], [256, 448, 1024, 131_648, 384]);
        let o = |m, n, k| orgqr(m, n, k, 8);
        assert_eq!([o(4, 4, 4), o(30, 30, 30), o(100, 100, 100), o(256, 256, 256)], [128, 320, 896, 131_648]);
        assert_eq!(o(50, 20, 20), 256);
        assert_eq!([geqrf(30, 30, 16), geqrf(100, 100, 16)], [704, 1_792]);
        assert_eq!([orgqr(30, 30, 30, 16), orgqr(100, 100, 100, 16)], [576, 1_664]);
    }

    #[test]
    fn solves_and_cholesky_ask_little() {
        let one = Batch::One;
        assert_eq!(getrs(64, 1, 8, false, one), 0);
        assert_eq!(getrs(1024, 1, 8, false, one), 64);
        assert_eq!(getrs(1024, 1024, 8, false, one), 2 * 1_048_576);
        assert_eq!([potrf(100, 8, one), potrf(8192, 8, one), potrf(8192, 16, one)], [192, 256, 256]);
        assert_eq!(potrs(1024, 1024, 8, one), 2 * 1_048_576);
    }

    #[test]
    fn one_solve_follows_rocsolvers_trsm_table() {
        let one = Batch::One;
        let d = |n, nrhs, elem| getrs(n, nrhs, elem, false, one);
        // Up to order 176 every count is rocSOLVER's own in both tables.
        assert_eq!([d(176, 100_000, 8), d(176, 100_000, 16)], [0, 0]);
        // Real row 177–208: 0 (rocBLAS's trsm) over 7680 columns. A double
        // 200 × 8000: x 200·8000·8 = 12_800_000, invA 128·200·8 = 204_800;
        // the complex row 145–208 has no 0, so a double complex is own.
        assert_eq!([d(200, 8000, 8), d(200, 8000, 16)], [13_004_800, 0]);
        // Real row 241–288: own up to 960 columns, 0 over. 250 × 900 needs
        // nothing; 250 × 1000, a double: x 250·1000·8 = 2_000_000, invA
        // 128·250·8 = 256_000; a float half of each. In the complex row
        // 241–288 (own up to 7680 columns) a double complex is own, and
        // so would a float complex be, but 8 bytes are sized as a double.
        assert_eq!([d(250, 900, 8), d(250, 1000, 8), d(250, 1000, 4)], [0, 2_256_000, 1_128_000]);
        assert_eq!(d(250, 1000, 16), 0);
        // 352 ends the real row 289–352 (0 over 768 columns), 353 starts
        // 353–480 (0 over 448): 500 float columns are own at 352 and
        // rocBLAS's at 353: x 353·500·4 = 706_000 → 706_048, invA
        // 128·353·4 = 180_736.
        assert_eq!([d(352, 500, 4), d(353, 500, 4)], [0, 886_784]);
        // 480 with 448 columns is own, with 449 rocBLAS's: x 480·449·8 =
        // 1_724_160, invA 128·480·8 = 491_520. One column is own at 480;
        // every order over 480 is 0 in both tables: at 481, rocBLAS's trsv
        // int, 4 → 64.
        assert_eq!([d(480, 448, 8), d(480, 449, 8), d(480, 1, 8), d(481, 1, 8)], [0, 2_215_680, 0, 64]);
        // Complex rows 241–480: own up to 7680 columns, 0 over. A double
        // complex 300 × 7680 needs nothing; 300 × 8000: x 300·8000·16 =
        // 38_400_000, invA 128·300·16 = 614_400. A double 300 × 7680 is
        // rocBLAS's already (real row 289–352): x 18_432_000, invA 307_200.
        assert_eq!([d(300, 7680, 16), d(300, 8000, 16), d(300, 7680, 8)], [0, 39_014_400, 18_739_200]);
        // Transposed, order 256 (a multiple of 128) × 1000 double: rocBLAS's
        // special kernel, x 128·1000·8 = 1_024_000 (over trtri's 2·4096·8),
        // invA 128·256·8 = 262_144.
        assert_eq!(getrs(256, 1000, 8, true, one), 1_286_144);

        let p = |n, nrhs, elem| potrs(n, nrhs, elem, one);
        // Real row 353–480, both solves alike: 400 × 448 own; 400 × 500 a
        // double: x 400·500·8 = 1_600_000, invA 128·400·8 = 409_600.
        assert_eq!([p(400, 448, 8), p(400, 500, 8)], [0, 2_009_600]);
        // A float in the real row 289–352: 300 × 768 own; 300 × 800: x
        // 300·800·4 = 960_000, invA 128·300·4 = 153_600.
        assert_eq!([p(300, 768, 4), p(300, 800, 4)], [0, 1_113_600]);
        // A double complex in the complex row 289–480: 480 × 7680 own;
        // 480 × 9728: x 480·9728·16 = 74_711_040, invA 128·480·16 = 983_040.
        assert_eq!([p(480, 7680, 16), p(480, 9728, 16)], [0, 75_694_080]);
        // 256 × 1000 double: both solves special, as getrs's above.
        assert_eq!(p(256, 1000, 8), 1_286_144);
    }

    #[test]
    fn strided_solves_ask_what_rocsolver_3_21_asks() {
        let s = |n, nrhs, elem, transposed, count| getrs(n, nrhs, elem, transposed, Batch::Strided(count));
        // Order 40, 200 columns: a 0 of the real batched trsm table (29–40
        // rows, over 46 columns), so rocBLAS's (not substitution, over 128
        // columns): x 40·200·elem·3, invA 128·40·elem·3; the complex table
        // has no 0, and 8 bytes are sized as a double.
        assert_eq!([s(40, 200, 4, false, 3), s(40, 200, 8, false, 3)], [96_000 + 61_440, 192_000 + 122_880]);
        assert_eq!(s(40, 200, 16, false, 3), 0);
        // One problem of order 40 is rocSOLVER's own whatever its columns.
        assert_eq!(getrs(40, 200, 8, false, Batch::One), 0);
        // One column is in every row's first column: rocSOLVER's own, where
        // one problem of order 1024 asks for rocBLAS's trsv int.
        assert_eq!(s(1024, 1, 8, false, 100), 0);
        // Order 300, 500 columns: a row without 0.
        assert_eq!(s(300, 500, 8, false, 100), 0);
        // 1024 with 1024 columns (over 928): rocBLAS's special kernel, x
        // 128·1024·8·3 and invA as much; a double complex is rocSOLVER's own.
        assert_eq!([s(1024, 1024, 8, false, 3), s(1024, 1024, 16, false, 3)], [6 * 1_048_576, 0]);
        // 1000 with 2000 columns, transposed, float ×100: regular (1000 is no
        // multiple of 128), x 1000·2000·4·100 = 800_000_000, invA 51_200_000.
        assert_eq!(s(1000, 2000, 4, true, 100), 851_200_000);
        // Skinny, 16384 with 1024 columns: a double pair's block (256 MiB)
        // is over the limit, so the special kernel: x 128·1024·8·2 under
        // trtri's 128·4096·8 = 4_194_304 (one problem's), invA
        // 128·16384·8·2 = 33_554_432. A float pair's block is 128 MiB, kept
        // regular (rocBLAS, adding invA, would go special): 134_217_728 +
        // 16_777_216.
        assert_eq!([s(16384, 1024, 8, false, 2), s(16384, 1024, 4, false, 2)], [37_748_736, 150_994_944]);
    }

    #[test]
    fn strided_cholesky_asks_what_rocsolver_3_21_asks() {
        let f = |n, elem, count| potrf(n, elem, Batch::Strided(count));
        // Unblocked: scalars 24 → 64, work 2·8·count, pivots 8·count.
        assert_eq!([f(100, 8, 3), f(100, 8, 100)], [192, 64 + 1_600 + 832]);
        // Blocked adds iinfo, 4·count: 48 → 64, 3_200, 1_600, 400 → 448.
        assert_eq!(f(8192, 16, 100), 5_312);
        assert_eq!(f(8192, 4, 1), potrf(8192, 4, Batch::One));
        let s = |n, nrhs, elem, count| potrs(n, nrhs, elem, Batch::Strided(count));
        // Both solves special at 1024 × 1024: as getrs.
        assert_eq!(s(1024, 1024, 8, 3), 6 * 1_048_576);
        // Order 40, 200 columns, float ×100: x 3_200_000, invA 2_048_000.
        assert_eq!(s(40, 200, 4, 100), 5_248_000);
        // Skinny 16384 × 1024, one double: the plain solve keeps the regular
        // kernel (128 MiB block), the transposed one is special; the larger
        // of each piece: 134_217_728 and 16_777_216. A pair: both special.
        assert_eq!([s(16384, 1024, 8, 1), s(16384, 1024, 8, 2)], [150_994_944, 37_748_736]);
        assert_eq!(s(2000, 1000, 16, 100), 0);
    }

    #[test]
    fn strided_qr_asks_what_rocsolver_3_21_asks() {
        let q = |m, n, elem, count| geqrf(m, n, elem, Batch::Strided(count));
        // Unblocked 100 double ×3: larfg 16·3 → 64, norms 100·8·3 = 2_400 →
        // 2_432, diagonal 24 → 64, scalars 24 → 64.
        assert_eq!(q(100, 100, 8, 3), 2_624);
        // 30 double complex ×100: larfg 2·16·100, norms 30·16·100, diagonal 1_600.
        assert_eq!(q(30, 30, 16, 100), 64 + 3_200 + 48_000 + 1_600);
        assert_eq!(q(50, 20, 4, 1), geqrf(50, 20, 4, Batch::One));
        // Blocked 256 double ×100: work 64·8·100, trfact 4096·8·100, tmptr
        // 192·64·8·100: one problem's 131_648 less its scalars, times 100.
        assert_eq!(q(256, 256, 8, 100), 64 + 100 * (131_648 - 64));
        // Blocked 1000 × 200 float ×3: work 64·4·3, trfact 4096·4·3, tmptr
        // 136·64·4·3 = 104_448.
        assert_eq!(q(1000, 200, 4, 3), 64 + 768 + 49_152 + 104_448);
    }

    #[test]
    fn a_batch_of_none_asks_nothing() {
        let none = Batch::Strided(0);
        assert_eq!([getrf(1024, 1024, 8, none), getrf(30, 40, 4, none)], [0, 0]);
        assert_eq!([getrs(4096, 4096, 8, false, none), potrs(4096, 4096, 16, none)], [0, 0]);
        assert_eq!([potrf(8192, 8, none), geqrf(1000, 1000, 8, none)], [0, 0]);
    }

    #[test]
    fn gesvd_asks_what_rocsolver_3_21_asks() {
        use Svect::{All as A, None as N, Overwrite as O, Singular as S};
        // (m, n, elem, real, left, right, in_place, bytes), hand-derived from the source.
        let cases = [
            // square, never thin: in_place ignored
            (4, 4, 8, 8, S, S, false, 320),
            (30, 30, 8, 8, S, S, false, 4_352),
            (64, 64, 8, 8, S, S, false, 17_728),
            (64, 64, 8, 8, S, S, true, 17_728),
            (64, 64, 8, 8, A, A, false, 17_728),
            (64, 64, 8, 8, N, N, false, 1_664),
            (64, 64, 8, 8, O, N, false, 2_624),
            (64, 64, 8, 8, N, O, false, 17_728),
            (100, 100, 8, 8, S, S, false, 144_512),
            (256, 256, 8, 8, S, S, false, 657_984),
            (64, 64, 4, 4, S, S, false, 8_896),
            (64, 64, 16, 8, S, S, false, 35_392),
            (4, 4, 16, 8, S, S, false, 384),
            // tall, not thin (m < 1.6 n)
            (7, 5, 8, 8, S, S, false, 448),
            (100, 80, 8, 8, S, S, false, 119_424),
            (100, 80, 8, 8, S, S, true, 119_424),
            (100, 80, 8, 8, A, A, false, 119_616),
            // wide, not thin
            (80, 100, 8, 8, S, S, false, 119_424),
            (80, 100, 8, 8, A, A, false, 119_616),
            (80, 100, 8, 8, O, N, false, 119_424),
            (80, 100, 8, 8, N, O, false, 95_424),
            // tall thin
            (8, 5, 8, 8, S, S, false, 832),
            (128, 64, 8, 8, S, S, false, 51_072),
            (128, 64, 8, 8, S, S, true, 18_816),
            (128, 64, 8, 8, N, N, false, 100_544),
            (128, 64, 8, 8, N, N, true, 2_240),
            (128, 64, 8, 8, O, N, false, 101_504),
            (128, 64, 8, 8, O, N, true, 36_480),
            (128, 64, 8, 8, A, S, false, 51_584),
            (128, 64, 8, 8, A, S, true, 18_816),
            (128, 64, 8, 8, S, O, false, 116_608),
            (128, 64, 16, 8, S, S, false, 102_016),
            (128, 64, 16, 8, S, S, true, 37_504),
            (1000, 100, 8, 8, S, S, false, 224_512),
            (1000, 100, 8, 8, S, S, true, 605_312),
            (1000, 100, 8, 8, A, S, false, 231_680),
            (1000, 100, 4, 4, S, S, false, 112_384),
            (400, 200, 8, 8, S, S, false, 789_184),
            (400, 200, 8, 8, S, S, true, 571_584),
            // wide thin
            (5, 8, 8, 8, S, S, false, 832),
            (64, 128, 8, 8, S, S, false, 51_072),
            (64, 128, 8, 8, S, S, true, 4_736),
            (100, 1000, 8, 8, S, S, false, 224_512),
            (100, 1000, 8, 8, S, S, true, 568_896),
            (100, 1000, 8, 8, N, O, true, 647_296),
            // empty
            (0, 5, 8, 8, S, S, false, 0),
            (5, 0, 8, 8, A, A, true, 0),
        ];
        for (m, n, e, r, l, rt, inp, want) in cases {
            assert_eq!(gesvd(m, n, e, r, l, rt, inp, Batch::One), want, "{m}x{n} elem {e} {l:?}/{rt:?} in_place {inp}");
        }
    }

    #[test]
    fn strided_gesvd_asks_what_rocsolver_3_21_asks() {
        use Svect::{All as A, None as N, Singular as S};
        // Every piece but the scalars once per problem.
        let cases = [
            (100, 100, 8, 8, S, S, false, 3, 433_344),
            (128, 64, 8, 8, S, S, false, 2, 102_016),
            (128, 64, 8, 8, S, S, true, 2, 37_504),
            (1000, 100, 8, 8, N, N, false, 4, 3_937_344),
            (256, 256, 16, 8, A, A, false, 2, 2_631_744),
            (30, 30, 8, 8, S, S, false, 5, 21_120),
            (30, 30, 8, 8, S, S, false, 0, 0),
        ];
        for (m, n, e, r, l, rt, inp, c, want) in cases {
            let got = gesvd(m, n, e, r, l, rt, inp, Batch::Strided(c));
            assert_eq!(got, want, "{m}x{n} elem {e} {l:?}/{rt:?} in_place {inp}, {c} problems");
        }
        assert_eq!(
            gesvd(100, 100, 8, 8, S, S, false, Batch::Strided(1)),
            gesvd(100, 100, 8, 8, S, S, false, Batch::One)
        );
    }
}
