//! The simulator's rocSOLVER through its C table: a strided batch's
//! count is a size, an empty batch reads no `info`, and a batch whose
//! written problems overlap is refused, where a GPU would compute them in
//! parallel into the same memory. Every test holds `sim::exclusive()`.

mod common;
use common::libs::*;
use hip_sys::rocblas::{rocblas_handle, rocblas_status};
use hip_sys::sim;
use std::ptr::null_mut;

fn blas_handle() -> rocblas_handle {
    let mut handle = null_mut();
    // SAFETY: a valid out-pointer.
    let status = unsafe { (sim::rocblas_api().rocblas_create_handle)(&mut handle) };
    assert_eq!(status, rocblas_status::rocblas_status_success);
    handle
}

fn destroy(handle: rocblas_handle) {
    // SAFETY: a live handle, destroyed once.
    assert_eq!(unsafe { (sim::rocblas_api().rocblas_destroy_handle)(handle) }, rocblas_status::rocblas_status_success);
}

#[test]
fn strided_batches_check_their_count_and_refuse_overlapping_outputs() {
    let _g = start();
    let api = sim::rocsolver_api();
    let handle = blas_handle();
    // Three 2×2 problems, packed: [[2, 1], [1, 2]] in each.
    let a = upload(&[2.0f64, 1.0, 1.0, 2.0].repeat(3));
    let ipiv = upload(&[0i32; 6]);
    let info = upload(&[-1i32; 3]);
    let (a, ipiv_i, info_i) = (a.cast::<f64>(), ipiv.cast::<i32>(), info.cast::<i32>());
    // SAFETY: simulator device memory of the sizes each call reads, or
    // pointers the simulator checks and refuses.
    unsafe {
        let getrf = api.rocsolver_dgetrf_strided_batched;
        assert_eq!(getrf(handle, 2, 2, a, 2, 4, ipiv_i, 2, info_i, -1), rocblas_status::rocblas_status_invalid_size);
        assert_eq!(getrf(handle, 2, 2, a, 2, 4, ipiv_i, 2, null_mut(), 0), rocblas_status::rocblas_status_success);
        assert_eq!(
            getrf(handle, 2, 2, a, 2, 4, ipiv_i, 2, null_mut(), 3),
            rocblas_status::rocblas_status_invalid_pointer
        );
        // Problems 2 elements apart overlap: refused, nothing written.
        assert_eq!(getrf(handle, 2, 2, a, 2, 2, ipiv_i, 2, info_i, 3), rocblas_status::rocblas_status_invalid_size);
        assert_eq!(getrf(handle, 2, 2, a, 2, 4, ipiv_i, 1, info_i, 3), rocblas_status::rocblas_status_invalid_size);
        assert_eq!(getrf(handle, 2, 2, a, 2, -4, ipiv_i, 2, info_i, 3), rocblas_status::rocblas_status_invalid_size);
        // A batch past the memory's end is the pointer error.
        assert_eq!(getrf(handle, 2, 2, a, 2, 4, ipiv_i, 2, info_i, 4), rocblas_status::rocblas_status_invalid_pointer);
        sync();
        assert_eq!(download::<i32>(info.cast_const(), 3), vec![-1; 3], "no refused call wrote info");
        assert_eq!(getrf(handle, 2, 2, a, 2, 4, ipiv_i, 2, info_i, 3), rocblas_status::rocblas_status_success);
        // A solve may read one factorization for every right-hand side.
        let b = upload(&[3.0f64, 3.0, 6.0, 6.0]);
        let getrs = api.rocsolver_dgetrs_strided_batched;
        let none = hip_sys::rocblas::rocblas_operation::rocblas_operation_none;
        let status = getrs(handle, none, 2, 1, a, 2, 0, ipiv_i.cast_const(), 0, b.cast(), 2, 2, 2);
        assert_eq!(status, rocblas_status::rocblas_status_success);
        sync();
        assert_eq!(download::<i32>(info.cast_const(), 3), vec![0; 3]);
        let x = download::<f64>(b.cast_const(), 4);
        for (got, want) in x.iter().zip([1.0, 1.0, 2.0, 2.0]) {
            assert!((got - want).abs() < 1e-12, "{x:?}");
        }
        free(b);
    }
    for p in [a.cast(), ipiv, info] {
        free(p);
    }
    destroy(handle);
    finish();
}

#[test]
fn a_strided_eigensolver_batch_checks_its_count_and_each_operands_stride() {
    let _g = start();
    let api = sim::rocsolver_api();
    let handle = blas_handle();
    // Two 2×2 problems, 5 elements apart: [[2, 1], [1, 2]] (1 and 3) and
    // [[4, 0], [0, 1]] (1 and 4), with 9 between them.
    let a = upload(&[2.0f64, 1.0, 1.0, 2.0, 9.0, 4.0, 0.0, 0.0, 1.0]);
    let d = upload(&[0.0f64; 4]);
    let e = upload(&[0.0f64; 4]);
    let info = upload(&[-1i32; 2]);
    let (a_, d_, e_, info_) = (a.cast::<f64>(), d.cast::<f64>(), e.cast::<f64>(), info.cast::<i32>());
    let (none, lower) =
        (hip_sys::rocsolver::rocblas_evect::rocblas_evect_none, hip_sys::rocsolver::rocblas_fill::rocblas_fill_lower);
    let syevd = api.rocsolver_dsyevd_strided_batched;
    // SAFETY: simulator device memory of the sizes each call reads, or
    // pointers the simulator checks and refuses.
    unsafe {
        let status = |count, stride_a, stride_d, info| {
            syevd(handle, none, lower, 2, a_, 2, stride_a, d_, stride_d, e_, 2, info, count)
        };
        assert_eq!(status(-1, 5, 2, info_), rocblas_status::rocblas_status_invalid_size);
        assert_eq!(status(0, 5, 2, null_mut()), rocblas_status::rocblas_status_success, "no problem, no info");
        assert_eq!(status(2, 5, 2, null_mut()), rocblas_status::rocblas_status_invalid_pointer);
        // Eigenvalues 1 apart would be written over each other in parallel.
        assert_eq!(status(2, 5, 1, info_), rocblas_status::rocblas_status_invalid_size);
        assert_eq!(status(2, 3, 2, info_), rocblas_status::rocblas_status_invalid_size, "A's problems overlap");
        // Three problems run past A's memory.
        assert_eq!(status(3, 5, 2, info_), rocblas_status::rocblas_status_invalid_pointer);
        sync();
        assert_eq!(download::<i32>(info.cast_const(), 2), vec![-1; 2], "no refused call wrote info");
        assert_eq!(status(2, 5, 2, info_), rocblas_status::rocblas_status_success);
        sync();
        assert_eq!(download::<i32>(info.cast_const(), 2), vec![0; 2]);
        let values = download::<f64>(d.cast_const(), 4);
        for (got, want) in values.iter().zip([1.0, 3.0, 1.0, 4.0]) {
            assert!((got - want).abs() < 1e-12, "{values:?}");
        }
        assert_eq!(download::<f64>(a.cast_const(), 9)[4], 9.0, "the element between the problems is kept");
    }
    for p in [a, d, e, info] {
        free(p);
    }
    destroy(handle);
    finish();
}

#[test]
fn a_strided_svd_batch_checks_its_count_and_each_operands_stride() {
    let _g = start();
    let api = sim::rocsolver_api();
    let handle = blas_handle();
    // Two 2×2 problems, packed: diag(3, 4) has σ = (4, 3); [[0, 2], [0, 0]] has σ = (2, 0).
    let a = upload(&[3.0f64, 0.0, 0.0, 4.0, 0.0, 0.0, 2.0, 0.0]);
    let s = upload(&[0.0f64; 4]);
    let u = upload(&[0.0f64; 8]);
    let e = upload(&[0.0f64; 2]);
    let info = upload(&[-1i32; 2]);
    let (a_, s_, u_, e_, info_) =
        (a.cast::<f64>(), s.cast::<f64>(), u.cast::<f64>(), e.cast::<f64>(), info.cast::<i32>());
    let (singular, none) = (
        hip_sys::rocsolver::rocblas_svect::rocblas_svect_singular,
        hip_sys::rocsolver::rocblas_svect::rocblas_svect_none,
    );
    let fast = hip_sys::rocsolver::rocblas_workmode::rocblas_outofplace;
    let gesvd = api.rocsolver_dgesvd_strided_batched;
    // SAFETY: simulator device memory of the sizes each call reads, or
    // pointers the simulator checks and refuses.
    unsafe {
        let status = |count, stride_s, stride_u, info| {
            gesvd(
                handle,
                singular,
                none,
                2,
                2,
                a_,
                2,
                4,
                s_,
                stride_s,
                u_,
                2,
                stride_u,
                null_mut(),
                1,
                0,
                e_,
                1,
                fast,
                info,
                count,
            )
        };
        assert_eq!(status(-1, 2, 4, info_), rocblas_status::rocblas_status_invalid_size);
        assert_eq!(status(0, 2, 4, null_mut()), rocblas_status::rocblas_status_success, "no problem, no info");
        assert_eq!(status(2, 2, 4, null_mut()), rocblas_status::rocblas_status_invalid_pointer);
        assert_eq!(status(2, 1, 4, info_), rocblas_status::rocblas_status_invalid_size, "S's problems overlap");
        assert_eq!(status(2, 2, 3, info_), rocblas_status::rocblas_status_invalid_size, "U's problems overlap");
        assert_eq!(status(3, 2, 4, info_), rocblas_status::rocblas_status_invalid_pointer, "past A's end");
        sync();
        assert_eq!(download::<i32>(info.cast_const(), 2), vec![-1; 2], "no refused call wrote info");
        assert_eq!(status(2, 2, 4, info_), rocblas_status::rocblas_status_success);
        sync();
        assert_eq!(download::<i32>(info.cast_const(), 2), vec![0; 2]);
        let sigma = download::<f64>(s.cast_const(), 4);
        for (got, want) in sigma.iter().zip([4.0, 3.0, 2.0, 0.0]) {
            assert!((got - want).abs() < 1e-12, "{sigma:?}");
        }
    }
    for p in [a, s, u, e, info] {
        free(p);
    }
    destroy(handle);
    finish();
}
