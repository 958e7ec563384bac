//! Sparse matrix times dense vector or matrix.

use super::csr::{CsrMatrix, SparseScalar};
use super::handle::{check, SparseHandle, HANDLES};
use crate::data::{same_device, DeviceData, DeviceDataMut};
use crate::handle_cache::with_handle;
use crate::{LibError, Result};
use hip_core::raw::run_on;
use hip_pool::{with_uses, Access};
use hip_sys::rocsparse::{
    rocsparse_dnmat_descr, rocsparse_dnvec_descr, rocsparse_operation, rocsparse_order, rocsparse_spmm_alg,
    rocsparse_spmm_stage, rocsparse_spmv_alg, rocsparse_spmv_stage,
};
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

/// `y = alpha * A * x + beta * y`.
pub fn spmv<T: SparseScalar>(
    alpha: T,
    a: &CsrMatrix<T>,
    x: &impl DeviceData<T>,
    beta: T,
    y: &mut impl DeviceDataMut<T>,
) -> Result<()> {
    spmv_op(Operation::None, alpha, a, x, beta, y)
}

/// `y = alpha * op(A) * x + beta * y`, on `y`'s stream.
///
/// rocSPARSE's stages run explicitly (buffer size, preprocess, compute;
/// 3.x and 4.x have no auto stage). The preprocess, rocSPARSE's CSR
/// analysis, runs once per matrix, at its first product with
/// [`Operation::None`] (the only operation the analysis serves); its
/// buffer is kept with the matrix.
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
    let result = with_uses(&stream, &operands, || {
        with_handle::<SparseHandle, _>(&HANDLES, device, &stream, |handle| {
            run_on(device, || -> Result<()> {
                let mut x_descr: rocsparse_dnvec_descr = std::ptr::null_mut();
                let mut y_descr: rocsparse_dnvec_descr = std::ptr::null_mut();
                check(
                    // SAFETY: x and y are device vectors of the checked lengths.
                    unsafe { (api.rocsparse_create_dnvec_descr)(&mut x_descr, x_len as i64, x_ptr, T::DATATYPE) },
                    "rocsparse_create_dnvec_descr",
                )?;
                // SAFETY: as above.
                let y_made = check(
                    unsafe { (api.rocsparse_create_dnvec_descr)(&mut y_descr, y_len as i64, y_ptr, T::DATATYPE) },
                    "rocsparse_create_dnvec_descr",
                );
                let result = y_made.and_then(|()| {
                    let call = |stage: rocsparse_spmv_stage, size: &mut usize, temp: *mut c_void| {
                        // SAFETY: live handle and descriptors; alpha and beta are
                        // host scalars of T (host pointer mode); `temp` holds `size` bytes.
                        unsafe {
                            hip_sys::rocsparse_spmv_staged(
                                api,
                                handle.raw,
                                op.raw(),
                                (&alpha as *const T).cast(),
                                a.descr,
                                x_descr,
                                (&beta as *const T).cast(),
                                y_descr,
                                T::DATATYPE,
                                rocsparse_spmv_alg::rocsparse_spmv_alg_default,
                                stage,
                                size,
                                temp,
                            )
                        }
                    };
                    let mut size = 0usize;
                    check(
                        call(rocsparse_spmv_stage::rocsparse_spmv_stage_buffer_size, &mut size, std::ptr::null_mut()),
                        "rocsparse_spmv (buffer size)",
                    )?;
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
                            check(
                                call(rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, &mut size, kept.as_ptr()),
                                "rocsparse_spmv (preprocess)",
                            )?;
                            Ok(kept)
                        },
                        || {
                            let temp = hip_pool::alloc_on(device, bytes, &stream)?;
                            let mut size = size;
                            check(
                                call(rocsparse_spmv_stage::rocsparse_spmv_stage_compute, &mut size, temp.as_ptr()),
                                "rocsparse_spmv (compute)",
                            )
                        },
                    )
                });
                for descr in [x_descr, y_descr] {
                    if !descr.is_null() {
                        // SAFETY: made above, destroyed once.
                        let _ = unsafe { (api.rocsparse_destroy_dnvec_descr)(descr) };
                    }
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
/// `C` (`A.rows()` × `n`), both in `order`, on `C`'s stream.
///
/// Each call runs rocSPARSE's buffer size, preprocess and compute stages
/// with one buffer: SpMM's preprocess depends on `B` and `C`.
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
    let result = with_uses(&stream, &operands, || {
        with_handle::<SparseHandle, _>(&HANDLES, device, &stream, |handle| {
            run_on(device, || -> Result<()> {
                let mut b_descr: rocsparse_dnmat_descr = std::ptr::null_mut();
                let mut c_descr: rocsparse_dnmat_descr = std::ptr::null_mut();
                // SAFETY: B and C are device matrices of the checked sizes.
                let made = check(
                    unsafe {
                        (api.rocsparse_create_dnmat_descr)(
                            &mut b_descr,
                            k as i64,
                            n as i64,
                            ld_b as i64,
                            b_ptr,
                            T::DATATYPE,
                            raw_order,
                        )
                    },
                    "rocsparse_create_dnmat_descr",
                )
                .and_then(|()| {
                    check(
                        // SAFETY: as above.
                        unsafe {
                            (api.rocsparse_create_dnmat_descr)(
                                &mut c_descr,
                                m as i64,
                                n as i64,
                                ld_c as i64,
                                c_ptr,
                                T::DATATYPE,
                                raw_order,
                            )
                        },
                        "rocsparse_create_dnmat_descr",
                    )
                });
                let result = made.and_then(|()| {
                    let call = |stage: rocsparse_spmm_stage, size: &mut usize, temp: *mut c_void| {
                        // SAFETY: live handle and descriptors; host scalars; `temp` holds `size` bytes.
                        unsafe {
                            (api.rocsparse_spmm)(
                                handle.raw,
                                rocsparse_operation::rocsparse_operation_none,
                                rocsparse_operation::rocsparse_operation_none,
                                (&alpha as *const T).cast(),
                                a.descr,
                                b_descr,
                                (&beta as *const T).cast(),
                                c_descr,
                                T::DATATYPE,
                                rocsparse_spmm_alg::rocsparse_spmm_alg_default,
                                stage,
                                size,
                                temp,
                            )
                        }
                    };
                    let mut size = 0usize;
                    check(
                        call(rocsparse_spmm_stage::rocsparse_spmm_stage_buffer_size, &mut size, std::ptr::null_mut()),
                        "rocsparse_spmm (buffer size)",
                    )?;
                    // SpMM's preprocess depends on B and C (the merge algorithm
                    // writes its analysis into the buffer, sized by C's
                    // columns), so it runs on every call, and compute gets the
                    // same buffer.
                    let temp = hip_pool::alloc_on(device, size.max(4), &stream)?;
                    let mut pre_size = size;
                    a.analysis.spmm(
                        || {
                            check(
                                call(
                                    rocsparse_spmm_stage::rocsparse_spmm_stage_preprocess,
                                    &mut pre_size,
                                    temp.as_ptr(),
                                ),
                                "rocsparse_spmm (preprocess)",
                            )
                        },
                        || {
                            let mut size = size;
                            check(
                                call(rocsparse_spmm_stage::rocsparse_spmm_stage_compute, &mut size, temp.as_ptr()),
                                "rocsparse_spmm (compute)",
                            )
                        },
                    )
                });
                for descr in [b_descr, c_descr] {
                    if !descr.is_null() {
                        // SAFETY: made above, destroyed once.
                        let _ = unsafe { (api.rocsparse_destroy_dnmat_descr)(descr) };
                    }
                }
                result
            })?
        })
    });
    // Also when the product failed: part of it may be queued.
    let recorded = a.record_use(&stream);
    result.and(recorded)
}
