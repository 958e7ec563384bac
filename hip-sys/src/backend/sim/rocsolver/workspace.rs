//! How much of the rocBLAS handle's device memory each call asks for, as
//! rocSOLVER 3.21 (ROCm 5.5) sizes it (its `rocsolver_*_getMemorySize`, and
//! rocBLAS's trsm workspace that those include): the sum of its pieces,
//! each rounded up to 64 bytes as rocBLAS rounds them.
//!
//! Two tables of rocSOLVER are simplified, on the side of asking for
//! memory: a square `getrf` of order ≤ 64 runs a special kernel that needs
//! none (any other small shape needs its three scalars), and rocSOLVER's
//! own blocked trsm, which needs no workspace, is taken to serve every
//! `getrs` and `potrs` of order ≤ 480 (rocSOLVER's table picks it for all
//! of order ≤ 40 and for some right-hand-side counts up to 480).

use crate::backend::sim::rocblas::DEVICE_MEMORY_GRANULE;
use crate::bindings::shared::rocsolver_rules::Svect;

/// The sum of `pieces`, each rounded up as rocBLAS rounds
/// (`rocblas_set_optimal_device_memory_size`).
fn total(pieces: &[usize]) -> usize {
    pieces.iter().map(|p| p.div_ceil(DEVICE_MEMORY_GRANULE) * DEVICE_MEMORY_GRANULE).sum()
}

/// rocBLAS's trsm workspace (`rocblas_internal_trsm_workspace_size`,
/// `ROCBLAS_TRSM_NB` 128) for a left-side solve of an `mm × mm` triangle
/// against `n` columns: the pieces (`work1`, `invA`).
fn rocblas_trsm(mm: usize, n: usize, elem: usize, special: bool) -> [usize; 2] {
    const NB: usize = 128;
    if mm <= 32 || (mm <= 64 && n <= 64) || (n > 32 && n <= 128 && mm <= 340) {
        return [0, 0];
    }
    if n == 1 {
        return [4, 0];
    }
    let c = ((mm / NB) * 4096 * elem).max(4096 * elem);
    let x = if special { NB * n * elem } else { mm * n * elem };
    [x.max(c), NB * mm * elem]
}

/// `getrf` of an `m × n` matrix of `elem`-byte elements.
pub(super) fn getrf(m: usize, n: usize, elem: usize) -> usize {
    let dim = m.min(n);
    if dim == 0 || (dim <= 64 && m == n) {
        return 0;
    }
    let scalars = [3 * elem, elem, 4];
    if dim <= 64 {
        return total(&scalars);
    }
    // The blocked path: the panel's trsm is sized for at most 512 rows,
    // one more when that is a multiple of 128 (never the special kernel).
    let k = dim.min(512);
    let mm = if k % 128 == 0 { k + 1 } else { k };
    let [work1, inv_a] = rocblas_trsm(mm, n, elem, false);
    total(&[scalars[0], scalars[1], scalars[2], 4, 4 * m, work1, inv_a])
}

/// rocBLAS's trsm pieces for `getrs`'s and `potrs`'s triangular solves of
/// order `n` against `nrhs` columns, with `transposed` or not.
fn solve_trsm(n: usize, nrhs: usize, elem: usize, transposed: bool) -> [usize; 2] {
    if n <= 480 {
        return [0, 0];
    }
    let skinny = !transposed && n > 4 * nrhs && n > 8192 && n * nrhs * elem <= 128 << 20;
    let special = n % 128 == 0 && n > 64 && nrhs > 64 && !skinny;
    rocblas_trsm(n, nrhs, elem, special)
}

/// `getrs` of order `n` with `nrhs` right-hand sides.
pub(super) fn getrs(n: usize, nrhs: usize, elem: usize, transposed: bool) -> usize {
    if n == 0 || nrhs == 0 {
        return 0;
    }
    total(&solve_trsm(n, nrhs, elem, transposed))
}

/// `potrf` of order `n`: its scalars, the dot products' work and the
/// pivots; the blocked path (order over 128) adds `iinfo`, and its trsm,
/// of 64 rows, is always rocSOLVER's own.
pub(super) fn potrf(n: usize, elem: usize) -> usize {
    if n == 0 {
        return 0;
    }
    // `ROCBLAS_DOT_NB` is 512: two partial sums for every order the
    // unblocked kernel sees (at most 128).
    let work = 2 * elem;
    if n <= 128 {
        total(&[3 * elem, work, elem])
    } else {
        total(&[3 * elem, work, elem, 4])
    }
}

/// `potrs` of order `n`: the larger of the two triangular solves' pieces.
pub(super) fn potrs(n: usize, nrhs: usize, elem: usize) -> usize {
    if n == 0 || nrhs == 0 {
        return 0;
    }
    let [a1, a3] = solve_trsm(n, nrhs, elem, false);
    let [b1, b3] = solve_trsm(n, nrhs, elem, true);
    total(&[a1.max(b1), a3.max(b3)])
}

/// `syevd` / `heevd` of order `n` (elements of `elem` bytes, their real
/// type of `real`), with or without eigenvectors: rocSOLVER 3.21's nine
/// pieces, from the tridiagonal reduction (`sytd2`/`sytrd`, rocBLAS's
/// symv), the tridiagonal solver (`sterf` without vectors; with them
/// `steqr` below order 32, divide and conquer from 32) and the back
/// transformation (`ormtr`, blocked above order 64).
pub(super) fn syevd(n: usize, elem: usize, real: usize, vectors: bool) -> usize {
    if n <= 1 {
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
    total(&[3 * s, work1, work2, work3, tmpz, splits, tmptau_w, s * n])
}

/// larfg's dot-product workspace for a column of `x` entries
/// (`ROCBLAS_DOT_NB` 512).
fn larfg(x: usize, elem: usize) -> usize {
    (if x > 2 { (x - 2) / 512 + 2 } else { 1 }) * elem
}

/// `geqrf` of an `m × n` matrix: unblocked (`geqr2`) unless both exceed
/// 128, else in panels of 64 (`larft`, `larfb`).
pub(super) fn geqrf(m: usize, n: usize, elem: usize) -> usize {
    if m == 0 || n == 0 {
        return 0;
    }
    let [work, norms, diag] = geqrf_parts(m, n, elem);
    total(&[3 * elem, work, norms, diag])
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
/// of `m × n` has those of `n × m`. [`geqrf`] is `total` of these and the
/// scalars.
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
/// asked for are reals.
pub(super) fn gesvd(m: usize, n: usize, elem: usize, real: usize, left: Svect, right: Svect, in_place: bool) -> usize {
    if m == 0 || n == 0 {
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
    total(&[3 * e, max(&w), max(&a), max(&x), max(&y), tau, copy_t, copy_c])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getrf_asks_what_rocsolver_3_21_asks() {
        // Square totals from rocSOLVER 3.21's sizes: float, double, double complex.
        assert_eq!([getrf(64, 64, 4), getrf(64, 64, 8)], [0, 0]);
        assert_eq!([getrf(256, 256, 4), getrf(256, 256, 8), getrf(256, 256, 16)], [396_032, 790_784, 1_580_288]);
        assert_eq!([getrf(1024, 1024, 4), getrf(1024, 1024, 8)], [2_368_256, 4_732_160]);
        assert_eq!(getrf(1024, 1024, 16), 9_459_968);
        assert_eq!([getrf(8192, 8192, 4), getrf(8192, 8192, 8)], [17_105_664, 34_178_304]);
        assert_eq!(getrf(8192, 8192, 16), 68_323_584);
    }

    #[test]
    fn the_eigensolver_asks_what_rocsolver_3_21_asks() {
        let d = |n| syevd(n, 8, 8, true);
        assert_eq!([d(1), d(2), d(4), d(30), d(64)], [0, 320, 384, 8_128, 134_528]);
        assert_eq!([d(100), d(256), d(1024)], [325_312, 2_114_688, 33_722_496]);
        assert_eq!(d(4096), 539_115_648);
        assert_eq!(syevd(100, 8, 8, false), 82_560, "without vectors");
        assert_eq!([syevd(30, 16, 8, true), syevd(100, 16, 8, true)], [15_552, 506_880]);
        assert_eq!([syevd(30, 16, 8, false), syevd(100, 16, 8, false)], [15_552, 164_928]);
    }

    #[test]
    fn qr_asks_what_rocsolver_3_21_asks() {
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
        assert_eq!(getrs(64, 1, 8, false), 0);
        assert_eq!(getrs(1024, 1, 8, false), 64);
        assert_eq!(getrs(1024, 1024, 8, false), 2 * 1_048_576);
        assert_eq!([potrf(100, 8), potrf(8192, 8), potrf(8192, 16)], [192, 256, 256]);
        assert_eq!(potrs(1024, 1024, 8), 2 * 1_048_576);
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
            assert_eq!(gesvd(m, n, e, r, l, rt, inp), want, "{m}x{n} elem {e} {l:?}/{rt:?} in_place {inp}");
        }
    }
}
