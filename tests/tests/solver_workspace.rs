//! rocSOLVER's workspace comes from the rocBLAS handle: with a handle
//! workspace far smaller than a factorization needs (64 KiB here, set for
//! this whole binary before any handle exists), rocSOLVER itself answers
//! `memory_error`, and the solver wrappers still succeed, because they ask
//! with a device memory size query and grow the handle's workspace from
//! the pool first; inside a capture that growth is refused with an error
//! that says what to do, and once grown the same call captures.

use amdgpu::libs::{LibError, Library};
use amdgpu::prelude::*;
use amdgpu::runtime::{CaptureMode, HipError};
use amdgpu::solver::{self, Pivots, Shape};
use hip_sys::sim;

mod common;
use common::{have, noise, on_thread};

/// A 256 × 256 f64 LU: rocSOLVER 3.21 asks 790,784 bytes for it (the
/// simulator models that; cuSOLVER's own need is of the same order).
const N: usize = 256;

fn matrix() -> Vec<f64> {
    let mut a = noise(N * N, 3);
    for i in 0..N {
        a[i + i * N] += N as f64;
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
        let stream = Stream::new().unwrap();
        let mut a = DeviceArray::from_slice_on(&stream, &matrix()).unwrap();
        let mut ipiv = DeviceArray::<i32>::zeros_on(&stream, N).unwrap();
        let mut info = DeviceArray::<i32>::zeros_on(&stream, 1).unwrap();
        let (a_ptr, ipiv_ptr, info_ptr) = (a.as_mut_ptr(), ipiv.as_mut_ptr(), info.as_mut_ptr());
        let api = hip_sys::rocsolver().unwrap();
        // rocSOLVER on this thread's handle, as it is: 64 KiB.
        let status = amdgpu::blas::with_raw_handle(stream.device(), &stream, |handle| {
            // SAFETY: a live handle of the stream's device, bound to it;
            // A, the pivots and info are device memory of the sizes given.
            unsafe { (api.rocsolver_dgetrf)(handle, N as i32, N as i32, a_ptr, N as i32, ipiv_ptr, info_ptr) }
        })
        .unwrap();
        assert_eq!(status, hip_sys::rocblas::rocblas_status::rocblas_status_memory_error, "the workspace is too small");
        stream.synchronize().unwrap();

        // Inside a capture, the wrapper will not grow it.
        let mut pivots = Pivots::new(N, &stream).unwrap();
        let refused =
            stream.capture(CaptureMode::ThreadLocal, |_| solver::getrf(&Shape::square(N), &mut a, &mut pivots));
        let error = refused.expect_err("growing the workspace allocates");
        assert!(matches!(error, LibError::Hip(HipError::CaptureUnderway { operation: "getrf", .. })), "{error:?}");
        assert!(error.to_string().contains("make the same call once before capturing"), "{error}");

        // Outside, it grows, and the factorization runs.
        a.copy_from_slice(&matrix()).unwrap();
        solver::getrf(&Shape::square(N), &mut a, &mut pivots).unwrap().check().unwrap();
        let eager = a.to_vec().unwrap();

        // Now the same call captures, and its replay factors alike.
        a.copy_from_slice(&matrix()).unwrap();
        let (graph, info) = stream
            .capture(CaptureMode::ThreadLocal, |_| solver::getrf(&Shape::square(N), &mut a, &mut pivots))
            .unwrap();
        graph.instantiate().unwrap().launch(&stream).unwrap();
        info.check().unwrap();
        assert_eq!(a.to_vec().unwrap(), eager, "the replay computes what the eager call did");
    });
}
