//! The simulator's rocSOLVER pointer-array batches (`_batched`) through
//! its C table: the problems' addresses are read from the device array
//! when the computation runs, as rocSOLVER's kernels read them (so an
//! array filled by a copy queued just before the call serves); their
//! memory is checked for races then, with the ordering of the call; a
//! null address or two written problems sharing memory fault the stream.
//! Every test holds `sim::exclusive()`.

mod common;
use common::libs::*;
use common::{event, ok};
use hip_sys::bindings::hip::{hipError_t, hipMemcpyKind, hipStream_t};
use hip_sys::rocblas::{rocblas_handle, rocblas_status};
use hip_sys::sim::{self, ViolationKind};
use std::ffi::c_void;
use std::ptr::null_mut;

const OK: rocblas_status = rocblas_status::rocblas_status_success;

fn stream() -> hipStream_t {
    let mut s = null_mut();
    ok!((hip().hipStreamCreateWithFlags)(&mut s, hip_sys::bindings::hip::hipStreamNonBlocking));
    s
}

/// A rocBLAS handle bound to `s`.
fn blas_handle(s: hipStream_t) -> rocblas_handle {
    let blas = sim::rocblas_api();
    let mut handle = null_mut();
    // SAFETY: a valid out-pointer, then a live handle and stream.
    unsafe {
        assert_eq!((blas.rocblas_create_handle)(&mut handle), OK);
        assert_eq!((blas.rocblas_set_stream)(handle, s), OK);
    }
    handle
}

fn destroy(handle: rocblas_handle, streams: &[hipStream_t]) {
    // SAFETY: a live handle, destroyed once.
    assert_eq!(unsafe { (sim::rocblas_api().rocblas_destroy_handle)(handle) }, OK);
    for &s in streams {
        ok!((hip().hipStreamDestroy)(s));
    }
}

/// `[[2, 1], [1, 2]]` scaled by `k`, column-major.
fn matrix(k: f64) -> *mut c_void {
    upload(&[2.0 * k, k, k, 2.0 * k])
}

/// A device array of the addresses `matrices`, written synchronously.
fn addresses(matrices: &[*mut c_void]) -> *mut c_void {
    let values: Vec<u64> = matrices.iter().map(|&p| p as u64).collect();
    let array = common::malloc(8 * values.len());
    ok!((hip().hipMemcpy)(array, values.as_ptr().cast(), 8 * values.len(), hipMemcpyKind::hipMemcpyHostToDevice));
    array
}

/// `dgetrf_batched` of the 2×2 problems whose addresses `array` holds.
fn getrf(
    handle: rocblas_handle,
    array: *mut c_void,
    ipiv: *mut c_void,
    info: *mut c_void,
    count: i32,
) -> rocblas_status {
    // SAFETY: simulator memory of the sizes the call reads, or pointers
    // the simulator checks.
    unsafe {
        (sim::rocsolver_api().rocsolver_dgetrf_batched)(
            handle,
            2,
            2,
            array.cast_const().cast(),
            2,
            ipiv.cast(),
            2,
            info.cast(),
            count,
        )
    }
}

#[test]
fn the_addresses_are_read_when_the_factorization_runs() {
    let _g = start();
    let s = stream();
    let handle = blas_handle(s);
    let (a0, a1) = (matrix(1.0), matrix(3.0));
    // The array holds nulls at the call; a copy queued before it on the
    // same stream writes the addresses, in reverse order.
    let array = addresses(&[null_mut(), null_mut()]);
    let (ipiv, info) = (upload(&[0i32; 4]), upload(&[-1i32; 2]));
    let hold = sim::hold_stream(s).unwrap();
    let wanted = [a1 as u64, a0 as u64];
    ok!((hip().hipMemcpyAsync)(array, wanted.as_ptr().cast(), 16, hipMemcpyKind::hipMemcpyHostToDevice, s));
    assert_eq!(getrf(handle, array, ipiv, info, 2), OK);
    hold.release();
    sync();
    assert_eq!(download::<i32>(info, 2), vec![0, 0]);
    // LU of [[2k, k], [k, 2k]] without swaps: U = [[2k, k], [0, 1.5k]], l = 0.5.
    assert_close(&download::<f64>(a1, 4), &[6.0, 0.5, 3.0, 4.5], "problem 0, at a1");
    assert_close(&download::<f64>(a0, 4), &[2.0, 0.5, 1.0, 1.5], "problem 1, at a0");
    assert_eq!(download::<i32>(ipiv, 4), vec![1, 2, 1, 2]);
    for p in [a0, a1, array, ipiv, info] {
        free(p);
    }
    destroy(handle, &[s]);
    finish();
}

#[test]
fn the_problems_memory_is_checked_for_races_with_the_calls_ordering() {
    let _g = start();
    let (s1, s2) = (stream(), stream());
    let handle = blas_handle(s1);
    let (a0, a1) = (matrix(1.0), matrix(2.0));
    let array = addresses(&[a0, a1]);
    let (ipiv, info) = (upload(&[0i32; 4]), upload(&[0i32; 2]));
    // Ordered: the fill on s2 waits for an event recorded after the
    // factorization. It is enqueued (and checked) while the factorization
    // has not run, so its record precedes the factorization's check.
    let hold = sim::hold_stream(s1).unwrap();
    assert_eq!(getrf(handle, array, ipiv, info, 2), OK);
    let done = event();
    ok!((hip().hipEventRecord)(done, s1));
    ok!((hip().hipStreamWaitEvent)(s2, done, 0));
    ok!((hip().hipMemsetAsync)(a1, 0, 32, s2));
    hold.release();
    sync();
    assert_eq!(common_races(), 0, "an ordered fill is no race");
    // Unordered: the same fill, with no event, races with problem 1.
    {
        let _expected = sim::expect_races();
        let hold = sim::hold_stream(s1).unwrap();
        assert_eq!(getrf(handle, array, ipiv, info, 2), OK);
        ok!((hip().hipMemsetAsync)(a1, 0, 32, s2));
        hold.release();
        sync();
    }
    let races: Vec<_> = sim::violations().into_iter().filter(|v| v.kind == ViolationKind::StreamRace).collect();
    assert_eq!(races.len(), 1, "{races:?}");
    let race = races[0].race.as_ref().unwrap();
    let functions = [race.first.function, race.second.function];
    assert!(functions.contains(&"rocsolver_dgetrf_batched"), "{race}");
    assert!(functions.contains(&"hipMemsetAsync"), "{race}");
    assert_eq!(race.address, a1 as usize, "{race}");
    // Problem 0 was not touched: it is not named.
    sim::clear_violations();
    ok!((hip().hipEventDestroy)(done));
    for p in [a0, a1, array, ipiv, info] {
        free(p);
    }
    destroy(handle, &[s1, s2]);
    finish();
}

fn common_races() -> usize {
    sim::violations().iter().filter(|v| v.kind == ViolationKind::StreamRace).count()
}

#[test]
fn a_null_address_or_two_written_problems_in_one_matrix_fault_the_stream() {
    let _g = start();
    let s = stream();
    let handle = blas_handle(s);
    let a0 = matrix(1.0);
    let (ipiv, info) = (upload(&[0i32; 4]), upload(&[-1i32; 2]));
    // The call checks the array (device memory of `count` pointers), not
    // what it holds.
    assert_eq!(getrf(handle, null_mut(), ipiv, info, 2), rocblas_status::rocblas_status_invalid_pointer);
    let short = addresses(&[a0]);
    assert_eq!(getrf(handle, short, ipiv, info, 2), rocblas_status::rocblas_status_invalid_pointer);
    for (holds, what) in [([a0, null_mut()], "a null address"), ([a0, a0], "one matrix twice")] {
        let array = addresses(&holds);
        assert_eq!(getrf(handle, array, ipiv, info, 2), OK, "{what}: the call itself succeeds");
        // SAFETY: a plain call.
        let status = unsafe { (hip().hipStreamSynchronize)(s) };
        assert_ne!(status, hipError_t::hipSuccess, "{what}: the stream faults");
        sim::reset_faults();
        assert_eq!(download::<i32>(info, 2), vec![-1, -1], "{what}: nothing written");
        free(array);
    }
    // Reading one factorization for every right-hand side shares A's
    // memory, which only a written operand may not.
    let factors = addresses(&[a0, a0]);
    assert_eq!(getrf(handle, short, ipiv, info, 1), OK);
    let (b0, b1) = (upload(&[3.0f64, 3.0]), upload(&[6.0f64, 6.0]));
    let rhs = addresses(&[b0, b1]);
    let none = hip_sys::rocblas::rocblas_operation::rocblas_operation_none;
    // SAFETY: simulator memory of the sizes the call reads.
    let status = unsafe {
        (sim::rocsolver_api().rocsolver_dgetrs_batched)(
            handle,
            none,
            2,
            1,
            factors.cast_const().cast(),
            2,
            ipiv.cast_const().cast(),
            0,
            rhs.cast_const().cast(),
            2,
            2,
        )
    };
    assert_eq!(status, OK);
    sync();
    assert_close(&download::<f64>(b0, 2), &[1.0, 1.0], "B 0");
    assert_close(&download::<f64>(b1, 2), &[2.0, 2.0], "B 1");
    for p in [a0, short, factors, rhs, b0, b1, ipiv, info] {
        free(p);
    }
    destroy(handle, &[s]);
    finish();
}

/// rocSOLVER 3.21's size queries: a pointer-array batch asks for what the
/// strided batch asks, plus rocBLAS's two pointer arrays wherever its
/// trsm allocates (and, for a real solve of order 33 to 40 against 65 to
/// 128 columns, rocBLAS's whole trsm, which the strided batch's
/// non-batched table leaves to substitution), QR's larft array, and the
/// eigensolver's and the SVD's `workArr` (the SVD's work at least larf's
/// or labrd's pointers).
#[test]
fn size_queries_add_the_pointer_arrays_rocsolver_asks_for() {
    let _g = start();
    let handle = blas_handle(null_mut());
    let blas = sim::rocblas_api();
    let size = |call: &dyn Fn() -> rocblas_status| -> usize {
        let mut bytes = 0;
        // SAFETY: a live handle and valid out-pointers; a size query
        // reads no memory.
        unsafe {
            assert_eq!((blas.rocblas_start_device_memory_size_query)(handle), OK);
            let status = call();
            let answers =
                [rocblas_status::rocblas_status_size_increased, rocblas_status::rocblas_status_size_unchanged];
            assert!(answers.contains(&status), "{status:?}");
            assert_eq!((blas.rocblas_stop_device_memory_size_query)(handle, &mut bytes), OK);
        }
        bytes
    };
    let api = sim::rocsolver_api();
    let (p, none) = (null_mut::<f64>(), hip_sys::rocblas::rocblas_operation::rocblas_operation_none);
    let lower = hip_sys::rocsolver::rocblas_fill::rocblas_fill_lower;
    let arrays = null_mut::<*mut f64>().cast_const();
    let getrf = |n: i32, count: i32| {
        let strided = size(&|| {
            // SAFETY: a size query reads no memory.
            unsafe {
                (api.rocsolver_dgetrf_strided_batched)(handle, n, n, p, n, 0, null_mut(), n.into(), null_mut(), count)
            }
        });
        let pointers = size(&|| {
            // SAFETY: as above.
            unsafe { (api.rocsolver_dgetrf_batched)(handle, n, n, arrays, n, null_mut(), n.into(), null_mut(), count) }
        });
        (strided, pointers)
    };
    assert_eq!(getrf(100, 10), (4352, 4352), "getrf 100² ×10: substitution, no arrays");
    assert_eq!(getrf(1024, 3), (14_195_968, 14_196_096), "getrf 1024² ×3");
    let getrs = |n: i32, nrhs: i32, count: i32| {
        let strided = size(&|| {
            // SAFETY: a size query reads no memory.
            unsafe {
                (api.rocsolver_dgetrs_strided_batched)(
                    handle,
                    none,
                    n,
                    nrhs,
                    p,
                    n,
                    0,
                    null_mut(),
                    n.into(),
                    p,
                    n,
                    0,
                    count,
                )
            }
        });
        let pointers = size(&|| {
            // SAFETY: as above.
            unsafe {
                (api.rocsolver_dgetrs_batched)(handle, none, n, nrhs, arrays, n, null_mut(), n.into(), arrays, n, count)
            }
        });
        (strided, pointers)
    };
    assert_eq!(getrs(600, 700, 3), (0, 0), "rocSOLVER's own trsm");
    assert_eq!(getrs(600, 1000, 3), (16_243_200, 16_243_328));
    assert_eq!(getrs(40, 100, 3), (0, 219_008), "rocBLAS's batched table has no substitution there");
    assert_eq!(getrs(1024, 1024, 3), (6_291_456, 6_291_584), "the special kernel");
    let potrs = |n: i32, nrhs: i32, count: i32| {
        let strided = size(&|| {
            // SAFETY: a size query reads no memory.
            unsafe { (api.rocsolver_dpotrs_strided_batched)(handle, lower, n, nrhs, p, n, 0, p, n, 0, count) }
        });
        let pointers = size(&|| {
            // SAFETY: as above.
            unsafe { (api.rocsolver_dpotrs_batched)(handle, lower, n, nrhs, arrays, n, arrays, n, count) }
        });
        (strided, pointers)
    };
    assert_eq!(potrs(40, 100, 3), (0, 219_008));
    let geqrf = |m: i32, n: i32, count: i32| {
        let strided = size(&|| {
            // SAFETY: a size query reads no memory.
            unsafe { (api.rocsolver_dgeqrf_strided_batched)(handle, m, n, p, m, 0, p, m.min(n).into(), count) }
        });
        let pointers = size(&|| {
            // SAFETY: as above.
            unsafe { (api.rocsolver_dgeqrf_batched)(handle, m, n, arrays, m, p, m.min(n).into(), count) }
        });
        (strided, pointers)
    };
    assert_eq!(geqrf(200, 200, 4), (411_712, 411_776), "larft's array, doubled");
    assert_eq!(geqrf(100, 100, 3), (2624, 2624));
    let sgeqrf = size(&|| {
        let arrays = null_mut::<*mut f32>().cast_const();
        // SAFETY: a size query reads no memory.
        unsafe { (api.rocsolver_sgeqrf_batched)(handle, 2, 5, arrays, 2, null_mut(), 2, 10) }
    });
    assert_eq!(sgeqrf, 512, "larf's pointer outgrows larfg's work of two floats");
    let (vectors, values_only) = (
        hip_sys::rocsolver::rocblas_evect::rocblas_evect_original,
        hip_sys::rocsolver::rocblas_evect::rocblas_evect_none,
    );
    let syevd = |n: i32, evect, count: i32| {
        let strided = size(&|| {
            // SAFETY: a size query reads no memory.
            unsafe {
                (api.rocsolver_dsyevd_strided_batched)(
                    handle,
                    evect,
                    lower,
                    n,
                    p,
                    n,
                    0,
                    p,
                    n.into(),
                    p,
                    n.into(),
                    null_mut(),
                    count,
                )
            }
        });
        let pointers = size(&|| {
            // SAFETY: as above.
            unsafe {
                (api.rocsolver_dsyevd_batched)(
                    handle,
                    evect,
                    lower,
                    n,
                    arrays,
                    n,
                    p,
                    n.into(),
                    p,
                    n.into(),
                    null_mut(),
                    count,
                )
            }
        });
        (strided, pointers)
    };
    assert_eq!(syevd(8, values_only, 3), (2624, 2688), "workArr");
    assert_eq!(syevd(8, vectors, 3), (2240, 2304));
    assert_eq!(syevd(100, values_only, 3), (247_360, 247_424));
    assert_eq!(syevd(100, vectors, 3), (975_744, 975_808));
    use hip_sys::rocsolver::{rocblas_svect as Sv, rocblas_workmode as Mode};
    let gesvd = |m: i32, n: i32, side: Sv, mode: Mode, count: i32| {
        let k = m.min(n);
        let strided = size(&|| {
            // SAFETY: a size query reads no memory.
            unsafe {
                (api.rocsolver_dgesvd_strided_batched)(
                    handle,
                    side,
                    side,
                    m,
                    n,
                    p,
                    m,
                    0,
                    p,
                    k.into(),
                    p,
                    m,
                    0,
                    p,
                    n,
                    0,
                    p,
                    k.into(),
                    mode,
                    null_mut(),
                    count,
                )
            }
        });
        let pointers = size(&|| {
            // SAFETY: as above.
            unsafe {
                (api.rocsolver_dgesvd_batched)(
                    handle,
                    side,
                    side,
                    m,
                    n,
                    arrays,
                    m,
                    p,
                    k.into(),
                    p,
                    m,
                    0,
                    p,
                    n,
                    0,
                    p,
                    k.into(),
                    mode,
                    null_mut(),
                    count,
                )
            }
        });
        (strided, pointers)
    };
    let (all, none) = (Sv::rocblas_svect_all, Sv::rocblas_svect_none);
    let (outofplace, inplace) = (Mode::rocblas_outofplace, Mode::rocblas_inplace);
    assert_eq!(gesvd(10, 6, all, outofplace, 2), (1600, 1664));
    assert_eq!(gesvd(10, 6, all, inplace, 2), (1024, 1088));
    assert_eq!(gesvd(6, 10, all, outofplace, 2), (1600, 1664), "wide as tall");
    assert_eq!(gesvd(100, 40, none, outofplace, 2), (92_352, 92_416));
    assert_eq!(gesvd(100, 40, none, inplace, 2), (2752, 2816));
    let sgesvd = |m: i32, n: i32, count: i32| {
        let (k, q) = (m.min(n), null_mut::<f32>());
        let strided = size(&|| {
            // SAFETY: a size query reads no memory.
            unsafe {
                (api.rocsolver_sgesvd_strided_batched)(
                    handle,
                    none,
                    none,
                    m,
                    n,
                    q,
                    m,
                    0,
                    q,
                    k.into(),
                    q,
                    m,
                    0,
                    q,
                    n,
                    0,
                    q,
                    k.into(),
                    outofplace,
                    null_mut(),
                    count,
                )
            }
        });
        let pointers = size(&|| {
            let arrays = null_mut::<*mut f32>().cast_const();
            // SAFETY: as above.
            unsafe {
                (api.rocsolver_sgesvd_batched)(
                    handle,
                    none,
                    none,
                    m,
                    n,
                    arrays,
                    m,
                    q,
                    k.into(),
                    q,
                    m,
                    0,
                    q,
                    n,
                    0,
                    q,
                    k.into(),
                    outofplace,
                    null_mut(),
                    count,
                )
            }
        });
        (strided, pointers)
    };
    assert_eq!(sgesvd(100, 80, 9), (422_016, 422_272), "labrd's two pointers outgrow the work");
    assert_eq!(sgesvd(2, 2, 20), (704, 1088), "larf's pointer outgrows the work");
    destroy(handle, &[]);
    finish();
}

#[test]
fn the_eigensolver_and_the_svd_take_their_problems_from_the_array() {
    let _g = start();
    let s = stream();
    let handle = blas_handle(s);
    let api = sim::rocsolver_api();
    // [[2k, k], [k, 2k]] has eigenvalues k and 3k, singular values 3k and k.
    let (a0, a1) = (matrix(1.0), matrix(2.0));
    let array = addresses(&[a1, a0]);
    let (d, e, info) = (upload(&[0.0f64; 4]), upload(&[0.0f64; 4]), upload(&[-1i32; 2]));
    let (vectors, lower) = (
        hip_sys::rocsolver::rocblas_evect::rocblas_evect_original,
        hip_sys::rocsolver::rocblas_fill::rocblas_fill_lower,
    );
    let syevd = |array: *mut c_void, count: i32| {
        // SAFETY: simulator memory of the sizes the call reads, or pointers
        // the simulator checks.
        unsafe {
            (api.rocsolver_dsyevd_batched)(
                handle,
                vectors,
                lower,
                2,
                array.cast_const().cast(),
                2,
                d.cast(),
                2,
                e.cast(),
                2,
                info.cast(),
                count,
            )
        }
    };
    assert_eq!(syevd(array, -1), rocblas_status::rocblas_status_invalid_size);
    assert_eq!(syevd(null_mut(), 2), rocblas_status::rocblas_status_invalid_pointer);
    assert_eq!(syevd(array, 2), OK);
    sync();
    assert_eq!(download::<i32>(info, 2), vec![0, 0]);
    assert_close(&download::<f64>(d, 4), &[2.0, 6.0, 1.0, 3.0], "eigenvalues, problem 0 at a1");
    // The SVD of the vectors now in a1 and a0 (orthogonal: singular values 1).
    let svd_s = upload(&[0.0f64; 4]);
    let none = hip_sys::rocsolver::rocblas_svect::rocblas_svect_none;
    let inplace = hip_sys::rocsolver::rocblas_workmode::rocblas_outofplace;
    // SAFETY: simulator memory of the sizes the call reads.
    let status = unsafe {
        (api.rocsolver_dgesvd_batched)(
            handle,
            none,
            none,
            2,
            2,
            array.cast_const().cast(),
            2,
            svd_s.cast(),
            2,
            null_mut(),
            1,
            0,
            null_mut(),
            1,
            0,
            e.cast(),
            1,
            inplace,
            info.cast(),
            2,
        )
    };
    assert_eq!(status, OK);
    sync();
    assert_close(&download::<f64>(svd_s, 4), &[1.0, 1.0, 1.0, 1.0], "singular values of orthogonal vectors");
    for p in [a0, a1, array, d, e, info, svd_s] {
        free(p);
    }
    destroy(handle, &[s]);
    finish();
}
