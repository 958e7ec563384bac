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
