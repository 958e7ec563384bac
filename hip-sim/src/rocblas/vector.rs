//! GEMV and the level 1 functions of the simulated rocBLAS.

use super::elem::*;
use super::*;

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
                    submit::Op::with(stringify!($name), accesses([(&xs, AccessKind::Read), (&ys, AccessKind::Write)]));
                submit::submit(&bound.target, false, op, move || {
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
                let op = submit::Op::with(stringify!($name), accesses([(&xs, AccessKind::Write)]));
                submit::submit(&bound.target, false, op, move || {
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
                let op = submit::Op::with(stringify!($name), accesses(used));
                submit::submit(&bound.target, true, op, move || {
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
                let op = submit::Op::with(stringify!($name), accesses(used));
                submit::submit(&bound.target, true, op, move || {
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
