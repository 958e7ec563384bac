//! Sparse matrix times dense vector or matrix.

use super::csr::{CsrMatrix, SparseScalar};
use super::handle::{SparseHandle, HANDLES};
use super::raw;
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::handle_cache::with_handle;
use crate::{LibError, Result};
use hip_core::raw::run_on;
use hip_pool::{enqueue, Access};
use hip_sys::rocsparse::{rocsparse_operation, rocsparse_order, rocsparse_spmm_stage, rocsparse_spmv_stage};
use std::ffi::c_void;

/// Whether to use the matrix or its transpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Operation {
    /// `A`.
    #[default]
    None,
    /// `Aᵀ`.
    Transpose,
}

impl Operation {
    fn raw(self) -> rocsparse_operation {
        match self {
            Operation::None => rocsparse_operation::rocsparse_operation_none,
            Operation::Transpose => rocsparse_operation::rocsparse_operation_transpose,
        }
    }
}

/// Element order of a dense matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DenseOrder {
    /// Column after column (Fortran, BLAS).
    #[default]
    ColumnMajor,
    /// Row after row (C).
    RowMajor,
}

/// `y = alpha * A * x + beta * y` (`rocsparse_spmv`).
///
/// # Errors
/// As [`spmv_op`].
///
/// # Examples
/// ```
/// use hip_libs::sparse::{self, CsrMatrix};
/// # fn product(a: &CsrMatrix<f32>, x: &impl hip_libs::DeviceData<f32>,
/// #            y: &mut impl hip_libs::DeviceDataMut<f32>) -> hip_libs::Result<()> {
/// // y = A x: x holds a.cols() elements, y a.rows().
/// sparse::spmv(1.0, a, x, 0.0, y)?;
/// # Ok(()) }
/// ```
#[doc(alias = "rocsparse_spmv")]
pub fn spmv<T: SparseScalar>(
    alpha: T,
    a: &CsrMatrix<T>,
    x: &impl DeviceData<T>,
    beta: T,
    y: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    spmv_op(Operation::None, alpha, a, x, beta, y)
}

/// `y = alpha * op(A) * x + beta * y`, on `y`'s stream (`rocsparse_spmv`).
///
/// rocSPARSE's stages run explicitly (buffer size, preprocess, compute;
/// 3.x and 4.x have no auto stage). The preprocess, rocSPARSE's CSR
/// analysis, runs once per matrix, at its first product with
/// [`Operation::None`] (the only operation the analysis serves); its
/// buffer is kept with the matrix.
///
/// # Errors
/// Before any call: [`LibError::Hip`] with a device mismatch when the
/// matrix or x is not on y's device; [`LibError::InvalidInput`] when x or y
/// has another length than `op(A)` needs. Then [`LibError::Unavailable`]
/// without rocSPARSE, [`LibError::Status`] with rocSPARSE's status of a
/// stage or descriptor call, or `Pool`/`Hip` from buffers and ordering.
#[doc(alias = "rocsparse_spmv")]
pub fn spmv_op<T: SparseScalar>(
    op: Operation,
    alpha: T,
    a: &CsrMatrix<T>,
    x: &impl DeviceData<T>,
    beta: T,
    y: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    const OP: &str = "spmv";
    let device = y.device();
    same_device(OP, device, &[("the matrix", a.device()), ("x", x.device())])?;
    let (x_len, y_len) = match op {
        Operation::None => (a.cols(), a.rows()),
        Operation::Transpose => (a.rows(), a.cols()),
    };
    if x.len() != x_len || y.len() != y_len {
        return Err(LibError::invalid(
            OP,
            format!(
                "a {} x {} matrix ({op:?}) needs x of {x_len} and y of {y_len} elements; got {} and {}",
                a.rows(),
                a.cols(),
                x.len(),
                y.len()
            ),
        ));
    }
    let stream = y.stream().clone();
    let api = hip_sys::rocsparse()?;
    let (x_ptr, y_ptr) = (x.device_ptr() as *mut c_void, y.device_ptr_mut());
    let operands = [(x.buffer(), Access::Read), (y.buffer(), Access::Write)];
    let result = enqueue(&stream, operands, || {
        with_handle::<SparseHandle, _>(&HANDLES, device, &stream, |handle| {
            run_on(device, || -> Result<()> {
                // SAFETY: x and y are device vectors of the checked lengths.
                let x_descr = unsafe { raw::create_dnvec_descr(api, x_len as i64, x_ptr, T::DATATYPE) }?;
                // SAFETY: as above.
                let y_descr = unsafe { raw::create_dnvec_descr(api, y_len as i64, y_ptr, T::DATATYPE) };
                let result = y_descr.as_ref().map_err(Clone::clone).and_then(|&y_descr| {
                    let product = raw::Product {
                        handle: handle.raw,
                        op: op.raw(),
                        alpha: (&alpha as *const T).cast(),
                        beta: (&beta as *const T).cast(),
                        matrix: a.descr,
                        input: x_descr,
                        output: y_descr,
                        datatype: T::DATATYPE,
                    };
                    // SAFETY: live handle and descriptors of one device;
                    // alpha and beta are host scalars of T (host pointer
                    // mode); `temp` holds `size` bytes.
                    let call = |stage, size: &mut usize, temp| unsafe { raw::spmv(api, &product, stage, size, temp) };
                    let mut size = 0usize;
                    call(rocsparse_spmv_stage::rocsparse_spmv_stage_buffer_size, &mut size, std::ptr::null_mut())?;
                    let bytes = size.max(4);
                    // The analysis serves the non-transposed product only; a
                    // transposed preprocess would make one rocSPARSE refuses
                    // for it later (see the `analysis` module).
                    a.analysis.spmv(
                        op == Operation::None,
                        &stream,
                        || {
                            let kept = hip_pool::alloc_on(device, bytes, &stream)?;
                            let mut size = size;
                            call(rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, &mut size, kept.as_ptr())?;
                            Ok(kept)
                        },
                        || {
                            let temp = hip_pool::alloc_on(device, bytes, &stream)?;
                            let mut size = size;
                            call(rocsparse_spmv_stage::rocsparse_spmv_stage_compute, &mut size, temp.as_ptr())
                        },
                    )
                });
                // SAFETY: made above, destroyed once.
                let _ = unsafe { raw::destroy_dnvec_descr(api, x_descr) };
                if let Ok(y_descr) = y_descr {
                    // SAFETY: as above.
                    let _ = unsafe { raw::destroy_dnvec_descr(api, y_descr) };
                }
                result
            })?
        })
    });
    // Also when the product failed: part of it may be queued.
    let recorded = a.record_use(&stream);
    result.and(recorded)
}

/// `C = alpha * A * B + beta * C` with dense `B` (`A.cols()` × `n`) and
/// `C` (`A.rows()` × `n`), both in `order`, on `C`'s stream (`rocsparse_spmm`).
///
/// Each call runs rocSPARSE's buffer size, preprocess and compute stages
/// with one buffer: SpMM's preprocess depends on `B` and `C`.
///
/// # Errors
/// As [`spmv_op`], for the matrix and B off C's device, and
/// [`LibError::InvalidInput`] when `n` is 0 or B or C holds another number
/// of elements than these shapes.
#[doc(alias = "rocsparse_spmm")]
pub fn spmm<T: SparseScalar>(
    alpha: T,
    a: &CsrMatrix<T>,
    b: &impl DeviceData<T>,
    n: usize,
    beta: T,
    c: &mut impl DeviceDataMut<T>,
    order: DenseOrder,
) -> Result<()> {
    const OP: &str = "spmm";
    let device = c.device();
    same_device(OP, device, &[("the matrix", a.device()), ("B", b.device())])?;
    let (k, m) = (a.cols(), a.rows());
    if n == 0 || b.len() != k.saturating_mul(n) || c.len() != m.saturating_mul(n) {
        return Err(LibError::invalid(
            OP,
            format!(
                "A is {m} x {k}; B must hold {k} x {n} and C {m} x {n} elements (n > 0); got {} and {}",
                b.len(),
                c.len()
            ),
        ));
    }
    let stream = c.stream().clone();
    let api = hip_sys::rocsparse()?;
    let (raw_order, ld_b, ld_c) = match order {
        DenseOrder::ColumnMajor => (rocsparse_order::rocsparse_order_column, k, m),
        DenseOrder::RowMajor => (rocsparse_order::rocsparse_order_row, n, n),
    };
    let (b_ptr, c_ptr) = (b.device_ptr() as *mut c_void, c.device_ptr_mut());
    let operands = [(b.buffer(), Access::Read), (c.buffer(), Access::Write)];
    let result = enqueue(&stream, operands, || {
        with_handle::<SparseHandle, _>(&HANDLES, device, &stream, |handle| {
            run_on(device, || -> Result<()> {
                // SAFETY: B is a device matrix of the checked size.
                let b_descr = unsafe {
                    raw::create_dnmat_descr(api, (k as i64, n as i64, ld_b as i64), b_ptr, T::DATATYPE, raw_order)
                }?;
                // SAFETY: C is a device matrix of the checked size.
                let c_descr = unsafe {
                    raw::create_dnmat_descr(api, (m as i64, n as i64, ld_c as i64), c_ptr, T::DATATYPE, raw_order)
                };
                let result = c_descr.as_ref().map_err(Clone::clone).and_then(|&c_descr| {
                    let product = raw::Product {
                        handle: handle.raw,
                        op: rocsparse_operation::rocsparse_operation_none,
                        alpha: (&alpha as *const T).cast(),
                        beta: (&beta as *const T).cast(),
                        matrix: a.descr,
                        input: b_descr,
                        output: c_descr,
                        datatype: T::DATATYPE,
                    };
                    // SAFETY: live handle and descriptors of one device;
                    // host scalars; `temp` holds `size` bytes.
                    let call = |stage, size: &mut usize, temp| unsafe { raw::spmm(api, &product, stage, size, temp) };
                    let mut size = 0usize;
                    call(rocsparse_spmm_stage::rocsparse_spmm_stage_buffer_size, &mut size, std::ptr::null_mut())?;
                    // SpMM's preprocess depends on B and C (the merge algorithm
                    // writes its analysis into the buffer, sized by C's
                    // columns), so it runs on every call, and compute gets the
                    // same buffer.
                    let temp = hip_pool::alloc_on(device, size.max(4), &stream)?;
                    let mut pre_size = size;
                    a.analysis.spmm(
                        || call(rocsparse_spmm_stage::rocsparse_spmm_stage_preprocess, &mut pre_size, temp.as_ptr()),
                        || {
                            let mut size = size;
                            call(rocsparse_spmm_stage::rocsparse_spmm_stage_compute, &mut size, temp.as_ptr())
                        },
                    )
                });
                // SAFETY: made above, destroyed once.
                let _ = unsafe { raw::destroy_dnmat_descr(api, b_descr) };
                if let Ok(c_descr) = c_descr {
                    // SAFETY: as above.
                    let _ = unsafe { raw::destroy_dnmat_descr(api, c_descr) };
                }
                result
            })?
        })
    });
    // Also when the product failed: part of it may be queued.
    let recorded = a.record_use(&stream);
    result.and(recorded)
}
