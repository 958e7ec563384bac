//! rocSOLVER's workspace comes from the rocBLAS handle: with a handle
//! workspace far smaller than a factorization needs (64 KiB here, set for
//! this whole binary before any handle exists), rocSOLVER itself answers
//! `memory_error`, and the solver wrappers still succeed, because they ask
//! with a device memory size query and grow the handle's workspace from
//! the pool first; inside a capture the capture's own workspace is as
//! large as the call needs, and the handle keeps its own; growing it for
//! a stream outside the capture while the thread captures is refused with
//! an error that says what to do.

use amdgpu::libs::{LibError, Library};
use amdgpu::prelude::*;
use amdgpu::runtime::{CaptureMode, HipError};
use amdgpu::solver::{self, Pivots, Shape};
use hip_sys::sim;

mod common;
use common::{have, noise, on_thread};

/// The order of the f64 LU: 256 on the simulator (rocSOLVER 3.21 asks
/// 790,784 bytes for it), 2048 on a GPU (cuSOLVER's need grows with the
/// order); the test first checks, with a size query, that it is more
/// than the handle's 64 KiB.
fn order() -> usize {
    if common::on_sim() {
        256
    } else {
        2048
    }
}

fn matrix(n: usize) -> Vec<f64> {
    let mut a = noise(n * n, 3);
    for i in 0..n {
        a[i + i * n] += n as f64;
    }
    a
}

#[test]
fn a_small_handle_workspace_grows_for_the_solver_outside_captures_only() {
    // One test in this binary: the variable is read once, when the first
    // rocBLAS handle is made, and set here before any.
    std::env::set_var("AMDGPU_BLAS_WORKSPACE", "64KiB");
    let _x = sim::exclusive();
    if !have(Library::Rocsolver) {
        return;
    }
    on_thread("too-small", || {
        use hip_sys::rocblas::rocblas_status;
        let (stream, n) = (Stream::new().unwrap(), order());
        let mut a = DeviceArray::from_slice_on(&stream, &matrix(n)).unwrap();
        let mut ipiv = DeviceArray::<i32>::zeros_on(&stream, n).unwrap();
        let mut info = DeviceArray::<i32>::zeros_on(&stream, 1).unwrap();
        let (a_ptr, ipiv_ptr, info_ptr) = (a.as_mut_ptr(), ipiv.as_mut_ptr(), info.as_mut_ptr());
        let (solver_api, blas_api) = (hip_sys::rocsolver().unwrap(), hip_sys::rocblas().unwrap());
        let ni = n as i32;
        let getrf = |handle| {
            // SAFETY: a live handle of the stream's device, bound to it; A,
            // the pivots and info are device memory of the sizes given.
            unsafe { (solver_api.rocsolver_dgetrf)(handle, ni, ni, a_ptr, ni, ipiv_ptr, info_ptr) }
        };
        // What the LU needs, by rocBLAS's size query.
        let (sized, need) = amdgpu::blas::with_raw_handle(stream.device(), &stream, |handle| {
            let mut need = 0usize;
            // SAFETY: a live handle; the query is stopped below.
            let started = unsafe { (blas_api.rocblas_start_device_memory_size_query)(handle) };
            assert_eq!(started, rocblas_status::rocblas_status_success);
            let sized = getrf(handle);
            // SAFETY: a live handle with a query underway; a valid out-pointer.
            let stopped = unsafe { (blas_api.rocblas_stop_device_memory_size_query)(handle, &mut need) };
            assert_eq!(stopped, rocblas_status::rocblas_status_success);
            (sized, need)
        })
        .unwrap();
        assert_eq!(sized, rocblas_status::rocblas_status_size_increased, "the query collects, nothing runs");
        assert!(need > 64 << 10, "the LU of order {n} needs {need} bytes: more than the handle's 64 KiB");
        // rocSOLVER on this thread's handle as it is: too small.
        let status = amdgpu::blas::with_raw_handle(stream.device(), &stream, getrf).unwrap();
        assert_eq!(status, rocblas_status::rocblas_status_memory_error, "the workspace is too small");
        stream.synchronize().unwrap();

        // Inside a capture, the capture's own workspace is as large as the
        // call needs: the LU captures before any eager call grew the
        // handle's, and the handle keeps its own 64 KiB.
        let mut pivots = Pivots::new(n, &stream).unwrap();
        a.copy_from_slice(&matrix(n)).unwrap();
        let (graph, info) = stream
            .capture(CaptureMode::ThreadLocal, |_| solver::getrf(&Shape::square(n), &mut a, &mut pivots))
            .unwrap();
        let status = amdgpu::blas::with_raw_handle(stream.device(), &stream, getrf).unwrap();
        assert_eq!(status, rocblas_status::rocblas_status_memory_error, "the handle's own is as it was");
        stream.synchronize().unwrap();

        // Outside, it grows, and the factorization runs.
        a.copy_from_slice(&matrix(n)).unwrap();
        solver::getrf(&Shape::square(n), &mut a, &mut pivots).unwrap().check().unwrap();
        let eager = a.to_vec().unwrap();

        // The replay factors alike.
        a.copy_from_slice(&matrix(n)).unwrap();
        graph.instantiate().unwrap().launch(&stream).unwrap();
        info.check().unwrap();
        assert_eq!(a.to_vec().unwrap(), eager, "the replay computes what the eager call did");
    });
    // Growing a handle's workspace for a stream outside the capture while
    // the thread captures is refused: it is no part of the capture, and
    // growing allocates. (A fresh thread with a new handle, of 64 KiB
    // again; one small call first makes what the backend makes at a
    // handle's first solver call.)
    amdgpu::blas::clear_idle_handles();
    on_thread("outside", || {
        let (stream, other, n) = (Stream::new().unwrap(), Stream::new().unwrap(), order());
        let mut small = DeviceArray::from_slice_on(&other, &matrix(4)).unwrap();
        let mut small_pivots = Pivots::new(4, &other).unwrap();
        solver::getrf(&Shape::square(4), &mut small, &mut small_pivots).unwrap().check().unwrap();
        let mut b = DeviceArray::from_slice_on(&other, &matrix(n)).unwrap();
        let mut pivots = Pivots::new(n, &other).unwrap();
        let refused = stream
            .capture(CaptureMode::ThreadLocal, |_| solver::getrf(&Shape::square(n), &mut b, &mut pivots).map(drop));
        let error = refused.expect_err("growing the workspace allocates");
        assert!(matches!(error, LibError::Hip(HipError::CaptureUnderway { operation: "getrf", .. })), "{error:?}");
        assert!(error.to_string().contains("make the same call once before capturing"), "{error}");
    });
}
