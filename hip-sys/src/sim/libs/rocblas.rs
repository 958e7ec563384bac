//! rocBLAS in the simulator: handles, GEMM (plain, strided batched and
//! `_ex` with half and bfloat16), GEMV and the level 1 functions of the
//! table, computed on the CPU in the operands' precision, as rocBLAS 4.x
//! (ROCm 6.x) does.
//!
//! - `rocblas_get_version_string` reports `4.1.0.sim`.
//! - Every call checks its arguments with rocBLAS's own rules and order
//!   (`rocblas_rules`): a bad size is `invalid_size`, a null operand the
//!   computation uses `invalid_pointer`, an empty problem returns first.
//! - **Device rule**: a handle belongs to the device current at creation;
//!   a call while another device is current is a context violation, and a
//!   stream of another device is `invalid_value` when the work is queued.
//! - **Pointer mode** host only: `rocblas_pointer_mode_device` is
//!   `not_implemented` (stricter than rocBLAS, which has both). Results of
//!   `dot` and `nrm2` are written to host memory once the work ran, so
//!   those calls wait for the handle's stream, as rocBLAS's do.
//! - **Workspace**: a handle owns no device memory until a function needs
//!   some; then, unless [`rocblas_set_workspace`] gave it memory, it
//!   allocates [`MANAGED_WORKSPACE`] bytes on its device (rocBLAS allocates
//!   32 MiB; freed with the handle). GEMMs use the first
//!   [`GEMM_WORKSPACE`] bytes, `dot` and `nrm2` the first
//!   [`REDUCTION_WORKSPACE`]: they are written by the work on the
//!   handle's stream, so the race detector sees two streams sharing one
//!   handle's workspace without ordering, the hazard rocBLAS's guide warns
//!   of when a handle changes stream. A workspace given by the caller that
//!   is smaller than a function's need is `memory_error`; one that is not
//!   device memory of the handle's device is `invalid_pointer` (rocBLAS
//!   would fault later).
//! - **Math mode**: `rocblas_xf32_xdl_math_op` is accepted (the simulated
//!   device has XF32, as gfx94x does); f32 GEMMs then round A and B to
//!   TF32 (10-bit mantissa, round to nearest even) before multiplying.
//! - `gemm_ex`: A and B of one type, C and D of one type, and the
//!   combinations f32 (compute f32), f64 (f64), complex f32 and f64, f16 or
//!   bf16 in with f16/bf16 or f32 out and f32 compute. Others, compute f16
//!   among them, are `not_implemented`. C and D may differ; if they are the
//!   same memory, `ldc` must equal `ldd` (`invalid_size`).

#![allow(non_snake_case, clippy::too_many_arguments)]

use super::{accesses, call, insert, remove_if, span, with, write_out, Kind, Span};
use crate::bindings::rocblas::*;
use crate::rocblas_rules::{self as rules, GemmShape, Next};
use crate::sim::races::AccessKind;
use crate::sim::runtime::sim;
use crate::sim::streams::{self, Target};
use crate::sim::violations;
use half::{bf16, f16};
use std::ffi::{c_char, c_void};

type Status = rocblas_status;
const OK: Status = rocblas_status::rocblas_status_success;
const INTERNAL: Status = rocblas_status::rocblas_status_internal_error;
const INVALID_HANDLE: Status = rocblas_status::rocblas_status_invalid_handle;
const INVALID_POINTER: Status = rocblas_status::rocblas_status_invalid_pointer;
const INVALID_SIZE: Status = rocblas_status::rocblas_status_invalid_size;
const INVALID_VALUE: Status = rocblas_status::rocblas_status_invalid_value;
const NOT_IMPLEMENTED: Status = rocblas_status::rocblas_status_not_implemented;
const MEMORY_ERROR: Status = rocblas_status::rocblas_status_memory_error;

/// The device memory a handle allocates for itself at first need.
pub const MANAGED_WORKSPACE: usize = 1 << 20;
/// The workspace every GEMM writes.
pub const GEMM_WORKSPACE: usize = 4096;
/// The workspace `dot` and `nrm2` write.
pub const REDUCTION_WORKSPACE: usize = 1024;

const VERSION: &str = "4.1.0.sim";

/// Where a handle's workspace is.
#[derive(Clone, Copy)]
enum Workspace {
    /// The handle allocates its own, at first need (`Some(base)` after).
    Managed(Option<usize>),
    /// Memory the caller gave (`rocblas_set_workspace`); none if size 0.
    User { ptr: usize, size: usize },
}

/// A `rocblas_handle`.
pub(crate) struct Handle {
    stream: usize,
    xf32: bool,
    workspace: Workspace,
}

fn handle_device(function: &'static str, handle: rocblas_handle) -> Result<usize, Status> {
    if handle.is_null() {
        return Err(INVALID_HANDLE);
    }
    let device = with(handle as usize, |o| matches!(o.kind, Kind::BlasHandle(_)).then_some(o.device))
        .flatten()
        .ok_or(INVALID_HANDLE)?;
    violations::check(function, device);
    Ok(device)
}

/// A handle's state for one computation: its stream's queue, its math
/// mode, and `need` bytes of its workspace (allocated if it manages it).
struct Bound {
    target: Target,
    xf32: bool,
    workspace: Option<Span>,
}

fn bind(function: &'static str, handle: rocblas_handle, need: usize) -> Result<Bound, Status> {
    let device = handle_device(function, handle)?;
    let (stream, xf32, workspace) = with(handle as usize, |o| match &o.kind {
        Kind::BlasHandle(h) => Some((h.stream, h.xf32, h.workspace)),
        _ => None,
    })
    .flatten()
    .ok_or(INVALID_HANDLE)?;
    let target = if stream == 0 {
        streams::null_target(device).map_err(|_| INTERNAL)?
    } else {
        streams::target(stream as crate::hipStream_t).map_err(|_| INVALID_VALUE)?
    };
    if target.device != device {
        return Err(INVALID_VALUE);
    }
    let workspace = if need == 0 {
        None
    } else {
        let base = match workspace {
            Workspace::User { size, .. } if size < need => return Err(MEMORY_ERROR),
            Workspace::User { ptr, .. } => ptr,
            Workspace::Managed(Some(base)) => base,
            Workspace::Managed(None) => {
                let memory = &sim().device(device).ok_or(INTERNAL)?.memory;
                let base = memory.allocate(MANAGED_WORKSPACE).map_err(|_| MEMORY_ERROR)?.base;
                with(handle as usize, |o| {
                    if let Kind::BlasHandle(h) = &mut o.kind {
                        h.workspace = Workspace::Managed(Some(base));
                    }
                });
                base
            }
        };
        Some(span(base, need).ok_or(MEMORY_ERROR)?)
    };
    Ok(Bound { target, xf32, workspace })
}

// ---- handles -----------------------------------------------------------------

pub(crate) unsafe extern "C" fn rocblas_create_handle(handle: *mut rocblas_handle) -> Status {
    call("rocblas_create_handle", OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let h = insert(Kind::BlasHandle(Handle { stream: 0, xf32: false, workspace: Workspace::Managed(None) }));
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(handle, h as rocblas_handle, INVALID_HANDLE) }
    })
}

fn release_managed(device: usize, workspace: Workspace) {
    if let (Workspace::Managed(Some(base)), Some(d)) = (workspace, sim().device(device)) {
        let _ = d.memory.release(base);
    }
}

pub(crate) unsafe extern "C" fn rocblas_destroy_handle(handle: rocblas_handle) -> Status {
    call("rocblas_destroy_handle", OK, INTERNAL, || {
        let object = remove_if(handle as usize, |k| matches!(k, Kind::BlasHandle(_))).ok_or(INVALID_HANDLE)?;
        violations::check("rocblas_destroy_handle", object.device);
        if let Kind::BlasHandle(h) = &object.kind {
            // rocBLAS's destroy synchronizes the device before freeing.
            let _ = crate::sim::streams::synchronize_device(object.device);
            release_managed(object.device, h.workspace);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_set_stream(handle: rocblas_handle, stream: crate::hipStream_t) -> Status {
    call("rocblas_set_stream", OK, INTERNAL, || {
        handle_device("rocblas_set_stream", handle)?;
        // rocBLAS checks a new stream with hipStreamQuery: an unknown one
        // is `invalid_value`.
        if !stream.is_null() {
            streams::target(stream).map_err(|_| INVALID_VALUE)?;
        }
        with(handle as usize, |o| {
            if let Kind::BlasHandle(h) = &mut o.kind {
                h.stream = stream as usize;
            }
        });
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_stream(handle: rocblas_handle, stream: *mut crate::hipStream_t) -> Status {
    call("rocblas_get_stream", OK, INTERNAL, || {
        handle_device("rocblas_get_stream", handle)?;
        let s = with(handle as usize, |o| match &o.kind {
            Kind::BlasHandle(h) => h.stream,
            _ => 0,
        })
        .unwrap_or(0);
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(stream, s as crate::hipStream_t, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocblas_set_pointer_mode(handle: rocblas_handle, mode: rocblas_pointer_mode) -> Status {
    call("rocblas_set_pointer_mode", OK, INTERNAL, || {
        handle_device("rocblas_set_pointer_mode", handle)?;
        match mode {
            rocblas_pointer_mode::rocblas_pointer_mode_host => Ok(()),
            rocblas_pointer_mode::rocblas_pointer_mode_device => Err(NOT_IMPLEMENTED),
            _ => Err(INVALID_VALUE),
        }
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_pointer_mode(
    handle: rocblas_handle,
    mode: *mut rocblas_pointer_mode,
) -> Status {
    call("rocblas_get_pointer_mode", OK, INTERNAL, || {
        handle_device("rocblas_get_pointer_mode", handle)?;
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(mode, rocblas_pointer_mode::rocblas_pointer_mode_host, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocblas_set_workspace(
    handle: rocblas_handle,
    addr: *mut c_void,
    size: usize,
) -> Status {
    call("rocblas_set_workspace", OK, INTERNAL, || {
        let device = handle_device("rocblas_set_workspace", handle)?;
        let workspace = if addr.is_null() || size == 0 {
            Workspace::User { ptr: 0, size: 0 }
        } else {
            let region = span(addr as usize, size).ok_or(INVALID_POINTER)?;
            if region.device() != Some(device) {
                return Err(INVALID_POINTER);
            }
            Workspace::User { ptr: addr as usize, size }
        };
        let old = with(handle as usize, |o| match &mut o.kind {
            Kind::BlasHandle(h) => Some(std::mem::replace(&mut h.workspace, workspace)),
            _ => None,
        })
        .flatten();
        if let Some(old) = old {
            // Work queued with the old workspace may still run.
            let _ = crate::sim::streams::synchronize_device(device);
            release_managed(device, old);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_version_string_size(len: *mut usize) -> Status {
    call("rocblas_get_version_string_size", OK, INTERNAL, || {
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(len, VERSION.len() + 1, INVALID_POINTER) }
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_version_string(buf: *mut c_char, len: usize) -> Status {
    call("rocblas_get_version_string", OK, INTERNAL, || {
        if buf.is_null() {
            return Err(INVALID_POINTER);
        }
        if len < VERSION.len() + 1 {
            return Err(INVALID_SIZE);
        }
        // SAFETY: `buf` holds `len` bytes, enough for the string and its NUL.
        unsafe {
            std::ptr::copy_nonoverlapping(VERSION.as_ptr().cast::<c_char>(), buf, VERSION.len());
            buf.add(VERSION.len()).write(0);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_set_math_mode(handle: rocblas_handle, mode: rocblas_math_mode) -> Status {
    call("rocblas_set_math_mode", OK, INTERNAL, || {
        handle_device("rocblas_set_math_mode", handle)?;
        let xf32 = match mode {
            rocblas_math_mode::rocblas_default_math => false,
            rocblas_math_mode::rocblas_xf32_xdl_math_op => true,
            // rocBLAS ignores a mode it does not support and succeeds.
            _ => return Ok(()),
        };
        with(handle as usize, |o| {
            if let Kind::BlasHandle(h) = &mut o.kind {
                h.xf32 = xf32;
            }
        });
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocblas_get_math_mode(handle: rocblas_handle, mode: *mut rocblas_math_mode) -> Status {
    call("rocblas_get_math_mode", OK, INTERNAL, || {
        handle_device("rocblas_get_math_mode", handle)?;
        let xf32 = with(handle as usize, |o| matches!(&o.kind, Kind::BlasHandle(h) if h.xf32)).unwrap_or(false);
        let value =
            if xf32 { rocblas_math_mode::rocblas_xf32_xdl_math_op } else { rocblas_math_mode::rocblas_default_math };
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(mode, value, INVALID_POINTER) }
    })
}

// ---- element types -------------------------------------------------------------

/// An element type of the computations.
trait Elem: Copy + Send + Sync + 'static {
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
struct Mm {
    ta: bool,
    ca: bool,
    tb: bool,
    cb: bool,
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
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

fn read_all<T: Elem>(span: &Span, count: usize) -> Result<Vec<T>, crate::hipError_t> {
    let bytes = span.bytes(count * T::SIZE)?;
    Ok(bytes.chunks_exact(T::SIZE).map(T::load).collect())
}

fn write_all<T: Elem>(span: &Span, values: &[T]) -> Result<(), crate::hipError_t> {
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
unsafe fn host<T: Elem>(ptr: *const c_void) -> T {
    // SAFETY: the caller's guarantee.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), T::SIZE) };
    T::load(bytes)
}

/// The elements a column-major matrix of `rows` × `cols` with leading
/// dimension `ld` spans.
fn matrix_len(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1) * ld + rows
    }
}

/// Round an f32 to TF32 (10 mantissa bits, to nearest even), as XF32 math does.
fn to_tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let bits = x.to_bits();
    let round = 0x0fff + ((bits >> 13) & 1);
    f32::from_bits((bits.wrapping_add(round)) & !0x1fff)
}

// ---- GEMM -----------------------------------------------------------------------

/// A GEMM's operands (device addresses), strides between batches (elements).
struct GemmCall {
    function: &'static str,
    shape: GemmShape,
    a: usize,
    b: usize,
    c: usize,
    d: usize,
    stride: [i64; 4],
}

/// One element type's GEMM: `In` operands A, B; `Out` C, D; computed in `Acc`.
trait GemmTypes: Send + 'static {
    type Acc: Elem;
    const IN_SIZE: usize;
    const OUT_SIZE: usize;
    fn load_in(bytes: &[u8]) -> Self::Acc;
    fn load_out(bytes: &[u8]) -> Self::Acc;
    fn store_out(value: Self::Acc, bytes: &mut [u8]);
}

/// A, B, C and D all `T`.
struct Same<T>(std::marker::PhantomData<T>);
impl<T: Elem> GemmTypes for Same<T> {
    type Acc = T;
    const IN_SIZE: usize = T::SIZE;
    const OUT_SIZE: usize = T::SIZE;
    fn load_in(bytes: &[u8]) -> T {
        T::load(bytes)
    }
    fn load_out(bytes: &[u8]) -> T {
        T::load(bytes)
    }
    fn store_out(value: T, bytes: &mut [u8]) {
        value.store(bytes)
    }
}

/// Halves in (f16 or bf16), `O` out, f32 compute.
struct Halves<I, O>(std::marker::PhantomData<(I, O)>);
trait Half16: Copy + Send + 'static {
    fn to_f32(bits: u16) -> f32;
    fn from_f32(x: f32) -> u16;
}
impl Half16 for f16 {
    fn to_f32(bits: u16) -> f32 {
        f16::from_bits(bits).to_f32()
    }
    fn from_f32(x: f32) -> u16 {
        f16::from_f32(x).to_bits()
    }
}
impl Half16 for bf16 {
    fn to_f32(bits: u16) -> f32 {
        bf16::from_bits(bits).to_f32()
    }
    fn from_f32(x: f32) -> u16 {
        bf16::from_f32(x).to_bits()
    }
}
/// The output of a half GEMM: the same half type, or f32.
trait HalfOut: Copy + Send + 'static {
    fn load(bytes: &[u8]) -> f32;
    fn store(x: f32, bytes: &mut [u8]);
}
impl<H: Half16> HalfOut for H {
    fn load(bytes: &[u8]) -> f32 {
        H::to_f32(u16::from_ne_bytes([bytes[0], bytes[1]]))
    }
    fn store(x: f32, bytes: &mut [u8]) {
        bytes.copy_from_slice(&H::from_f32(x).to_ne_bytes())
    }
}
/// f32 output of a half GEMM.
#[derive(Clone, Copy)]
struct F32Out;
impl GemmTypes for Halves<f16, F32Out> {
    type Acc = f32;
    const IN_SIZE: usize = 2;
    const OUT_SIZE: usize = 4;
    fn load_in(bytes: &[u8]) -> f32 {
        <f16 as HalfOut>::load(bytes)
    }
    fn load_out(bytes: &[u8]) -> f32 {
        f32::load(bytes)
    }
    fn store_out(value: f32, bytes: &mut [u8]) {
        value.store(bytes)
    }
}
impl GemmTypes for Halves<bf16, F32Out> {
    type Acc = f32;
    const IN_SIZE: usize = 2;
    const OUT_SIZE: usize = 4;
    fn load_in(bytes: &[u8]) -> f32 {
        <bf16 as HalfOut>::load(bytes)
    }
    fn load_out(bytes: &[u8]) -> f32 {
        f32::load(bytes)
    }
    fn store_out(value: f32, bytes: &mut [u8]) {
        value.store(bytes)
    }
}
impl<H: Half16> GemmTypes for Halves<H, H> {
    type Acc = f32;
    const IN_SIZE: usize = 2;
    const OUT_SIZE: usize = 2;
    fn load_in(bytes: &[u8]) -> f32 {
        <H as HalfOut>::load(bytes)
    }
    fn load_out(bytes: &[u8]) -> f32 {
        <H as HalfOut>::load(bytes)
    }
    fn store_out(value: f32, bytes: &mut [u8]) {
        <H as HalfOut>::store(value, bytes)
    }
}

/// Run a GEMM of `G`'s types after its pointer checks.
///
/// # Safety
/// `alpha` and `beta` are null or valid host scalars of `G::Acc`.
unsafe fn gemm<G: GemmTypes>(
    handle: rocblas_handle,
    call_: GemmCall,
    alpha: *const c_void,
    beta: *const c_void,
) -> Result<(), Status> {
    let GemmCall { function, shape, a, b, c, d, stride } = call_;
    handle_device(function, handle)?;
    if shape.check()? == Next::Done {
        return Ok(());
    }
    if alpha.is_null() || beta.is_null() {
        return Err(INVALID_POINTER);
    }
    // SAFETY: non-null host scalars of the compute type (pointer mode host).
    let (alpha, beta) = unsafe { (host::<G::Acc>(alpha), host::<G::Acc>(beta)) };
    if shape.check_pointers(alpha.is_zero(), beta.is_one(), a == 0, b == 0, c == 0 || d == 0)? == Next::Done {
        return Ok(());
    }
    if c == d && shape.ldc != shape.ldd {
        return Err(INVALID_SIZE);
    }
    let bound = bind(function, handle, GEMM_WORKSPACE)?;
    let ta = rules::transposes(shape.trans_a)?;
    let tb = rules::transposes(shape.trans_b)?;
    let conj = rocblas_operation::rocblas_operation_conjugate_transpose;
    let (m, n, k) = (shape.m as usize, shape.n as usize, shape.k as usize);
    let mm = Mm {
        ta,
        ca: shape.trans_a == conj,
        tb,
        cb: shape.trans_b == conj,
        m,
        n,
        k,
        lda: shape.lda as usize,
        ldb: shape.ldb as usize,
        ldc: m,
    };
    let (a_rows, a_cols) = if ta { (k, m) } else { (m, k) };
    let (b_rows, b_cols) = if tb { (n, k) } else { (k, n) };
    let batch = shape.batch as usize;
    let lens = [
        matrix_len(a_rows, a_cols, shape.lda as usize),
        matrix_len(b_rows, b_cols, shape.ldb as usize),
        matrix_len(m, n, shape.ldc as usize),
        matrix_len(m, n, shape.ldd as usize),
    ];
    let reads_ab = k != 0 && !alpha.is_zero();
    // Each operand's extent over the batch: the last batch's end.
    let extent = |i: usize, elem: usize| -> Result<usize, Status> {
        let last = (batch - 1) as i64 * stride[i];
        if stride[i] < 0 || (batch > 1 && stride[i] < lens[i] as i64 && i == 3) {
            // Overlapping outputs between batches would race.
            return Err(INVALID_SIZE);
        }
        Ok((last as usize + lens[i]) * elem)
    };
    let a_span = if reads_ab { Some(span(a, extent(0, G::IN_SIZE)?).ok_or(INVALID_POINTER)?) } else { None };
    let b_span = if reads_ab { Some(span(b, extent(1, G::IN_SIZE)?).ok_or(INVALID_POINTER)?) } else { None };
    let c_span = span(c, extent(2, G::OUT_SIZE)?).ok_or(INVALID_POINTER)?;
    let d_span = span(d, extent(3, G::OUT_SIZE)?).ok_or(INVALID_POINTER)?;
    let workspace = bound.workspace.ok_or(MEMORY_ERROR)?;
    let mut used = vec![(&c_span, AccessKind::Read), (&d_span, AccessKind::Write), (&workspace, AccessKind::Write)];
    if c == d {
        used.remove(0);
    }
    used.extend(a_span.iter().chain(&b_span).map(|s| (s, AccessKind::Read)));
    let op = streams::Op::with(function, accesses(used));
    let xf32 = bound.xf32 && std::any::TypeId::of::<G::Acc>() == std::any::TypeId::of::<f32>();
    let (ldc, ldd) = (shape.ldc as usize, shape.ldd as usize);
    streams::submit(&bound.target, false, op, move || {
        workspace.write_bytes(&[0u8; GEMM_WORKSPACE])?;
        let load = |s: &Option<Span>, elem: usize, count: usize, load: fn(&[u8]) -> G::Acc| match s {
            Some(s) => s.bytes(count * elem).map(|b| b.chunks_exact(elem).map(load).collect::<Vec<G::Acc>>()),
            None => Ok(Vec::new()),
        };
        let a_all = load(&a_span, G::IN_SIZE, extent_elems(batch, stride[0], lens[0]), G::load_in)?;
        let b_all = load(&b_span, G::IN_SIZE, extent_elems(batch, stride[1], lens[1]), G::load_in)?;
        let c_all = load(&Some(c_span.clone()), G::OUT_SIZE, extent_elems(batch, stride[2], lens[2]), G::load_out)?;
        let mut d_bytes = d_span.bytes(extent_elems(batch, stride[3], lens[3]) * G::OUT_SIZE)?;
        let round = |v: &[G::Acc]| -> Vec<G::Acc> {
            if !xf32 {
                return v.to_vec();
            }
            v.iter()
                .map(|x| {
                    let mut bytes = vec![0u8; G::Acc::SIZE];
                    x.store(&mut bytes);
                    let f = f32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                    G::Acc::load(&to_tf32(f).to_ne_bytes())
                })
                .collect()
        };
        for i in 0..batch {
            let slice = |all: &[G::Acc], which: usize| -> Vec<G::Acc> {
                let start = i * stride[which] as usize;
                all.get(start..start + lens[which]).map(<[G::Acc]>::to_vec).unwrap_or_default()
            };
            // C's m × n block, packed with leading dimension m.
            let c_block = slice(&c_all, 2);
            let mut out = vec![G::Acc::zero(); m * n];
            for j in 0..n {
                for r in 0..m {
                    out[r + j * m] = if beta.is_zero() { G::Acc::zero() } else { c_block[r + j * ldc] };
                }
            }
            if reads_ab {
                let (ab, bb) = (round(&slice(&a_all, 0)), round(&slice(&b_all, 1)));
                G::Acc::gemm(&mm, alpha, &ab, &bb, beta, &mut out);
            } else {
                for v in &mut out {
                    *v = v.mul(beta);
                }
            }
            let base = i * stride[3] as usize;
            for j in 0..n {
                for r in 0..m {
                    let at = (base + r + j * ldd) * G::OUT_SIZE;
                    G::store_out(out[r + j * m], &mut d_bytes[at..at + G::OUT_SIZE]);
                }
            }
        }
        d_span.write_bytes(&d_bytes)
    })
    .map_err(|_| INTERNAL)
}

fn extent_elems(batch: usize, stride: i64, len: usize) -> usize {
    if len == 0 {
        0
    } else {
        (batch - 1) * stride.max(0) as usize + len
    }
}

fn plain(
    function: &'static str,
    transA: rocblas_operation,
    transB: rocblas_operation,
    [m, n, k]: [rocblas_int; 3],
    [a, b, c]: [usize; 3],
    [lda, ldb, ldc]: [rocblas_int; 3],
    batch: rocblas_int,
    stride: [rocblas_stride; 3],
) -> GemmCall {
    GemmCall {
        function,
        shape: GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd: ldc, batch },
        a,
        b,
        c,
        d: c,
        stride: [stride[0], stride[1], stride[2], stride[2]],
    }
}

macro_rules! gemm_fns {
    ($name:ident, $batched:ident, $t:ty, $elem:ty) => {
        pub(crate) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            transA: rocblas_operation,
            transB: rocblas_operation,
            m: rocblas_int,
            n: rocblas_int,
            k: rocblas_int,
            alpha: *const $t,
            A: *const $t,
            lda: rocblas_int,
            B: *const $t,
            ldb: rocblas_int,
            beta: *const $t,
            C: *mut $t,
            ldc: rocblas_int,
        ) -> Status {
            call(stringify!($name), OK, INTERNAL, || {
                let call_ = plain(
                    stringify!($name),
                    transA,
                    transB,
                    [m, n, k],
                    [A as usize, B as usize, C as usize],
                    [lda, ldb, ldc],
                    1,
                    [0; 3],
                );
                // SAFETY: alpha and beta are null or host scalars of the type.
                unsafe { gemm::<Same<$elem>>(handle, call_, alpha.cast(), beta.cast()) }
            })
        }

        pub(crate) unsafe extern "C" fn $batched(
            handle: rocblas_handle,
            transA: rocblas_operation,
            transB: rocblas_operation,
            m: rocblas_int,
            n: rocblas_int,
            k: rocblas_int,
            alpha: *const $t,
            A: *const $t,
            lda: rocblas_int,
            stride_a: rocblas_stride,
            B: *const $t,
            ldb: rocblas_int,
            stride_b: rocblas_stride,
            beta: *const $t,
            C: *mut $t,
            ldc: rocblas_int,
            stride_c: rocblas_stride,
            batch_count: rocblas_int,
        ) -> Status {
            call(stringify!($batched), OK, INTERNAL, || {
                let call_ = plain(
                    stringify!($batched),
                    transA,
                    transB,
                    [m, n, k],
                    [A as usize, B as usize, C as usize],
                    [lda, ldb, ldc],
                    batch_count,
                    [stride_a, stride_b, stride_c],
                );
                // SAFETY: as above.
                unsafe { gemm::<Same<$elem>>(handle, call_, alpha.cast(), beta.cast()) }
            })
        }
    };
}

gemm_fns!(rocblas_sgemm, rocblas_sgemm_strided_batched, f32, f32);
gemm_fns!(rocblas_dgemm, rocblas_dgemm_strided_batched, f64, f64);
gemm_fns!(rocblas_cgemm, rocblas_cgemm_strided_batched, rocblas_float_complex, [f32; 2]);
gemm_fns!(rocblas_zgemm, rocblas_zgemm_strided_batched, rocblas_double_complex, [f64; 2]);

/// `gemm_ex`'s type combination, run.
///
/// # Safety
/// As [`gemm`].
unsafe fn gemm_ex_typed(
    handle: rocblas_handle,
    call_: GemmCall,
    types: [rocblas_datatype; 5],
    alpha: *const c_void,
    beta: *const c_void,
) -> Result<(), Status> {
    use rocblas_datatype as T;
    let [a, b, c, d, compute] = types;
    if a != b || c != d {
        return Err(NOT_IMPLEMENTED);
    }
    // SAFETY: each arm's scalars are of its compute type, the caller's guarantee.
    unsafe {
        match (a, c, compute) {
            (T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r) => {
                gemm::<Same<f32>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f64_r, T::rocblas_datatype_f64_r, T::rocblas_datatype_f64_r) => {
                gemm::<Same<f64>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f32_c, T::rocblas_datatype_f32_c, T::rocblas_datatype_f32_c) => {
                gemm::<Same<[f32; 2]>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f64_c, T::rocblas_datatype_f64_c, T::rocblas_datatype_f64_c) => {
                gemm::<Same<[f64; 2]>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f16_r, T::rocblas_datatype_f16_r, T::rocblas_datatype_f32_r) => {
                gemm::<Halves<f16, f16>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f16_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r) => {
                gemm::<Halves<f16, F32Out>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_bf16_r, T::rocblas_datatype_bf16_r, T::rocblas_datatype_f32_r) => {
                gemm::<Halves<bf16, bf16>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_bf16_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r) => {
                gemm::<Halves<bf16, F32Out>>(handle, call_, alpha, beta)
            }
            _ => Err(NOT_IMPLEMENTED),
        }
    }
}

fn standard(algo: rocblas_gemm_algo) -> Result<(), Status> {
    match algo {
        rocblas_gemm_algo::rocblas_gemm_algo_standard => Ok(()),
        rocblas_gemm_algo::rocblas_gemm_algo_solution_index => Err(NOT_IMPLEMENTED),
        _ => Err(INVALID_VALUE),
    }
}

pub(crate) unsafe extern "C" fn rocblas_gemm_ex(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: rocblas_datatype,
    lda: rocblas_int,
    b: *const c_void,
    b_type: rocblas_datatype,
    ldb: rocblas_int,
    beta: *const c_void,
    c: *const c_void,
    c_type: rocblas_datatype,
    ldc: rocblas_int,
    d: *mut c_void,
    d_type: rocblas_datatype,
    ldd: rocblas_int,
    compute_type: rocblas_datatype,
    algo: rocblas_gemm_algo,
    _solution_index: i32,
    _flags: u32,
) -> Status {
    call("rocblas_gemm_ex", OK, INTERNAL, || {
        handle_device("rocblas_gemm_ex", handle)?;
        standard(algo)?;
        let call_ = GemmCall {
            function: "rocblas_gemm_ex",
            shape: GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd, batch: 1 },
            a: a as usize,
            b: b as usize,
            c: c as usize,
            d: d as usize,
            stride: [0; 4],
        };
        // SAFETY: the scalars are null or of the compute type (C contract).
        unsafe { gemm_ex_typed(handle, call_, [a_type, b_type, c_type, d_type, compute_type], alpha, beta) }
    })
}

pub(crate) unsafe extern "C" fn rocblas_gemm_strided_batched_ex(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: rocblas_datatype,
    lda: rocblas_int,
    stride_a: rocblas_stride,
    b: *const c_void,
    b_type: rocblas_datatype,
    ldb: rocblas_int,
    stride_b: rocblas_stride,
    beta: *const c_void,
    c: *const c_void,
    c_type: rocblas_datatype,
    ldc: rocblas_int,
    stride_c: rocblas_stride,
    d: *mut c_void,
    d_type: rocblas_datatype,
    ldd: rocblas_int,
    stride_d: rocblas_stride,
    batch_count: rocblas_int,
    compute_type: rocblas_datatype,
    algo: rocblas_gemm_algo,
    _solution_index: i32,
    _flags: u32,
) -> Status {
    call("rocblas_gemm_strided_batched_ex", OK, INTERNAL, || {
        handle_device("rocblas_gemm_strided_batched_ex", handle)?;
        standard(algo)?;
        let call_ = GemmCall {
            function: "rocblas_gemm_strided_batched_ex",
            shape: GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd, batch: batch_count },
            a: a as usize,
            b: b as usize,
            c: c as usize,
            d: d as usize,
            stride: [stride_a, stride_b, stride_c, stride_d],
        };
        // SAFETY: as above.
        unsafe { gemm_ex_typed(handle, call_, [a_type, b_type, c_type, d_type, compute_type], alpha, beta) }
    })
}

// ---- level 2 and level 1 ----------------------------------------------------------

/// The span of a strided vector of `n` elements, and its element indices.
fn vector(ptr: usize, n: usize, inc: i32, elem: usize) -> Result<(Span, Vec<usize>), Status> {
    let step = inc.unsigned_abs() as usize;
    let len = if n == 0 { 0 } else { (n - 1) * step + 1 };
    let s = span(ptr, len * elem).ok_or(INVALID_POINTER)?;
    let index = (0..n).map(|i| if inc > 0 { i * step } else { (n - 1 - i) * step }).collect();
    Ok((s, index))
}

/// # Safety
/// `alpha`, `beta` null or host scalars of `T`.
unsafe fn gemv<T: Elem>(
    function: &'static str,
    handle: rocblas_handle,
    trans: rocblas_operation,
    [m, n, lda]: [rocblas_int; 3],
    alpha: *const c_void,
    [a, x, y]: [usize; 3],
    [incx, incy]: [rocblas_int; 2],
    beta: *const c_void,
) -> Result<(), Status> {
    handle_device(function, handle)?;
    if rules::gemv(trans, m, n, lda, incx, incy)? == Next::Done {
        return Ok(());
    }
    if alpha.is_null() || beta.is_null() {
        return Err(INVALID_POINTER);
    }
    // SAFETY: non-null host scalars of T.
    let (alpha, beta) = unsafe { (host::<T>(alpha), host::<T>(beta)) };
    if rules::gemv_pointers(alpha.is_zero(), beta.is_one(), a == 0, x == 0, y == 0)? == Next::Done {
        return Ok(());
    }
    let bound = bind(function, handle, 0)?;
    let t = rules::transposes(trans)?;
    let conj = trans == rocblas_operation::rocblas_operation_conjugate_transpose;
    let (m, n, lda) = (m as usize, n as usize, lda as usize);
    let (x_len, y_len) = if t { (m, n) } else { (n, m) };
    let a_span = span(a, matrix_len(m, n, lda) * T::SIZE).ok_or(INVALID_POINTER)?;
    let (x_span, xi) = vector(x, x_len, incx, T::SIZE)?;
    let (y_span, yi) = vector(y, y_len, incy, T::SIZE)?;
    let used = [(&a_span, AccessKind::Read), (&x_span, AccessKind::Read), (&y_span, AccessKind::Write)];
    let op = streams::Op::with(function, accesses(used));
    streams::submit(&bound.target, false, op, move || {
        let av: Vec<T> = read_all(&a_span, matrix_len(m, n, lda))?;
        let xv: Vec<T> = read_all(&x_span, xi.iter().max().map_or(0, |l| l + 1))?;
        let mut yv: Vec<T> = read_all(&y_span, yi.iter().max().map_or(0, |l| l + 1))?;
        for (out, &yat) in yi.iter().enumerate() {
            let mut sum = T::zero();
            for (inner, &xat) in xi.iter().enumerate() {
                let (r, c) = if t { (inner, out) } else { (out, inner) };
                let e = av[r + c * lda];
                sum = sum.add(if conj { e.conj() } else { e }.mul(xv[xat]));
            }
            let old = if beta.is_zero() { T::zero() } else { yv[yat].mul(beta) };
            yv[yat] = alpha.mul(sum).add(old);
        }
        write_all(&y_span, &yv)
    })
    .map_err(|_| INTERNAL)
}

macro_rules! gemv_fn {
    ($name:ident, $t:ty, $elem:ty) => {
        pub(crate) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            trans: rocblas_operation,
            m: rocblas_int,
            n: rocblas_int,
            alpha: *const $t,
            A: *const $t,
            lda: rocblas_int,
            x: *const $t,
            incx: rocblas_int,
            beta: *const $t,
            y: *mut $t,
            incy: rocblas_int,
        ) -> Status {
            call(stringify!($name), OK, INTERNAL, || {
                // SAFETY: null or host scalars of the type (C contract).
                unsafe {
                    gemv::<$elem>(
                        stringify!($name),
                        handle,
                        trans,
                        [m, n, lda],
                        alpha.cast(),
                        [A as usize, x as usize, y as usize],
                        [incx, incy],
                        beta.cast(),
                    )
                }
            })
        }
    };
}

gemv_fn!(rocblas_sgemv, f32, f32);
gemv_fn!(rocblas_dgemv, f64, f64);
gemv_fn!(rocblas_cgemv, rocblas_float_complex, [f32; 2]);
gemv_fn!(rocblas_zgemv, rocblas_double_complex, [f64; 2]);

macro_rules! axpy_fn {
    ($name:ident, $t:ty, $elem:ty) => {
        pub(crate) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            n: rocblas_int,
            alpha: *const $t,
            x: *const $t,
            incx: rocblas_int,
            y: *mut $t,
            incy: rocblas_int,
        ) -> Status {
            call(stringify!($name), OK, INTERNAL, || {
                handle_device(stringify!($name), handle)?;
                // SAFETY: null or a host scalar of the type (C contract).
                let a = (!alpha.is_null()).then(|| unsafe { host::<$elem>(alpha.cast()) });
                if rules::axpy(n, a.map(Elem::is_zero), x.is_null(), y.is_null())? == Next::Done {
                    return Ok(());
                }
                let alpha = a.ok_or(INVALID_POINTER)?;
                let bound = bind(stringify!($name), handle, 0)?;
                let (xs, xi) = vector(x as usize, n as usize, incx, <$elem>::SIZE)?;
                let (ys, yi) = vector(y as usize, n as usize, incy, <$elem>::SIZE)?;
                let op =
                    streams::Op::with(stringify!($name), accesses([(&xs, AccessKind::Read), (&ys, AccessKind::Write)]));
                streams::submit(&bound.target, false, op, move || {
                    let xv: Vec<$elem> = read_all(&xs, xi.iter().max().map_or(0, |l| l + 1))?;
                    let mut yv: Vec<$elem> = read_all(&ys, yi.iter().max().map_or(0, |l| l + 1))?;
                    for (&a_at, &y_at) in xi.iter().zip(&yi) {
                        yv[y_at] = alpha.mul(xv[a_at]).add(yv[y_at]);
                    }
                    write_all(&ys, &yv)
                })
                .map_err(|_| INTERNAL)
            })
        }
    };
}

axpy_fn!(rocblas_saxpy, f32, f32);
axpy_fn!(rocblas_daxpy, f64, f64);
axpy_fn!(rocblas_caxpy, rocblas_float_complex, [f32; 2]);
axpy_fn!(rocblas_zaxpy, rocblas_double_complex, [f64; 2]);

macro_rules! scal_fn {
    ($name:ident, $t:ty, $elem:ty) => {
        pub(crate) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            n: rocblas_int,
            alpha: *const $t,
            x: *mut $t,
            incx: rocblas_int,
        ) -> Status {
            call(stringify!($name), OK, INTERNAL, || {
                handle_device(stringify!($name), handle)?;
                // SAFETY: null or a host scalar of the type (C contract).
                let a = (!alpha.is_null()).then(|| unsafe { host::<$elem>(alpha.cast()) });
                if rules::scal(n, incx, a.map(Elem::is_one), x.is_null())? == Next::Done {
                    return Ok(());
                }
                let alpha = a.ok_or(INVALID_POINTER)?;
                let bound = bind(stringify!($name), handle, 0)?;
                let (xs, xi) = vector(x as usize, n as usize, incx, <$elem>::SIZE)?;
                let op = streams::Op::with(stringify!($name), accesses([(&xs, AccessKind::Write)]));
                streams::submit(&bound.target, false, op, move || {
                    let mut xv: Vec<$elem> = read_all(&xs, xi.iter().max().map_or(0, |l| l + 1))?;
                    for &at in &xi {
                        xv[at] = alpha.mul(xv[at]);
                    }
                    write_all(&xs, &xv)
                })
                .map_err(|_| INTERNAL)
            })
        }
    };
}

scal_fn!(rocblas_sscal, f32, f32);
scal_fn!(rocblas_dscal, f64, f64);
scal_fn!(rocblas_cscal, rocblas_float_complex, [f32; 2]);
scal_fn!(rocblas_zscal, rocblas_double_complex, [f64; 2]);

/// A reduction's host result, written when the work runs; the call waits.
struct HostOut(usize);

impl HostOut {
    /// # Safety
    /// The pointer is valid for a write of `bytes.len()` bytes.
    unsafe fn write(&self, bytes: &[u8]) {
        // SAFETY: the caller's guarantee.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.0 as *mut u8, bytes.len()) }
    }
}

macro_rules! dot_fn {
    ($name:ident, $t:ty, $elem:ty, $conj:expr) => {
        pub(crate) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            n: rocblas_int,
            x: *const $t,
            incx: rocblas_int,
            y: *const $t,
            incy: rocblas_int,
            result: *mut $t,
        ) -> Status {
            call(stringify!($name), OK, INTERNAL, || {
                handle_device(stringify!($name), handle)?;
                let mut zero = vec![0u8; <$elem>::SIZE];
                <$elem>::zero().store(&mut zero);
                let out = HostOut(result as usize);
                if rules::dot(n, x.is_null(), y.is_null(), result.is_null())? == Next::Done {
                    // SAFETY: non-null result of the type (C contract).
                    unsafe { out.write(&zero) };
                    return Ok(());
                }
                let bound = bind(stringify!($name), handle, REDUCTION_WORKSPACE)?;
                let workspace = bound.workspace.clone().ok_or(MEMORY_ERROR)?;
                let (xs, xi) = vector(x as usize, n as usize, incx, <$elem>::SIZE)?;
                let (ys, yi) = vector(y as usize, n as usize, incy, <$elem>::SIZE)?;
                let used = [(&xs, AccessKind::Read), (&ys, AccessKind::Read), (&workspace, AccessKind::Write)];
                let op = streams::Op::with(stringify!($name), accesses(used));
                streams::submit(&bound.target, true, op, move || {
                    workspace.write_bytes(&[0u8; REDUCTION_WORKSPACE])?;
                    let xv: Vec<$elem> = read_all(&xs, xi.iter().max().map_or(0, |l| l + 1))?;
                    let yv: Vec<$elem> = read_all(&ys, yi.iter().max().map_or(0, |l| l + 1))?;
                    let mut sum = <$elem>::zero();
                    for (&xa, &ya) in xi.iter().zip(&yi) {
                        let xe = if $conj { xv[xa].conj() } else { xv[xa] };
                        sum = sum.add(xe.mul(yv[ya]));
                    }
                    let mut bytes = vec![0u8; <$elem>::SIZE];
                    sum.store(&mut bytes);
                    // SAFETY: the result is host memory of the type; the
                    // caller waits for this work (blocking submit).
                    unsafe { out.write(&bytes) };
                    Ok(())
                })
                .map_err(|_| INTERNAL)
            })
        }
    };
}

dot_fn!(rocblas_sdot, f32, f32, false);
dot_fn!(rocblas_ddot, f64, f64, false);
dot_fn!(rocblas_cdotu, rocblas_float_complex, [f32; 2], false);
dot_fn!(rocblas_zdotu, rocblas_double_complex, [f64; 2], false);
dot_fn!(rocblas_cdotc, rocblas_float_complex, [f32; 2], true);
dot_fn!(rocblas_zdotc, rocblas_double_complex, [f64; 2], true);

macro_rules! nrm2_fn {
    ($name:ident, $t:ty, $elem:ty, $real:ty) => {
        pub(crate) unsafe extern "C" fn $name(
            handle: rocblas_handle,
            n: rocblas_int,
            x: *const $t,
            incx: rocblas_int,
            result: *mut $real,
        ) -> Status {
            call(stringify!($name), OK, INTERNAL, || {
                handle_device(stringify!($name), handle)?;
                let out = HostOut(result as usize);
                if rules::nrm2(n, incx, x.is_null(), result.is_null())? == Next::Done {
                    // SAFETY: non-null result of the real type (C contract).
                    unsafe { out.write(&(0 as $real).to_ne_bytes()) };
                    return Ok(());
                }
                let bound = bind(stringify!($name), handle, REDUCTION_WORKSPACE)?;
                let workspace = bound.workspace.clone().ok_or(MEMORY_ERROR)?;
                let (xs, xi) = vector(x as usize, n as usize, incx, <$elem>::SIZE)?;
                let used = [(&xs, AccessKind::Read), (&workspace, AccessKind::Write)];
                let op = streams::Op::with(stringify!($name), accesses(used));
                streams::submit(&bound.target, true, op, move || {
                    workspace.write_bytes(&[0u8; REDUCTION_WORKSPACE])?;
                    let xv: Vec<$elem> = read_all(&xs, xi.iter().max().map_or(0, |l| l + 1))?;
                    // Summed in the operand's precision.
                    let sum: $real = xi.iter().map(|&at| xv[at].abs2() as $real).sum();
                    // SAFETY: as for dot.
                    unsafe { out.write(&sum.sqrt().to_ne_bytes()) };
                    Ok(())
                })
                .map_err(|_| INTERNAL)
            })
        }
    };
}

nrm2_fn!(rocblas_snrm2, f32, f32, f32);
nrm2_fn!(rocblas_dnrm2, f64, f64, f64);
nrm2_fn!(rocblas_scnrm2, rocblas_float_complex, [f32; 2], f32);
nrm2_fn!(rocblas_dznrm2, rocblas_double_complex, [f64; 2], f64);

/// The simulator's rocBLAS table.
pub(crate) static SIM_ROCBLAS: RocblasApi = RocblasApi {
    rocblas_create_handle,
    rocblas_destroy_handle,
    rocblas_set_stream,
    rocblas_get_stream,
    rocblas_set_pointer_mode,
    rocblas_get_pointer_mode,
    rocblas_set_workspace,
    rocblas_get_version_string,
    rocblas_get_version_string_size,
    rocblas_set_math_mode,
    rocblas_get_math_mode,
    rocblas_sgemm,
    rocblas_dgemm,
    rocblas_cgemm,
    rocblas_zgemm,
    rocblas_sgemm_strided_batched,
    rocblas_dgemm_strided_batched,
    rocblas_cgemm_strided_batched,
    rocblas_zgemm_strided_batched,
    rocblas_gemm_ex,
    rocblas_gemm_strided_batched_ex,
    rocblas_sgemv,
    rocblas_dgemv,
    rocblas_cgemv,
    rocblas_zgemv,
    rocblas_saxpy,
    rocblas_daxpy,
    rocblas_caxpy,
    rocblas_zaxpy,
    rocblas_sdot,
    rocblas_ddot,
    rocblas_cdotu,
    rocblas_zdotu,
    rocblas_cdotc,
    rocblas_zdotc,
    rocblas_snrm2,
    rocblas_dnrm2,
    rocblas_scnrm2,
    rocblas_dznrm2,
    rocblas_sscal,
    rocblas_dscal,
    rocblas_cscal,
    rocblas_zscal,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tf32_keeps_ten_mantissa_bits_rounding_to_nearest_even() {
        assert_eq!(to_tf32(1.0), 1.0);
        let ulp = 1.0 / 1024.0;
        assert_eq!(to_tf32(1.0 + ulp), 1.0 + ulp);
        assert_eq!(to_tf32(1.0 + ulp / 4.0), 1.0, "below half rounds down");
        assert_eq!(to_tf32(1.0 + 3.0 * ulp / 4.0), 1.0 + ulp, "above half rounds up");
        assert_eq!(to_tf32(1.0 + ulp / 2.0), 1.0, "a tie goes to even");
        assert_eq!(to_tf32(1.0 + 3.0 * ulp / 2.0), 1.0 + 2.0 * ulp, "a tie goes to even");
        assert!(to_tf32(f32::NAN).is_nan());
        assert_eq!(to_tf32(f32::INFINITY), f32::INFINITY);
    }

    #[test]
    fn matrix_extents_follow_the_leading_dimension() {
        assert_eq!(matrix_len(3, 2, 5), 8);
        assert_eq!(matrix_len(0, 2, 5), 0);
        assert_eq!(extent_elems(3, 10, 8), 28);
        assert_eq!(extent_elems(3, 10, 0), 0);
    }

    #[test]
    fn current_device_is_read_for_new_handles() {
        // A handle records the device current at creation (the registry's rule).
        let _guard = crate::sim::exclusive();
        let mut h: rocblas_handle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        assert_eq!(unsafe { rocblas_create_handle(&mut h) }, OK);
        let device = with(h as usize, |o| o.device).expect("registered");
        assert_eq!(device, crate::sim::runtime::current_device());
        // SAFETY: created above, destroyed once.
        assert_eq!(unsafe { rocblas_destroy_handle(h) }, OK);
        // SAFETY: a destroyed handle is refused, not used.
        assert_eq!(unsafe { rocblas_destroy_handle(h) }, INVALID_HANDLE);
    }
}
