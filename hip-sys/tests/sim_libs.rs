//! The simulator's rocSPARSE, rocFFT and MIOpen together: objects of each
//! used under another device are violations, and the process's tables are
//! the simulator's on the sim backend. The libraries one by one are in
//! `sim_rocsparse.rs`, `sim_rocsparse_fidelity.rs`, `sim_rocfft.rs` and
//! `sim_miopen.rs`.
//! Every test holds `sim::exclusive()`: violations, memory and library
//! objects are process-wide, and each test checks it left none behind.

mod common;
use common::libs::*;
use common::rocsparse::*;
use hip_sys::miopen::*;
use hip_sys::rocfft::*;
use hip_sys::sim;
use std::ptr::null_mut;

#[test]
fn handles_and_plans_used_under_another_device_are_violations() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let handle = create_handle();
    let mut dnn = null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { (sim::miopen_api().miopenCreate)(&mut dnn) }, miopenStatus_t::miopenStatusSuccess);
    let mut plan = null_mut();
    let len = [8usize];
    // SAFETY: valid pointers.
    let status = unsafe {
        (sim::rocfft_api().rocfft_plan_create)(
            &mut plan,
            rocfft_result_placement::rocfft_placement_inplace,
            rocfft_transform_type::rocfft_transform_type_complex_forward,
            rocfft_precision::rocfft_precision_single,
            1,
            len.as_ptr(),
            1,
            null_mut(),
        )
    };
    assert_eq!(status, rocfft_status::rocfft_status_success);
    assert_eq!(sim::live_library_objects(0), 3);
    set_device(1);
    sp_ok!((sparse().rocsparse_set_stream)(handle, null_mut()));
    let mut size = 1;
    // SAFETY: valid pointers.
    unsafe {
        (sim::rocfft_api().rocfft_plan_get_work_buffer_size)(plan, &mut size);
        (sim::miopen_api().miopenSetStream)(dnn, null_mut());
    }
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    // SAFETY: live objects, destroyed once.
    unsafe {
        (sim::rocfft_api().rocfft_plan_destroy)(plan);
        (sim::miopen_api().miopenDestroy)(dnn);
    }
    let seen: Vec<(&str, usize, usize)> =
        sim::violations().iter().map(|v| (v.function, v.object_device, v.current_device)).collect();
    assert_eq!(
        seen,
        vec![
            ("rocsparse_set_stream", 0, 1),
            ("rocfft_plan_get_work_buffer_size", 0, 1),
            ("miopenSetStream", 0, 1),
            ("rocsparse_destroy_handle", 0, 1),
            ("rocfft_plan_destroy", 0, 1),
            ("miopenDestroy", 0, 1),
        ]
    );
    sim::clear_violations();
    set_device(0);
    finish();
}

#[test]
fn the_process_tables_are_the_simulators_on_the_sim_backend() {
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    if hip_sys::backend() != hip_sys::Backend::Sim {
        eprintln!("skipped: the process's backend is {}, not sim", hip_sys::backend());
        return;
    }
    assert!(std::ptr::eq(hip_sys::rocsparse().expect("sim rocSPARSE"), sim::rocsparse_api()));
    assert!(std::ptr::eq(hip_sys::rocfft().expect("sim rocFFT"), sim::rocfft_api()));
    assert!(std::ptr::eq(hip_sys::miopen().expect("sim MIOpen"), sim::miopen_api()));
    for library in hip_sys::Library::ALL {
        assert!(hip_sys::available(library), "{library}");
    }
    finish();
}

/// Each typed rocBLAS entry point serves four precisions from one generic
/// function: the violation it records names the C function called.
#[test]
fn typed_rocblas_entry_points_name_their_own_function() {
    use hip_sys::bindings::rocblas::{rocblas_operation, rocblas_status};
    if !common::devices_at_least(2) {
        return;
    }
    let _g = start();
    let blas = sim::rocblas_api();
    let mut handle = null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { (blas.rocblas_create_handle)(&mut handle) }, rocblas_status::rocblas_status_success);
    set_device(1);
    let none = rocblas_operation::rocblas_operation_none;
    let (mut f, mut d, mut c, mut z) = (0f32, 0f64, [0f32; 2], [0f64; 2]);
    let (f, d) = (&mut f as *mut f32, &mut d as *mut f64);
    let (c, z) = ((&mut c as *mut [f32; 2]).cast(), (&mut z as *mut [f64; 2]).cast());
    use std::ptr::null;
    // SAFETY: empty problems (n = 0) on a live handle; every pointer is
    // null() or a host value of the function's type.
    let statuses = unsafe {
        [
            (blas.rocblas_sgemm)(handle, none, none, 0, 0, 0, f, null(), 1, null(), 1, f, null_mut(), 1),
            (blas.rocblas_zgemm_strided_batched)(
                handle,
                none,
                none,
                0,
                0,
                0,
                z,
                null(),
                1,
                0,
                null(),
                1,
                0,
                z,
                null_mut(),
                1,
                0,
                1,
            ),
            (blas.rocblas_cgemv)(handle, none, 0, 0, c, null(), 1, null(), 1, c, null_mut(), 1),
            (blas.rocblas_daxpy)(handle, 0, d, null(), 1, null_mut(), 1),
            (blas.rocblas_zscal)(handle, 0, z, null_mut(), 1),
            (blas.rocblas_sdot)(handle, 0, null(), 1, null(), 1, f),
            (blas.rocblas_cdotu)(handle, 0, null(), 1, null(), 1, c),
            (blas.rocblas_zdotc)(handle, 0, null(), 1, null(), 1, z),
            (blas.rocblas_scnrm2)(handle, 0, null(), 1, f),
            (blas.rocblas_dznrm2)(handle, 0, null(), 1, d),
        ]
    };
    assert!(statuses.iter().all(|s| *s == rocblas_status::rocblas_status_success), "{statuses:?}");
    let named: Vec<&str> = sim::violations().iter().map(|v| v.function).collect();
    let expect = [
        "rocblas_sgemm",
        "rocblas_zgemm_strided_batched",
        "rocblas_cgemv",
        "rocblas_daxpy",
        "rocblas_zscal",
        "rocblas_sdot",
        "rocblas_cdotu",
        "rocblas_zdotc",
        "rocblas_scnrm2",
        "rocblas_dznrm2",
    ];
    assert_eq!(named, expect);
    sim::clear_violations();
    set_device(0);
    // SAFETY: the live handle, destroyed once.
    assert_eq!(unsafe { (blas.rocblas_destroy_handle)(handle) }, rocblas_status::rocblas_status_success);
    finish();
}
