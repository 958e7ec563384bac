//! GEMV and the level 1 functions of the simulated rocBLAS.

use super::elem::*;
use super::*;
use crate::library::function_name;
use crate::real::Real;

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
    let op = submit::Op::with(function, accesses(used));
    submit::submit(&bound.target, false, op, move || {
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

pub(super) unsafe extern "C" fn gemv_typed<P: Precision>(
    handle: rocblas_handle,
    trans: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    alpha: *const P::C,
    A: *const P::C,
    lda: rocblas_int,
    x: *const P::C,
    incx: rocblas_int,
    beta: *const P::C,
    y: *mut P::C,
    incy: rocblas_int,
) -> Status {
    let function = name::<P>("gemv");
    let (alpha, beta, pointers) = (alpha.cast(), beta.cast(), [A as usize, x as usize, y as usize]);
    // SAFETY: null or host scalars of the type (C contract).
    call(function, OK, INTERNAL, || unsafe {
        gemv::<P>(function, handle, trans, [m, n, lda], alpha, pointers, [incx, incy], beta)
    })
}

pub(super) unsafe extern "C" fn axpy<P: Precision>(
    handle: rocblas_handle,
    n: rocblas_int,
    alpha: *const P::C,
    x: *const P::C,
    incx: rocblas_int,
    y: *mut P::C,
    incy: rocblas_int,
) -> Status {
    let function = name::<P>("axpy");
    call(function, OK, INTERNAL, || {
        handle_device(function, handle)?;
        // SAFETY: null or a host scalar of the type (C contract).
        let a = (!alpha.is_null()).then(|| unsafe { host::<P>(alpha.cast()) });
        if rules::axpy(n, a.map(Elem::is_zero), x.is_null(), y.is_null())? == Next::Done {
            return Ok(());
        }
        let alpha = a.ok_or(INVALID_POINTER)?;
        let bound = bind(function, handle, 0)?;
        let (xs, xi) = vector(x as usize, n as usize, incx, P::SIZE)?;
        let (ys, yi) = vector(y as usize, n as usize, incy, P::SIZE)?;
        let op = submit::Op::with(function, accesses([(&xs, AccessKind::Read), (&ys, AccessKind::Write)]));
        submit::submit(&bound.target, false, op, move || {
            let xv: Vec<P> = read_all(&xs, xi.iter().max().map_or(0, |l| l + 1))?;
            let mut yv: Vec<P> = read_all(&ys, yi.iter().max().map_or(0, |l| l + 1))?;
            for (&a_at, &y_at) in xi.iter().zip(&yi) {
                yv[y_at] = alpha.mul(xv[a_at]).add(yv[y_at]);
            }
            write_all(&ys, &yv)
        })
        .map_err(|_| INTERNAL)
    })
}

pub(super) unsafe extern "C" fn scal<P: Precision>(
    handle: rocblas_handle,
    n: rocblas_int,
    alpha: *const P::C,
    x: *mut P::C,
    incx: rocblas_int,
) -> Status {
    let function = name::<P>("scal");
    call(function, OK, INTERNAL, || {
        handle_device(function, handle)?;
        // SAFETY: null or a host scalar of the type (C contract).
        let a = (!alpha.is_null()).then(|| unsafe { host::<P>(alpha.cast()) });
        if rules::scal(n, incx, a.map(Elem::is_one), x.is_null())? == Next::Done {
            return Ok(());
        }
        let alpha = a.ok_or(INVALID_POINTER)?;
        let bound = bind(function, handle, 0)?;
        let (xs, xi) = vector(x as usize, n as usize, incx, P::SIZE)?;
        let op = submit::Op::with(function, accesses([(&xs, AccessKind::Write)]));
        submit::submit(&bound.target, false, op, move || {
            let mut xv: Vec<P> = read_all(&xs, xi.iter().max().map_or(0, |l| l + 1))?;
            for &at in &xi {
                xv[at] = alpha.mul(xv[at]);
            }
            write_all(&xs, &xv)
        })
        .map_err(|_| INTERNAL)
    })
}

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

/// `rocblas_?dot` (real types), `?dotu`, or `?dotc` with `CONJ`.
pub(super) unsafe extern "C" fn dot<P: Precision, const CONJ: bool>(
    handle: rocblas_handle,
    n: rocblas_int,
    x: *const P::C,
    incx: rocblas_int,
    y: *const P::C,
    incy: rocblas_int,
    result: *mut P::C,
) -> Status {
    let function = name::<P>(match (P::COMPLEX, CONJ) {
        (false, _) => "dot",
        (true, false) => "dotu",
        (true, true) => "dotc",
    });
    call(function, OK, INTERNAL, || {
        handle_device(function, handle)?;
        let mut zero = vec![0u8; P::SIZE];
        P::zero().store(&mut zero);
        let out = HostOut(result as usize);
        if rules::dot(n, x.is_null(), y.is_null(), result.is_null())? == Next::Done {
            // SAFETY: non-null result of the type (C contract).
            unsafe { out.write(&zero) };
            return Ok(());
        }
        let bound = bind(function, handle, REDUCTION_WORKSPACE)?;
        let workspace = bound.workspace.clone().ok_or(MEMORY_ERROR)?;
        let (xs, xi) = vector(x as usize, n as usize, incx, P::SIZE)?;
        let (ys, yi) = vector(y as usize, n as usize, incy, P::SIZE)?;
        let used = [(&xs, AccessKind::Read), (&ys, AccessKind::Read), (&workspace, AccessKind::Write)];
        let op = submit::Op::with(function, accesses(used));
        submit::submit(&bound.target, true, op, move || {
            workspace.write_bytes(&[0u8; REDUCTION_WORKSPACE])?;
            let xv: Vec<P> = read_all(&xs, xi.iter().max().map_or(0, |l| l + 1))?;
            let yv: Vec<P> = read_all(&ys, yi.iter().max().map_or(0, |l| l + 1))?;
            let mut sum = P::zero();
            for (&xa, &ya) in xi.iter().zip(&yi) {
                let xe = if CONJ { xv[xa].conj() } else { xv[xa] };
                sum = sum.add(xe.mul(yv[ya]));
            }
            let mut bytes = vec![0u8; P::SIZE];
            sum.store(&mut bytes);
            // SAFETY: the result is host memory of the type; the caller
            // waits for this work (blocking submit).
            unsafe { out.write(&bytes) };
            Ok(())
        })
        .map_err(|_| INTERNAL)
    })
}

/// `rocblas_?nrm2` (`scnrm2`, `dznrm2` for complex types).
pub(super) unsafe extern "C" fn nrm2<P: Precision>(
    handle: rocblas_handle,
    n: rocblas_int,
    x: *const P::C,
    incx: rocblas_int,
    result: *mut P::Norm,
) -> Status {
    let function = function_name(format_args!("rocblas_{}nrm2", P::NORM));
    call(function, OK, INTERNAL, || {
        handle_device(function, handle)?;
        let out = HostOut(result as usize);
        let mut zero = vec![0u8; P::Norm::SIZE];
        Real::store(P::Norm::ZERO, &mut zero);
        if rules::nrm2(n, incx, x.is_null(), result.is_null())? == Next::Done {
            // SAFETY: non-null result of the real type (C contract).
            unsafe { out.write(&zero) };
            return Ok(());
        }
        let bound = bind(function, handle, REDUCTION_WORKSPACE)?;
        let workspace = bound.workspace.clone().ok_or(MEMORY_ERROR)?;
        let (xs, xi) = vector(x as usize, n as usize, incx, P::SIZE)?;
        let used = [(&xs, AccessKind::Read), (&workspace, AccessKind::Write)];
        let op = submit::Op::with(function, accesses(used));
        submit::submit(&bound.target, true, op, move || {
            workspace.write_bytes(&[0u8; REDUCTION_WORKSPACE])?;
            let xv: Vec<P> = read_all(&xs, xi.iter().max().map_or(0, |l| l + 1))?;
            // Summed in the operand's precision.
            let sum = xi.iter().fold(P::Norm::ZERO, |sum, &at| sum + P::Norm::from_f64(xv[at].abs2()));
            let mut bytes = vec![0u8; P::Norm::SIZE];
            Real::store(Real::sqrt(sum), &mut bytes);
            // SAFETY: as for dot.
            unsafe { out.write(&bytes) };
            Ok(())
        })
        .map_err(|_| INTERNAL)
    })
}
