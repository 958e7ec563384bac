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
    if m <= 128 || n <= 128 {
        total(&[3 * elem, larfg(m, elem), (n * elem).max(elem), elem])
    } else {
        let work = larfg(m, elem).max(64 * elem);
        total(&[3 * elem, work, 64 * 64 * elem, elem.max((n - 64) * 64 * elem)])
    }
}

/// `orgqr` / `ungqr` of `m × n` from `k` reflectors: unblocked (`org2r`)
/// for `k` up to 128, else in panels of 64.
pub(super) fn orgqr(m: usize, n: usize, k: usize, elem: usize) -> usize {
    if m == 0 || n == 0 {
        return 0;
    }
    if k <= 128 {
        total(&[3 * elem, n * elem])
    } else {
        total(&[3 * elem, 64 * elem, (n * elem).max((n - 64) * 64 * elem), 64 * 64 * elem])
    }
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
}
