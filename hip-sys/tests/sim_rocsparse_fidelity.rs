//! The simulator's rocSPARSE against what rocSPARSE 3.x does beyond its
//! results: its version and stages, the device memory of its handles, its
//! single-precision arithmetic, the CSR analysis of the first preprocess,
//! the slow path of a compute without one; and rocSPARSE 2.x, selectable,
//! with its auto stage.
//! Every test holds `sim::exclusive()`: violations, memory and library
//! objects are process-wide, and each test checks it left none behind.

mod common;
use common::libs::*;
use common::rocsparse::*;
use common::status;
use hip_sys::rocsparse::*;
use hip_sys::sim;
use std::ffi::c_void;
use std::ptr::null_mut;

/// One staged SpMV call through the table's staged entry point.
#[allow(clippy::too_many_arguments)]
fn spmv_stage<T: Num>(
    handle: rocsparse_handle,
    op: rocsparse_operation,
    mat: rocsparse_spmat_descr,
    x: rocsparse_dnvec_descr,
    y: rocsparse_dnvec_descr,
    stage: rocsparse_spmv_stage,
    size: &mut usize,
    buffer: *mut c_void,
) -> rocsparse_status {
    let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
    status!(hip_sys::rocsparse_spmv_staged(
        sparse(),
        handle,
        op,
        (&alpha as *const T).cast(),
        mat,
        x,
        (&beta as *const T).cast(),
        y,
        datatype::<T>(),
        rocsparse_spmv_alg::rocsparse_spmv_alg_default,
        stage,
        size,
        buffer
    ))
}

/// A column-major f64 dense matrix descriptor and its device array.
fn dense_mat(rows: usize, cols: usize, vals: &[f64]) -> (rocsparse_dnmat_descr, *mut c_void) {
    let p = upload(vals);
    let mut d = null_mut();
    let dt = rocsparse_datatype::rocsparse_datatype_f64_r;
    let order = rocsparse_order::rocsparse_order_column;
    sp_ok!((sparse().rocsparse_create_dnmat_descr)(&mut d, rows as i64, cols as i64, rows as i64, p, dt, order));
    (d, p)
}

#[test]
fn rocsparse_3_reports_its_version_and_has_no_auto_stage() {
    // rocSPARSE 3.0 (ROCm 6.0) removed the auto stages of SpMV and SpMM;
    // the stage argument is checked like any enum: invalid_value.
    let _g = start();
    let handle = create_handle();
    let mut version = 0;
    sp_ok!((sparse().rocsparse_get_version)(handle, &mut version));
    assert_eq!(version / 100_000, 3, "the default simulated rocSPARSE is 3.x (ROCm 6), got {version}");
    let csr = Csr::new::<f64>(0);
    let (xd, xp) = dnvec::<f64>(&[1.0; 4]);
    let (yd, yp) = dnvec::<f64>(&[0.0; 5]);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let none = rocsparse_operation::rocsparse_operation_none;
    let mut size = 0;
    for temp in [null_mut(), buffer] {
        let auto = rocsparse_spmv_stage(0);
        let got = spmv_stage::<f64>(handle, none, csr.descr, xd, yd, auto, &mut size, temp);
        assert_eq!(got, rocsparse_status::rocsparse_status_invalid_value, "spmv stage auto");
    }
    let (bd, bp) = dense_mat(4, 2, &[1.0; 8]);
    let (cd, cp) = dense_mat(5, 2, &[0.0; 10]);
    let (one, zero) = (1.0f64, 0.0f64);
    for temp in [null_mut(), buffer] {
        let got = status!((sparse().rocsparse_spmm)(
            handle,
            none,
            none,
            (&one as *const f64).cast(),
            csr.descr,
            bd,
            (&zero as *const f64).cast(),
            cd,
            rocsparse_datatype::rocsparse_datatype_f64_r,
            rocsparse_spmm_alg::rocsparse_spmm_alg_default,
            rocsparse_spmm_stage(0),
            &mut size,
            temp
        ));
        assert_eq!(got, rocsparse_status::rocsparse_status_invalid_value, "spmm stage auto");
    }
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    sp_ok!((sparse().rocsparse_destroy_dnmat_descr)(bd));
    sp_ok!((sparse().rocsparse_destroy_dnmat_descr)(cd));
    csr.destroy();
    [xp, yp, bp, cp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

#[test]
fn rocsparse_handles_hold_device_memory_of_their_device() {
    if !common::devices_at_least(2) {
        return;
    }
    // A real handle allocates a work buffer and device scalars on the
    // device current at creation, and frees them when destroyed.
    let _g = start();
    set_device(1);
    let before = (sim::live_allocations(0), sim::live_allocations(1));
    let handle = create_handle();
    assert!(sim::live_allocations(1) > before.1, "the handle took device 1's memory");
    assert_eq!(sim::live_allocations(0), before.0, "and none of device 0's");
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    assert_eq!((sim::live_allocations(0), sim::live_allocations(1)), before, "destroy frees it");
    set_device(0);
    finish();
}

#[test]
fn single_precision_spmv_computes_in_single_precision() {
    // One row [1 1 1] times x = [1e8, 1, -1e8]: in f32 arithmetic
    // 1e8 + 1 rounds to 1e8, so the sum is 0; in f64 it would be 1.
    let _g = start();
    let handle = create_handle();
    let (offsets, cols, vals) = (upload(&[0i32, 3]), upload(&[0i32, 1, 2]), upload(&[1.0f32; 3]));
    let mut mat = null_mut();
    let i32t = rocsparse_indextype::rocsparse_indextype_i32;
    sp_ok!((sparse().rocsparse_create_csr_descr)(
        &mut mat,
        1,
        3,
        3,
        offsets,
        cols,
        vals,
        i32t,
        i32t,
        rocsparse_index_base::rocsparse_index_base_zero,
        rocsparse_datatype::rocsparse_datatype_f32_r
    ));
    let (xd, xp) = dnvec::<f32>(&[1e8, 1.0, -1e8]);
    let (yd, yp) = dnvec::<f32>(&[0.0]);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let none = rocsparse_operation::rocsparse_operation_none;
    let mut size = 0;
    for stage in
        [rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute]
    {
        let got = spmv_stage::<f32>(handle, none, mat, xd, yd, stage, &mut size, buffer);
        assert_eq!(got, rocsparse_status::rocsparse_status_success);
    }
    sync();
    let sequential = (1e8f32 + 1.0f32) + -1e8f32;
    assert_eq!(download::<f32>(yp, 1), vec![sequential]);
    assert_eq!(sequential, 0.0);
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    sp_ok!((sparse().rocsparse_destroy_spmat_descr)(mat));
    [offsets, cols, vals, xp, yp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

#[test]
fn the_csr_analysis_is_made_once_per_matrix_for_the_first_operation() {
    // rocSPARSE analyses a CSR matrix at its first preprocess only, for
    // that call's operation; a later non-transposed compute on a matrix
    // analysed for the transpose is invalid_value (the analysis does not
    // match), while transposed computes never use the analysis.
    let _g = start();
    let handle = create_handle();
    let csr = Csr::new::<f64>(0);
    let (x5, x5p) = dnvec::<f64>(&[1.0; 5]);
    let (y4, y4p) = dnvec::<f64>(&[0.0; 4]);
    let (x4, x4p) = dnvec::<f64>(&[1.0; 4]);
    let (y5, y5p) = dnvec::<f64>(&[0.0; 5]);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let (none, trans) =
        (rocsparse_operation::rocsparse_operation_none, rocsparse_operation::rocsparse_operation_transpose);
    let (pre, compute) =
        (rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute);
    let mut size = 0;
    let ok = rocsparse_status::rocsparse_status_success;
    assert_eq!(spmv_stage::<f64>(handle, trans, csr.descr, x5, y4, pre, &mut size, buffer), ok);
    assert_eq!(spmv_stage::<f64>(handle, trans, csr.descr, x5, y4, compute, &mut size, buffer), ok);
    // A second preprocess, now for `none`, does not analyse again.
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, x4, y5, pre, &mut size, buffer), ok);
    assert_eq!(
        spmv_stage::<f64>(handle, none, csr.descr, x4, y5, compute, &mut size, buffer),
        rocsparse_status::rocsparse_status_invalid_value
    );
    for d in [x5, y4, x4, y5] {
        sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(d));
    }
    csr.destroy();
    [x5p, y4p, x4p, y5p, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

#[test]
fn a_compute_without_preprocess_is_recorded_as_a_slow_path() {
    // Real rocSPARSE computes a never-preprocessed CSR SpMV with its
    // general kernel, silently: the simulator records it, once per such
    // compute, and not after a preprocess.
    let _g = start();
    sim::clear_rocsparse_slow_paths();
    let handle = create_handle();
    let csr = Csr::new::<f64>(0);
    let (xd, xp) = dnvec::<f64>(&[1.0; 4]);
    let (yd, yp) = dnvec::<f64>(&[0.0; 5]);
    let buffer = malloc(sim::ROCSPARSE_BUFFER_SIZE);
    let none = rocsparse_operation::rocsparse_operation_none;
    let (pre, compute) =
        (rocsparse_spmv_stage::rocsparse_spmv_stage_preprocess, rocsparse_spmv_stage::rocsparse_spmv_stage_compute);
    let mut size = 0;
    let ok = rocsparse_status::rocsparse_status_success;
    let analyses = sim::rocsparse_analyses();
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, compute, &mut size, buffer), ok);
    let slow = sim::rocsparse_slow_paths();
    assert_eq!(slow.len(), 1, "{slow:?}");
    assert_eq!((slow[0].function, slow[0].device), ("rocsparse_spmv_ex", 0));
    assert!(slow[0].to_string().contains("preprocess"), "{}", slow[0]);
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, pre, &mut size, buffer), ok);
    assert_eq!(sim::rocsparse_analyses(), analyses + 1, "the preprocess analysed the matrix");
    let live = sim::live_allocations(0);
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, pre, &mut size, buffer), ok);
    assert_eq!(sim::rocsparse_analyses(), analyses + 1, "once per matrix");
    assert_eq!(sim::live_allocations(0), live);
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, compute, &mut size, buffer), ok);
    assert_eq!(sim::rocsparse_slow_paths().len(), 1, "no slow path after the preprocess");
    sync();
    assert_eq!(download::<f64>(yp, 5), vec![3.0, 0.0, 7.0, 18.0, -8.5]);
    sim::clear_rocsparse_slow_paths();
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    csr.destroy(); // frees the analysis's device memory too (finish checks)
    [xp, yp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}

/// Select a rocSPARSE version for the rest of the guard's life.
struct Version(sim::RocsparseVersion);

impl Version {
    fn set(version: sim::RocsparseVersion) -> Version {
        Version(sim::set_rocsparse_version(version))
    }
}

impl Drop for Version {
    fn drop(&mut self) {
        sim::set_rocsparse_version(self.0);
    }
}

#[test]
fn rocsparse_2_is_selectable_and_has_the_auto_stage() {
    let _g = start();
    assert_eq!(sim::parse_rocsparse_version("2"), Ok(sim::RocsparseVersion::V2));
    assert_eq!(sim::parse_rocsparse_version(" 3.0 "), Ok(sim::RocsparseVersion::V3));
    let bad = sim::parse_rocsparse_version("4").unwrap_err().to_string();
    assert!(bad.contains("AMDGPU_SIM_ROCSPARSE_VERSION"), "{bad}");
    let version = Version::set(sim::RocsparseVersion::V2);
    sim::clear_rocsparse_slow_paths();
    let handle = create_handle();
    let mut encoded = 0;
    sp_ok!((sparse().rocsparse_get_version)(handle, &mut encoded));
    assert_eq!(encoded, 200_504, "rocSPARSE 2.5.4, the library of ROCm 5.7.1");
    let csr = Csr::new::<f64>(0);
    let (xd, xp) = dnvec::<f64>(&[1.0; 4]);
    let (yd, yp) = dnvec::<f64>(&[0.0; 5]);
    let auto = rocsparse_spmv_stage(0);
    let none = rocsparse_operation::rocsparse_operation_none;
    let mut size = 0;
    let ok = rocsparse_status::rocsparse_status_success;
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, auto, &mut size, null_mut()), ok);
    assert_eq!(size, sim::ROCSPARSE_BUFFER_SIZE, "auto without a buffer sizes it");
    let buffer = malloc(size);
    assert_eq!(spmv_stage::<f64>(handle, none, csr.descr, xd, yd, auto, &mut size, buffer), ok);
    sync();
    assert_eq!(download::<f64>(yp, 5), vec![3.0, 0.0, 7.0, 18.0, -8.5]);
    assert_eq!(sim::rocsparse_slow_paths(), vec![], "2.x's auto stage preprocesses before computing");
    drop(version);
    assert_eq!(
        spmv_stage::<f64>(handle, none, csr.descr, xd, yd, auto, &mut size, buffer),
        rocsparse_status::rocsparse_status_invalid_value,
        "back on 3.x"
    );
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(xd));
    sp_ok!((sparse().rocsparse_destroy_dnvec_descr)(yd));
    csr.destroy();
    [xp, yp, buffer].into_iter().for_each(free);
    sp_ok!((sparse().rocsparse_destroy_handle)(handle));
    finish();
}
