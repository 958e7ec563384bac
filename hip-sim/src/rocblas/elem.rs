//! The element types of the simulated rocBLAS and how each multiplies.

use super::*;

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

macro_rules! real_elem {
    ($t:ty, $gemm:path) => {
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn load(bytes: &[u8]) -> Self {
                <$t>::from_ne_bytes(bytes.try_into().unwrap_or([0; std::mem::size_of::<$t>()]))
            }
            fn store(self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_ne_bytes());
            }
            fn zero() -> Self {
                0.0
            }
            fn is_zero(self) -> bool {
                self == 0.0
            }
            fn is_one(self) -> bool {
                self == 1.0
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
                (self * self) as f64
            }
            fn gemm(mm: &Mm, alpha: Self, a: &[Self], b: &[Self], beta: Self, c: &mut [Self]) {
                let ((rsa, csa), (rsb, csb)) = mm.strides();
                // SAFETY: the spans were sized for these strides (checked
                // lengths of A, B and C); C is written only inside its m × n
                // block of leading dimension ldc.
                unsafe {
                    $gemm(
                        mm.m,
                        mm.k,
                        mm.n,
                        alpha,
                        a.as_ptr(),
                        rsa,
                        csa,
                        b.as_ptr(),
                        rsb,
                        csb,
                        beta,
                        c.as_mut_ptr(),
                        1,
                        mm.ldc as isize,
                    )
                }
            }
        }
    };
}

real_elem!(f32, matrixmultiply::sgemm);
real_elem!(f64, matrixmultiply::dgemm);

macro_rules! complex_elem {
    ($t:ty, $gemm:path) => {
        impl Elem for [$t; 2] {
            const SIZE: usize = 2 * std::mem::size_of::<$t>();
            fn load(bytes: &[u8]) -> Self {
                let half = std::mem::size_of::<$t>();
                [<$t as Elem>::load(&bytes[..half]), <$t as Elem>::load(&bytes[half..])]
            }
            fn store(self, bytes: &mut [u8]) {
                let half = std::mem::size_of::<$t>();
                self[0].store(&mut bytes[..half]);
                self[1].store(&mut bytes[half..]);
            }
            fn zero() -> Self {
                [0.0, 0.0]
            }
            fn is_zero(self) -> bool {
                self == [0.0, 0.0]
            }
            fn is_one(self) -> bool {
                self == [1.0, 0.0]
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
                (self[0] * self[0] + self[1] * self[1]) as f64
            }
            fn gemm(mm: &Mm, alpha: Self, a: &[Self], b: &[Self], beta: Self, c: &mut [Self]) {
                use matrixmultiply::CGemmOption::Standard;
                let ((rsa, csa), (rsb, csb)) = mm.strides();
                // matrixmultiply has no conjugating option: conjugate copies.
                let conj = |v: &[Self], yes: bool| -> Vec<Self> {
                    if yes {
                        v.iter().map(|x| x.conj()).collect()
                    } else {
                        v.to_vec()
                    }
                };
                let (a, b) = (conj(a, mm.ca), conj(b, mm.cb));
                // SAFETY: as for the real types.
                unsafe {
                    $gemm(
                        Standard,
                        Standard,
                        mm.m,
                        mm.k,
                        mm.n,
                        alpha,
                        a.as_ptr(),
                        rsa,
                        csa,
                        b.as_ptr(),
                        rsb,
                        csb,
                        beta,
                        c.as_mut_ptr(),
                        1,
                        mm.ldc as isize,
                    )
                }
            }
        }
    };
}

complex_elem!(f32, matrixmultiply::cgemm);
complex_elem!(f64, matrixmultiply::zgemm);

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
