//! The element types of the simulated rocBLAS and how each multiplies.

use super::*;
use crate::library::function_name;
use crate::real::Real;
use matrixmultiply::CGemmOption;

/// An element type of the computations.
pub(super) trait Elem: Copy + Send + Sync + 'static {
    const SIZE: usize;
    fn load(bytes: &[u8]) -> Self;
    fn store(self, bytes: &mut [u8]);
    fn zero() -> Self;
    fn is_zero(self) -> bool;
    fn is_one(self) -> bool;
    fn add(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
    fn conj(self) -> Self;
    /// `|self|²` and the square root, in the type's precision.
    fn abs2(self) -> f64;
    /// `C = α op(A) op(B) + β C`, column-major.
    fn gemm(mm: &Mm, alpha: Self, a: &[Self], b: &[Self], beta: Self, c: &mut [Self]);
}

/// One GEMM's layout, in elements.
pub(super) struct Mm {
    pub(super) ta: bool,
    pub(super) ca: bool,
    pub(super) tb: bool,
    pub(super) cb: bool,
    pub(super) m: usize,
    pub(super) n: usize,
    pub(super) k: usize,
    pub(super) lda: usize,
    pub(super) ldb: usize,
    pub(super) ldc: usize,
}

impl Mm {
    /// Row and column strides of op(A) and op(B).
    fn strides(&self) -> ((isize, isize), (isize, isize)) {
        let (lda, ldb) = (self.lda as isize, self.ldb as isize);
        let a = if self.ta { (lda, 1) } else { (1, lda) };
        let b = if self.tb { (ldb, 1) } else { (1, ldb) };
        (a, b)
    }
}

/// matrixmultiply's product of one real type, `C = α A B + β C` with
/// A, B and C given by pointer and row and column strides.
type RealProduct<R> =
    unsafe fn(usize, usize, usize, R, *const R, isize, isize, *const R, isize, isize, R, *mut R, isize, isize);

/// The same for its complex pairs, with the two operands' options.
type ComplexProduct<R> = unsafe fn(
    CGemmOption,
    CGemmOption,
    usize,
    usize,
    usize,
    [R; 2],
    *const [R; 2],
    isize,
    isize,
    *const [R; 2],
    isize,
    isize,
    [R; 2],
    *mut [R; 2],
    isize,
    isize,
);

/// A real type with matrixmultiply's products of it and of its complex
/// pairs.
pub(super) trait Products: Real {
    const REAL: RealProduct<Self>;
    const COMPLEX: ComplexProduct<Self>;
}

impl Products for f32 {
    const REAL: RealProduct<f32> = matrixmultiply::sgemm;
    const COMPLEX: ComplexProduct<f32> = matrixmultiply::cgemm;
}

impl Products for f64 {
    const REAL: RealProduct<f64> = matrixmultiply::dgemm;
    const COMPLEX: ComplexProduct<f64> = matrixmultiply::zgemm;
}

impl<R: Products> Elem for R {
    const SIZE: usize = R::SIZE;
    fn load(bytes: &[u8]) -> Self {
        Real::load(bytes)
    }
    fn store(self, bytes: &mut [u8]) {
        Real::store(self, bytes);
    }
    fn zero() -> Self {
        R::ZERO
    }
    fn is_zero(self) -> bool {
        self == R::ZERO
    }
    fn is_one(self) -> bool {
        self == R::ONE
    }
    fn add(self, other: Self) -> Self {
        self + other
    }
    fn mul(self, other: Self) -> Self {
        self * other
    }
    fn conj(self) -> Self {
        self
    }
    fn abs2(self) -> f64 {
        (self * self).to_f64()
    }
    fn gemm(mm: &Mm, alpha: Self, a: &[Self], b: &[Self], beta: Self, c: &mut [Self]) {
        let ((rsa, csa), (rsb, csb)) = mm.strides();
        let (a, b, c, ldc) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr(), mm.ldc as isize);
        // SAFETY: the spans were sized for these strides (checked lengths
        // of A, B and C); C is written only inside its m × n block of
        // leading dimension ldc.
        unsafe { R::REAL(mm.m, mm.k, mm.n, alpha, a, rsa, csa, b, rsb, csb, beta, c, 1, ldc) }
    }
}

impl<R: Products> Elem for [R; 2] {
    const SIZE: usize = 2 * R::SIZE;
    fn load(bytes: &[u8]) -> Self {
        [R::load(&bytes[..R::SIZE]), R::load(&bytes[R::SIZE..])]
    }
    fn store(self, bytes: &mut [u8]) {
        Real::store(self[0], &mut bytes[..R::SIZE]);
        Real::store(self[1], &mut bytes[R::SIZE..]);
    }
    fn zero() -> Self {
        [R::ZERO, R::ZERO]
    }
    fn is_zero(self) -> bool {
        self == [R::ZERO, R::ZERO]
    }
    fn is_one(self) -> bool {
        self == [R::ONE, R::ZERO]
    }
    fn add(self, o: Self) -> Self {
        [self[0] + o[0], self[1] + o[1]]
    }
    fn mul(self, o: Self) -> Self {
        [self[0] * o[0] - self[1] * o[1], self[0] * o[1] + self[1] * o[0]]
    }
    fn conj(self) -> Self {
        [self[0], -self[1]]
    }
    fn abs2(self) -> f64 {
        (self[0] * self[0] + self[1] * self[1]).to_f64()
    }
    fn gemm(mm: &Mm, alpha: Self, a: &[Self], b: &[Self], beta: Self, c: &mut [Self]) {
        use matrixmultiply::CGemmOption::Standard;
        let ((rsa, csa), (rsb, csb)) = mm.strides();
        // matrixmultiply has no conjugating option: conjugate copies.
        let conj = |v: &[Self], yes: bool| -> Vec<Self> {
            if yes {
                v.iter().map(|x| Elem::conj(*x)).collect()
            } else {
                v.to_vec()
            }
        };
        let (a, b) = (conj(a, mm.ca), conj(b, mm.cb));
        let (a, b, c, ldc) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr(), mm.ldc as isize);
        let (m, k, n) = (mm.m, mm.k, mm.n);
        // SAFETY: as for the real types.
        unsafe { R::COMPLEX(Standard, Standard, m, k, n, alpha, a, rsa, csa, b, rsb, csb, beta, c, 1, ldc) }
    }
}

/// One precision of the typed rocBLAS functions: its computation type
/// (`Self`), the C element type, and the letters of its functions' names.
pub(super) trait Precision: Elem {
    /// The element type of the C functions.
    type C;
    /// The real type of its norms.
    type Norm: Real;
    /// `s`, `d`, `c` or `z`.
    const LETTER: char;
    /// Whether it is complex (`dotu` and `dotc` instead of `dot`).
    const COMPLEX: bool;
    /// The letters of its norm (`snrm2`, `scnrm2`: `s`, `d`, `sc`, `dz`).
    const NORM: &'static str;
}

impl Precision for f32 {
    type C = f32;
    type Norm = f32;
    const LETTER: char = 's';
    const COMPLEX: bool = false;
    const NORM: &'static str = "s";
}

impl Precision for f64 {
    type C = f64;
    type Norm = f64;
    const LETTER: char = 'd';
    const COMPLEX: bool = false;
    const NORM: &'static str = "d";
}

impl Precision for [f32; 2] {
    type C = rocblas_float_complex;
    type Norm = f32;
    const LETTER: char = 'c';
    const COMPLEX: bool = true;
    const NORM: &'static str = "sc";
}

impl Precision for [f64; 2] {
    type C = rocblas_double_complex;
    type Norm = f64;
    const LETTER: char = 'z';
    const COMPLEX: bool = true;
    const NORM: &'static str = "dz";
}

/// `rocblas_{letter}{operation}` for `P` (`rocblas_cgemv`).
pub(super) fn name<P: Precision>(operation: &str) -> &'static str {
    function_name(format_args!("rocblas_{}{operation}", P::LETTER))
}

pub(super) fn read_all<T: Elem>(span: &Span, count: usize) -> Result<Vec<T>, crate::bindings::hip::hipError_t> {
    let bytes = span.bytes(count * T::SIZE)?;
    Ok(bytes.chunks_exact(T::SIZE).map(T::load).collect())
}

pub(super) fn write_all<T: Elem>(span: &Span, values: &[T]) -> Result<(), crate::bindings::hip::hipError_t> {
    let mut bytes = vec![0u8; values.len() * T::SIZE];
    for (chunk, v) in bytes.chunks_exact_mut(T::SIZE).zip(values) {
        v.store(chunk);
    }
    span.write_bytes(&bytes)
}

/// Read a host scalar.
///
/// # Safety
/// `ptr` is non-null and valid for a read of `T::SIZE` bytes.
pub(super) unsafe fn host<T: Elem>(ptr: *const c_void) -> T {
    // SAFETY: the caller's guarantee.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), T::SIZE) };
    T::load(bytes)
}

/// The elements a column-major matrix of `rows` × `cols` with leading
/// dimension `ld` spans.
pub(crate) fn matrix_len(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1) * ld + rows
    }
}

/// Round an f32 to TF32 (10 mantissa bits, to nearest even), as XF32 math does.
pub(super) fn to_tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let bits = x.to_bits();
    let round = 0x0fff + ((bits >> 13) & 1);
    f32::from_bits((bits.wrapping_add(round)) & !0x1fff)
}
