//! rocSOLVER's entry points in the simulator: each checks its arguments
//! with rocSOLVER's rules, asks the rocBLAS handle for its workspace (or,
//! during a size query, only says how much), and queues the computation
//! on the handle's stream with the memory it reads and writes declared to
//! the race detector.

#![allow(clippy::too_many_arguments)]

use super::eigen;
use super::factor::{self, Op};
use super::problems::{load, store, Matrices};
use super::qr;
use super::scalar::Scalar;
use super::svd;
use super::wide::C;
use super::workspace;
use crate::bindings::hip::hipError_t;
use crate::bindings::rocblas::{
    rocblas_double_complex, rocblas_float_complex, rocblas_handle, rocblas_status, rocblas_stride,
};
use crate::bindings::rocsolver::{rocblas_evect, rocblas_fill, rocblas_operation, rocblas_svect, rocblas_workmode};
use crate::library::{accesses, call, span, Span};
use crate::machine::races::Deferred;
use crate::machine::violations::AccessKind;
use crate::rocblas::{bind, matrix_len, querying};
use crate::shared::rocsolver_rules::{self as rules, Given, Next, Svect};
use crate::submit;
use std::ffi::c_int;
use std::sync::Arc;

type Status = rocblas_status;
const OK: Status = rocblas_status::rocblas_status_success;
const INTERNAL: Status = rocblas_status::rocblas_status_internal_error;
const INVALID_HANDLE: Status = rocblas_status::rocblas_status_invalid_handle;
const INVALID_POINTER: Status = rocblas_status::rocblas_status_invalid_pointer;
const INVALID_SIZE: Status = rocblas_status::rocblas_status_invalid_size;

/// The device memory of a column-major `rows × cols` matrix with leading
/// dimension `ld`; `invalid_pointer` if it is not simulator device memory
/// of that extent (a GPU would fault in the kernel).
fn matrix<T: Scalar>(ptr: *const T, rows: usize, cols: usize, ld: usize) -> Result<(Span, usize), Status> {
    let elems = matrix_len(rows, cols, ld);
    Ok((span(ptr as usize, elems * T::SIZE).ok_or(INVALID_POINTER)?, elems))
}

fn ints(ptr: *const c_int, count: usize) -> Result<Span, Status> {
    span(ptr as usize, count * 4).ok_or(INVALID_POINTER)
}

/// `values` as the real type of `T` (eigenvalues, singular values) into
/// `bytes`, from real element `at` on.
fn put_reals<T: Scalar>(bytes: &mut [u8], at: usize, values: &[f64]) {
    let real = T::REAL_SIZE;
    for (chunk, x) in bytes[at * real..(at + values.len()) * real].chunks_exact_mut(real).zip(values) {
        T::store_real(*x, chunk);
    }
}

fn store_ints(s: &Span, values: &[i32]) -> Result<(), hipError_t> {
    s.write_bytes(&values.iter().flat_map(|v| v.to_ne_bytes()).collect::<Vec<u8>>())
}

/// Queue `work` on the handle's stream after binding `need` bytes of its
/// workspace (which the work writes, as rocSOLVER's kernels do).
fn queue(
    function: &'static str,
    handle: rocblas_handle,
    need: usize,
    used: Vec<(Span, AccessKind)>,
    work: impl Fn() -> Result<(), hipError_t> + Send + Sync + 'static,
) -> Result<(), Status> {
    queue_checked(function, handle, need, used, Instances::ONE, move |_| work())
}

/// [`queue`] for the problems of `batch`: where it has pointer arrays, the
/// memory the work finds as it runs is checked then through the
/// [`Deferred`] the work is given.
fn queue_checked(
    function: &'static str,
    handle: rocblas_handle,
    need: usize,
    mut used: Vec<(Span, AccessKind)>,
    batch: Instances,
    work: impl Fn(Option<&Deferred>) -> Result<(), hipError_t> + Send + Sync + 'static,
) -> Result<(), Status> {
    let deferred = batch.arrays.contains(&true).then(|| Arc::new(Deferred::new()));
    let bound = bind(function, handle, need)?;
    used.extend(bound.workspace.map(|w| (w, AccessKind::Write)));
    let op = submit::Op {
        deferred: deferred.clone(),
        ..submit::Op::with(function, accesses(used.iter().map(|(s, k)| (s, *k))))
    };
    submit::submit(&bound.target, false, op, move || work(deferred.as_deref())).map_err(|_| INTERNAL)
}

/// An empty factorization of `count` problems: their `info` set to 0 on
/// the stream (rocSOLVER's `reset_info` kernel); nothing for no problem.
fn clear_info(function: &'static str, handle: rocblas_handle, info: *mut c_int, count: usize) -> Result<(), Status> {
    if count == 0 {
        return Ok(());
    }
    let info = ints(info, count)?;
    let out = info.clone();
    queue(function, handle, 0, vec![(info, AccessKind::Write)], move || store_ints(&out, &vec![0; count]))
}

/// The problems of one call: one (the plain function), or a strided batch
/// of `count` whose i-th operands begin `i` strides (elements) after the
/// first's: for A, the pivots or Householder scalars (P), and B; for the
/// eigensolver A, D and E; for the SVD A, S, U, V and E.
#[derive(Debug, Clone, Copy)]
pub(super) struct Instances {
    count: c_int,
    strides: [rocblas_stride; 5],
    batched: bool,
    /// Which operands are device arrays of one pointer per problem
    /// (`_batched`: A, and B of the solves) rather than strided.
    arrays: [bool; 5],
    /// The strided operands' names, for messages.
    names: [&'static str; 5],
}

impl Instances {
    /// The plain function's one problem.
    pub(super) const ONE: Instances =
        Instances { count: 1, strides: [0; 5], batched: false, arrays: [false; 5], names: ["A", "P", "B", "", ""] };

    /// A `_strided_batched` function's `count` problems (strides of A, P, B).
    pub(super) fn strided(count: c_int, a: rocblas_stride, p: rocblas_stride, b: rocblas_stride) -> Instances {
        Instances { count, strides: [a, p, b, 0, 0], batched: true, arrays: [false; 5], names: ["A", "P", "B", "", ""] }
    }

    /// A `_batched` function's `count` problems: A and B at the addresses
    /// of device pointer arrays, the pivots or Householder scalars `p`
    /// elements apart.
    pub(super) fn pointers(count: c_int, p: rocblas_stride) -> Instances {
        Instances { arrays: [true, false, true, false, false], ..Instances::strided(count, 0, p, 0) }
    }

    /// A `_batched` eigensolver's problems: A at the addresses of a device
    /// pointer array, D and E strided.
    pub(super) fn eigen_pointers(count: c_int, d: rocblas_stride, e: rocblas_stride) -> Instances {
        Instances { arrays: [true, false, false, false, false], ..Instances::eigen(count, 0, d, e) }
    }

    /// A `_batched` SVD's problems: A at the addresses of a device pointer
    /// array; S, U, Vᴴ and E strided (`strides[0]` unused).
    pub(super) fn svd_pointers(count: c_int, strides: [rocblas_stride; 5]) -> Instances {
        Instances { arrays: [true, false, false, false, false], ..Instances::svd(count, strides) }
    }

    /// The eigensolver's strides: of A, of the eigenvalues D and of the
    /// scratch E.
    pub(super) fn eigen(count: c_int, a: rocblas_stride, d: rocblas_stride, e: rocblas_stride) -> Instances {
        Instances { names: ["A", "D", "E", "", ""], ..Instances::strided(count, a, d, e) }
    }

    /// The SVD's strides: of A, the singular values S, U, Vᴴ and the
    /// scratch E.
    pub(super) fn svd(count: c_int, strides: [rocblas_stride; 5]) -> Instances {
        Instances { count, strides, batched: true, arrays: [false; 5], names: ["A", "S", "U", "V", "E"] }
    }

    /// The workspace's view: rocSOLVER sizes batched calls by their own
    /// tables, even a batch of one.
    fn workspace(&self) -> workspace::Batch {
        match (self.batched, self.arrays.contains(&true)) {
            (false, _) => workspace::Batch::One,
            (true, false) => workspace::Batch::Strided(self.count()),
            (true, true) => workspace::Batch::Pointers(self.count()),
        }
    }

    fn count(&self) -> usize {
        self.count.max(0) as usize
    }

    /// The memory of operand `which` (in the order of [`Instances`]'s strides) over every problem, at
    /// `ptr`, each of `len` elements of `size` bytes: its span and its
    /// elements.
    /// rocSOLVER checks no stride; a written operand whose problems overlap
    /// would be computed in parallel into the same memory, so the simulator
    /// refuses it (`invalid_size`, as its rocBLAS refuses overlapping GEMM
    /// outputs), as it does a negative stride.
    fn operand<T>(
        &self,
        function: &'static str,
        which: usize,
        (ptr, size): (*const T, usize),
        len: usize,
        written: bool,
    ) -> Result<(Span, usize), Status> {
        let (count, stride) = (self.count(), self.strides[which]);
        if stride < 0 || (written && count > 1 && len > 0 && (stride as usize) < len) {
            log::error!(
                "hip simulator: {function}: stride {stride} of operand {} is negative or below one problem's {len} \
                 elements, so problems written in parallel would overlap",
                self.names[which]
            );
            return Err(INVALID_SIZE);
        }
        let elems = if len == 0 || count == 0 { 0 } else { (count - 1) * stride as usize + len };
        Ok((span(ptr as usize, elems * size).ok_or(INVALID_POINTER)?, elems))
    }

    /// The matrices of operand `which` at `ptr`: strided,
    /// as [`operand`](Instances::operand) checks them, or the addresses
    /// in a device pointer array.
    fn matrices<T>(
        &self,
        function: &'static str,
        which: usize,
        (ptr, size): (*const T, usize),
        len: usize,
        written: bool,
    ) -> Result<Matrices, Status> {
        if self.arrays[which] {
            return Matrices::array(ptr as usize, self.count(), len, size);
        }
        let (span, elems) = self.operand(function, which, (ptr, size), len, written)?;
        Ok(Matrices::Strided { span, elems, stride: self.strides[which] as usize })
    }

    /// Where problem `i`'s operand `which` begins, in elements.
    fn offset(&self, which: usize, i: usize) -> usize {
        i * self.strides[which] as usize
    }
}

pub(super) fn getrf<T: Scalar>(
    function: &'static str,
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    ipiv: *mut c_int,
    info: *mut c_int,
    batch: Instances,
) -> Status {
    call(function, OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let given = Given { a: !a.is_null(), ipiv: !ipiv.is_null(), info: !info.is_null(), ..Given::default() };
        let query = querying(handle);
        let next = rules::getrf(m, n, lda, batch.count, given, query)?;
        let (m, n, lda, count) = (m as usize, n as usize, lda as usize, batch.count());
        let need = workspace::getrf(m, n, T::SIZE, batch.workspace());
        if query {
            return bind(function, handle, need).map(drop);
        }
        if next == Next::Done {
            return clear_info(function, handle, info, count);
        }
        let a = batch.matrices(function, 0, (a.cast_const(), T::SIZE), matrix_len(m, n, lda), true)?;
        let (ipiv, pivots_len) = batch.operand(function, 1, (ipiv.cast_const(), 4), m.min(n), true)?;
        let info = ints(info, count)?;
        let used =
            vec![a.at_call(AccessKind::Write), (ipiv.clone(), AccessKind::Write), (info.clone(), AccessKind::Write)];
        queue_checked(function, handle, need, used, batch, move |deferred| {
            let mut values = a.load::<T>(function, true, deferred)?;
            let mut all_pivots = ipiv.read_i32(pivots_len)?;
            let mut infos = Vec::with_capacity(count);
            for i in 0..count {
                let (pivots, status) = factor::getrf(m, n, values.problem(i), lda);
                let at = batch.offset(1, i);
                all_pivots[at..at + pivots.len()].copy_from_slice(&pivots);
                infos.push(status);
            }
            values.store()?;
            store_ints(&ipiv, &all_pivots)?;
            store_ints(&info, &infos)
        })
    })
}

pub(super) fn getrs<T: Scalar>(
    function: &'static str,
    handle: rocblas_handle,
    trans: rocblas_operation,
    n: c_int,
    nrhs: c_int,
    a: *mut T,
    lda: c_int,
    ipiv: *const c_int,
    b: *mut T,
    ldb: c_int,
    batch: Instances,
) -> Status {
    call(function, OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let given = Given { a: !a.is_null(), ipiv: !ipiv.is_null(), b: !b.is_null(), ..Given::default() };
        let query = querying(handle);
        let next = rules::getrs(trans, n, nrhs, lda, ldb, batch.count, given, query)?;
        let op = match rules::operation(trans)? {
            0 => Op::None,
            1 => Op::Transpose,
            _ => Op::ConjTranspose,
        };
        let (n, nrhs, lda, ldb, count) = (n as usize, nrhs as usize, lda as usize, ldb as usize, batch.count());
        let need = workspace::getrs(n, nrhs, T::SIZE, op != Op::None, batch.workspace());
        if query || next == Next::Done {
            // Nothing to run: the size (a query), or success (an empty problem).
            return bind(function, handle, need).map(drop);
        }
        let a = batch.matrices(function, 0, (a.cast_const(), T::SIZE), matrix_len(n, n, lda), false)?;
        let (ipiv, pivots_len) = batch.operand(function, 1, (ipiv, 4), n, false)?;
        let b = batch.matrices(function, 2, (b.cast_const(), T::SIZE), matrix_len(n, nrhs, ldb), true)?;
        let used = vec![a.at_call(AccessKind::Read), (ipiv.clone(), AccessKind::Read), b.at_call(AccessKind::Write)];
        queue_checked(function, handle, need, used, batch, move |deferred| {
            let factors = a.load::<T>(function, false, deferred)?;
            let mut values = b.load::<T>(function, true, deferred)?;
            let all_pivots = ipiv.read_i32(pivots_len)?;
            for i in 0..count {
                let pivots = &all_pivots[batch.offset(1, i)..][..n];
                let factors = &factors.values[factors.at(i)..];
                factor::getrs(op, n, nrhs, factors, lda, pivots, values.problem(i), ldb).map_err(|bad| {
                    log::error!(
                        "hip simulator: {function}: problem {i}'s pivot {bad} is {}, outside 1..={n}",
                        pivots[bad]
                    );
                    hipError_t::hipErrorIllegalAddress
                })?;
            }
            values.store()
        })
    })
}

pub(super) fn potrf<T: Scalar>(
    function: &'static str,
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut T,
    lda: c_int,
    info: *mut c_int,
    batch: Instances,
) -> Status {
    call(function, OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let given = Given { a: !a.is_null(), info: !info.is_null(), ..Given::default() };
        let query = querying(handle);
        let next = rules::potrf(uplo, n, lda, batch.count, given, query)?;
        let upper = rules::upper(uplo)?;
        let (n, lda, count) = (n as usize, lda as usize, batch.count());
        let need = workspace::potrf(n, T::SIZE, batch.workspace());
        if query {
            return bind(function, handle, need).map(drop);
        }
        if next == Next::Done {
            return clear_info(function, handle, info, count);
        }
        let a = batch.matrices(function, 0, (a.cast_const(), T::SIZE), matrix_len(n, n, lda), true)?;
        let info = ints(info, count)?;
        let used = vec![a.at_call(AccessKind::Write), (info.clone(), AccessKind::Write)];
        queue_checked(function, handle, need, used, batch, move |deferred| {
            let mut values = a.load::<T>(function, true, deferred)?;
            let infos: Vec<i32> = (0..count).map(|i| factor::potrf(upper, n, values.problem(i), lda)).collect();
            values.store()?;
            store_ints(&info, &infos)
        })
    })
}

pub(super) fn potrs<T: Scalar>(
    function: &'static str,
    handle: rocblas_handle,
    uplo: rocblas_fill,
    n: c_int,
    nrhs: c_int,
    a: *mut T,
    lda: c_int,
    b: *mut T,
    ldb: c_int,
    batch: Instances,
) -> Status {
    call(function, OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let given = Given { a: !a.is_null(), b: !b.is_null(), ..Given::default() };
        let query = querying(handle);
        let next = rules::potrs(uplo, n, nrhs, lda, ldb, batch.count, given, query)?;
        let upper = rules::upper(uplo)?;
        let (n, nrhs, lda, ldb, count) = (n as usize, nrhs as usize, lda as usize, ldb as usize, batch.count());
        let need = workspace::potrs(n, nrhs, T::SIZE, batch.workspace());
        if query || next == Next::Done {
            return bind(function, handle, need).map(drop);
        }
        let a = batch.matrices(function, 0, (a.cast_const(), T::SIZE), matrix_len(n, n, lda), false)?;
        let b = batch.matrices(function, 2, (b.cast_const(), T::SIZE), matrix_len(n, nrhs, ldb), true)?;
        let used = vec![a.at_call(AccessKind::Read), b.at_call(AccessKind::Write)];
        queue_checked(function, handle, need, used, batch, move |deferred| {
            let factors = a.load::<T>(function, false, deferred)?;
            let mut values = b.load::<T>(function, true, deferred)?;
            for i in 0..count {
                let factor = &factors.values[factors.at(i)..];
                factor::potrs(upper, n, nrhs, factor, lda, values.problem(i), ldb);
            }
            values.store()
        })
    })
}

pub(super) fn syevd<T: Scalar>(
    function: &'static str,
    handle: rocblas_handle,
    evect: rocblas_evect,
    uplo: rocblas_fill,
    n: c_int,
    a: *mut T,
    lda: c_int,
    d: *mut u8,
    e: *mut u8,
    info: *mut c_int,
    batch: Instances,
) -> Status {
    call(function, OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let given =
            Given { a: !a.is_null(), d: !d.is_null(), e: !e.is_null(), info: !info.is_null(), ..Given::default() };
        let query = querying(handle);
        let next = rules::syevd(evect, uplo, n, lda, batch.count, given, query)?;
        let (vectors, upper) = (rules::vectors(evect)?, rules::upper(uplo)?);
        let (n, lda, count) = (n as usize, lda as usize, batch.count());
        if !workspace::syevd_sizes_fit(n, vectors, batch.workspace()) {
            log::error!(
                "hip simulator: {function}: rocSOLVER 3.21 sizes the divide-and-conquer workspace of 2·{n}²·{} \
                 reals in a 32-bit int, which overflows: split the batch",
                batch.count()
            );
            return Err(INVALID_SIZE);
        }
        let need = workspace::syevd(n, T::SIZE, T::REAL_SIZE, vectors, batch.workspace());
        if query {
            return bind(function, handle, need).map(drop);
        }
        if next == Next::Done {
            return clear_info(function, handle, info, count);
        }
        let a = batch.matrices(function, 0, (a.cast_const(), T::SIZE), matrix_len(n, n, lda), true)?;
        let (d, d_len) = batch.operand(function, 1, (d.cast_const(), T::REAL_SIZE), n, true)?;
        let (e, e_len) = batch.operand(function, 2, (e.cast_const(), T::REAL_SIZE), n, true)?;
        let info = ints(info, count)?;
        let used = vec![
            a.at_call(AccessKind::Write),
            (d.clone(), AccessKind::Write),
            (e.clone(), AccessKind::Write),
            (info.clone(), AccessKind::Write),
        ];
        let real = T::REAL_SIZE;
        queue_checked(function, handle, need, used, batch, move |deferred| {
            let mut values = a.load::<T>(function, true, deferred)?;
            // D and E keep what lies between their problems.
            let (mut d_bytes, mut e_bytes) = (d.bytes(d_len * real)?, e.bytes(e_len * real)?);
            let mut infos = Vec::with_capacity(count);
            for i in 0..count {
                let problem = values.problem(i);
                let (eigenvalues, status) = eigen::syevd(vectors, upper, n, problem, lda);
                if !vectors && n > 1 {
                    // rocSOLVER leaves its Householder vectors there: A's
                    // contents are destroyed, and NaNs say so to any reader.
                    let nan = T::complex(f64::NAN, f64::NAN);
                    for j in 0..n {
                        problem[j * lda..j * lda + n].fill(nan);
                    }
                }
                put_reals::<T>(&mut d_bytes, batch.offset(1, i), &eigenvalues);
                // E's first n − 1 entries hold the tridiagonal's
                // off-diagonal, converged to zero; its last is never
                // written (nor, for order 1, any).
                let at = batch.offset(2, i) * real;
                e_bytes[at..at + n.saturating_sub(1) * real].fill(0);
                infos.push(status);
            }
            values.store()?;
            d.write_bytes(&d_bytes)?;
            e.write_bytes(&e_bytes)?;
            store_ints(&info, &infos)
        })
    })
}

pub(super) fn geqrf<T: Scalar>(
    function: &'static str,
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    tau: *mut T,
    batch: Instances,
) -> Status {
    call(function, OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let given = Given { a: !a.is_null(), ipiv: !tau.is_null(), ..Given::default() };
        let query = querying(handle);
        let next = rules::geqrf(m, n, lda, batch.count, given, query)?;
        let (m, n, lda, count) = (m as usize, n as usize, lda as usize, batch.count());
        let need = workspace::geqrf(m, n, T::SIZE, batch.workspace());
        if query || next == Next::Done {
            return bind(function, handle, need).map(drop);
        }
        let a = batch.matrices(function, 0, (a.cast_const(), T::SIZE), matrix_len(m, n, lda), true)?;
        let (tau, tau_elems) = batch.operand(function, 1, (tau.cast_const(), T::SIZE), m.min(n), true)?;
        let used = vec![a.at_call(AccessKind::Write), (tau.clone(), AccessKind::Write)];
        queue_checked(function, handle, need, used, batch, move |deferred| {
            let mut values = a.load::<T>(function, true, deferred)?;
            let mut all_scalars = load::<T>(&tau, tau_elems)?;
            for i in 0..count {
                let scalars = qr::geqrf(m, n, values.problem(i), lda);
                let at = batch.offset(1, i);
                all_scalars[at..at + scalars.len()].copy_from_slice(&scalars);
            }
            values.store()?;
            store(&tau, &all_scalars)
        })
    })
}

pub(super) fn orgqr<T: Scalar>(
    function: &'static str,
    handle: rocblas_handle,
    m: c_int,
    n: c_int,
    k: c_int,
    a: *mut T,
    lda: c_int,
    tau: *mut T,
) -> Status {
    call(function, OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let given = Given { a: !a.is_null(), ipiv: !tau.is_null(), ..Given::default() };
        let query = querying(handle);
        let next = rules::orgqr(m, n, k, lda, given, query)?;
        let (m, n, k, lda) = (m as usize, n as usize, k as usize, lda as usize);
        let need = workspace::orgqr(m, n, k, T::SIZE);
        if query || next == Next::Done {
            return bind(function, handle, need).map(drop);
        }
        let (a, elems) = matrix(a, m, n, lda)?;
        let used_tau = if k == 0 { None } else { Some(matrix(tau, k, 1, k)?.0) };
        let mut used = vec![(a.clone(), AccessKind::Write)];
        used.extend(used_tau.clone().map(|t| (t, AccessKind::Read)));
        queue(function, handle, need, used, move || {
            let mut values = load::<T>(&a, elems)?;
            let scalars = match &used_tau {
                Some(t) => load::<T>(t, k)?,
                None => Vec::new(),
            };
            qr::orgqr(m, n, k, &mut values, lda, &scalars);
            store(&a, &values)
        })
    })
}

pub(super) fn gesvd<T: Scalar>(
    function: &'static str,
    handle: rocblas_handle,
    left: rocblas_svect,
    right: rocblas_svect,
    m: c_int,
    n: c_int,
    a: *mut T,
    lda: c_int,
    s: *mut u8,
    u: *mut T,
    ldu: c_int,
    v: *mut T,
    ldv: c_int,
    e: *mut u8,
    fast_alg: rocblas_workmode,
    info: *mut c_int,
    batch: Instances,
) -> Status {
    call(function, OK, INTERNAL, || {
        if handle.is_null() {
            return Err(INVALID_HANDLE);
        }
        let given = Given {
            a: !a.is_null(),
            d: !s.is_null(),
            e: !e.is_null(),
            u: !u.is_null(),
            v: !v.is_null(),
            info: !info.is_null(),
            ..Given::default()
        };
        let query = querying(handle);
        let next = rules::gesvd(left, right, m, n, lda, ldu, ldv, batch.count, given, query)?;
        let (left, right) = (rules::svect(left)?, rules::svect(right)?);
        let (m, n, lda, ldu, ldv) = (m as usize, n as usize, lda as usize, ldu as usize, ldv as usize);
        // rocSOLVER takes any mode but out of place as in place.
        let in_place = fast_alg != rocblas_workmode::rocblas_outofplace;
        let need = workspace::gesvd(m, n, T::SIZE, T::REAL_SIZE, left, right, in_place, batch.workspace());
        if query || next == Next::Done {
            // rocSOLVER returns before anything, info unwritten.
            return bind(function, handle, need).map(drop);
        }
        let (k, count, real) = (m.min(n), batch.count(), T::REAL_SIZE);
        let a = batch.matrices(function, 0, (a.cast_const(), T::SIZE), matrix_len(m, n, lda), true)?;
        let (s, s_len) = batch.operand(function, 1, (s.cast_const(), real), k, true)?;
        let info = ints(info, count)?;
        let e = if k > 1 { Some(batch.operand(function, 4, (e.cast_const(), real), k - 1, true)?) } else { None };
        let u_cols = match left {
            Svect::All => Some(m),
            Svect::Singular => Some(k),
            _ => None,
        };
        let v_rows = match right {
            Svect::All => Some(n),
            Svect::Singular => Some(k),
            _ => None,
        };
        // Each side's own matrices, where it has them: their span, elements and columns (rows, for Vᴴ).
        let u = u_cols
            .map(|cols| {
                let (span, elems) =
                    batch.operand(function, 2, (u.cast_const(), T::SIZE), matrix_len(m, cols, ldu), true)?;
                Ok::<_, Status>((span, elems, cols))
            })
            .transpose()?;
        let v = v_rows
            .map(|rows| {
                let (span, elems) =
                    batch.operand(function, 3, (v.cast_const(), T::SIZE), matrix_len(rows, n, ldv), true)?;
                Ok::<_, Status>((span, elems, rows))
            })
            .transpose()?;
        let mut used =
            vec![a.at_call(AccessKind::Write), (s.clone(), AccessKind::Write), (info.clone(), AccessKind::Write)];
        used.extend(
            e.iter()
                .map(|x| &x.0)
                .chain(u.iter().map(|x| &x.0))
                .chain(v.iter().map(|x| &x.0))
                .map(|x| (x.clone(), AccessKind::Write)),
        );
        queue_checked(function, handle, need, used, batch, move |deferred| {
            let mut out = a.load::<T>(function, true, deferred)?;
            let values = out.values.clone();
            // A's contents are destroyed (rocSOLVER's Householder data):
            // NaNs there say so to any reader, unless vectors overwrite it.
            let nan = T::complex(f64::NAN, f64::NAN);
            let mut s_bytes = s.bytes(s_len * real)?;
            let mut e_bytes = match &e {
                Some((span, len)) => span.bytes(len * real)?,
                None => Vec::new(),
            };
            let mut u_all = u.as_ref().map(|(span, elems, _)| load::<T>(span, *elems)).transpose()?;
            let mut v_all = v.as_ref().map(|(span, elems, _)| load::<T>(span, *elems)).transpose()?;
            let put = |into: &mut [T], ld: usize, rows: usize, cols: usize, from: &[C], from_ld: usize| {
                for j in 0..cols {
                    for i in 0..rows {
                        into[i + j * ld] = from[i + j * from_ld].to();
                    }
                }
            };
            let vh_rows = v_rows.unwrap_or(k);
            let mut infos = Vec::with_capacity(count);
            for p in 0..count {
                let at = out.at(p);
                let tight: Vec<C> = (0..m * n).map(|x| C::of(values[at + x % m + (x / m) * lda])).collect();
                let svd = svd::gesvd(m, n, &tight, left == Svect::All, right == Svect::All);
                let problem = out.problem(p);
                for j in 0..n {
                    problem[j * lda..j * lda + m].fill(nan);
                }
                if let (Some(into), Some((_, _, cols))) = (&mut u_all, &u) {
                    put(&mut into[batch.offset(2, p)..], ldu, m, *cols, &svd.u, m);
                } else if left == Svect::Overwrite {
                    put(problem, lda, m, k, &svd.u, m);
                }
                if let (Some(into), Some((_, _, rows))) = (&mut v_all, &v) {
                    put(&mut into[batch.offset(3, p)..], ldv, *rows, n, &svd.vh, vh_rows);
                } else if right == Svect::Overwrite {
                    put(problem, lda, k, n, &svd.vh, vh_rows);
                }
                put_reals::<T>(&mut s_bytes, batch.offset(1, p), &svd.sigma);
                // E holds the bidiagonal's off-diagonal, converged to zero.
                if k > 1 {
                    let at = batch.offset(4, p) * real;
                    e_bytes[at..at + (k - 1) * real].fill(0);
                }
                infos.push(svd.info);
            }
            if let (Some(into), Some((span, _, _))) = (&u_all, &u) {
                store(span, into)?;
            }
            if let (Some(into), Some((span, _, _))) = (&v_all, &v) {
                store(span, into)?;
            }
            out.store()?;
            s.write_bytes(&s_bytes)?;
            if let Some((span, _)) = &e {
                span.write_bytes(&e_bytes)?;
            }
            store_ints(&info, &infos)
        })
    })
}

/// The complex element types as the simulator's pairs (same layout).
pub(super) type C32 = [f32; 2];
pub(super) type C64 = [f64; 2];
const _: () = assert!(std::mem::size_of::<rocblas_float_complex>() == std::mem::size_of::<C32>());
const _: () = assert!(std::mem::size_of::<rocblas_double_complex>() == std::mem::size_of::<C64>());
